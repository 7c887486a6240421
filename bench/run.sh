#!/usr/bin/env bash
# Benchmark coreml-lint against the zero-copy wire-walk floor (examples/wire_walk.rs), the prost
# decode of the whole Model (examples/decode_floor.rs) and coremltools; prints markdown tables.
#
#   bench/run.sh            # build --release, generate bench/out if absent, measure, print
#   RUNS=10 bench/run.sh    # more runs per measurement (default 15; medians are reported)
#   REGEN=1 bench/run.sh    # regenerate bench/out first
#
# Needs: cargo, hyperfine, /usr/bin/time (GNU), and the coremltools venv (PY, default
# /work/venv/bin/python; `pip install -r corpus/requirements.txt`). Raw results go to
# bench/out/results/ (hyperfine JSON, RSS samples, load averages); bench/table.py prints the tables.
set -euo pipefail

cd "$(dirname "$0")/.."
PY=${PY:-/work/venv/bin/python}
RUNS=${RUNS:-15}
OUT=bench/out
RES=$OUT/results
LINT=target/release/coreml-lint
FLOOR=target/release/examples/wire_walk
DECODE=target/release/examples/decode_floor

for tool in hyperfine /usr/bin/time cargo; do
    command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }
done

cargo build --release --bin coreml-lint --example wire_walk --example decode_floor

if [[ -n "${REGEN:-}" || ! -f $OUT/summary.json ]]; then
    "$PY" bench/generate.py
fi
rm -rf "$RES"
mkdir -p "$RES"

LINT_HUMAN="$LINT check"
LINT_JSON="$LINT check --output-format json"
echo "check" >"$RES/lint-command"
WALK="$PY bench/walk_coremltools.py"

# Record the machine and its load.
{
    echo "nproc: $(nproc)"
    lscpu | grep -i 'model name' | sed 's/  */ /g'
    free -m | awk '/Mem:/ {print "memory: " $2 " MiB"}'
    echo "rustc: $(rustc --version)"
    echo "coremltools: $("$PY" -c 'import coremltools as ct; print(ct.__version__)' 2>/dev/null)"
} >"$RES/machine.txt"

load() { awk '{print $1, $2, $3}' /proc/loadavg; }

# hyperfine NAME CMD...: medians of $RUNS runs (non-zero exits allowed: findings exit 1).
hf() {
    local name=$1
    shift
    echo "$name $(load)" >>"$RES/load.txt"
    hyperfine -N -i --warmup 2 --runs "$RUNS" --style none \
        --export-json "$RES/$name.json" "$@" >/dev/null
}

# rss NAME CMD: peak RSS (KiB) of 5 runs, one per line (the table prints their median).
rss() {
    local name=$1
    shift
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f "%M" -o "$RES/rss.tmp" "$@" >/dev/null 2>&1 || true
        tail -n 1 "$RES/rss.tmp" >>"$RES/rss-$name.txt"
    done
    rm -f "$RES/rss.tmp"
}

for variant in decoder-32l decoder-32l-1gb; do
    pkg=$OUT/$variant.mlpackage
    echo "measuring $variant" >&2
    hf "$variant" \
        -n lint-human "$LINT_HUMAN $pkg" \
        -n lint-json "$LINT_JSON $pkg" \
        -n coremltools "$WALK $pkg" \
        -n floor "$FLOOR $pkg" \
        -n prost-decode "$DECODE $pkg"
    rss "$variant-lint-human" $LINT_HUMAN "$pkg"
    rss "$variant-lint-json" $LINT_JSON "$pkg"
    rss "$variant-coremltools" $WALK "$pkg"
    rss "$variant-floor" "$FLOOR" "$pkg"
    rss "$variant-prost-decode" "$DECODE" "$pkg"
    # In-process times of coremltools (without interpreter start and import): load+walk, and
    # the load (`MLModel` + `get_spec()`) alone.
    for _ in $(seq "$RUNS"); do
        line=$($WALK "$pkg" 2>&1 >/dev/null)
        grep -o 'load+walk [0-9]* ms' <<<"$line" | grep -o '[0-9]*' \
            >>"$RES/inproc-$variant-coremltools.txt"
        grep -o '; load [0-9]* ms' <<<"$line" | grep -o '[0-9]*' \
            >>"$RES/inproc-load-$variant-coremltools.txt"
    done
done

echo "measuring scaling" >&2
scaling=()
for n in 1 8 32 64; do
    scaling+=(-n "decoder-${n}l" "$LINT_JSON $OUT/decoder-${n}l.mlpackage")
done
hf scaling "${scaling[@]}"
for n in 1 8 32 64; do
    rss "scaling-decoder-${n}l" $LINT_JSON "$OUT/decoder-${n}l.mlpackage"
done

echo "measuring folder-100" >&2
hf folder \
    -n "lint-2-threads" "$LINT_JSON $OUT/folder-100" \
    -n "lint-1-thread" "env RAYON_NUM_THREADS=1 $LINT_JSON $OUT/folder-100" \
    -n "coremltools" "$WALK $(ls -d $OUT/folder-100/*.mlpackage | tr '\n' ' ')"
rss "folder-lint-2-threads" $LINT_JSON "$OUT/folder-100"

python3 bench/table.py "$RES" "$OUT/summary.json"
