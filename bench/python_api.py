"""Python `coreml_lint.check` against the CLI in the same process, on the same models.

    python bench/python_api.py [PATH] [--reps N]      (PATH: default corpus/)

Run it with a venv holding a release wheel (`maturin build --release`, then pip install it). Each
measurement is the median wall time of N runs after one warm-up:
  - api:  coreml_lint.check(PATH, config=False), diagnostics built as Python objects;
  - cli:  the `coreml-lint check --isolated --exit-zero --output-format json PATH` program called
          in process (coreml_lint._native.run_cli), stdout sent to /dev/null;
  - binary (when target/release/coreml-lint exists): the same command as a separate process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import coreml_lint
from coreml_lint import _native

ROOT = Path(__file__).resolve().parents[1]


def median_ms(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", default=str(ROOT / "corpus"))
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    argv = ["coreml-lint", "check", "--isolated", "--exit-zero", "--output-format", "json", args.path]

    def cli() -> None:
        saved = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        try:
            _native.run_cli(argv)
        finally:
            os.dup2(saved, 1)
            os.close(null)
            os.close(saved)

    diagnostics = coreml_lint.check(args.path, config=False)
    api = median_ms(lambda: coreml_lint.check(args.path, config=False), args.reps)
    in_process = median_ms(cli, args.reps)
    print(f"models under {args.path}: {len(diagnostics)} diagnostics; median of {args.reps} runs")
    print(f"  api  coreml_lint.check      {api:8.1f} ms")
    print(f"  cli  run_cli in process     {in_process:8.1f} ms")
    print(f"  api / cli                   {api / in_process:8.3f}")
    binary = ROOT / "target/release/coreml-lint"
    if binary.is_file():
        proc = median_ms(
            lambda: subprocess.run([str(binary), *argv[1:]], stdout=subprocess.DEVNULL, check=True),
            args.reps,
        )
        print(f"  binary as a process         {proc:8.1f} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
