#!/usr/bin/env bash
# Cross-checks the MIL op table (rules/opset/ops.yaml) with coremltools: for every op of every opset
# coremltools registers (iOS15 … iOS18), the same parameters, required flags, constant flags, kinds
# and dtypes (tests/python/opset_table.py). Then lints programs coremltools' own builder and
# converter write for each opset (tests/python/opset_programs.py): no `mil-*` finding is allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:?run from .ci/run, which sets VENV}/bin/python"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

"$PY" tests/python/opset_table.py check rules/opset/ops.yaml
cargo build --quiet
"$PY" tests/python/opset_programs.py "$OUT"
# Exit 0: no finding of any `mil-*` rule; 1 (findings) or 2 (unreadable) fails the script.
target/debug/coreml-lint check --select mil --output-format concise "$OUT"
