#!/bin/sh
# `tmcml lut --spatial-frequencies` as a user meets it (docs/lut.md,
# "Spatial frequencies: an SFDI table"), on the CPU engine:
#   - OUT.csv's Rd_fx_K columns after the others, the frequencies' line,
#     each point's Rd_fx_0 (at fx 0) its Rd as the same text, and the
#     columns before them those of the table without frequencies, for
#     both strategies (with --stderr, Rd_fx_K_stderr last);
#   - the list read as `tmcml run` reads it: 0,0.05,0.1/mm is 0,0.5,1;
#   - a table stopped by SIGTERM after its first checkpoint and resumed
#     gives the files of an uninterrupted table byte for byte, and its
#     checkpoint is not the table's without frequencies;
#   - frequencies that are none (negative, NaN, above 10^4 1/cm, too many,
#     an empty item), Rd_fx above 2^27 values, --engine gpu with --strategy
#     sets or more than 128 frequencies: refused naming the option, exit
#     2, nothing written; auto with --strategy sets takes the CPU and says
#     so (not with -q).
#   test_lut_fx_cli.sh TMCML
set -u
tmcml=$1
. "$(dirname "$0")/lib.sh"

layer="--d 0.5 --g 0.8 --n 1.37 --nr 6 --dr 0.05 --engine cpu --threads 2 -S 7"
table="--mua 0.1:2:3:log --musp 5,12 -N 2000 $layer"
fx="0,0.5,2,7"

# data FILE: the lines of a point, without the names and the # lines.
data() { grep -v '^#' "$1" | sed 1d; }
for strategy in sets runs; do
    # shellcheck disable=SC2086
    expect 0 "$strategy" -- "$tmcml" lut $table --strategy $strategy -q -o "$work/$strategy" \
        --spatial-frequencies "$fx"
    # shellcheck disable=SC2086
    expect 0 "$strategy without" -- "$tmcml" lut $table --strategy $strategy -q \
        -o "$work/${strategy}_plain"
    check; head -1 "$work/$strategy.csv" | grep -q ',Rd_r_5,Rd_fx_0,Rd_fx_1,Rd_fx_2,Rd_fx_3$' ||
        fail "$strategy: columns $(head -1 "$work/$strategy.csv")"
    check; grep -q "^# spatial frequencies fx \[1/cm\], 4 values: 0,0.5,2,7; " "$work/$strategy.csv" ||
        fail "$strategy: no line of the frequencies"
    check; [ "$(data "$work/$strategy.csv" | awk -F, '$3 != $10' | wc -l)" -eq 0 ] ||
        fail "$strategy: an Rd_fx_0 that is not Rd"
    check; [ "$(data "$work/$strategy.csv" | cut -d, -f1-9)" = "$(data "$work/${strategy}_plain.csv")" ] ||
        fail "$strategy: Rd or Rd_r differ from the table's without frequencies"
    check; [ "$(data "$work/$strategy.csv" | wc -l)" -eq 6 ] || fail "$strategy: not 6 points"
done
# shellcheck disable=SC2086
expect 0 "stderr" -- "$tmcml" lut $table --strategy runs --stderr -q -o "$work/stderr" \
    --spatial-frequencies "$fx"
check; head -1 "$work/stderr.csv" |
    grep -q ',Rd_r_5_stderr,Rd_fx_0,Rd_fx_1,Rd_fx_2,Rd_fx_3,Rd_fx_0_stderr,Rd_fx_1_stderr,Rd_fx_2_stderr,Rd_fx_3_stderr$' ||
    fail "stderr: columns $(head -1 "$work/stderr.csv")"
check; [ "$(data "$work/stderr.csv" | cut -d, -f1-9,18-21)" = "$(data "$work/runs.csv")" ] ||
    fail "stderr: the values differ from the table's without --stderr"

# The list as `tmcml run` reads it (runtime/io/spatial_frequencies.c).
# shellcheck disable=SC2086
expect 0 "per mm" -- "$tmcml" lut $table --strategy runs -q -o "$work/mm" \
    --spatial-frequencies "0,0.05,0.2,0.7/mm"
check; cmp -s "$work/mm.npz" "$work/runs.npz" || fail "per mm: another table than 0,0.5,2,7 per cm"

