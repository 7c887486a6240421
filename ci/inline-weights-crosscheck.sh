#!/usr/bin/env bash
# Cross-checks the inline-weights fix (issue 47, G2) with coremltools
# (tests/python/inline_weights_crosscheck.py): every corpus package with inline-weights is fixed
# into a temporary folder (`--select inline-weights --fix --output`, which must leave no finding),
# then loaded, type-checked with its weights, and its consts compared bit for bit with the original;
# a package that had no weight.bin (inline-weights-no-blob) must have gained one and the `weights`
# item of its Manifest.json.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:?set VENV to a venv with coremltools 9.0}/bin/python"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

cargo build --quiet
BIN=target/debug/coreml-lint
for rec in corpus/expected/*.json; do
  grep -q '"inline-weights"' "$rec" || continue
  grep -q '"kind": "mlpackage"' "$rec" || continue
  rel="$(sed -n 's/^  "path": "\(.*\)",$/\1/p' "$rec")"
  status=0
  "$BIN" check --quiet --select inline-weights --fix --output "$OUT" "corpus/$rel" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "coreml-lint check --fix left inline-weights or failed on $rel (exit $status)" >&2
    exit 1
  fi
done
"$PY" tests/python/inline_weights_crosscheck.py corpus "$OUT"
