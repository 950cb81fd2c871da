#!/bin/sh
# tmcml run --time and --detector (issue 26): the .mco records them in
# header comments and gets Rd_rt, Rd_t, Tt_rt, Tt_t and Rd_fiber as extra
# sections after MCML's, which mco_read (tmcml plot, tmcml conv) reads back;
# the JSON the settings and the 1-D arrays; --npz the arrays (with
# --jacobian their derivatives, of rank 4 for the time bins); a run without
# the options writes none of them and its MCML sections are the run's with
# them; a run stopped and resumed gives the uninterrupted run's .mco, and
# --resume with other time bins is refused; bad values are refused with a
# message naming the value, nothing written; tmcml gen shows the time
# kernel, the absorption sets' and the derivatives' with them, and refuses
# a batch's.
# usage: test_time_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
opts="--time 0.005:40 --detector fiber:0.2:0.1:0.5"

expect 0 "time" -- "$tmcml" run "$mci" $common --engine cpu $opts --npz -o "$work/t"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --npz -o "$work/plain"
for s in Rd_rt Rd_t Tt_rt Tt_t Rd_fiber; do
    check
    grep -q "^$s\( \|$\)" "$work/t/example.mco" || fail "no section $s in the .mco"
    check
    grep -q "^$s" "$work/plain/example.mco" && fail "$s in the .mco of a plain run"
    check
    npz_has "$work/t/example.npz" "$s.npy" || fail "no $s in the .npz"
done
check
grep -q '^# time bins: 40 of 0.005 ns' "$work/t/example.mco" || fail "no time-bins comment"
check
grep -q '^# fiber detector: separation 0.2 cm, radius 0.1 cm, NA 0.5' "$work/t/example.mco" ||
    fail "no detector comment"
check
grep -q 'time bins\|fiber' "$work/plain/example.mco" && fail "options recorded in a plain run"
check
grep -q '"time_bins"' "$work/t/example.json" && grep -q '"Rd_fiber"' "$work/t/example.json" ||
    fail "no time bins or Rd_fiber in the JSON"
check
grep -q 'time_bins\|Rd_t\|fiber' "$work/plain/example.json" && fail "options in a plain JSON"
# The MCML sections are the plain run's.
check
sed -n '/^# Rd\[r\]\[t\]/q;/^#.*tallies/d;/^# time bins/d;/^# fiber/d;p' "$work/t/example.mco" >"$work/a"
sed '/^#.*tallies/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's MCML sections differ from the plain run's"
# With the derivatives: the .npz holds the time bins' (nr x nt x layers x 3,
# a rank the writer once had no room for: it crashed).
expect 0 "jacobian" -- "$tmcml" run "$mci" $common $opts --jacobian -o "$work/j"
check
npz_head "$work/j/example.npz" Rd_rt_jacobian.npy | grep -q "'shape': (50, 40, 3, 3)" ||
    fail "no Rd_rt_jacobian of shape (50, 40, 3, 3) in the .npz"
# mco_read takes it back: tmcml plot, and tmcml conv (whose result drops
# the time and detector arrays, and their comments).
expect 0 "plot" -- "$tmcml" plot "$work/t/example.mco" -o "$work/t/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/t/example.mco" --beam flat:0.1 -o "$work/t/c.mco"
expect 0 "conv back" -- "$tmcml" plot "$work/t/c.mco" -o "$work/t/c.png"
# A truncated extra section is refused as MCML's are.
sed '$d' "$work/t/example.mco" | sed '$d' >"$work/cut.mco"
expect 1 "cut" -- "$tmcml" plot "$work/cut.mco" -o "$work/cut.png"
contains "cut" "Rd_fiber"
# Stopped and resumed: the uninterrupted run's .mco; other bins refused.
n=1500000
stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu $opts
expect 1 "resume other" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --time 0.005:41 \
    --detector fiber:0.2:0.1:0.5 --resume -o "$work/k"
