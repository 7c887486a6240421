#!/usr/bin/env bash
# Cross-checks the one-row state pad with coremltools (tests/python/fix_crosscheck.py): every corpus
# package with state-full-extent-write is fixed into a temporary folder, then loaded, type-checked,
# spec-diffed and compared with coremltools' own padded references.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:-/work/venv}/bin/python"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

cargo build --quiet
BIN=target/debug/coreml-lint
if "$BIN" check --help 2>/dev/null | grep -q -- '--fix'; then
  for rec in corpus/expected/*.json; do
    grep -q '"state-full-extent-write"' "$rec" || continue
    grep -q '"kind": "mlpackage"' "$rec" || continue
    name="$(basename "$rec" .json)"
    # Exit status reflects remaining findings (e.g. the blend warning); the check below decides.
    "$BIN" check --fix --unsafe-fixes --output "$OUT" "corpus/packages/$name.mlpackage" || true
  done
else
  echo "(coreml-lint has no --fix yet: fixing through the library test write_fixed_corpus)"
  FIX_OUT="$OUT" cargo test --quiet --test fix_packages write_fixed_corpus -- --ignored
fi
"$PY" tests/python/fix_crosscheck.py corpus "$OUT"
