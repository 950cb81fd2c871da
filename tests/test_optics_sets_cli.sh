#!/bin/sh
# tmcml run --optics-sets (issue 45): a set of the run's own optics writes the
# plain run's sections and an effective sample size of 1; every set's JSON
# has its effective sample size; a far set is warned of; stopped and resumed,
# each set's .mco is the uninterrupted run's; a bad table is refused naming
# its file, line, set, layer and parameter, nothing written (the GPU's
# optics sets: tests/test_optics_sets_gpu.c).
# usage: test_optics_sets_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"

# mcml_example.mci's layers: (mua mus g) 1 100 0.9, 1 10 0, 2 10 0.7.
printf '# mua mus g, a layer each\n1 100 0.9  1 10 0  2 10 0.7\n1 110 0.9, 1 10 0.05, 2 10 0.7\n1 100 0.9  1 10 0  2.4 10 0.7\n' \
    >"$work/sets.csv"
expect 0 "sets" -- "$tmcml" run "$mci" $common --engine cpu --optics-sets "$work/sets.csv" -o "$work/s"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu -o "$work/p"
check
sed '/^#/d; /output file name/d' "$work/s/example.set1.mco" >"$work/a"
sed '/^#/d; /output file name/d' "$work/p/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the run's own optics as a set differ from the plain run"
check
[ "$(json "$work/s/example.set1.json" fraction)" = 1 ] || fail "set 1's effective sample size is not 1"
for k in 2 3; do
    check
    f=$(json "$work/s/example.set$k.json" fraction)
    awk -v f="$f" 'BEGIN { exit !(f > 0.1 && f < 1) }' || fail "set $k: effective sample size $f"
done
check
grep -q "^# optics set: reweighted" "$work/s/example.set2.mco" || fail "the .mco does not say it is an optics set"
# A far set: +50 % mus in the thick layer the light scatters in.
printf '1 150 0.9  1 10 0  2 10 0.7\n' >"$work/far.csv"
expect 0 "far" -- "$tmcml" run "$mci" $common --optics-sets "$work/far.csv" -o "$work/f"
contains "far" "effective sample size"
check
grep -q '"low":[[:space:]]*true' "$work/f/example.set1.json" || fail "the far set is not marked low"
# Stopped and resumed.
n=1500000
# (stopped_run's, waiting for a set's checkpoint: the sets keep one each)
"$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --optics-sets "$work/sets.csv" --threads 1 \
    --checkpoint-every 0.2 -o "$work/k" 2>/dev/null &
pid=$!
wait_for "$work/k/example.set1.ckpt" 10
kill -INT $pid
wait $pid
check
[ -e "$work/k/example.set1.ckpt" ] && [ ! -e "$work/k/example.set1.mco" ] ||
    fail "the sets' run was not stopped midway"
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --optics-sets "$work/sets.csv" --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --optics-sets "$work/sets.csv" -o "$work/w"
for k in 1 2 3; do
    check
    cmp -s "$work/k/example.set$k.mco" "$work/w/example.set$k.mco" || fail "set $k: resumed .mco differs"
done
# A header row of names (issue 47) is skipped: the sets of the file without.
printf 'mua1,mus1,g1,mua2,mus2,g2,mua3,mus3,g3\n1 110 0.9, 1 10 0.05, 2 10 0.7\n' \
    >"$work/header.csv"
expect 0 "header" -- "$tmcml" run "$mci" $common --engine cpu --optics-sets "$work/header.csv" \
    -o "$work/h"
check
[ "$(json "$work/h/example.set1.json" tallies_digest)" = \
    "$(json "$work/s/example.set2.json" tallies_digest)" ] ||
    fail "the file with a header does not run the set of the one without"
# Refused: nothing written.
printf '1 100 0.9  1 10 0  2 0 0.7\n' >"$work/bad.csv"
expect 2 "mus 0" -- "$tmcml" run "$mci" $common --optics-sets "$work/bad.csv" -o "$work/x"
contains "mus 0" "bad.csv:1: set 1, layer 3: mus 0: must be between"
printf '1 100 0.9  1 10 0  2 10 1.2\n' >"$work/bad.csv"
expect 2 "g" -- "$tmcml" run "$mci" $common --optics-sets "$work/bad.csv" -o "$work/x"
contains "g" "bad.csv:1: layer 3: g must be within -1 .. 1"
printf '1 100 0.9  1 10 0  2 10\n' >"$work/bad.csv"
expect 2 "short" -- "$tmcml" run "$mci" $common --optics-sets "$work/bad.csv" -o "$work/x"
contains "short" "bad.csv:1: 8 values: the run has 3 layers, three (mua"
check
[ ! -e "$work/x" ] || fail "a refused run wrote $work/x"
finish test_optics_sets_cli
