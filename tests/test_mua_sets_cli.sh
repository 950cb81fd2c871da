#!/bin/sh
# tmcml run --mua-sets (issue 25): one set equal to the per-layer minimum
# has, bit for bit, the tallies of a plain run of its mua; every set is
# written as NAME.setK.mco with its JSON, and MCML's reader of tmcml reads
# it back; a bad sets file is refused at file:line with nothing written.
# (Stops and --resume: test_sets_resume.sh.)
# usage: test_mua_sets_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"

# 1. The .mci's own mua (1, 1, 2) as the first set, the minimum in every
#    layer; two more sets above it.
printf '# layers 1, 2, 3\n1 1 2\n\n2.5, 1.5, 2   # more absorption\n10 10 20\n' >"$work/sets.csv"
expect 0 "three sets" -- "$tmcml" run "$mci" $common --engine cpu --mua-sets "$work/sets.csv" \
    -o "$work/sets"
expect 0 "plain run" -- "$tmcml" run "$mci" $common --engine cpu -o "$work/plain"
check
[ "$(json "$work/sets/example.set1.json" tallies_digest)" = \
    "$(json "$work/plain/example.json" tallies_digest)" ] ||
    fail "set 1 (the reference) does not have the plain run's tallies"
for k in 1 2 3; do
    check
    [ -s "$work/sets/example.set$k.mco" ] && [ -s "$work/sets/example.set$k.json" ] ||
        fail "no example.set$k.mco and .json"
done
check
grep -q "^1.37[[:space:]]*10[[:space:]]*100" "$work/sets/example.set3.mco" ||
    fail "set 3's .mco does not record its mua"
expect 0 "plot reads a set's .mco" -- "$tmcml" plot "$work/sets/example.set2.mco" \
    -o "$work/set2.png"

# 2. --engine auto runs them wherever it runs a run (every engine scores
#    sets, with absorption too): no note about sets and the engine.
expect 0 "auto" -- "$tmcml" run "$mci" -N 2000 --tune never --no-profile \
    --mua-sets "$work/sets.csv" -o "$work/auto"
check
! grep -q "mua-sets.*engine" "$work/out" || fail "auto: a note about the engine: $(cat "$work/out")"

# 3. Bad files: file:line, nothing written.
printf '1 1 2\n1 x 2\n' >"$work/bad1.csv"
printf '# two values\n1 1\n' >"$work/bad2.csv"
printf '1 1 2\n1 1 -2\n' >"$work/bad3.csv"
printf '# nothing\n\n' >"$work/bad4.csv"
expect 2 "not a number" -- "$tmcml" run "$mci" $common --mua-sets "$work/bad1.csv" -o "$work/b"
contains "not a number" "bad1.csv:2: layer 2: not a number (\"x\")"
expect 2 "too few" -- "$tmcml" run "$mci" $common --mua-sets "$work/bad2.csv" -o "$work/b"
contains "too few" "bad2.csv:2: 2 values: the run has 3 layers"
expect 2 "negative" -- "$tmcml" run "$mci" $common --mua-sets "$work/bad3.csv" -o "$work/b"
contains "negative" "bad3.csv:2: layer 3: mua must be 0 or between"
expect 2 "empty" -- "$tmcml" run "$mci" $common --mua-sets "$work/bad4.csv" -o "$work/b"
contains "empty" "no set of mua"
expect 2 "missing" -- "$tmcml" run "$mci" $common --mua-sets "$work/none.csv" -o "$work/b"
contains "missing" "none.csv"
# Text that is not text (issue 42): a UTF-16 file of 3 sets ran 1 set and
# exited 0, stopped at its first NUL byte; a NUL byte anywhere is refused
# at its line.  Numbers whose text is not 0 but that underflow to 0 or to
# a subnormal are refused, as 1e-320 was.
printf '1 1 2\n2 2 3\n3 3 4\n' | iconv -f ASCII -t UTF-16LE >"$work/utf16.csv"
printf '1 1 2\n2 2 3\n3 3\0004\n' >"$work/nul.csv"
printf '1 1 2\n1e-400 1 2\n' >"$work/under0.csv"
printf '1 1 2\n1 2e-324 2\n' >"$work/under1.csv"
printf '1 1 2\n1 1 1e-320\n' >"$work/subnormal.csv"
expect 2 "UTF-16" -- "$tmcml" run "$mci" $common --mua-sets "$work/utf16.csv" -o "$work/b"
contains "UTF-16" "utf16.csv:1: the file contains a NUL byte: not a text file, or UTF-16 text (save the file as UTF-8 or ASCII)"
expect 2 "NUL" -- "$tmcml" run "$mci" $common --mua-sets "$work/nul.csv" -o "$work/b"
contains "NUL" "nul.csv:3: the file contains a NUL byte"
expect 2 "1e-400" -- "$tmcml" run "$mci" $common --mua-sets "$work/under0.csv" -o "$work/b"
contains "1e-400" "under0.csv:2: layer 1: too small to compute with (\"1e-400\")"
expect 2 "2e-324" -- "$tmcml" run "$mci" $common --mua-sets "$work/under1.csv" -o "$work/b"
contains "2e-324" "under1.csv:2: layer 2: too small to compute with (\"2e-324\")"
expect 2 "1e-320" -- "$tmcml" run "$mci" $common --mua-sets "$work/subnormal.csv" -o "$work/b"
contains "1e-320" "subnormal.csv:2: layer 3: too small to compute with (\"1e-320\")"
check
[ ! -e "$work/b" ] || [ -z "$(ls "$work/b")" ] || fail "a refused run wrote $(ls "$work/b")"

# same_sets NAME WHAT: NAME.csv runs the sets of sets.csv, bit for bit.
same_sets() {
    expect 0 "$1" -- "$tmcml" run "$mci" $common --engine cpu --mua-sets "$work/$1.csv" \
        -o "$work/$1"
    check
    [ "$(json "$work/$1/example.set3.json" tallies_digest)" = \
        "$(json "$work/sets/example.set3.json" tallies_digest)" ] ||
        fail "the file with $2 does not run the sets of the one without"
}
# A UTF-8 byte-order mark (Excel's "CSV UTF-8") is skipped: the file reads
# as the one without it, whose first value it was glued to.
printf '\357\273\2771 1 2\r\n2.5, 1.5, 2\r\n10 10 20\r\n' >"$work/bom.csv"
same_sets bom "a byte-order mark"
# A CSV's header row of names (issue 47) is skipped, once, before the first
# set; a row of names after a set, or of the wrong width, is refused.
printf 'mua_1,mua_2,mua_3\n1,1,2\n2.5,1.5,2\n10,10,20\n' >"$work/header.csv"
same_sets header "a header"
printf '1,1,2\nmua_1,mua_2,mua_3\n' >"$work/late.csv"
expect 2 "late header" -- "$tmcml" run "$mci" $common --engine cpu --mua-sets "$work/late.csv" \
    -o "$work/late"
contains "late header" 'late.csv:2: layer 1: not a number ("mua_1")'
printf 'mua_1,mua_2\n1,1,2\n' >"$work/narrow.csv"
expect 2 "narrow header" -- "$tmcml" run "$mci" $common --engine cpu \
    --mua-sets "$work/narrow.csv" -o "$work/narrow"
contains "narrow header" "narrow.csv:1: layer 1: not a number"

finish test_mua_sets_cli
