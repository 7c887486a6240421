#!/usr/bin/env bash
# The instruction-count guard (issue 37): callgrind counts the instructions of
#   coreml-lint check --isolated --output-format json PKG          (release build)
# and of the zero-copy wire walk of the same package's model.mlmodel (examples/wire_walk.rs, the
# floor of reading), prints both and their ratio, and exits 1 when the ratio is above the budget.
#
#   bench/instructions.sh [--max-ratio R] [--all] [--no-build] [PKG]
#
#   --max-ratio R  fail when check / walk > R (default: the number in bench/instruction-budget)
#   --all          also count `check --select blob-bad-path` (what rules and analyses cost is check
#                  minus that), check with 100 user node rules on an op type the package lacks and
#                  with 100 user entity rules on `kind: weight-file` (each as % added; counted with
#                  their parses cached, as from the second run on, and with --no-cache), and measure
#                  the peak RSS of check (median of 5 `/usr/bin/time -f %M`; the one figure here
#                  that is not an instruction count), and how many names of bench/symbol-order.txt
#                  the binary has (a stale list costs memory: bench/symbol-order.sh). Only the
#                  ratio is gated.
#   --no-build     use target/release as it is (default: `cargo build --release` first)
#   PKG            default bench/out/decoder-32l.mlpackage (`bench/generate.py --only main`)
#
# Instruction counts do not depend on the machine's load, so this is a benchmark, not a timed test.
# Every run has RAYON_NUM_THREADS=1: one thread is the least noise (BENCHMARKS.md, issue 37).
# Exit: 0 within the budget, 1 over it, 2 on a usage error, a missing tool or a failed run.
set -euo pipefail

cd "$(dirname "$0")/.."
BUDGET_FILE=bench/instruction-budget
LINT=target/release/coreml-lint
WALK=target/release/examples/wire_walk
export RAYON_NUM_THREADS=1

SCRIPT=bench/instructions.sh
# shellcheck source=bench/lib.sh
source bench/lib.sh

max_ratio=""
all=""
build=1
pkg=""
while (($#)); do
    case $1 in
        --max-ratio)
            (($# >= 2)) || die "--max-ratio needs a number"
            max_ratio=$2
            shift 2
            ;;
        --max-ratio=*)
            max_ratio=${1#*=}
            shift
            ;;
        --all) all=1 && shift ;;
        --no-build) build="" && shift ;;
        *) other_argument "$1" && shift ;;
    esac
done
pkg=${pkg:-$DEFAULT_PACKAGE}

if [[ -z $max_ratio ]]; then
    [[ -f $BUDGET_FILE ]] || die "$BUDGET_FILE is missing (or pass --max-ratio R)"
    max_ratio=$(grep -v '^[[:space:]]*#' "$BUDGET_FILE" | tr -d '[:space:]')
    what="budget in $BUDGET_FILE"
else
    what="--max-ratio given"
fi
[[ $max_ratio =~ ^[0-9]+([.][0-9]+)?$ ]] || die "the ratio '$max_ratio' ($what) is not a number"

need_valgrind
model_file=$pkg
[[ -d $pkg ]] && model_file=$pkg/Data/com.apple.CoreML/model.mlmodel
[[ -f $model_file ]] || die "$pkg: no such package or model.mlmodel ($MAKE_PACKAGE)"

if [[ -n $build ]]; then
    cargo build --quiet --release --bin coreml-lint --example wire_walk
fi
for bin in "$LINT" "$WALK"; do
    [[ -x $bin ]] || die "$bin is not built (cargo build --release --bin coreml-lint --example wire_walk)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The cache of rule folders' parses (src/rules/parse_cache.rs): this run's own, not the user's.
export COREML_LINT_CACHE_DIR=$tmp/cache

# count NAME OK-EXITS CMD...: the instructions callgrind counts for CMD (its stdout to
# $tmp/NAME.out); dies when CMD's exit code is not one of OK-EXITS (e.g. "0 1": findings exit 1).
count() {
    local name=$1 ok=$2
    shift 2
    local rc=0
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    if [[ " $ok " != *" $rc "* ]]; then
        grep -v '^==[0-9]*==' "$tmp/$name.err" >&2 || true
        die "\`$*\` exited $rc"
    fi
    local n
    n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/$name.err")
    [[ -n $n ]] || die "no instruction count from callgrind for \`$*\`"
    echo "$n"
}

# The number of findings in a JSON report (the rule ids of `diagnostics`).
findings() { grep -c '"rule": ' "$1" || true; }

millions() { awk -v n="$1" 'BEGIN { printf "%.2f M", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", (a - b) * 100 / b }'; }

check=(check --isolated --output-format json)
check_ir=$(count check "0 1" "$LINT" "${check[@]}" "$pkg")
walk_ir=$(count walk "0" "$WALK" "$pkg")
r=$(ratio "$check_ir" "$walk_ir")

echo "instructions (callgrind, RAYON_NUM_THREADS=1) on $pkg:"
printf '  %-58s %12s\n' "coreml-lint ${check[*]}" "$(millions "$check_ir")"
printf '  %-58s %12s\n' "wire walk of model.mlmodel (examples/wire_walk.rs)" "$(millions "$walk_ir")"
printf '  %-58s %12s  (at most %s: the %s)\n' "ratio check / walk" "$r" "$max_ratio" "$what"

