#!/usr/bin/env bash
# Saves everything coreml-lint prints or writes for the models of corpus/ and ../shared/realworld,
# so that a change to the read path can be shown to keep every output byte-identical.
#
#   bench/same_output.sh save BIN DIR      # run BIN (a coreml-lint binary) and save its outputs in DIR
#   bench/same_output.sh compare A B       # diff two saved DIRs; exit 1 on any difference
#
# Saved per tree (corpus, realworld): `check` as JSON, SARIF and human text (colour off, with and
# without --placement); per package: `dump`, and `check --unsafe-fixes --output` (the hash of every
# file written, and what the run printed). Exit codes are saved beside each output.
set -euo pipefail

cd "$(dirname "$0")/.."

save() {
    local bin out
    bin=$(realpath "$1")
    out=$2
    rm -rf "$out"
    mkdir -p "$out"
    local trees=(corpus)
    [[ -d ../shared/realworld ]] && trees+=(../shared/realworld)
    for tree in "${trees[@]}"; do
        local name
        name=$(basename "$tree")
        for fmt in json sarif human; do
            run "$out/$name.check.$fmt" "$bin" check --isolated --color never --output-format "$fmt" "$tree"
        done
        run "$out/$name.check.placement" "$bin" check --isolated --color never --placement "$tree"
        while IFS= read -r pkg; do
            local key
            key=$(printf '%s' "${pkg#"$tree"/}" | tr '/' '_')
            run "$out/$name.dump.$key" "$bin" dump "$pkg"
            local fixed=${TMPDIR:-/tmp}/coreml-lint-same-output-fixed
            rm -rf "$fixed"
            mkdir -p "$fixed"
            run "$out/$name.fix.$key" "$bin" check --isolated --color never --unsafe-fixes \
                --output "$fixed" "$pkg"
            (cd "$fixed" && find . -type f -print0 | sort -z | xargs -0r sha256sum) \
                >"$out/$name.fixed-files.$key"
            rm -rf "$fixed"
        done < <(find "$tree" \( -name '*.mlpackage' -o -name '*.mlmodelc' -o -name '*.aimodel' \) \
            -prune -print | sort)
    done
}

# run FILE CMD...: CMD's stdout and stderr in FILE, its exit code in FILE.rc; the time a run took
# is replaced by N, so that runs compare.
run() {
    local file=$1
    shift
    local rc=0
    "$@" >"$file" 2>&1 || rc=$?
    sed -i -E 's/ in [0-9]+ ms$/ in N ms/' "$file"
    echo "$rc" >"$file.rc"
}

case "${1:-}" in
save) save "$2" "$3" ;;
compare)
    if diff -r "$2" "$3" >/dev/null; then
        echo "identical: $(find "$2" -type f | wc -l) files"
    else
        diff -r "$2" "$3" | head -60
        echo "DIFFERENT" >&2
        exit 1
    fi
    ;;
*)
    sed -n '2,10p' "$0"
    exit 2
    ;;
esac
