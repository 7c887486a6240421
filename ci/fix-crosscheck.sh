#!/usr/bin/env bash
# Cross-checks the state fix (wrapper removal, one-row pad) with coremltools (tests/python/fix_crosscheck.py): every corpus
# package with state-full-extent-write is fixed into a temporary folder, then loaded, type-checked,
# spec-diffed and compared with coremltools' own padded references. Pipelines are fixed the same
# way and checked sub-model by sub-model (tests/python/pipeline_crosscheck.py). Packages with
# pow-const-base-two get the pow rewrite (tests/python/pow_fix_crosscheck.py). Packages and pipelines
# with gather-float-indices, affine-dequantize-int8 or mask-nonfinite-const get the exact value
# fixes (--fix --unsafe-fixes: the mask fix is unsafe) into a folder of their own (tests/python/exact_fix_crosscheck.py:
# loads, type-checks, int32 gathers, bit-identical dequantized weights, finite masks).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:?run from .ci/run, which sets VENV}/bin/python"
OUT="$(mktemp -d)"
EXACT="$(mktemp -d)"
trap 'rm -rf "$OUT" "$EXACT"' EXIT

cargo build --quiet
BIN=target/debug/coreml-lint
for rec in corpus/expected/*.json; do
  grep -q '"state-full-extent-write"' "$rec" || continue
  grep -Eq '"kind": "(mlpackage|pipeline)"' "$rec" || continue
  name="$(basename "$rec" .json)"
  rel="$(sed -n 's/^  "path": "\(.*\)",$/\1/p' "$rec")"
  # Exit 1 means findings remain (e.g. the padded blend's warning); 2 or a crash fails the script.
  status=0
  "$BIN" check --quiet --fix --output "$OUT" "corpus/$rel" || status=$?
  if [[ $status -gt 1 ]]; then
    echo "coreml-lint check --fix failed on $name (exit $status)" >&2
    exit 1
  fi
done
for rec in corpus/expected/*.json; do
  grep -q '"pow-const-base-two"' "$rec" || continue
  rel="$(sed -n 's/^  "path": "\(.*\)",$/\1/p' "$rec")"
  status=0
  "$BIN" check --quiet --select pow-const-base-two --fix --output "$OUT" "corpus/$rel" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "coreml-lint check --fix left pow-const-base-two or failed on $rel (exit $status)" >&2
    exit 1
  fi
done
EXACT_RULES=gather-float-indices,affine-dequantize-int8,mask-nonfinite-const
for rec in corpus/expected/*.json; do
  grep -Eq '"(gather-float-indices|affine-dequantize-int8|mask-nonfinite-const)"' "$rec" || continue
  grep -Eq '"kind": "(mlpackage|pipeline)"' "$rec" || continue
  rel="$(sed -n 's/^  "path": "\(.*\)",$/\1/p' "$rec")"
  status=0
  "$BIN" check --quiet --select "$EXACT_RULES" --fix --unsafe-fixes --output "$EXACT" "corpus/$rel" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "coreml-lint check --fix --unsafe-fixes left a finding of $EXACT_RULES or failed on $rel (exit $status)" >&2
    exit 1
  fi
done
"$PY" tests/python/fix_crosscheck.py corpus "$OUT"
"$PY" tests/python/pow_fix_crosscheck.py corpus "$OUT"
"$PY" tests/python/pipeline_crosscheck.py corpus "$OUT"
"$PY" tests/python/exact_fix_crosscheck.py corpus "$EXACT"
