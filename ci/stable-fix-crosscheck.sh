#!/usr/bin/env bash
# Cross-checks the exact rewrite of fp16 softplus, Mish, logsumexp and log_softmax
# (ane-fp16-exp-overflow, FIELD-HAZARDS-4.md G1) with coremltools and numpy
# (tests/python/stable_fix_crosscheck.py): every corpus package with such a finding is fixed into a
# temporary folder (the re-check must find none of the rule's warnings: exit 0 with only this rule
# selected), then loaded, type-checked and evaluated against the original in fp32 and with fp16
# rounding where the original overflows.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:?run from .ci/run, which sets VENV}/bin/python"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

cargo build --quiet
BIN=target/debug/coreml-lint
for rec in corpus/expected/*.json; do
  grep -q '"ane-fp16-exp-overflow"' "$rec" || continue
  grep -q '"kind": "mlpackage"' "$rec" || continue
  rel="$(sed -n 's/^  "path": "\(.*\)",$/\1/p' "$rec")"
  status=0
  "$BIN" check --quiet --select ane-fp16-exp-overflow --fix --output "$OUT" "corpus/$rel" || status=$?
  # logcumsumexp has no exact rewrite: its finding stays (exit 1); 2 or a crash fails the script.
  if [[ $status -gt 1 ]]; then
    echo "coreml-lint check --fix failed on $rel (exit $status)" >&2
    exit 1
  fi
done
"$PY" tests/python/stable_fix_crosscheck.py corpus "$OUT"
