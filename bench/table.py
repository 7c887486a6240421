#!/usr/bin/env python3
"""Print the markdown tables of a `bench/run.sh` run: `table.py RESULTS_DIR SUMMARY_JSON`."""

import json
import statistics
import sys
from pathlib import Path


def times(res: Path, name):
    """{command name: hyperfine result} of one hyperfine export."""
    data = json.loads((res / f"{name}.json").read_text())
    return {r["command"]: r for r in data["results"]}


def ms(r):
    return r["median"] * 1000


def cpu(r):
    """Mean user + system CPU time in ms: less sensitive than wall time to a busy machine."""
    return (r["user"] + r["system"]) * 1000


def rss_mb(res: Path, name):
    """Median peak RSS in MB (10^6 bytes; `time -f %M` reports KiB)."""
    vals = [int(x) for x in (res / f"rss-{name}.txt").read_text().split()]
    return statistics.median(vals) * 1024 / 1e6


def fmt(x, digits=1):
    return f"{x:.{digits}f}"


def main():
    res, summary = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    lint = (res / "lint-command").read_text().strip()
    loads = dict(line.split(" ", 1) for line in (res / "load.txt").read_text().splitlines())
    print((res / "machine.txt").read_text().strip().replace("\n", "; "))
    print()
    print(f"Lint command: `coreml-lint {lint}`; medians of "
          f"{len(times(res, 'decoder-32l')['floor']['times'])} runs (hyperfine, 2 warm-ups).")
    print()

    print("The three-way comparison (issue 16): the lint as a whole process against the zero-copy "
          "wire walk of the same `model.mlmodel` (the floor) and against coremltools' "
          "load-and-walk process; the prost decode of the whole `Model` for reference.")
    print()
    print("| package | weight.bin | ops (infer / prefill) | lint human ms | lint json ms "
          "| floor (wire walk) ms | prost decode ms | coremltools ms (process / load+walk / load) "
          "| lint / floor | coremltools process / lint | CPU ms: lint json / floor / coremltools "
          "| peak RSS MB: lint human / lint json / floor / coremltools | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for v in ("decoder-32l", "decoder-32l-1gb"):
        t = times(res, v)
        s = summary[v]
        ops = s["functions"]
        inproc = statistics.median(
            int(x) for x in (res / f"inproc-{v}-coremltools.txt").read_text().split())
        load_only = statistics.median(
            int(x) for x in (res / f"inproc-load-{v}-coremltools.txt").read_text().split())
        human, json_ = ms(t["lint-human"]), ms(t["lint-json"])
        worst = max(human, json_)
        floor = ms(t["floor"])
        ct = ms(t["coremltools"])
        rss = max(rss_mb(res, v + "-lint-human"), rss_mb(res, v + "-lint-json"))
        print(
            f"| `{v}` | {s['weight_bin_bytes'] / 2**20:.0f} MiB "
            f"({s['weight_bin_allocated_bytes'] / 2**20:.0f} MiB on disk) "
            f"| {ops['infer']['ops']} / {ops['prefill']['ops']} "
            f"| {fmt(human)} | {fmt(json_)} | {fmt(floor)} | {fmt(ms(t['prost-decode']))} "
            f"| {fmt(ct, 0)} / {inproc} / {load_only} "
            f"| {fmt(human / floor)} (human), {fmt(json_ / floor)} (json) "
            f"| {fmt(ct / human)}x (human), {fmt(ct / json_)}x (json) "
            f"| {fmt(cpu(t['lint-json']), 0)} / {fmt(cpu(t['floor']), 0)} / "
            f"{fmt(cpu(t['coremltools']), 0)} "
            f"| {fmt(rss_mb(res, v + '-lint-human'))} / {fmt(rss_mb(res, v + '-lint-json'))} / "
            f"{fmt(rss_mb(res, v + '-floor'))} / {fmt(rss_mb(res, v + '-coremltools'))} "
            f"| {loads[v]} |"
        )
        verdicts.append((v, worst / floor, ct / worst, rss))
    print()
    print("Goals (the slower of the two output formats, the larger RSS):")
    print()
    for v, ratio, speedup, rss in verdicts:
        print(f"- `{v}`: lint / floor {fmt(ratio)} (goal <= 3: {'met' if ratio <= 3 else 'MISSED'}); "
              f"coremltools process / lint {fmt(speedup)}x (goal >= 50: "
              f"{'met' if speedup >= 50 else 'MISSED'}); peak RSS {fmt(rss)} MB (goal <= 20: "
              f"{'met' if rss <= 20 else 'MISSED'})")
    print()

    t = times(res, "scaling")
    print(f"Scaling (lint json; load avg {loads['scaling']}):")
    print()
    print("| layers | ops (both functions) | median ms | µs per op | CPU ms | CPU µs per op | "
          "peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for n in (1, 8, 32, 64):
        name = f"decoder-{n}l"
        ops = sum(f["ops"] for f in summary[name]["functions"].values())
        m = ms(t[name])
        c = cpu(t[name])
        print(f"| {n} | {ops} | {fmt(m)} | {fmt(1000 * m / ops, 2)} | {fmt(c)} | "
              f"{fmt(1000 * c / ops, 2)} | {fmt(rss_mb(res, 'scaling-' + name))} |")
    print()

    t = times(res, "folder")
    ops = sum(f["ops"] for f in summary["folder-100/model-000"]["functions"].values())
    print(f"Folder of 100 small models ({ops} ops each; load avg {loads['folder']}):")
    print()
    print("| command | median ms | CPU ms |")
    print("|---|---|---|")
    for name, r in t.items():
        print(f"| {name} | {fmt(ms(r))} | {fmt(cpu(r))} |")
    print()
    print(f"lint 2 threads peak RSS: {fmt(rss_mb(res, 'folder-lint-2-threads'))} MB")


if __name__ == "__main__":
    main()
