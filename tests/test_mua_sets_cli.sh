#!/bin/sh
# tmcml run --mua-sets (issue 25): one set equal to the per-layer minimum
# has, bit for bit, the tallies of a plain run of its mua; every set is
# written as NAME.setK.mco with its JSON, and MCML's reader of tmcml reads
# it back; a bad sets file is refused at file:line with nothing written.
# (Stops and --resume: test_sets_resume.sh.)
# usage: test_mua_sets_cli.sh TMCML EXAMPLES_DIR
tmcml=$1
examples=$2
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
mci=$examples/mcml_example.mci
common="-N 20000 -S 3 -q --tune never --no-profile"

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
check
[ ! -e "$work/b" ] || [ -z "$(ls "$work/b")" ] || fail "a refused run wrote $(ls "$work/b")"
finish test_mua_sets_cli
