#!/usr/bin/env bash
# Runs one fuzz target for SECONDS in two halves on the same corpus, so that its coverage at
# half-time (where the second half starts, `INITED`) and at the end can be compared: a plateau is
# no new coverage in the second half. One job, one worker, at the lowest priority.
#
#   fuzz/seed.sh TARGET                        # once: the seeds, into fuzz/corpus/TARGET (git-ignored)
#   fuzz/plateau.sh TARGET SECONDS [libFuzzer flags…]
#
# Each half's libFuzzer log is kept as fuzz/TARGET.half-N.log (git-ignored); the lines printed are
# those fuzz/RESULTS.md records. Crashes are written to fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
half=$(($2 / 2))
shift 2
mkdir -p "corpus/$target"
for part in 1 2; do
    rm -f fuzz-0.log
    RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz run "$target" "corpus/$target" -- \
        -jobs=1 -workers=1 -max_total_time="$half" -rss_limit_mb=4096 -timeout=20 \
        -print_final_stats=1 "$@" >/dev/null 2>&1 || true
    mv fuzz-0.log "$target.half-$part.log"
    echo "half $part: $(grep -m1 'INITED' "$target.half-$part.log" || echo 'no INITED line')"
    echo "half $part: $(grep -E '(pulse|NEW|REDUCE|DONE).*cov:' "$target.half-$part.log" | tail -1)"
    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY' \
        "$target.half-$part.log" | sed "s/^/half $part: /" || true
done
echo "corpus: $(find "corpus/$target" -type f | wc -l) inputs, $(du -sh "corpus/$target" | cut -f1)"
