#!/bin/sh
# `tmcml lut`'s stops and --resume (cli/lut_run.c, api/lut.c, driver/lut_checkpoint.c,
# docs/lut.md "Stops and --resume"), driven by real signals to a real
# process on the CPU engine:
#   - a table stopped by SIGTERM after its first checkpoint (exit 143, the
#     simulations done kept in OUT.lut.ckpt, no OUT.csv or OUT.npz), resumed
#     and stopped again by SIGINT (exit 130), then resumed to its end, gives
#     the OUT.csv and OUT.npz of an uninterrupted table byte for byte, and
#     the checkpoint is removed; for both strategies;
#   - without --resume an existing checkpoint is refused and kept;
#   - a resume with another seed, axis or photon count is refused naming
#     it, and a damaged or truncated checkpoint is refused, each with exit
#     status 2, nothing written and the checkpoint left as it was;
#   - a signal during one long simulation stops it within seconds (the call
#     is cancelled, not waited for);
#   - --resume without a checkpoint simulates the table from the start.
#   test_lut_resume.sh TMCML
set -u
tmcml=$1
. "$(dirname "$0")/lib.sh"

# new_file FILE COPY: FILE is there and differs from COPY.
new_file() { [ -s "$1" ] && ! cmp -s "$1" "$2"; }
# wait_for_new FILE COPY PID: up to 120 s, while process PID lives, for
# FILE to appear and differ from COPY (the table then wrote a checkpoint:
# it is past a call, with the signal handler in its graceful mode).
wait_for_new() {
    n=0
    while ! new_file "$1" "$2" && kill -0 "$3" 2>/dev/null && [ $n -lt 2400 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    new_file "$1" "$2"
}
no_temps() { ! ls -A "$work" | grep -q '\.tmp\.'; }

# 16 simulations either way, each of about 0.1 s (so that the table is far
# from its end when the signal comes): the runs' 16 mua (a batch of 4 mus'
# each), the sets' 16 mus' (4 mua each); a slab, so that photons end soon.
layer="--d 0.5 --g 0.8 --n 1.37 --nr 6 --dr 0.05 --engine cpu --threads 2 -q"
common="$layer -S 7"
table_runs="--mua 0.1:2:16:log --musp 5:20:4 --strategy runs -N 6000 $common"
table_sets="--mua 0.1:2:4:log --musp 5:20:16 --strategy sets -N 20000 $common"

# stop OUT SIGNAL STATUS WHAT [options...]: the table started in the
# background with a checkpoint after every call, stopped by SIGNAL once a
# (new) checkpoint is there; its exit status and what it kept checked.
stop() {
    out=$1 sig=$2 want=$3 what=$4
    shift 4
    ckpt=$out.lut.ckpt
    [ -e "$ckpt" ] && cp "$ckpt" "$work/before" || : >"$work/before"
    "$tmcml" lut "$@" --checkpoint-every 0.001 -o "$out" 2>"$work/err" &
    pid=$!
    check
    wait_for_new "$ckpt" "$work/before" $pid || fail "$what: no checkpoint appeared"
    kill -"$sig" $pid
    wait $pid
    rc=$?
    check; [ $rc -eq "$want" ] || { fail "$what: exit $rc, expected $want"; cat "$work/err" >&2; }
    check
    grep -q "kept [0-9]* of 16 simulations .* in $ckpt .*continue with the same command and --resume" \
        "$work/err" || { fail "$what: no stop message"; cat "$work/err" >&2; }
    kept=$(sed -n 's/.*kept \([0-9]*\) of 16 simulations.*/\1/p' "$work/err")
    check; [ -n "$kept" ] && [ "$kept" -ge 1 ] && [ "$kept" -lt 16 ] ||
        fail "$what: kept ${kept:-nothing} of 16: not stopped partway"
    check; [ -s "$ckpt" ] && [ ! -e "$out.csv" ] && [ ! -e "$out.npz" ] ||
        fail "$what: files: $(ls "$work")"
    check; no_temps || fail "$what: temp files left: $(ls -A "$work")"
}

for strategy in runs sets; do
    eval "table=\$table_$strategy"
    full=$work/full_$strategy
    part=$work/part_$strategy
    # shellcheck disable=SC2086
    expect 0 "$strategy: uninterrupted" -- "$tmcml" lut $table -o "$full"
    # shellcheck disable=SC2086
    stop "$part" TERM 143 "$strategy: SIGTERM" $table
    cp "$part.lut.ckpt" "$work/kept"
    # Without --resume the checkpoint is in the way, and kept.
    # shellcheck disable=SC2086
    expect 2 "$strategy: no --resume" -- "$tmcml" lut $table -o "$part"
    contains "$strategy: no --resume" "a checkpoint of this table exists .*--resume"
    check; cmp -s "$part.lut.ckpt" "$work/kept" || fail "$strategy: no --resume: checkpoint changed"
    # Resumed, and stopped again: what the checkpoint held and what the
    # resumed table adds are written together.
    # shellcheck disable=SC2086
    stop "$part" INT 130 "$strategy: resumed, SIGINT" $table --resume
    # shellcheck disable=SC2086
    expect 0 "$strategy: resumed to the end" -- "$tmcml" lut $table --resume -o "$part"
    check; cmp -s "$full.csv" "$part.csv" || fail "$strategy: the resumed CSV differs"
    check; cmp -s "$full.npz" "$part.npz" || fail "$strategy: the resumed .npz differs"
    check; [ ! -e "$part.lut.ckpt" ] || fail "$strategy: the checkpoint was left"
done

# A checkpoint of another table, or a damaged one, is refused (exit 2),
# naming what differs; the checkpoint stays and nothing is written.
part=$work/refused
# shellcheck disable=SC2086
stop "$part" TERM 143 "refused: SIGTERM" $table_runs
cp "$part.lut.ckpt" "$work/kept"
refused() { # WHAT MESSAGE options...
    what=$1 msg=$2
    shift 2
    expect 2 "$what" -- "$tmcml" lut "$@" --resume -o "$part"
    contains "$what" "$msg"
    check; cmp -s "$part.lut.ckpt" "$work/kept" || fail "$what: the checkpoint changed"
    check; [ ! -e "$part.csv" ] && [ ! -e "$part.npz" ] || fail "$what: wrote $(ls "$work")"
    cp "$work/kept" "$part.lut.ckpt"
}
# shellcheck disable=SC2086
{
    # $table_runs with one option changed (each option is given once)
    refused "another seed" "made with --seed 7, this one has --seed 8" \
        --mua 0.1:2:16:log --musp 5:20:4 --strategy runs -N 6000 $layer -S 8
    refused "another photon count" "made with --photons 6000, this one has --photons 7000" \
        --mua 0.1:2:16:log --musp 5:20:4 --strategy runs -N 7000 $common
    refused "another axis" "made with --musp\[1\] 10, this one has --musp\[1\] 11" \
        --mua 0.1:2:16:log --musp 5,11,15,20 --strategy runs -N 6000 $common
    refused "another strategy" "made with --strategy runs, this one has --strategy sets" \
        --mua 0.1:2:16:log --musp 5:20:4 --strategy sets -N 6000 $common
}
size=$(wc -c <"$work/kept")
# A byte changed in the middle (a disk or copy error), and the file cut short.
cp "$work/kept" "$work/flipped"
byte=$(od -An -tu1 -j $((size / 2)) -N 1 "$work/kept" | tr -d ' ')
# shellcheck disable=SC2059
printf "\\$(printf %o $((byte == 88 ? 89 : 88)))" |
    dd of="$work/flipped" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check; [ "$(wc -c <"$work/flipped")" -eq "$size" ] && ! cmp -s "$work/flipped" "$work/kept" ||
    fail "the damaged copy was not made"
cp "$work/flipped" "$part.lut.ckpt"
cp "$work/flipped" "$work/kept"
# shellcheck disable=SC2086
refused "a damaged checkpoint" "not a valid tmcml lut checkpoint: checksum mismatch" $table_runs
head -c $((size - 100)) "$work/flipped" >"$part.lut.ckpt"
cp "$part.lut.ckpt" "$work/kept"
# shellcheck disable=SC2086
refused "a truncated checkpoint" "not a valid tmcml lut checkpoint: checksum mismatch" $table_runs
head -c 10 "$work/flipped" >"$part.lut.ckpt"
cp "$part.lut.ckpt" "$work/kept"
# shellcheck disable=SC2086
refused "a stub of a checkpoint" "not a valid tmcml lut checkpoint: truncated" $table_runs

# A signal during one long simulation (a semi-infinite medium, 10^7 photons
# a point: minutes of CPU time) stops it within seconds: the call is
# cancelled, nothing is kept, no file is written.
"$tmcml" lut --mua 0.01,0.1 --musp 10 -N 1e7 --engine cpu --threads 2 -q -o "$work/long" \
    2>"$work/err" &
pid=$!
sleep 2
kill -TERM $pid
waited=0
while kill -0 $pid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
check; [ $waited -lt 100 ] || { fail "long call: still running 10 s after SIGTERM"; kill -KILL $pid; }
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "long call: exit $rc, expected 143"; cat "$work/err" >&2; }
check; grep -q "no simulation of the table had ended: nothing kept" "$work/err" ||
    { fail "long call: no stop message"; cat "$work/err" >&2; }
check; [ -z "$(ls "$work" | grep '^long')" ] || fail "long call: wrote $(ls "$work" | grep '^long')"

# --resume without a checkpoint: the whole table, as without it.
small="--mua 0.1,1 --musp 5,10 -N 2000 $common"
# shellcheck disable=SC2086
expect 0 "fresh --resume" -- "$tmcml" lut $small --resume -o "$work/fresh"
# shellcheck disable=SC2086
expect 0 "fresh" -- "$tmcml" lut $small -o "$work/plain"
check; cmp -s "$work/fresh.csv" "$work/plain.csv" && cmp -s "$work/fresh.npz" "$work/plain.npz" ||
    fail "fresh --resume: the table differs"

expect 2 "bad period" -- "$tmcml" lut $small --checkpoint-every -1 -o "$work/bad"
contains "bad period" "--checkpoint-every: expected seconds, from 0 (only on a signal) to 604800"
finish lut_resume
