"""Loads coreml-lint HTML reports in headless Chromium over the DevTools protocol (standard
library only) at a 1300 px wide window and checks them: no console error or exception, every
finding has its picture, every visible picture fits its box (its bounding box inside its
container's, nothing to scroll) and a finding's picture draws its 12 px labels at 9 px or more
by default, the filters change what is shown, and a screenshot is not blank.

    python ci/html_browser.py REPORT.html [--shots DIR] [--expect-findings N]
    python ci/html_browser.py --notebook FRAGMENT.html

With --notebook each REPORT is a notebook view (`Report._repr_html_()`) and is checked in output
cells 560, 720 and 900 px wide: the findings come before the placement, whose table stays inside
the cell.

With --shots it also writes the screenshots of a state finding, of an overview and of the
placement summary, and html-report.png (a state finding, as README shows it: docs/html-report.png
comes from `ci/html-browser.sh --shots docs`).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib


#: The window's width: the issue's measure (a laptop browser).
WIDTH = 1300
#: A finding's picture draws its 12 px labels at 9 px or more (svg.rs MIN_SCALE), less 1 % for
#: rounding.
MIN_SCALE = 0.75 * 0.99


class DevTools:
    """A minimal WebSocket client speaking the DevTools protocol to one page."""

    def __init__(self, ws_url: str) -> None:
        rest = ws_url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"WebSocket handshake failed: {head[:200]!r}")
        self.buffer = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0
        self.events: list[dict] = []

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack(">H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack(">Q", n)
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _message(self) -> dict:
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            data += self._read(n)
            if b0 & 0x80:
                return json.loads(data)

    def call(self, method: str, **params: object) -> dict:
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = self._message()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def evaluate(self, expression: str) -> object:
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no chromium on PATH (apt-get install chromium)")


def start_browser(profile: str) -> tuple[subprocess.Popen, str]:
    port_sock = socket.socket()
    port_sock.bind(("127.0.0.1", 0))
    port = port_sock.getsockname()[1]
    port_sock.close()
    proc = subprocess.Popen(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--remote-debugging-port={port}",
            f"--window-size={WIDTH},1000",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if pages:
                return proc, pages[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("chromium did not open its DevTools port")


def png_is_blank(png: bytes) -> bool:
    """True when every pixel of an 8-bit RGB(A) PNG has one colour."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return True
    pos, idat, width, channels = 8, b"", 0, 4
    while pos < len(png):
        n = struct.unpack(">I", png[pos : pos + 4])[0]
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width = struct.unpack(">I", body[:4])[0]
            channels = {2: 3, 6: 4}.get(body[9], 4)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    colours = set()
    prev = bytearray(stride - 1)
    for row in range(len(raw) // stride):
        line = raw[row * stride : (row + 1) * stride]
        f, data = line[0], bytearray(line[1:])
        for i in range(len(data)):
            a = data[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                data[i] = (data[i] + a) & 0xFF
            elif f == 2:
                data[i] = (data[i] + b) & 0xFF
            elif f == 3:
                data[i] = (data[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                data[i] = (data[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        prev = data
        if row % 16 == 0:
            for x in range(0, width * channels, channels * 7):
                colours.add(bytes(data[x : x + 3]))
            if len(colours) > 8:
                return False
    return len(colours) <= 8


def screenshot(dt: DevTools, selector: str, path: str | None) -> bytes:
    rect = dt.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        " if (!e) return null; e.scrollIntoView(); const r = e.getBoundingClientRect();"
        " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()"
    )
    if not rect:
        raise AssertionError(f"nothing matches {selector}")
    x, y, w, h = rect
    clip = {"x": x, "y": y, "width": min(w, WIDTH), "height": min(h, 1400), "scale": 1}
    data = base64.b64decode(
        dt.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)[
            "data"
        ]
    )
    if path:
        with open(path, "wb") as f:
            f.write(data)
    return data


FIT = """(() => {
  const out = { checked: 0, overflow: [], small: [], minScale: 1 };
  document.querySelectorAll('.picture svg, .zoom svg').forEach(svg => {
    const box = svg.parentElement, r = svg.getBoundingClientRect(), c = box.getBoundingClientRect();
    if (r.width === 0 || svg.closest('.hidden')) return;
    out.checked += 1;
    const where = (svg.closest('article') || box).id || svg.closest('article').querySelector('h3').textContent;
    const edge = 0.5, b = parseFloat(getComputedStyle(box).borderLeftWidth) || 0;
    if (r.left < c.left - edge || r.right > c.right + edge || r.top < c.top - edge
        || r.bottom > c.bottom + edge || box.scrollWidth > box.clientWidth + 1
        || box.scrollHeight > box.clientHeight + 1) {
      out.overflow.push(`${where}: ${Math.round(r.width)}x${Math.round(r.height)} in ${Math.round(c.width - 2 * b)}x${Math.round(c.height - 2 * b)}`);
    }
    if (box.classList.contains('picture')) {
      const v = svg.getAttribute('viewBox').split(' ').map(Number);
      const scale = Math.min(r.width / v[2], r.height / v[3]);
      out.minScale = Math.min(out.minScale, scale);
      if (scale < %s) out.small.push(`${where}: drawn at ${scale.toFixed(2)}`);
    }
  });
  return out;
})()""" % MIN_SCALE


def fit_problems(dt: DevTools) -> list[str]:
    """Every visible picture inside its box, a finding's picture legible."""
    fit = dt.evaluate(FIT)
    print(
        f"  {fit['checked']} pictures measured at {WIDTH} px: {len(fit['overflow'])} overflow their box,"
        f" {len(fit['small'])} drawn below {MIN_SCALE:.2f} (smallest {fit['minScale']:.2f})"
    )
    problems = [f"picture overflows its box: {o}" for o in fit["overflow"][:20]]
    problems += [f"picture too small to read: {o}" for o in fit["small"][:20]]
    if fit["checked"] == 0:
        problems.append("no picture measured")
    return problems


WIDE = """(() => {
  const out = [], w = window.innerWidth;
  if (document.documentElement.scrollWidth > w) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px`);
  document.querySelectorAll('table').forEach(t => {
    const r = t.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 0.5) out.push(`a table ends at ${Math.round(r.right)} px: ${t.className}`);
  });
  document.querySelectorAll('article.overview.layered').forEach(a => {
    const rows = a.querySelectorAll(':scope .layers > .ly').length, c = a.getBoundingClientRect();
    if (rows > 60) out.push(`${a.id}: ${rows} rows`);
    a.querySelectorAll('.rw').forEach(r => {
      const b = r.getBoundingClientRect();
      if (b.width > 0 && b.right > c.right + 0.5) out.push(`${a.id}: a row ends past its overview`);
    });
  });
  return out;
})()"""


def width_problems(dt: DevTools) -> list[str]:
    """No table or layered overview wider than the window; a layered overview of at most 60 rows."""
    wide = dt.evaluate(WIDE)
    layered = dt.evaluate("document.querySelectorAll('article.overview.layered').length")
    print(f"  tables and {layered} layered overviews at {WIDTH} px: {len(wide)} too wide")
    return wide[:20]


def readme_shot(dt: DevTools, article: str, path: str) -> None:
    """A finding as README shows it: its box (at most 900 px tall), drawn at 70 %."""
    rect = dt.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(article)}); e.scrollIntoView();"
        " const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()"
    )
    x, y, w, h = rect
    clip = {"x": x - 4, "y": y - 4, "width": w + 8, "height": min(h, 900) + 8, "scale": 0.7}
    data = base64.b64decode(
        dt.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)["data"]
    )
    if png_is_blank(data):
        raise AssertionError(f"the screenshot of {article} is blank")
    with open(path, "wb") as f:
        f.write(data)