contains "resume other" "input differs"
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu $opts -o "$work/w"
check
cmp -s "$work/k/example.mco" "$work/w/example.mco" || fail "resumed .mco differs"
# Bad values: a message naming the value, exit 2, nothing written.
expect 2 "dt" -- "$tmcml" run "$mci" $common --time 0:10 -o "$work/bad"
contains "dt" "--time: bin width 0 ns is not a finite number > 0"
# Widths whose text underflows, that are subnormal, too narrow to
# normalise (1e-320:10 wrote -NaN and Inf into Rd_rt), or whose bins
# overflow (issue 42).
expect 2 "dt 1e-320" -- "$tmcml" run "$mci" $common --time 1e-320:10 -o "$work/bad"
contains "dt 1e-320" '--time: bin width: too small to compute with ("1e-320")'
expect 2 "dt 1e-400" -- "$tmcml" run "$mci" $common --time 1e-400:10 -o "$work/bad"
contains "dt 1e-400" '--time: bin width: too small to compute with ("1e-400")'
expect 2 "dt 1e-30" -- "$tmcml" run "$mci" $common --time 1e-30:10 -o "$work/bad"
contains "dt 1e-30" "--time: bin width 1e-30 ns is below 1e-09 ns"
# A width in seconds where tmcml takes ns (MCX's habit, issue 47): refused.
expect 2 "dt in seconds" -- "$tmcml" run "$mci" $common --time 1e-11:50 -o "$work/bad"
contains "dt in seconds" "--time: bin width 1e-11 ns is below 1e-05 ns (10 fs): it looks like seconds"
check; [ ! -e "$work/bad" ] || [ -z "$(ls "$work/bad")" ] || fail "dt in seconds: files written"
expect 2 "dt 1e308" -- "$tmcml" run "$mci" $common --time 1e308:10 -o "$work/bad"
contains "dt 1e308" "--time: 10 bins of 1e+308 ns end beyond the largest number"
expect 2 "detector 2e-324" -- "$tmcml" run "$mci" $common --detector fiber:2e-324:0.1:0.2 \
    -o "$work/bad"
contains "detector 2e-324" '--detector: too small to compute with ("2e-324")'
expect 2 "detector 1e-320" -- "$tmcml" run "$mci" $common --detector fiber:0:0.1:1e-320 \
    -o "$work/bad"
contains "detector 1e-320" '--detector: too small to compute with ("1e-320")'
expect 2 "nt" -- "$tmcml" run "$mci" $common --time 0.1:2.5 -o "$work/bad"
contains "nt" '--time: bin count "2.5" is not a whole number'
expect 2 "form" -- "$tmcml" run "$mci" $common --time 0.1 -o "$work/bad"
contains "form" '--time: expected DT:NT'
expect 2 "na" -- "$tmcml" run "$mci" $common --detector fiber:0:0.1:1.5 -o "$work/bad"
contains "na" "numerical aperture 1.5 exceeds the refractive index 1 of the medium above"
expect 2 "radius" -- "$tmcml" run "$mci" $common --detector fiber:0:-1:0.2 -o "$work/bad"
contains "radius" "--detector: radius -1 cm is not a finite number > 0"
expect 2 "kind" -- "$tmcml" run "$mci" $common --detector disc:0:1:0.2 -o "$work/bad"
contains "kind" 'expected fiber:SEP:RADIUS:NA'
# The GPU's kernel for a run with time bins: a batch kernel has none.
expect 2 "gen batch" -- "$tmcml" gen "$mci" --batch --time 0.01:10 -o "$work/k.cu"
contains "gen batch" "scored by a run's own kernel on the GPU, not by a batch kernel"
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"
expect 0 "gen" -- "$tmcml" gen "$mci" --time 0.01:10 --detector fiber:0:0.1:1 -o "$work/t.cu"
check
grep -q 'timed_escape' "$work/t.cu" || fail "tmcml gen --time: no timed_escape in the kernel"
# The absorption sets' kernel scores each set's time bins and detectors
# (templates/sets.cu), with derivatives theirs too.
printf '1 1 2\n' >"$work/sets.txt"
expect 0 "gen sets" -- "$tmcml" gen "$mci" -A --time 0.01:10 --detector fiber:0:0.1:1 \
    --mua-sets "$work/sets.txt" -o "$work/s.cu"
check
grep -q 'sets_score_timed' "$work/s.cu" || fail "tmcml gen --time --mua-sets: no sets_score_timed"
expect 0 "gen jacobian" -- "$tmcml" gen "$mci" -A --time 0.01:10 --detector fiber:0:0.1:1 \
    --jacobian -o "$work/j.cu"
check
grep -q 'rd_jt, tt_jt, rd_jf' "$work/j.cu" || fail "tmcml gen --time --jacobian: no rd_jt, rd_jf"
expect 0 "gen plain" -- "$tmcml" gen "$mci" -o "$work/p.cu"
check
grep -q 'timed\|flight;' "$work/p.cu" && fail "a plain kernel holds the time bins' code"
finish test_time_cli
