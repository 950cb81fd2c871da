#!/bin/sh
# tmcml run --xy and --source oblique:ANGLE (issue 48): the .mco records
# the grid and the source in header comments and gets Rd_xy, Tt_xy and A_xz
# as extra sections, which mco_read (tmcml plot, tmcml conv) reads back;
# the JSON the grid and its unit, --npz the arrays, the cells' centres and,
# with --stderr, their errors; a pencil run with the grid has every other
# section of the run without it; oblique:0 is the pencil beam bit for bit;
# 1 and 2 threads, a run stopped and resumed (with --stderr too), MPI
# ranks and a batch of the .mci's runs give the same tallies; with
# --mua-sets each set has its grid, which the CPU engine alone scores (auto
# takes it and says so, gpu is refused); gen writes the grid's kernel, tune
# and sweep are refused; an oblique beam without --xy, with
# each output that assumes a beam along the axis, or totally reflected is
# refused, and so are bad values of both options, naming the value,
# nothing written.
# usage: test_xy_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
grid="--xy 0.02:60"
sections="Rd_xy Tt_xy A_xz"

expect 0 "oblique" -- "$tmcml" run "$mci" $common --engine cpu --source oblique:45 $grid --npz \
    --stderr -o "$work/o"
expect 0 "pencil" -- "$tmcml" run "$mci" $common --engine cpu $grid --npz -o "$work/p"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --npz -o "$work/plain"
for s in $sections; do
    check
    grep -q "^$s\$" "$work/o/example.mco" || fail "no section $s in the .mco"
    check
    grep -q "^$s" "$work/plain/example.mco" && fail "$s in the .mco of a plain run"
    check
    npz_has "$work/o/example.npz" "$s.npy" || fail "no $s in the .npz"
    check
    npz_has "$work/o/example.npz" "${s}_stderr.npy" || fail "no ${s}_stderr in the .npz"
done
check
npz_has "$work/o/example.npz" "x.npy" || fail "no x in the .npz"
check
grep -q '^# Cartesian grid: 60 x 60 cells of 0.02 cm centred on the entry point$' \
    "$work/o/example.mco" &&
    grep -q '^# Source: oblique beam at 45 degrees .*(--source oblique:45)$' \
        "$work/o/example.mco" || fail "no grid or source comment"
check
grep -q 'Cartesian\|_xy\|A_xz' "$work/plain/example.mco" && fail "a grid in a plain run's .mco"
check
tr -d ' \t\n' <"$work/o/example.json" | grep -q '"xy":{"dx":0.02,"nx":60}' &&
    grep -q '"input.xy.dx":[[:space:]]*"cm"' "$work/o/example.json" &&
    grep -q '"angle":[[:space:]]*45' "$work/o/example.json" &&
    grep -q '"input.source.angle":[[:space:]]*"deg"' "$work/o/example.json" ||
    fail "no grid, angle or their units in the JSON"
check
grep -q '"xy"' "$work/plain/example.json" && fail "a grid in a plain JSON"
# The pencil run's MCML sections are the plain run's.
check
sed -n '/^# Rd\[x\]\[y\]/q;/^#.*tallies/d;/^# Cartesian/d;p' "$work/p/example.mco" >"$work/a"
sed '/^#.*tallies/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's MCML sections differ from the plain run's"
# oblique:0 is the pencil beam: the same tallies, the same sections.
expect 0 "oblique:0" -- "$tmcml" run "$mci" $common --engine cpu --source oblique:0 $grid \
    -o "$work/o0"
check
[ "$(json "$work/o0/example.json" tallies_digest)" = "$(json "$work/p/example.json" \
    tallies_digest)" ] || fail "oblique:0 gives other tallies than the pencil beam"
check
sed '/^# Source/d' "$work/o0/example.mco" | cmp -s - "$work/p/example.mco" ||
    fail "oblique:0's .mco is not the pencil's but for its source line"
# 1 and 2 threads: the same tallies.
obl="--source oblique:30 --xy 0.05:40"
expect 0 "2 threads" -- "$tmcml" run "$mci" $common --engine cpu $obl --threads 2 -o "$work/t2"
expect 0 "1 thread" -- "$tmcml" run "$mci" $common --engine cpu $obl --threads 1 -o "$work/t1"
check
[ "$(json "$work/t1/example.json" tallies_digest)" = "$(json "$work/t2/example.json" \
    tallies_digest)" ] || fail "1 and 2 threads give other tallies"
