#!/bin/sh
# tmcml run --spatial-frequencies (issue 48): the .mco records the
# frequencies in a header comment and gets Rd_fx and Tt_fx as extra
# sections, which mco_read (tmcml plot, tmcml conv) reads back; the JSON
# the frequencies (with their unit) and the arrays, Rd_fx[0] being RAT's
# Rd; --npz the arrays and fx; a run without the option writes none of
# them and its MCML sections are the run's with them; 1 and 2 threads give
# the same tallies; a run stopped and resumed gives the uninterrupted run's
# .mco, and --resume with other frequencies is refused; MPI ranks give the
# one process's .mco; /mm is converted; gen shows the GPU kernel's scoring;
# bad lists, --engine gpu with derivatives or more than 128 frequencies,
# tune and sweep are refused with a message naming the value or the
# option, nothing written.
# usage: test_fx_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
opts="--spatial-frequencies 0:0.5:2,10"

expect 0 "fx" -- "$tmcml" run "$mci" $common --engine cpu $opts --npz -o "$work/f"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --npz -o "$work/plain"
for s in Rd_fx Tt_fx; do
    check
    grep -q "^$s " "$work/f/example.mco" || fail "no section $s in the .mco"
    check
    grep -q "^$s" "$work/plain/example.mco" && fail "$s in the .mco of a plain run"
    check
    npz_has "$work/f/example.npz" "$s.npy" || fail "no $s in the .npz"
done
check
npz_has "$work/f/example.npz" "fx.npy" || fail "no fx in the .npz"
check
grep -q '^# spatial frequencies: 6 in 1/cm: 0 0.5 1 1.5 2 10$' "$work/f/example.mco" ||
    fail "no spatial-frequencies comment"
check
grep -q 'spatial' "$work/plain/example.mco" && fail "frequencies recorded in a plain run"
check
grep -q '"spatial_frequencies"' "$work/f/example.json" &&
    grep -q '"input.spatial_frequencies\[\]":[[:space:]]*"1/cm"' "$work/f/example.json" ||
    fail "no frequencies or their unit in the JSON"
check
grep -q 'spatial\|_fx' "$work/plain/example.json" && fail "frequencies in a plain JSON"
# Rd_fx[0] is Rd: the JSON's first entry of Rd_fx is RAT's Rd, digit for digit.
check
rd=$(json "$work/f/example.json" Rd)
rd_fx=$(tr -d ' \n\t' <"$work/f/example.json" | sed -n 's/.*"Rd_fx":\[\([^],]*\).*/\1/p')
[ -n "$rd" ] && [ "$rd" = "$rd_fx" ] || fail "Rd_fx[0] $rd_fx is not Rd $rd"
# The MCML sections are the plain run's.
check
sed -n '/^Rd_fx /q;/^#.*tallies/d;/^# spatial/d;p' "$work/f/example.mco" >"$work/a"
sed '/^#.*tallies/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's MCML sections differ from the plain run's"
# 1 and 2 threads: the same tallies.
expect 0 "1 thread" -- "$tmcml" run "$mci" $common --engine cpu $opts --threads 1 -o "$work/f1"
check
[ "$(json "$work/f1/example.json" tallies_digest)" = "$(json "$work/f/example.json" \
    tallies_digest)" ] || fail "1 and 2 threads give other tallies"
# Two ranks, and three of which two are idle: the one process's .mco, the
# frequencies' tallies reduced.
# shellcheck disable=SC2086 # the options are a word list
ranks_as_one $opts
# mco_read takes it back: tmcml plot, and tmcml conv (whose result drops
# the frequencies' arrays and their comment).
expect 0 "plot" -- "$tmcml" plot "$work/f/example.mco" -o "$work/f/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/f/example.mco" --beam flat:0.1 -o "$work/f/c.mco"
check
grep -q 'spatial\|^Rd_fx' "$work/f/c.mco" && fail "conv kept the frequencies"
# A truncated extra section is refused as MCML's are.
sed '$d' "$work/f/example.mco" | sed '$d' >"$work/cut.mco"
expect 1 "cut" -- "$tmcml" plot "$work/cut.mco" -o "$work/cut.png"
contains "cut" "Tt_fx"
# Per mm: converted to per cm exactly (0.3/mm is 3, not 3.0000000000000004).
expect 0 "per mm" -- "$tmcml" run "$mci" $common --engine cpu --spatial-frequencies "0:0.1:0.3 1/mm" \
    -o "$work/mm"
