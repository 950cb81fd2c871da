#!/bin/sh
# Every option a command's parser knows is in that command's --help, and so
# in the manual page and in "did you mean" (issue 47: --source was in
# neither, and "--sourc" got no suggestion), both made from the same usage
# texts (packaging/man.cmake, cli/suggest.c).  The names are read from the
# parsers' sources: is_long(a, "--x"), cli_long_value(..., "--x", ...) and
# the tables' {"--x", ...} entries.
# usage: test_help_options.sh TMCML CLI_DIR
. "$(dirname "$0")/lib.sh"
tmcml=$1
cli=$2

# parsed FILE...: the long options those parsers take (test-only --debug-*
# options are not for users and stay out of the help).
parsed() {
    grep -ohE 'is_long\(a, "--[a-z0-9-]+"\)|cli_long_value\([^)]*"--[a-z0-9-]+"|\{"--[a-z0-9-]+",' \
        "$@" | grep -oE '"--[a-z0-9-]+"' | tr -d '"' | grep -v '^--debug-' | sort -u
}

# in_help HELP_ARGS -- FILE...: each of the files' options in that --help.
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
    done
}

in_help -- "$cli/cli.c"
in_help lut -- "$cli/lut_command.c"
in_help conv -- "$cli/conv_command.c" "$cli/mco_command.c"
in_help plot -- "$cli/plot_command.c" "$cli/mco_command.c"
in_help profiles -- "$cli/profiles_command.c"
check
[ "$(parsed "$cli/cli.c" | wc -l)" -gt 30 ] || fail "too few options read from cli.c: the pattern broke"
# A near miss of an option gets the option suggested.
expect 2 "--sourc" -- "$tmcml" run x.mci --sourc gaussian:0.1
contains "--sourc" "did you mean --source?"
finish test_help_options
