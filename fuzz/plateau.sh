#!/usr/bin/env bash
# Runs one fuzz target for SECONDS in two halves on the same corpus, so that its coverage at
# half-time (where the second half starts, `INITED`) and at the end can be compared: a plateau is
# no new coverage in the second half. One process, at the lowest priority. It runs the binary
# `cargo fuzz build` made (build it first), so an edit under src/ during a run rebuilds nothing.
#
#   fuzz/seed.sh TARGET                        # once: the seeds, into fuzz/corpus/TARGET (git-ignored)
#   (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build [-s none] TARGET)
#   fuzz/plateau.sh TARGET SECONDS [libFuzzer flags…]
#
# Each half's libFuzzer log is kept as fuzz/TARGET.half-N.log (git-ignored); the lines printed are
# those fuzz/RESULTS.md records. Crashes are written to fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
half=$(($2 / 2))
shift 2
binary=target/x86_64-unknown-linux-gnu/release/$target
[ -x "$binary" ] || { echo "no $binary: run cargo fuzz build $target first" >&2; exit 2; }
mkdir -p "corpus/$target" "artifacts/$target"
for part in 1 2; do
    log="$target.half-$part.log"
    nice -n 19 "$binary" "corpus/$target" -artifact_prefix="artifacts/$target/" \
        -max_total_time="$half" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 "$@" \
        >"$log" 2>&1 || true
    echo "half $part: $(grep -m1 'INITED' "$log" || echo 'no INITED line')"
    echo "half $part: $(grep -E '(pulse|NEW|REDUCE|DONE).*cov:' "$log" | tail -1)"
    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY' "$log" \
        | sed "s/^/half $part: /" || true
done
echo "corpus: $(find "corpus/$target" -type f | wc -l) inputs, $(du -sh "corpus/$target" | cut -f1)"