# Stopped after its first checkpoint, then resumed: the uninterrupted files.
long="--mua 0.1:2:16:log --musp 5:20:4 --strategy runs -N 6000 $layer -q"
# shellcheck disable=SC2086
expect 0 "long" -- "$tmcml" lut $long --spatial-frequencies "$fx" -o "$work/full"
# shellcheck disable=SC2086
"$tmcml" lut $long --spatial-frequencies "$fx" --checkpoint-every 0.001 -o "$work/part" \
    2>"$work/err" &
pid=$!
n=0
while [ ! -s "$work/part.lut.ckpt" ] && kill -0 $pid 2>/dev/null && [ $n -lt 2400 ]; do
    sleep 0.05
    n=$((n + 1))
done
kill -TERM $pid
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "stopped: exit $rc, expected 143"; cat "$work/err" >&2; }
check; [ -s "$work/part.lut.ckpt" ] && [ ! -e "$work/part.csv" ] || fail "stopped: $(ls "$work")"
cp "$work/part.lut.ckpt" "$work/kept"
# shellcheck disable=SC2086
expect 2 "resumed without frequencies" -- "$tmcml" lut $long --resume -o "$work/part"
contains "resumed without frequencies" \
    "made with --spatial-frequencies count 4, this one has nothing more"
check; cmp -s "$work/part.lut.ckpt" "$work/kept" || fail "the refused checkpoint changed"
# shellcheck disable=SC2086
expect 0 "resumed" -- "$tmcml" lut $long --spatial-frequencies "$fx" --resume -o "$work/part"
check; cmp -s "$work/full.csv" "$work/part.csv" && cmp -s "$work/full.npz" "$work/part.npz" ||
    fail "resumed: the files differ from the uninterrupted table's"
check; [ ! -e "$work/part.lut.ckpt" ] || fail "resumed: the checkpoint was left"

# Refused before anything runs: exit 2, the option named, nothing written.
bad() {
    what=$1
    shift
    expect 2 "$what" -- "$tmcml" lut "$@" -o "$work/bad"
    contains "$what" "$what"
    check; [ -z "$(ls "$work" | grep '^bad')" ] || fail "$what: wrote $(ls "$work" | grep '^bad')"
}
ok="--mua 0.1,1 --musp 5 -N 100"
# shellcheck disable=SC2086
{
    bad '--spatial-frequencies: frequency 2, -1 1/cm, is negative' $ok --spatial-frequencies 0,-1
    bad '--spatial-frequencies: frequency: not a finite number ("nan")' $ok \
        --spatial-frequencies 0,nan
    bad '--spatial-frequencies: frequency 1, 20000 1/cm, is above 10000 1/cm' $ok \
        --spatial-frequencies 2e4
    bad '--spatial-frequencies: range "0:1:2000" has more than 1024 frequencies' $ok \
        --spatial-frequencies 0:1:2000
    bad '--spatial-frequencies: an empty frequency' $ok --spatial-frequencies 0,,1
    bad 'lut: 1000 mus.* x 1000 mua x 201 frequencies is 2.01e+08 values of Rd_fx, more than 2^27' \
        --mua 0.1:1:1000 --musp 1:10:1000 -N 100 --nr 1 --spatial-frequencies 0:1:200
    bad 'lut: --spatial-frequencies with the sets strategy .*: Rd_fx is then scored by the CPU engine alone: use --engine cpu (or auto), or --strategy runs' \
        $ok --strategy sets --engine gpu --spatial-frequencies 0,1
    bad 'lut: --spatial-frequencies of 201 frequencies (a GPU kernel scores at most 128)' \
        $ok --engine gpu --spatial-frequencies 0:1:200
}
# auto with sets: the CPU, said; with -q not.
# shellcheck disable=SC2086
expect 0 "auto sets" -- "$tmcml" lut $ok --strategy sets --spatial-frequencies 0,1 -o "$work/auto"
contains "auto sets" "tmcml: --spatial-frequencies with the sets strategy .*: scored by the CPU engine"
contains "auto sets" "strategy sets, engine cpu"
# shellcheck disable=SC2086
expect 0 "auto sets -q" -- "$tmcml" lut $ok --strategy sets --spatial-frequencies 0,1 -q \
    -o "$work/auto"
check; [ ! -s "$work/out" ] || fail "auto sets -q: printed $(cat "$work/out")"
expect 0 "help" -- "$tmcml" lut --help
contains "help" "--spatial-frequencies LIST"
finish lut_fx_cli