# Two ranks, and three of which two are idle: the one process's .mco.
# shellcheck disable=SC2086 # the options are a word list
ranks_as_one $obl --stderr
# A batch of the .mci's runs (several runs of one shape share launches):
# each run's .mco is the run's alone.
one_layer_runs 3 4000 "20 30 2" 0.5 0.5 3 >"$work/runs.mci"
expect 0 "batch" -- "$tmcml" run "$work/runs.mci" -S 3 -q --engine cpu $obl -o "$work/batch"
expect 0 "alone" -- "$tmcml" run "$work/runs.mci" -S 3 -q --engine cpu $obl --no-batch \
    -o "$work/alone"
same_mcos "$work/alone" "$work/batch" 3 "a batch's run"
# mco_read takes it back: tmcml plot; tmcml conv drops the grid of a
# pencil beam's and refuses an oblique beam's.
expect 0 "plot" -- "$tmcml" plot "$work/o/example.mco" -o "$work/o/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/p/example.mco" --beam flat:0.1 -o "$work/p/c.mco"
check
grep -q 'Cartesian\|^Rd_xy\|^A_xz' "$work/p/c.mco" && fail "conv kept the grid"
expect 1 "conv oblique" -- "$tmcml" conv "$work/o/example.mco" --beam flat:0.1 -o "$work/o/c.mco"
contains "conv oblique" "a convolution assumes a beam along the axis"
# A truncated extra section is refused as MCML's are.
sed '$d' "$work/o/example.mco" | sed '$d' >"$work/cut.mco"
expect 1 "cut" -- "$tmcml" plot "$work/cut.mco" -o "$work/cut.png"
contains "cut" "A_xz"

# Absorption sets: each its own grid; one set of the run's own mua (the
# reference's histories then the run's) the run's.
printf '1 1 2\n0.5 1 2\n' >"$work/sets.txt"
printf '1 1 2\n' >"$work/own.txt"
expect 0 "sets" -- "$tmcml" run "$mci" $common --engine cpu $grid --mua-sets "$work/sets.txt" \
    -o "$work/s"
for k in 1 2; do
    check
    grep -q '^Rd_xy$' "$work/s/example.set$k.mco" || fail "set $k has no grid"
done
expect 0 "own set" -- "$tmcml" run "$mci" $common --engine cpu $grid --mua-sets "$work/own.txt" \
    -o "$work/own"
check
sed -n '/^# Rd\[x\]\[y\]/,$p' "$work/own/example.set1.mco" >"$work/a"
sed -n '/^# Rd\[x\]\[y\]/,$p' "$work/p/example.mco" >"$work/b"
[ -s "$work/a" ] && cmp -s "$work/a" "$work/b" ||
    fail "a set of the run's own mua has another grid than the run"
# Stopped and resumed: the uninterrupted run's .mco (with --stderr too,
# once its checkpoint holds groups, whose mask of arrays needs the
# format's version 5); another grid refused.
n=1500000
for e in "" --stderr; do
    if [ -z "$e" ]; then
        stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu $obl
    else
        stopped_at_version 5 "$work/k$e" "$mci" -N $n -S 5 -q --engine cpu $obl $e
    fi
    expect 1 "resume other$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu \
        --source oblique:30 --xy 0.05:41 $e --resume -o "$work/k$e"
    contains "resume other$e" "input differs"
    expect 0 "resume$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $obl $e --resume \
        -o "$work/k$e"
    expect 0 "whole$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $obl $e -o "$work/w$e"
    check
    cmp -s "$work/k$e/example.mco" "$work/w$e/example.mco" || fail "resumed .mco$e differs"
done
# The engine: a run's own GPU kernel scores the grid and launches the beam
# (tests/test_xy_gpu.c); with sets the CPU alone: auto takes it and says
# so, gpu is refused saying why; gen writes the kernel, tune and sweep
# refuse both options.
expect 0 "auto" -- "$tmcml" run "$mci" -N 2000 -S 3 --tune never --no-profile $grid \
    --mua-sets "$work/sets.txt" -o "$work/auto"
contains "auto" "--xy with --mua-sets: scored by the CPU engine"
check
[ "$(json "$work/auto/example.set1.json" engine)" = cpu ] || fail "auto did not take the CPU"
expect 2 "gpu" -- "$tmcml" run "$mci" $common --engine gpu $grid --mua-sets "$work/sets.txt" \
    -o "$work/bad"
contains "gpu" "--xy with --mua-sets: Rd_xy, Tt_xy and A_xz are then scored by the CPU engine alone"
expect 0 "gen" -- "$tmcml" gen "$mci" --no-profile $obl -o "$work/xy.cu"
check
grep -q "xy_escape" "$work/xy.cu" && grep -q "oblique beam" "$work/xy.cu" ||
    fail "gen: the kernel scores no grid or launches no oblique beam"
