#!/usr/bin/env bash
# Lint time against op count: generates straight-line text-MIL programs of 250k, 500k and 1M ops
# (a relu chain with an fp16-indexed gather every 100k ops, as in tests/it/linear_ops.rs) and times
# `coreml-lint check` (release build) on each. Linear means the time per op stays flat.
# Usage: bench/linear_ops.sh [ops…]   Output files go to bench/out/ (git-ignored).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$repo/bench/out"
mkdir -p "$out"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(250000 500000 1000000)
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
bin="$repo/target/release/coreml-lint"
printf '%10s %10s %9s %9s %12s %12s\n' ops bytes wall_s cpu_s "cpu us/op" "peak RSS KB"
for n in "${sizes[@]}"; do
    file="$out/linear-$n.mil"
    awk -v n="$n" 'BEGIN {
        print "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 32]> x) {"
        prev = "x"
        for (i = 0; i < n; i++) {
            if (i % 100000 == 50000) {
                printf "            tensor<fp16, [1, 32]> g%d = gather(x = %s, indices = %s, axis = int32(0))[name = string(\"g%d\")];\n", i, prev, prev, i
                continue
            }
            printf "            tensor<fp16, [1, 32]> v%d = relu(x = %s)[name = string(\"v%d\")];\n", i, prev, i
            prev = "v" i
        }
        printf "        } -> (%s);\n}\n", prev
    }' > "$file"
    stats="$out/linear-$n.time"
    set +e
    /usr/bin/time -f '%e %U %S %M' -o "$stats" "$bin" check --quiet "$file" > /dev/null 2>&1
    code=$?
    set -e
    if [ "$code" -ne 1 ]; then
        echo "check exited $code on $n ops (expected 1: the gathers are findings)" >&2
        exit 1
    fi
    # GNU time prefixes "Command exited with non-zero status 1" for the expected exit code 1.
    read -r secs user sys rss < <(tail -n 1 "$stats")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    us=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", c * 1e6 / n }')
    printf '%10s %10s %9s %9s %12s %12s\n' "$n" "$(stat -c %s "$file")" "$secs" "$cpu" "$us" "$rss"
done