if [[ -n $all ]]; then
    base_findings=$(findings "$tmp/check.out")

    select_ir=$(count select "0 1" "$LINT" "${check[@]}" --select blob-bad-path "$pkg")
    printf '  %-58s %12s\n' "check --select blob-bad-path" "$(millions "$select_ir")"
    printf '  %-58s %12s\n' "rules and analyses: check minus that, over the walk" \
        "$(ratio "$((check_ir - select_ir))" "$walk_ir")"

    # user_rules DIR KIND: 100 rule files in DIR; KIND `node` matches `op: lstm` (the package's
    # generator writes none: checked below), `entity` a weight file whose status it never has;
    # `node-live`/`entity-live` the same with a condition the package meets, to show the folder
    # loads and its rules run.
    user_rules() {
        local dir=$1 kind=$2 i
        mkdir -p "$dir"
        for i in $(seq -w 1 100); do
            case $kind in
                node | node-live)
                    local op=lstm
                    [[ $kind == node-live ]] && op=softmax
                    printf '%s\n' "id: bench-node-$i" "title: Bench node rule $i" \
                        "severity: warning" "match:" "  op: $op" "  output: { capture: \$Y }" \
                        "message: \"\`{OP}\` produces \`{Y}\` {Y.shape} ($i)\"" >"$dir/bench-node-$i.yaml"
                    ;;
                entity | entity-live)
                    local status=absolute
                    [[ $kind == entity-live ]] && status=opened
                    printf '%s\n' "id: bench-weight-file-$i" "title: Bench weight-file rule $i" \
                        "severity: warning" "match:" "  kind: weight-file" "  capture: \$F" \
                        "  status: $status" "message: \"{F.file} ($i)\"" \
                        >"$dir/bench-weight-file-$i.yaml"
                    ;;
            esac
        done
    }
    for kind in node entity; do
        user_rules "$tmp/$kind" "$kind"
        user_rules "$tmp/$kind-live" "$kind-live"
        # Natively (no valgrind): the live folder must add findings, the measured one none.
        rc=0
        "$LINT" "${check[@]}" --rules "$tmp/$kind-live" "$pkg" >"$tmp/$kind-live.out" || rc=$?
        ((rc <= 1)) || die "the $kind rules do not load: \`$LINT ${check[*]} --rules DIR\` exited $rc"
        (($(findings "$tmp/$kind-live.out") > base_findings)) ||
            die "the $kind rules with a condition $pkg meets give no finding: they do not run"
        # Counted once the folder's parses are in the cache (the run above filled it for the live
        # folder; this one for the measured one), and once with --no-cache (a first run).
        "$LINT" "${check[@]}" --rules "$tmp/$kind" "$pkg" >/dev/null || true
        n_ir=$(count "$kind" "0 1" "$LINT" "${check[@]}" --rules "$tmp/$kind" "$pkg")
        (($(findings "$tmp/$kind.out") == base_findings)) ||
            die "the 100 $kind rules report findings on $pkg: they must match nothing there"
        cold_ir=$(count "$kind-cold" "0 1" "$LINT" "${check[@]}" --no-cache --rules "$tmp/$kind" "$pkg")
        case $kind in
            node) label="check + 100 user node rules on \`op: lstm\` (absent)" ;;
            entity) label="check + 100 user entity rules on \`kind: weight-file\`" ;;
        esac
        printf '  %-58s %12s  %s\n' "$label" "$(millions "$n_ir")" "$(percent "$n_ir" "$check_ir")"
        printf '  %-58s %12s  %s\n' "  the same, parsed anew (--no-cache)" "$(millions "$cold_ir")" \
            "$(percent "$cold_ir" "$check_ir")"
    done

    if [[ -x /usr/bin/time ]]; then
        for i in 1 2 3 4 5; do
            /usr/bin/time -f %M -o "$tmp/rss" "$LINT" "${check[@]}" "$pkg" >/dev/null || true
            tail -n 1 "$tmp/rss" >>"$tmp/rss-all"
        done
        rss=$(sort -n "$tmp/rss-all" | sed -n 3p)
        printf '  %-58s %12s\n' "peak RSS of check, median of 5 (/usr/bin/time -f %M)" \
            "$(awk -v k="$rss" 'BEGIN { printf "%.1f MiB", k / 1024 }')"
    else
        echo "  peak RSS: /usr/bin/time is missing (Debian: apt-get install time)"
    fi

    order=bench/symbol-order.txt
    if [[ -f $order ]] && command -v nm >/dev/null; then
        nm --defined-only "$LINT" | awk '{ print $NF }' | LC_ALL=C sort -u >"$tmp/symbols"
        found=$(LC_ALL=C sort -u "$order" | LC_ALL=C comm -12 - "$tmp/symbols" | wc -l)
        printf '  %-58s %12s\n' "names of $order the binary has" "$found of $(wc -l <"$order")"
    fi
fi

if awk -v c="$check_ir" -v w="$walk_ir" -v m="$max_ratio" 'BEGIN { exit !(c / w > m) }'; then
    echo "FAIL: check costs ${r}× the wire walk, over $max_ratio (the $what)" >&2
    exit 1
fi