for cmd in tune sweep; do
    sweep_grid=
    [ $cmd = sweep ] && sweep_grid="--nr 50:50:1 --nz 40:40:1"
    expect 2 "$cmd" -- "$tmcml" $cmd "$mci" $sweep_grid $grid -o "$work/bad"
    contains "$cmd" "--xy: an option of tmcml run and tmcml gen"
    expect 2 "$cmd oblique" -- "$tmcml" $cmd "$mci" $sweep_grid --source oblique:10 -o "$work/bad"
    contains "$cmd oblique" "--source oblique: an option of tmcml run and tmcml gen"
done
# The oblique beam: the grid needed, each output that assumes a beam along
# the axis refused, naming it.
expect 2 "no grid" -- "$tmcml" run "$mci" $common --source oblique:45 -o "$work/bad"
contains "no grid" "its one spatial output is the Cartesian grid: add --xy DX:NX"
for option in "--time 0.01:10" "--detector fiber:0.1:0.02:0.22" "--spatial-frequencies 0,1" \
    "--modulation 100MHz" "--mua-sets $work/sets.txt" "--optics-sets $work/sets.txt" \
    "--jacobian"; do
    name=${option%% *}
    # shellcheck disable=SC2086 # the option and its value
    expect 2 "$name" -- "$tmcml" run "$mci" $common $obl $option -o "$work/bad"
    contains "$name" "$name: assumes a beam along the axis"
done
# A beam the surface reflects whole: refused as FILE:LINE.
printf '1.0\n1\ntir.mco A\n100\n0.01 0.01\n10 10 1\n1\n1.6\n1.4 0.1 10 0.9 1\n1.0\n' \
    >"$work/tir.mci"
expect 2 "total reflection" -- "$tmcml" run "$work/tir.mci" $common --source oblique:70 $grid \
    -o "$work/bad"
contains "total reflection" "tir.mci:3: --source \"oblique:70\": the beam is totally reflected"
# A_xz too large for a run's depth bins: refused as FILE:LINE.
printf '1.0\n1\ndeep.mco A\n100\n0.0001 0.01\n40000 1 1\n1\n1.0\n1.4 0.1 10 0.9 10\n1.0\n' \
    >"$work/deep.mci"
expect 2 "A_xz bins" -- "$tmcml" run "$work/deep.mci" $common --xy 0.01:4096 -o "$work/bad"
contains "A_xz bins" "deep.mci:3: --xy: 4096 cells along x x 40000 depth bins (A_xz) exceed"
# Bad values: a message naming the value and the reason, exit 2.
bad() {
    expect 2 "$1 $2" -- "$tmcml" run "$mci" $common "$1" "$2" --xy 0.01:10 -o "$work/bad"
    contains "$1 $2" "$3"
}
bad --source oblique:90 'the angle of incidence must be below 90 degrees (got 90): at 90 degrees or more the beam would not enter the tissue'
bad --source oblique:120 "must be below 90 degrees (got 120)"
bad --source oblique:-5 "the angle of incidence must be a finite number of degrees >= 0 (got -5)"
bad --source oblique:nan "must be a finite number of degrees >= 0 (got nan)"
bad --source oblique:inf "must be a finite number of degrees >= 0 (got inf)"
bad --source oblique "expected pencil, gaussian:W, flat:R, point:Z, fiber:R:NA or oblique:ANGLE"
bad --source oblique: '"" is not a number'
bad --source oblique:45deg '"45deg" is not a number'
bad --source oblique:45:1 "expected pencil"
bad --xy -1:10 '--xy: the cell side -1 cm is not a finite number of at least 1e-09 cm'
bad --xy 0:10 '--xy: the cell side 0 cm is not a finite number of at least 1e-09 cm'
bad --xy nan:10 '--xy "nan:10": the cell side: not a finite number ("nan")'
bad --xy 1e-400:10 'the cell side: too small to compute with'
bad --xy 0.01:0 '--xy "0.01:0": the cell count "0" is not a whole number from 1 to 4096'
bad --xy 0.01:4097 'the cell count "4097" is not a whole number from 1 to 4096'
bad --xy 0.01:10.5 'the cell count "10.5" is not a whole number'
bad --xy 0.01:-3 'the cell count "-3" is not a whole number'
bad --xy 0.01 '--xy "0.01": expected DX:NX'
bad --xy :10 '--xy ":10": expected DX:NX'
bad --xy 0.01: '--xy "0.01:": expected DX:NX'
bad --xy 0.01:10:3 '--xy "0.01:10:3": expected DX:NX'
bad --xy abc:10 '--xy "abc:10": the cell side: not a number ("abc")'
bad --xy 0.1cm:10 'unexpected characters after the number ("0.1cm")'
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"
finish test_xy_cli