def check(report: str, shots: str | None, expect: int | None) -> list[str]:
    problems: list[str] = []
    profile = tempfile.mkdtemp(prefix="coreml-lint-chromium-")
    proc, ws = start_browser(profile)
    try:
        dt = DevTools(ws)
        dt.call("Runtime.enable")
        dt.call("Log.enable")
        dt.call("Page.enable")
        dt.call(
            "Emulation.setDeviceMetricsOverride",
            width=WIDTH,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
        started = time.time()
        dt.call("Page.navigate", url="file://" + os.path.abspath(report))
        while dt.evaluate("document.readyState") != "complete":
            time.sleep(0.1)
        loaded = time.time() - started
        findings = dt.evaluate("document.querySelectorAll('article.finding').length")
        # A picture two findings draw is stored once; the page's script copies it into each.
        nodes_of = "(svg => svg.querySelectorAll('.node').length)"
        with_picture = dt.evaluate(
            f"Array.from(document.querySelectorAll('article.finding')).filter(a => {{"
            f" const s = a.querySelector('.picture svg.graph'); return (s && {nodes_of}(s) > 0)"
            " || a.querySelector('.picture.none'); }).length"
        )
        pictures = dt.evaluate(
            f"Array.from(document.querySelectorAll('article.finding .picture svg')).reduce((n, s) => n + {nodes_of}(s), 0)"
        )
        stored = dt.evaluate("document.querySelectorAll('svg.store defs > g').length")
        overviews = dt.evaluate("document.querySelectorAll('article.overview svg.graph').length")
        print(
            f"{report}: loaded in {loaded:.1f} s, {findings} findings, {with_picture} with a picture"
            f" ({pictures} boxes, {stored} pictures stored once for several findings), {overviews} overviews"
        )
        problems += fit_problems(dt)
        problems += width_problems(dt)
        uses = dt.evaluate("document.querySelectorAll('.picture svg use').length")
        if uses:
            problems.append(f"{uses} stored pictures were not copied into their findings")
        tooltip = dt.evaluate(
            "(() => { const n = document.querySelector('.picture svg .node'); if (!n) return null;"
            " n.querySelector('rect').dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));"
            " const t = n.querySelector('title'); return t ? t.textContent : ''; })()"
        )
        if tooltip is not None and not tooltip:
            problems.append("a box shows no tooltip")
        black = dt.evaluate(
            "Array.from(document.querySelectorAll('.picture svg .node > rect:first-of-type'))"
            ".filter(r => getComputedStyle(r).fill === 'rgb(0, 0, 0)').length"
        )
        if black:
            problems.append(f"{black} boxes of the findings' pictures are drawn without the stylesheet")
        if expect is not None and findings != expect:
            problems.append(f"{findings} findings in the page, expected {expect}")
        if with_picture != findings:
            problems.append(f"{findings - with_picture} findings have no picture")
        if overviews == 0:
            problems.append("no overview picture")
        if findings:
            shown = lambda: dt.evaluate(  # noqa: E731
                "document.querySelectorAll('article.finding:not(.hidden)').length"
            )
            before = shown()
            rule = dt.evaluate(
                "(() => { const i = document.querySelector('.filter-group[data-dim=rule] input');"
                " i.click(); return i.value; })()"
            )
            after_rule = shown()
            of_rule = dt.evaluate(
                f"document.querySelectorAll('article.finding[data-rule={json.dumps(rule)}]').length"
            )
            if after_rule != before - of_rule or of_rule == 0:
                problems.append(
                    f"unticking rule {rule} shows {after_rule} of {before} findings"
                    f" ({of_rule} are of that rule)"
                )
            dt.evaluate("document.querySelector('.filter-group[data-dim=rule] input').click()")
            dt.evaluate("document.querySelector('.filter-group[data-dim=severity] input').click()")
            errors = dt.evaluate("document.querySelectorAll('article.finding[data-severity=error]').length")
            if shown() != before - errors:
                problems.append("unticking severity error does not hide the errors")
            dt.evaluate("document.querySelector('.filter-group[data-dim=severity] input').click()")
            dt.evaluate("document.querySelector('.filter-group[data-dim=model] input').click()")
            hidden_overviews = dt.evaluate("document.querySelectorAll('article.overview.hidden').length")
            if hidden_overviews == 0:
                problems.append("unticking a model hides none of its overviews")
            dt.evaluate("document.querySelector('.filter-group[data-dim=model] input').click()")
            if shown() != before:
                problems.append("ticking every filter again does not show every finding")
            linked = dt.evaluate(
                "(() => { const a = document.querySelector('a.to-overview[data-box]:not([data-box=\"\"])');"
                " if (!a) return null; a.click(); return document.querySelectorAll('.node.target').length; })()"
            )
            if linked is not None and linked != 1:
                problems.append(f"a finding's overview link marks {linked} boxes")
            row = dt.evaluate(
                "(() => { const a = Array.from(document.querySelectorAll('a.to-overview[data-box]'))"
                ".find(a => /-l[0-9]+$/.test(a.dataset.box)); if (!a) return null; a.click();"
                " const t = document.querySelectorAll('.ly.target'); return t.length === 1 && t[0].open"
                " && t[0].getBoundingClientRect().height > 0; })()"
            )
            if row is False:
                problems.append("a finding's link to its layer row does not open and mark it")
            if linked is None and row is None:
                problems.append("no finding links to its overview")
        page = screenshot(dt, "body", None)
        if png_is_blank(page):
            problems.append("the screenshot is blank")
        if shots:
            os.makedirs(shots, exist_ok=True)
            state = dt.evaluate(
                "(() => { const a = document.querySelector('article.finding[data-rule=state-blend-rmw]')"
                " || document.querySelector('article.finding[data-rule^=state-]'); return a && a.id; })()"
            )
            if state:
                screenshot(dt, f"#{state}", os.path.join(shots, "html-report-state-finding.png"))
                readme_shot(dt, state, os.path.join(shots, "html-report.png"))
            screenshot(dt, "#summary", os.path.join(shots, "html-report-placement.png"))
            big = dt.evaluate(
                "(() => { let best = null, n = -1; document.querySelectorAll('article.overview').forEach(a =>"
                " { const k = a.querySelectorAll('.node').length; if (k > n) { n = k; best = a; } });"
                " return best && best.id; })()"
            )
            if big:
                screenshot(dt, f"#{big}", os.path.join(shots, "html-report-overview.png"))
            layered = dt.evaluate(
                "(() => { let best = null, n = -1; document.querySelectorAll('article.overview.layered').forEach(a =>"
                " { const k = a.querySelectorAll('.ly').length; if (k > n) { n = k; best = a; } });"
                " return best && best.id; })()"
            )
            if layered:
                screenshot(dt, f"#{layered}", os.path.join(shots, "html-report-layers.png"))
        for e in dt.events:
            method = e.get("method")
            params = e.get("params", {})
            if method == "Runtime.exceptionThrown":
                problems.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                problems.append(f"console error: {params.get('args')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                problems.append(f"log error: {params['entry'].get('text')}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    return problems


#: Output cells of a notebook (JupyterLab's rendered-HTML table rules, the cell's width in px).
NOTEBOOK_CELLS = (560, 720, 900)
NOTEBOOK_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; font-size: 14px; }
.cell { width: %dpx; padding: 0 8px; }
.jp-RenderedHTMLCommon table { border-collapse: collapse; table-layout: fixed; margin: 0 auto 1em; font-size: 12px; }
.jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { text-align: right; padding: 0.5em; white-space: normal; max-width: none; }
</style></head><body><div class="cell jp-RenderedHTMLCommon">%s</div></body></html>"""

NOTEBOOK = """(() => {
  const cell = document.querySelector('.cell').getBoundingClientRect();
  const table = document.querySelector('table.placement');
  const finding = document.querySelector('article.finding');
  const heading = [...document.querySelectorAll('h2, h3')].find(h => h.textContent.startsWith('Likely placement'));
  const out = [];
  if (!table || !heading) return ['no placement table'];
  if (finding && finding.getBoundingClientRect().top > heading.getBoundingClientRect().top)
    out.push('the placement comes before the findings');
  const t = table.getBoundingClientRect();
  if (t.right > cell.right + 0.5) out.push(`the placement table ends at ${Math.round(t.right)} px, past the cell's ${Math.round(cell.right)}`);
  const over = [...table.querySelectorAll('td')].filter(td => td.scrollWidth > td.clientWidth + 1);
  if (over.length) out.push(`${over.length} table cells overflow, the first: ${over[0].textContent.slice(0, 40)}`);
  return out;
})()"""


def check_notebook(fragment: str) -> list[str]:
    """A notebook view (`Report._repr_html_()`, saved to FRAGMENT) in output cells of several
    widths: the findings before the placement, whose table stays inside the cell."""
    html = open(fragment, encoding="utf-8").read()
    problems: list[str] = []
    profile = tempfile.mkdtemp(prefix="coreml-lint-chromium-")
    proc, ws = start_browser(profile)
    try:
        dt = DevTools(ws)
        dt.call("Page.enable")
        for width in NOTEBOOK_CELLS:
            page = os.path.join(profile, f"cell-{width}.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write(NOTEBOOK_PAGE % (width, html))
            dt.call("Page.navigate", url="file://" + page)
            time.sleep(0.5)
            while dt.evaluate("document.readyState") != "complete":
                time.sleep(0.1)
            found = dt.evaluate(NOTEBOOK)
            print(f"  notebook cell of {width} px: {len(found)} problems")
            problems += [f"{width} px: {p}" for p in found[:20]]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    return problems


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--shots")
    ap.add_argument("--expect-findings", type=int)
    ap.add_argument(
        "--notebook",
        action="store_true",
        help="the reports are notebook views (Report._repr_html_()): check them in output cells",
    )
    args = ap.parse_args()
    failed = 0
    for report in args.reports:
        found = check_notebook(report) if args.notebook else check(report, args.shots, args.expect_findings)
        for p in found:
            print(f"FAIL {report}: {p}")
            failed += 1
    print(f"html browser check: {len(args.reports)} reports, {failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
