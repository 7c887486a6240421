#!/usr/bin/env bash
# The instruction-count guard (issue 37): bench/instructions.sh on the package bench/generate.py
# writes fails CI when `coreml-lint check` costs more instructions, as a multiple of the wire walk
# of its model.mlmodel, than bench/instruction-budget allows. Counts, not times: the machine's load
# does not change them. Then shows the guard can fail: with --max-ratio 0.5 it must exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:?run from .ci/run, which sets VENV}/bin/python"

if ! command -v valgrind >/dev/null; then
  apt-get update -qq && apt-get install -y -qq valgrind
fi
PKG=bench/out/decoder-32l.mlpackage
if [[ ! -d $PKG ]]; then
  "$PY" bench/generate.py --only main
fi

bench/instructions.sh "$PKG"

rc=0
bench/instructions.sh --no-build --max-ratio 0.5 "$PKG" >/dev/null 2>&1 || rc=$?
if [[ $rc != 1 ]]; then
  echo "FAIL: bench/instructions.sh --max-ratio 0.5 exited $rc, not 1" >&2
  exit 1
fi
