#!/bin/sh
# tmcml run --detector given several times (issue 47: a repeatable option,
# one detector each): the .mco's Rd_fiber section holds a value a detector
# in the order given, each the value of the run of the same seed with that
# detector alone, and a header comment a detector, every other line the
# one-detector run's; the JSON's Rd_fiber and input.fiber_detector are
# lists (one detector's a number and an object, as before); the .npz's
# Rd_fiber has shape (3,); mco_read takes it back (plot; conv drops the
# detectors); a run stopped and resumed gives the uninterrupted run's .mco,
# other detectors refused; a bad detector among several is named by its
# number and value, a seventeenth refused, nothing written; tmcml gen shows
# the kernel of several detectors.
# usage: test_detectors_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
d1=fiber:0.2:0.1:0.5
d2=fiber:0:0.05:1
d3=fiber:0.1:0.02:0.3
three="--detector $d1 --detector $d2 --detector=$d3"

# fiber_values MCO: the values of its Rd_fiber section, one a line.
fiber_values() { sed -n '/^Rd_fiber/,/^$/p' "$1" | sed '1d;/^$/d'; }
# rest MCO: the .mco without the detectors' comments and section and the
# digest (the tallies differ by the detectors').
rest() { sed '/^# fiber detector/d;/tallies/d;/^Rd_fiber/,$d' "$1"; }

expect 0 "three" -- "$tmcml" run "$mci" $common $three --npz -o "$work/three"
k=0
for d in $d1 $d2 $d3; do
    k=$((k + 1))
    expect 0 "alone $k" -- "$tmcml" run "$mci" $common --detector "$d" -o "$work/one$k"
    fiber_values "$work/one$k/example.mco" >>"$work/alone"
done
fiber_values "$work/three/example.mco" >"$work/together"
check
[ "$(wc -l <"$work/together")" -eq 3 ] || fail "not three values in the Rd_fiber section"
check
cmp -s "$work/alone" "$work/together" || fail "a detector's value differs from its run alone"
check
[ "$(grep -c '^# fiber detector: ' "$work/three/example.mco")" -eq 3 ] &&
    grep '^# fiber detector: ' "$work/three/example.mco" | sed -n 3p |
    grep -q 'separation 0.1 cm, radius 0.02 cm, NA 0.3' || fail "the detectors' comments"
rest "$work/three/example.mco" >"$work/a"
rest "$work/one1/example.mco" >"$work/b"
check
cmp -s "$work/a" "$work/b" || fail "the .mco's other lines differ from a one-detector run's"
# The JSON: lists for several, a number and an object for one.
check
grep -q '"Rd_fiber":[[:space:]]*\[' "$work/three/example.json" &&
    grep -q '"fiber_detector":[[:space:]]*\[' "$work/three/example.json" &&
    grep -q '"input.fiber_detector\[\].radius"' "$work/three/example.json" ||
    fail "no lists of detectors in the JSON"
check
grep -q '"Rd_fiber":[[:space:]]*[0-9]' "$work/one1/example.json" &&
    grep -q '"fiber_detector":[[:space:]]*{' "$work/one1/example.json" ||
    fail "one detector's JSON is not a number and an object"
check
npz_head "$work/three/example.npz" Rd_fiber.npy | grep -q "'shape': (3,)" ||
    fail "the .npz's Rd_fiber is not of shape (3,)"
# The same detector twice is two detectors, of one value.
expect 0 "twice" -- "$tmcml" run "$mci" $common --detector "$d1" --detector "$d1" -o "$work/twice"
check
[ "$(fiber_values "$work/twice/example.mco" | uniq | wc -l)" -eq 1 ] &&
    [ "$(fiber_values "$work/twice/example.mco" | wc -l)" -eq 2 ] || fail "a detector twice"
# mco_read takes it back; conv drops the detectors (their reading is not a
# ring's).
expect 0 "plot" -- "$tmcml" plot "$work/three/example.mco" -o "$work/three/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/three/example.mco" --beam flat:0.1 -o "$work/c.mco"
check
grep -q 'fiber' "$work/c.mco" && fail "conv kept the detectors"
# Stopped and resumed: the uninterrupted run's .mco; other detectors refused.
n=1500000
stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu $three
expect 1 "resume other" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --detector "$d1" --detector "$d2" \
    --resume -o "$work/k"
contains "resume other" "input differs"
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $three --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $three -o "$work/w"
check
cmp -s "$work/k/example.mco" "$work/w/example.mco" || fail "resumed .mco differs"
# A bad detector among several: its number and value, exit 2, nothing
# written; so for a seventeenth.
expect 2 "second radius" -- "$tmcml" run "$mci" $common --detector "$d1" --detector fiber:0:-1:0.2 \
    -o "$work/bad"
contains "second radius" "--detector 2: radius -1 cm is not a finite number > 0"
expect 2 "third na" -- "$tmcml" run "$mci" $common $three --detector fiber:0:0.1:1.5 -o "$work/bad"
contains "third na" "--detector 4: numerical aperture 1.5 exceeds the refractive index 1 of the"
expect 2 "second form" -- "$tmcml" run "$mci" $common --detector "$d1" --detector fiber:1 \
    -o "$work/bad"
contains "second form" '--detector 2: expected fiber:SEP:RADIUS:NA, three numbers after "fiber:"'
many=
for k in $(seq 1 17); do many="$many --detector fiber:0.$k:0.01:0.5"; done
expect 2 "seventeen" -- "$tmcml" run "$mci" $common $many -o "$work/bad"
contains "seventeen" '--detector: at most 16 detectors in a run (got a 17th, "fiber:0.17:0.01:0.5")'
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"
# The kernel of several detectors: their count in its spec and a loop over
# their geometry; one detector's has none of it.
expect 0 "gen" -- "$tmcml" gen "$mci" $three -o "$work/three.cu"
check
grep -q 'fibers=3' "$work/three.cu" && grep -q 'timed.fibers\[k\]' "$work/three.cu" ||
    fail "tmcml gen: no kernel of three detectors"
expect 0 "gen one" -- "$tmcml" gen "$mci" --detector "$d1" -o "$work/one.cu"
check
grep -q 'fibers' "$work/one.cu" && fail "one detector's kernel holds several detectors' code"
finish test_detectors_cli
