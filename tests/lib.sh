# The shell tests' common part, sourced first thing after their arguments
# are read: a scratch directory removed on exit ($work), the failure and
# check counters, the assertions and two helpers (json, isolate_user_dirs).
# `finish NAME` prints the counts and gives the exit status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

fail() { failures=$((failures + 1)); echo "FAIL: $*" >&2; }
check() { checks=$((checks + 1)); }

# expect STATUS DESCRIPTION -- command...: runs the command, output in $work/out
expect() {
    want=$1; what=$2; shift 3
    check
    "$@" >"$work/out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] || { fail "$what: exit $got, expected $want"; cat "$work/out" >&2; }
}
# contains DESCRIPTION TEXT: the last expect's output has TEXT.
contains() {
    check
    grep -q -- "$2" "$work/out" || { fail "$1: output lacks '$2'"; cat "$work/out" >&2; }
}

# same_mcos REFERENCE_DIR OTHER_DIR COUNT LABEL: every .mco of the
# reference directory is byte for byte the one of that name in the other,
# and there are COUNT of them.
same_mcos() {
    same=0
    for f in "$1"/*.mco; do
        check
        if cmp -s "$f" "$2/$(basename "$f")"; then
            same=$((same + 1))
        else
            fail "$(basename "$f"): $4 differs"
        fi
    done
    check
    [ "$same" -eq "$3" ] || fail "$4: $same of $3 outputs compared equal"
}

# json FILE KEY: the first value of KEY in a JSON file (a string unquoted).
json() { sed -n "s/.*\"$2\":[[:space:]]*\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }

# Profiles, the cubin cache's default home and the data directory in $work:
# a test neither reads nor writes the user's.
isolate_user_dirs() {
    export TMCML_PROFILE_DIR="$work/profiles" HOME="$work/home" XDG_DATA_HOME="$work/xdg"
}

finish() {
    echo "$1: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}
