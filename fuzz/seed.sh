#!/usr/bin/env bash
# Copies seeds from the repository's corpus/ into fuzz/corpus/<target>/ (git-ignored).
# Usage: fuzz/seed.sh [target…]   (default: every target). Needs python3 for the binary seeds.
# Also takes small model.mil files from ../shared/realworld when that folder exists (never committed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(mil_text blob_file model_proto pipeline aimodel_bytecode aimodel_program)

for t in "${targets[@]}"; do
    mkdir -p "$here/corpus/$t"
    python3 "$here/seeds.py" "$t" "$repo" "$here/corpus/$t"
    echo "$t: $(ls "$here/corpus/$t" | wc -l) seeds in fuzz/corpus/$t"
done
