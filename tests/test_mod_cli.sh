#!/bin/sh
# tmcml run --modulation (issue 48): the .mco records the frequencies in a
# header comment and gets Rd_r_ac, Rd_r_phase, Rd_ac and Rd_phase as extra
# sections, which mco_read (tmcml plot, tmcml conv) reads back; the JSON
# the frequencies (with their unit) and the totals; --npz the arrays, the
# frequencies and, with --stderr, every array's errors; a run without the
# option writes none of them and its MCML sections are the run's with
# them; the units and lists read alike (100MHz, 1e8, 0.1GHz; a number
# without a unit takes the next one; the option repeats); 1 and 2 threads
# give the same tallies; a run stopped and resumed gives the uninterrupted
# run's .mco, with --stderr too (its checkpoint version 5), and --resume
# with other frequencies is refused; MPI ranks give the one process's
# .mco; auto takes the CPU engine and says so, gpu, gen, tune and sweep
# are refused; bad lists are refused with a message naming the value,
# nothing written.
# usage: test_mod_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
opts="--modulation 100,200MHz --modulation 1GHz"
sections="Rd_r_ac Rd_r_phase Rd_ac Rd_phase"

expect 0 "mod" -- "$tmcml" run "$mci" $common --engine cpu $opts --npz --stderr -o "$work/f"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --npz -o "$work/plain"
for s in $sections; do
    check
    grep -q "^$s\( \|$\)" "$work/f/example.mco" || fail "no section $s in the .mco"
    check
    grep -q "^$s" "$work/plain/example.mco" && fail "$s in the .mco of a plain run"
    check
    npz_has "$work/f/example.npz" "$s.npy" || fail "no $s in the .npz"
    check
    npz_has "$work/f/example.npz" "${s}_stderr.npy" || fail "no ${s}_stderr in the .npz"
done
check
npz_has "$work/f/example.npz" "modulation.npy" || fail "no modulation in the .npz"
check
grep -q '^# modulation frequencies: 3 in Hz: 100000000 200000000 1000000000$' \
    "$work/f/example.mco" || fail "no modulation comment"
check
grep -q 'modulation' "$work/plain/example.mco" && fail "frequencies recorded in a plain run"
check
grep -q '"modulation_frequencies"' "$work/f/example.json" &&
    grep -q '"input.modulation_frequencies\[\]":[[:space:]]*"Hz"' "$work/f/example.json" &&
    grep -q '"Rd_phase":[[:space:]]*"rad"' "$work/f/example.json" ||
    fail "no frequencies, their unit or the phase's in the JSON"
check
grep -q 'modulation\|Rd_ac\|_phase' "$work/plain/example.json" && fail "frequencies in a plain JSON"
# The MCML sections are the plain run's.
check
sed -n '/Rd_ac\[r\]/q;/^#.*tallies/d;/^# modulation/d;p' "$work/f/example.mco" >"$work/a"
sed '/^#.*tallies/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's MCML sections differ from the plain run's"
# One list three ways, and the next unit for a number without one: the
# same run, byte for byte.
for list in "1e8,2e8,1e9" "0.1GHz,200 MHz,1000000kHz" "100:100:200MHz,1GHz"; do
    expect 0 "$list" -- "$tmcml" run "$mci" $common --engine cpu --npz --stderr \
        --modulation "$list" -o "$work/l"
    check
    cmp -s "$work/l/example.mco" "$work/f/example.mco" || fail "--modulation $list differs"
done
# 1 and 2 threads: the same tallies.
expect 0 "1 thread" -- "$tmcml" run "$mci" $common --engine cpu $opts --threads 1 -o "$work/f1"
check
[ "$(json "$work/f1/example.json" tallies_digest)" = "$(json "$work/f/example.json" \
    tallies_digest)" ] || fail "1 and 2 threads give other tallies"