check
grep -q '^# spatial frequencies: 4 in 1/cm: 0 1 2 3$' "$work/mm/example.mco" ||
    fail "0:0.1:0.3 1/mm is not 0 1 2 3 per cm"
# Stopped and resumed: the uninterrupted run's .mco; other frequencies refused.
n=1500000
stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu $opts
expect 1 "resume other" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --spatial-frequencies 0:0.5:2,11 \
    --resume -o "$work/k"
contains "resume other" "input differs"
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts -o "$work/w"
check
cmp -s "$work/k/example.mco" "$work/w/example.mco" || fail "resumed .mco differs"
# The engine: a run's own GPU kernel scores up to 128 frequencies
# (tests/test_fx_gpu.c); with derivatives, or more, auto takes the CPU and
# says so, gpu is refused saying why.
expect 0 "auto" -- "$tmcml" run "$mci" -N 2000 -S 3 --tune never --no-profile --jacobian $opts \
    -o "$work/auto"
contains "auto" "--spatial-frequencies with --jacobian: scored by the CPU engine"
check
[ "$(json "$work/auto/example.json" engine)" = cpu ] || fail "auto did not take the CPU"
expect 2 "gpu" -- "$tmcml" run "$mci" $common --engine gpu --jacobian $opts -o "$work/bad"
contains "gpu" "--spatial-frequencies with --jacobian: Rd_fx and Tt_fx are then scored by the CPU engine alone"
expect 2 "gpu, 129" -- "$tmcml" run "$mci" $common --engine gpu --spatial-frequencies 0:1:128 \
    -o "$work/bad"
contains "gpu, 129" "--spatial-frequencies of 129 frequencies (a GPU kernel scores at most 128)"
expect 0 "gen" -- "$tmcml" gen "$mci" --no-profile $opts -o "$work/fx.cu"
grep -q "fx_escape" "$work/fx.cu" || fail "gen: the kernel scores no spatial frequencies"
for cmd in tune sweep; do
    sweep_grid=
    [ $cmd = sweep ] && sweep_grid="--nr 50:50:1 --nz 40:40:1"
    expect 2 "$cmd" -- "$tmcml" $cmd "$mci" $sweep_grid $opts -o "$work/bad"
    contains "$cmd" "--spatial-frequencies: an option of tmcml run and tmcml gen"
done
# Bad lists: a message naming the value and the reason, exit 2.
bad() {
    expect 2 "$1" -- "$tmcml" run "$mci" $common --spatial-frequencies "$1" -o "$work/bad"
    contains "$1" "$2"
}
bad "-0.1" "frequency 1, -0.1 1/cm, is negative"
bad "0,nan" 'frequency: not a finite number ("nan")'
bad "inf" 'frequency: not a finite number ("inf")'
bad "1,,2" "an empty frequency"
bad "0.5," "an empty frequency"
bad "1x" 'unexpected characters after the number ("1x")'
bad "0:0:1" 'range "0:0:1": expected START:STEP:STOP with STEP > 0'
bad "2:1:1" 'range "2:1:1": expected START:STEP:STOP with STEP > 0 and STOP >= START'
bad "0:1" "a range is START:STEP:STOP, three numbers"
bad "0:0.001:2" "more than 1024 frequencies"
bad "2e4" "frequency 1, 20000 1/cm, is above 10000 1/cm (a period of 1 um)"
bad "2000/mm" "20000 1/cm, is above 10000 1/cm"
bad "1e-320" 'frequency: too small to compute with ("1e-320")'
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"
finish test_fx_cli
