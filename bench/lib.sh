# What the bench scripts share: sourced (never run) by bench/instructions.sh and
# bench/symbol-order.sh after they `cd` to the repository's root. Each sets SCRIPT (its name, for
# messages) before sourcing.

# Prints a usage error or a missing tool and exits 2.
die() {
    echo "$SCRIPT: $*" >&2
    exit 2
}

# Prints the script's header comment (its usage) and exits 0.
usage() {
    sed -n '2,/^set -euo/p' "$SCRIPT" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
}

# The argument every bench script takes but its options: `-h`/`--help`, an unknown option (an
# error), or the one package (into `pkg`). Call it from the `*)` arm of the option loop.
other_argument() {
    case $1 in
        -h | --help) usage ;;
        -*) die "unknown option $1 (see --help)" ;;
        *)
            [[ -z $pkg ]] || die "one package only (got $pkg and $1)"
            pkg=$1
            ;;
    esac
}

# The package measured when none is given: the one `bench/generate.py --only main` makes.
DEFAULT_PACKAGE=bench/out/decoder-32l.mlpackage
MAKE_PACKAGE="make it with \`python bench/generate.py --only main\`"

need_valgrind() {
    command -v valgrind >/dev/null || die "valgrind is missing (Debian: apt-get install valgrind)"
}
