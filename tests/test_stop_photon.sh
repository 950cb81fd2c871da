#!/bin/sh
# A stop is obeyed between two photons, not at the end of a thread's chunk
# of 1024 (runtime/engine/cpu.c): a run of 1034 long photons (each tens of
# thousands of steps: one thread's chunk takes seconds) given SIGTERM soon
# after its first periodic checkpoint exits 143 with its checkpoint and
# partial outputs and fewer photons done than one chunk holds; resumed, it
# ends with the uninterrupted run's .mco.  (Before, the threads finished
# their chunks - every photon of this run - so the stop came too late to
# stop anything; with long photons a batch system's kill came first.)
# usage: test_stop_photon.sh TMCML
tmcml=$1
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
photons=1034
printf '1.0\n1\nlong.mco A\n%d\n0.01 0.01\n5 5 1\n1\n1.0\n1.4 0.0001 1000 0.9 1E8\n1.0\n' \
    $photons >"$work/long.mci"
common="--engine cpu --threads 2 -S 9 -q"
json_num() { tr -d ' \t\n' <"$1" | sed -n "s/.*\"$2\":\([0-9.e+]*\).*/\1/p"; }

expect 0 "uninterrupted" -- "$tmcml" run "$work/long.mci" $common -o "$work/full"

"$tmcml" run "$work/long.mci" $common --checkpoint-every 0.1 -o "$work/part" 2>"$work/err" &
pid=$!
wait_for "$work/part/long.ckpt"
kill -TERM $pid
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "SIGTERM: exit $rc, expected 143"; cat "$work/err" >&2; }
done1=$(json_num "$work/part/long.partial.json" photons_done)
check; [ -n "$done1" ] && [ "$done1" -lt $photons ] ||
    fail "SIGTERM: $done1 photons done of $photons: the threads finished their chunks"
expect 0 "resume" -- "$tmcml" run "$work/long.mci" $common --resume -o "$work/part"
same_mcos "$work/full" "$work/part" 1 "resumed after a stop between photons"
finish test_stop_photon
