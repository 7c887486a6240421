#!/usr/bin/env bash
# Regenerates bench/symbol-order.txt: the functions of the binary that `coreml-lint check` runs,
# by their symbol names. build.rs has the linker lay them out side by side, in this order, before
# every other function (`--symbol-ordering-file`, which lld takes; with a linker that does not,
# the file is not used: build/symbol_order.rs). The kernel maps a binary's code 64 KB at a time
# around each page a process runs: the ~2.5 MB of code a check runs, spread over the whole 7.7 MB
# of code, made it map ~6 MB; packed together, ~3 MB (BENCHMARKS.md, session 14).
#
#   bench/symbol-order.sh [--no-build] [PKG]
#
#   --no-build  use target/release/coreml-lint as it is (default: `cargo build --release` first)
#   PKG         default bench/out/decoder-32l.mlpackage (`bench/generate.py --only main`)
#
# The functions come from callgrind runs of the release build (`--demangle=no`): those of
# `check --isolated --output-format json PKG` first (one run on one thread, three on two: which
# of rayon's jobs a second thread steals varies), then what human output runs besides. Each group
# is sorted by name, so that the file changes only when the functions do.
#
# A stale file costs memory, never correctness: names the binary lacks (a function renamed,
# inlined, or a new compiler's symbol hashes) are skipped, and functions it does not name are laid
# out after it as before. Regenerate it after large changes or a compiler upgrade, and rebuild
# (build.rs reruns when the file changes). `bench/instructions.sh --all` prints how many of its
# names the binary has.
set -euo pipefail

cd "$(dirname "$0")/.."
LINT=target/release/coreml-lint
OUT=bench/symbol-order.txt

SCRIPT=bench/symbol-order.sh
# shellcheck source=bench/lib.sh
source bench/lib.sh

build=1
pkg=""
while (($#)); do
    case $1 in
        --no-build) build="" && shift ;;
        *) other_argument "$1" && shift ;;
    esac
done
pkg=${pkg:-$DEFAULT_PACKAGE}
[[ -e $pkg ]] || die "$pkg: no such package ($MAKE_PACKAGE)"
need_valgrind

if [[ -n $build ]]; then
    cargo build --quiet --release --bin coreml-lint
fi
[[ -x $LINT ]] || die "$LINT is not built (cargo build --release)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COREML_LINT_CACHE_DIR=$tmp/cache

# executed NAME THREADS ARGS...: the symbols of the binary's functions that `coreml-lint ARGS` runs, one a
# line, sorted. callgrind names each function once as `fn=(id) name` (or `cfn=`, when first seen
# called), then by `(id)` alone; `ob=` says whose object the following functions are.
executed() {
    local name=$1 threads=$2
    shift 2
    RAYON_NUM_THREADS=$threads valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/$name.cg" "$LINT" "$@" \
        >/dev/null 2>"$tmp/$name.err" || true
    grep -q '^==[0-9]*== Collected' "$tmp/$name.err" || die "callgrind did not run \`$LINT $*\`"
    awk -v bin="$(realpath "$LINT")" '
        function parse(line,    rest, id, nm) {
            rest = substr(line, index(line, "=") + 1)
            if (rest ~ /^\([0-9]+\)/) {
                id = substr(rest, 1, index(rest, ")"))
                nm = substr(rest, length(id) + 1)
                sub(/^ /, "", nm)
            } else {
                id = rest
                nm = rest
            }
            ID = id
            NM = nm
        }
        /^c?ob=/ {
            parse($0)
            if (NM != "") obs[ID] = NM
            if ($0 ~ /^ob=/) ours = (obs[ID] == bin)
            next
        }
        /^c?fn=/ {
            parse($0)
            if (NM != "") fns[ID] = NM
            if ($0 ~ /^fn=/ && ours) {
                f = fns[ID]
                sub(/\x27[0-9]+$/, "", f)   # callgrind marks recursion levels as name'"'"'2
                if (f ~ /^[A-Za-z_.$][A-Za-z0-9_.$]*$/) print f
            }
        }
    ' "$tmp/$name.cg" | LC_ALL=C sort -u
}

json=(check --isolated --output-format json "$pkg")
{
    executed json1 1 "${json[@]}"
    for i in 1 2 3; do
        executed "json2-$i" 2 "${json[@]}"
    done
} | LC_ALL=C sort -u >"$tmp/json"
executed human 1 check --isolated --color never "$pkg" >"$tmp/human"
{
    cat "$tmp/json"
    LC_ALL=C comm -13 "$tmp/json" "$tmp/human"
} >"$OUT"
echo "$OUT: $(wc -l <"$tmp/json") functions of the JSON check, $(LC_ALL=C comm -13 "$tmp/json" "$tmp/human" | wc -l) more of human output"
