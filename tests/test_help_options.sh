#!/bin/sh
# Every option a command's parser knows is in that command's --help and in
# the manual page, and "did you mean" offers it (issue 47: --source was in
# neither, and "--sourc" got no suggestion).  Each command's parser reads
# one option table (cli/option_table.h), and the help, the manual page
# (packaging/man.cmake) and the suggestions are made from it; this test
# reads the tables' rows ({"--x", ...}) from their sources, and the names
# of the parsers not yet on a table (is_long(a, "--x"), cli_long_value(...,
# "--x", ...)), so that a row or a parser that escapes the help is caught.
# It also checks the table's forms: --name=value, -Xvalue, a flag given a
# value, an option of another command; and its column of repeatable
# options (OPTION_REPEATABLE: --detector): the help and the manual page say
# "(repeatable)" of each, and of no other, one given twice adds, another
# given twice with other values is refused.
# The reference pages name every option too (docs/cli.md for run's,
# docs/lut.md for lut's).
# usage: test_help_options.sh TMCML CLI_DIR MAN_PAGE
. "$(dirname "$0")/lib.sh"
tmcml=$1
cli=$2
man=$3

# parsed FILE...: the long options those parsers take (test-only --debug-*
# options are not for users and stay out of the help).
parsed() {
    grep -ohE 'is_long\(a, "--[a-z0-9-]+"\)|cli_long_value\([^)]*"--[a-z0-9-]+"|\{"--[a-z0-9-]+",' \
        "$@" | grep -oE '"--[a-z0-9-]+"' | tr -d '"' | grep -v '^--debug-' | sort -u
}

# The manual page as text: roff's escaped hyphens as hyphens.
check
if [ -s "$man" ]; then
    sed 's/\\-/-/g' "$man" >"$work/man"
else
    fail "no manual page at $man"
    : >"$work/man"
fi

# in_help HELP_ARGS -- FILE...: each of the files' options in that --help
# and in the manual page.
in_help() {
    args=
    while [ "$1" != "--" ]; do args="$args $1"; shift; done
    shift
    # shellcheck disable=SC2086
    "$tmcml" $args --help >"$work/help" 2>&1
    for option in $(parsed "$@"); do
        check
        grep -qE -- "$option([^a-z0-9-]|$)" "$work/help" ||
            fail "tmcml$args --help does not list $option"
        check
        grep -qE -- "$option([^a-z0-9-]|$)" "$work/man" ||
            fail "the manual page does not list $option (tmcml$args)"
    done
    rows=$(cat "$@" | grep -c 'OPTION_REPEATABLE')
    check
    [ "$(grep -c '(repeatable)' "$work/help")" -eq "$rows" ] ||
        fail "tmcml$args --help: not one \"(repeatable)\" for each of its $rows repeatable rows"
}

in_help -- "$cli/run_option_table.c"
in_help lut -- "$cli/lut_option_table.c"
in_help conv -- "$cli/conv_command.c" "$cli/mco_command.c"
in_help plot -- "$cli/plot_command.c" "$cli/mco_command.c"
in_help profiles -- "$cli/profiles_command.c"
# in_doc PAGE FILE: each of the file's options on that page.
in_doc() {
    for option in $(parsed "$2" | grep -v '^--help$'); do
        check
        grep -qE -- "$option([^a-z0-9-]|$)" "$1" || fail "$1 does not name $option"
    done
}
docs=$cli/../docs
in_doc "$docs/cli.md" "$cli/run_option_table.c"
in_doc "$docs/lut.md" "$cli/lut_option_table.c"
check
[ "$(parsed "$cli/run_option_table.c" | wc -l)" -gt 40 ] ||
    fail "too few options read from run_option_table.c: the pattern broke"

# The repeatable column: --detector's entry says so, in the help and the
# manual page; given twice, two detectors; another option given twice with
# other values is refused.
"$tmcml" --help >"$work/help" 2>&1
for page in "$work/help" "$work/man"; do
    check
    awk '/^  --detector /{on = 1; print; next} on && /^  -/{exit} on' "$page" |
        grep -q '(repeatable)' || fail "$page: --detector's entry does not say (repeatable)"
done
check
[ "$(grep -c '(repeatable)' "$work/man")" -ge 1 ] || fail "the manual page names no repeatable option"

# A near miss of an option gets the option suggested.
expect 2 "--sourc" -- "$tmcml" run x.mci --sourc gaussian:0.1
contains "--sourc" "did you mean --source?"
# ... a knob's too (the kernel variant's own table).
expect 2 "--edge-cach" -- "$tmcml" gen x.mci --edge-cach 1
contains "--edge-cach" "did you mean --edge-cache?"

# Every valued option takes --name=value, and a short form -Xvalue.
example=$(dirname "$0")/../examples/skin7_600nm.mci
expect 0 "--seed=5 -N300" -- "$tmcml" run "$example" --seed=5 -N300 --engine=cpu --threads=1 -q \
    -o "$work/eq"
expect 0 "-S 5 --photons 300" -- "$tmcml" run "$example" -S 5 --photons 300 --engine cpu \
    --threads 1 -q -o "$work/spaced"
check
cmp -s "$work/eq/skin7_600nm.mco" "$work/spaced/skin7_600nm.mco" ||
    fail "--seed=5 -N300 and -S 5 --photons 300 gave different files"
# A flag given a value, and an option of another command, are named.
expect 2 "--npz=yes" -- "$tmcml" run "$example" --npz=yes
contains "--npz=yes" "--npz takes no value"
expect 2 "run --nr" -- "$tmcml" run "$example" --nr 1:2:1
contains "run --nr" "--nr: an option of tmcml sweep only"
expect 0 "--detector twice" -- "$tmcml" run "$example" -N300 --engine cpu --threads 1 -q \
    -o "$work/two" --detector fiber:0.1:0.05:0.5 --detector=fiber:0.2:0.05:0.5
check
[ "$(grep -c '^# fiber detector: ' "$work/two/skin7_600nm.mco")" -eq 2 ] ||
    fail "--detector twice: not two detectors"
expect 2 "--seed twice" -- "$tmcml" run "$example" -N300 -S 1 --seed=2 --engine cpu -q \
    -o "$work/seeds"
contains "--seed twice" '--seed given twice, with different values ("1", then "2")'

finish test_help_options
