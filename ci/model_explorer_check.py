"""Checks `coreml-lint graph --format model-explorer` exports with Model Explorer itself.

    python ci/model_explorer_check.py GRAPH.json... [--browser] [--shots DIR]

For each GRAPH.json (with its node data files GRAPH.units.json, .reasons.json, .findings.json,
.macs.json beside it):

- loads the graph strictly into Model Explorer's own classes (`model_explorer.graph_builder`,
  with dacite: a missing id, a wrong type or a misspelt key fails) and each node data file into
  `model_explorer.node_data_builder`'s (its values may be strings: Model Explorer counts string
  values per category), every result keyed by a graph and a node of the export;
- with --browser, serves it with `model-explorer GRAPH --node_data_paths=… --host 127.0.0.1` and
  opens it in the system Chromium through playwright: the graph renders (a canvas, no "Processing
  graph…" left), the layers are collapsible groups, the units overlay colours the nodes, and the
  side panel lists a node's likely unit and findings;
- with --shots DIR, writes DIR/model-explorer-<name>.png.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import typing
import urllib.request
from pathlib import Path

import dacite
from model_explorer import graph_builder, node_data_builder

NODE_DATA = ["units", "reasons", "findings", "macs"]


def data_paths(graph: Path) -> list[Path]:
    return [graph.with_name(f"{graph.stem}.{s}.json") for s in NODE_DATA]


def strict(cls, data):
    return dacite.from_dict(cls, data, config=dacite.Config(strict=True))


@dataclasses.dataclass
class Result:
    """A node data result as Model Explorer reads it: a number, or a category string."""

    value: typing.Union[float, int, str]
    bgColor: typing.Optional[str] = None
    textColor: typing.Optional[str] = None


@dataclasses.dataclass
class GraphData:
    """`node_data_builder.GraphNodeData` with string values allowed."""

    results: dict[str, Result]
    name: typing.Optional[str] = None
    thresholds: list[node_data_builder.ThresholdItem] = dataclasses.field(default_factory=list)
    gradient: list[node_data_builder.GradientItem] = dataclasses.field(default_factory=list)
    showLabelCountColumnsInChildrenStatsTable: bool = False


def check_files(graph_path: Path) -> dict:
    raw = json.loads(graph_path.read_text())
    collection = strict(graph_builder.GraphCollection, raw)
    assert collection.graphs, f"{graph_path}: no graph"
    nodes = {}
    for g in collection.graphs:
        ids = {n.id for n in g.nodes}
        assert len(ids) == len(g.nodes), f"{g.id}: node ids repeat"
        for n in g.nodes:
            for e in n.incomingEdges:
                assert e.sourceNodeId in ids, f"{g.id}: {n.id} reads the unknown {e.sourceNodeId}"
        nodes[g.id] = ids
        namespaces = {n.namespace for n in g.nodes if n.namespace}
        print(f"  {g.id}: {len(g.nodes)} nodes, {len(namespaces)} namespaces")
    for path in data_paths(graph_path):
        data = json.loads(path.read_text())
        assert set(data) <= set(nodes), f"{path}: graphs {set(data) - set(nodes)} are not exported"
        for gid, d in data.items():
            gd = strict(GraphData, d)
            unknown = set(gd.results) - nodes[gid]
            assert not unknown, f"{path}: {gid}: unknown nodes {sorted(unknown)[:5]}"
            if path.stem.endswith(".units"):
                assert gd.results, f"{path}: {gid}: no node has a unit"
                assert all(r.bgColor for r in gd.results.values())
    return raw


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve(graph: Path) -> tuple[subprocess.Popen, str]:
    """Starts Model Explorer on the export; returns the process and the URL that opens it."""
    port = free_port()
    exe = Path(sys.executable).with_name("model-explorer")
    proc = subprocess.Popen(
        [
            str(exe),
            str(graph),
            "--node_data_paths=" + ",".join(str(p) for p in data_paths(graph)),
            "--no_open_in_browser",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(f"http://127.0.0.1:{port}/"):
            url = line.strip()
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
            return proc, url
    proc.kill()
    raise SystemExit("model-explorer did not start")


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no chromium on PATH (apt-get install chromium)")


def node_to_select(graph: Path, gid: str) -> tuple[str, dict]:
    """A node of graph `gid` to open in the side panel: one with a finding when there is one,
    else the first with a unit; with its results per node data file."""
    data = {s: json.loads(p.read_text()).get(gid, {}).get("results", {})
            for s, p in zip(NODE_DATA, data_paths(graph))}
    raw = json.loads(graph.read_text())
    namespace = {n["id"]: n["namespace"] for g in raw["graphs"] if g["id"] == gid for n in g["nodes"]}
    # A finding inside a layer first (the side panel then names its layer too).
    found = sorted(data["findings"], key=lambda n: (namespace.get(n, "") == "", n))
    node = next(iter(found), None) or next(iter(data["units"]))
    return node, {s: d.get(node) for s, d in data.items()}


def browse(graph: Path, raw: dict, shots: Path | None) -> None:
    import re

    from playwright.sync_api import sync_playwright

    proc, url = serve(graph)
    local = url.split("/?", 1)[0]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium(),
                args=["--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader"],
            )
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            # Every step waits as long as the slowest one may take on a busy 2-core machine: a
            # 3,000-node graph keeps the page busy for minutes (a default 30 s wait failed on
            # `inner_text` after the render took 87 s).
            page.set_default_timeout(180000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # The one outside request (a web font) gets a 404 at once: the page must not need it
            # (an aborted font request leaves the screenshot waiting for fonts).
            outside: list[str] = []

            def only_local(route) -> None:
                if route.request.url.startswith(local):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.fulfill(status=404, body="")

            page.route("**/*", only_local)
            start = time.time()
            page.goto(url, wait_until="load")
            page.wait_for_selector("canvas", timeout=120000)
            deadline = time.time() + 120
            while "Processing graph" in page.inner_text("body") and time.time() < deadline:
                time.sleep(0.5)
            text = page.inner_text("body")
            assert "Processing graph" not in text, "the graph never finished processing"
            print(f"    rendered in {time.time() - start:.1f} s")
            first = raw["graphs"][0]
            gid = first["id"]
            # The node data providers, in the order given; the first (units) made the shown one.
            for name in ("likely unit", "why that unit", "findings", "MACs"):
                assert name in text, f"no node data provider {name!r}"
            page.click(".action-icons-container .visibility >> nth=0")
            time.sleep(1)
            # The top-level layers are collapsed groups: the root-level stats list them.
            text = page.inner_text("body")
            layers = sorted({g.split("/")[0] for g in first.get("groupNodeAttributes", {})})
            missing = [g for g in layers if g not in text]
            assert not missing or len(layers) > 50, f"layers not shown: {missing[:5]}"
            print(f"    {len(layers)} top-level layers shown as groups")
            # A node opened in the side panel shows its unit, why, and its findings.
            node, results = node_to_select(graph, gid)
            search = page.locator("input[placeholder*='Search']")
            search.fill(re.escape(node), timeout=180000)
            search.press("Enter", timeout=180000)
            page.wait_for_selector(f'mat-tree-node[data-id="{node}"]', timeout=180000)
            page.click(f'mat-tree-node[data-id="{node}"] >> nth=0', modifiers=["Alt"],
                       timeout=180000)
            time.sleep(2)
            panel = page.inner_text("body")
            unit = results["units"]["value"]
            assert "likely unit" in panel and unit in panel, f"{node}: no unit {unit} in the panel"
            if results["findings"]:
                for rule in re.findall(r"(?:error|warning|info): ([a-z0-9-]+)",
                                       results["findings"]["value"]):
                    assert rule in panel, f"{node}: finding {rule} not in the panel"
                print(f"    {node}: {unit}, {results['findings']['value']} in the side panel")
            else:
                print(f"    {node}: {unit} in the side panel")
            # A production-sized graph keeps the page busy after a node is opened (the decoder
            # of bench/ took 51 s to render): the search box waits as long as the other clicks.
            page.locator("input[placeholder*='Search']").fill("", timeout=180000)
            page.keyboard.press("Escape")
            # The whole graph with its layers collapsed, the per-layer counts in the side panel.
            page.locator(".collapse-all").first.dispatch_event("click", timeout=180000)
            time.sleep(1)
            page.locator(".zoom-fit").first.dispatch_event("click", timeout=180000)
            page.mouse.move(700, 880)
            time.sleep(2)
            if shots:
                shots.mkdir(parents=True, exist_ok=True)
                out = shots / f"model-explorer-{graph.stem}.png"
                page.screenshot(path=str(out), timeout=120000)
                print(f"    wrote {out}")
            assert not errors, f"page errors: {errors}"
            assert len(set(outside)) <= 1, f"outside requests: {sorted(set(outside))}"
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("graphs", nargs="+", type=Path)
    ap.add_argument("--browser", action="store_true")
    ap.add_argument("--shots", type=Path)
    args = ap.parse_args()
    for graph in args.graphs:
        print(graph)
        raw = check_files(graph)
        if args.browser:
            browse(graph, raw, args.shots)
    print("model-explorer check passed")


if __name__ == "__main__":
    main()