# Two ranks, and three of which two are idle: the one process's .mco, the
# modulation tallies (and the standard errors' groups) reduced.
# shellcheck disable=SC2086 # the options are a word list
ranks_as_one $opts --stderr
# mco_read takes it back: tmcml plot, and tmcml conv (whose result drops
# the frequency domain's arrays and their comment).
expect 0 "plot" -- "$tmcml" plot "$work/f/example.mco" -o "$work/f/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/f/example.mco" --beam flat:0.1 -o "$work/f/c.mco"
check
grep -q 'modulation\|^Rd_ac\|^Rd_r_ac' "$work/f/c.mco" && fail "conv kept the frequencies"
# A truncated extra section is refused as MCML's are.
sed '$d' "$work/f/example.mco" | sed '$d' >"$work/cut.mco"
expect 1 "cut" -- "$tmcml" plot "$work/cut.mco" -o "$work/cut.png"
contains "cut" "Rd_phase"
# Stopped and resumed: the uninterrupted run's .mco (with --stderr, once
# its checkpoint holds groups, whose mask of arrays needs the format's
# version 5); other frequencies refused.
n=1500000
for e in "" --stderr; do
    if [ -z "$e" ]; then
        stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu $opts
    else
        stopped_at_version 5 "$work/k$e" "$mci" -N $n -S 5 -q --engine cpu $opts $e
    fi
    expect 1 "resume other$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --modulation 100MHz $e \
        --resume -o "$work/k$e"
    contains "resume other$e" "input differs"
    expect 0 "resume$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts $e --resume -o "$work/k$e"
    expect 0 "whole$e" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts $e -o "$work/w$e"
    check
    cmp -s "$work/k$e/example.mco" "$work/w$e/example.mco" || fail "resumed .mco$e differs"
done
# The engine: a run's own GPU kernel scores up to 32 frequencies; with
# sets, derivatives or more the CPU alone: auto takes it and says so, gpu
# is refused.
expect 0 "auto" -- "$tmcml" run "$mci" -N 2000 -S 3 --tune never --no-profile --jacobian $opts \
    -o "$work/auto"
contains "auto" "--modulation with --jacobian: scored by the CPU engine"
check
[ "$(json "$work/auto/example.json" engine)" = cpu ] || fail "auto did not take the CPU"
expect 2 "gpu" -- "$tmcml" run "$mci" $common --engine gpu --jacobian $opts -o "$work/bad"
contains "gpu" "--modulation with --jacobian: Rd_r_ac and Rd_r_phase are then scored by the CPU engine alone"
expect 2 "gpu, 33" -- "$tmcml" run "$mci" $common --engine gpu --modulation 100:100:3300MHz \
    -o "$work/bad"
contains "gpu, 33" "--modulation of 33 frequencies (a GPU kernel scores at most 32)"
expect 0 "gen" -- "$tmcml" gen "$mci" --no-profile $opts -o "$work/mod.cu"
grep -q "mod_escape" "$work/mod.cu" || fail "gen: the kernel scores no modulation frequencies"
for cmd in tune sweep; do
    sweep_grid=
    [ $cmd = sweep ] && sweep_grid="--nr 50:50:1 --nz 40:40:1"
    expect 2 "$cmd" -- "$tmcml" $cmd "$mci" $sweep_grid $opts -o "$work/bad"
    contains "$cmd" "--modulation: an option of tmcml run and tmcml gen"
done
# Bad lists: a message naming the value and the reason, exit 2.
bad() {
    expect 2 "$1" -- "$tmcml" run "$mci" $common --modulation "$1" -o "$work/bad"
    contains "$1" "$2"
}
bad "-100MHz" "frequency 1, -1e+08 Hz, is negative"
bad "nan" 'frequency: not a finite number ("nan")'
bad "100MHz,nanMHz" 'frequency: not a finite number ("nan")'
bad "0" "frequency 1, 0 Hz, is no modulation"
bad "100" "frequency 1, 100 Hz, is below 1 kHz: looks like the wrong unit"
bad "100MHz,200" "frequency 2, 200 Hz, is below 1 kHz: looks like the wrong unit"
bad "20GHz" "frequency 1, 2e+10 Hz, is above 10 GHz: looks like the wrong unit"
bad "100Mhzz" 'unknown unit "Mhzz" in "100Mhzz": Hz, kHz, MHz or GHz'
bad "100 m" 'unknown unit "m" in "100 m"'
bad "1,,2MHz" "an empty frequency"
bad "1x5MHz" 'unexpected characters after the number ("1x5")'
bad "100:0:200MHz" 'range "100:0:200": expected START:STEP:STOP with STEP > 0'
bad "1:2MHz" "a range is START:STEP:STOP, three numbers (100:100:500MHz)"
bad "1:0.001:2GHz" "more than 256 frequencies"
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"
finish test_mod_cli
