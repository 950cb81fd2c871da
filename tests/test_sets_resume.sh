#!/bin/sh
# Absorption sets are runs as `tmcml run` knows runs (driver/run_sets.h):
# stopped by a signal, every set keeps its checkpoint and partial outputs,
# and --resume ends with each set's .mco byte for byte the uninterrupted
# run's - also when the sets are resumed from different progress (some
# from their checkpoints, some from the start), which simulates them in
# separate histories.  A changed sets table (another reference mua, so
# other histories) is refused.  A run whose final write fails keeps its
# tallies in its checkpoint, from which --resume writes it.
# usage: test_sets_resume.sh TMCML EXAMPLES_DIR
tmcml=$1
examples=$2
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
mci=$examples/mcml_example.mci
photons=1000000
common="-N $photons -S 3 -q --engine cpu --threads 2"
printf '1 1 2\n2.5 1.5 2\n10 10 20\n5 5 5\n' >"$work/sets.csv"

# stop DIR: a sets run into DIR stopped by SIGTERM once its first periodic
# checkpoint is there; its exit status in $rc.
stop() {
    "$tmcml" run "$mci" $common --mua-sets "$work/sets.csv" --checkpoint-every 0.2 "$@" \
        2>"$work/err" &
    pid=$!
    check
    wait_for "$work/part/example.set1.ckpt" || fail "no periodic checkpoint appeared"
    kill -TERM $pid
    wait $pid
    rc=$?
}

expect 0 "uninterrupted" -- "$tmcml" run "$mci" $common --mua-sets "$work/sets.csv" -o "$work/full"

# 1. SIGTERM: exit 143, each set's checkpoint and partial outputs, no .mco.
stop -o "$work/part"
check; [ $rc -eq 143 ] || { fail "SIGTERM: exit $rc, expected 143"; cat "$work/err" >&2; }
check; grep -q "checkpoints and partial outputs of its sets 1 to 4 are kept" "$work/err" ||
    fail "SIGTERM: no stop message: $(cat "$work/err")"
for k in 1 2 3 4; do
    check
    [ -s "$work/part/example.set$k.ckpt" ] && [ -s "$work/part/example.set$k.partial.mco" ] &&
        [ ! -e "$work/part/example.set$k.mco" ] ||
        fail "SIGTERM: set $k lacks its checkpoint or partial .mco, or has a final one"
done

# 2. --resume: every set as uninterrupted; nothing of the stop left.
expect 0 "resume" -- "$tmcml" run "$mci" $common --mua-sets "$work/sets.csv" --resume -o "$work/part"
same_mcos "$work/full" "$work/part" 4 "resumed"
check
[ -z "$(ls "$work/part" | grep -e ckpt -e partial)" ] || fail "resume left $(ls "$work/part")"

# 3. Stopped again, sets 2 and 4 lose their checkpoints: resumed, sets 1
#    and 3 go on from theirs and 2 and 4 start over, in two histories.
rm -rf "$work/part"
stop -o "$work/part"
rm -f "$work/part/example.set2.ckpt" "$work/part/example.set4.ckpt"
expect 0 "resume apart" -- "$tmcml" run "$mci" $common --mua-sets "$work/sets.csv" --resume \
    -o "$work/part"
same_mcos "$work/full" "$work/part" 4 "resumed apart"

# 4. Finished sets are skipped.
expect 0 "resume finished" -- "$tmcml" run "$mci" -N $photons -S 3 --engine cpu --threads 2 \
    --mua-sets "$work/sets.csv" --resume -o "$work/part"
contains "resume finished" "example.set4.mco is complete (no checkpoint): skipped"

# 5. Another table whose reference differs (set 4 below set 1 in layer 1):
#    set 1's checkpoint is another history's, refused and kept.
rm -rf "$work/part"
stop -o "$work/part"
cp "$work/part/example.set1.ckpt" "$work/set1.ckpt"
printf '1 1 2\n2.5 1.5 2\n10 10 20\n0.5 5 5\n' >"$work/other.csv"
expect 1 "other reference" -- "$tmcml" run "$mci" $common --mua-sets "$work/other.csv" --resume \
    -o "$work/part"
contains "other reference" "the input differs from the checkpoint's"
check
cmp -s "$work/set1.ckpt" "$work/part/example.set1.ckpt" || fail "the refused checkpoint changed"

# 6. A run whose .mco cannot be written (a directory put in its place while
#    it simulates) keeps its tallies; once the directory is gone --resume
#    writes them (nothing simulated again: it resumes with every photon done).
expect 0 "plain" -- "$tmcml" run "$mci" $common -o "$work/plain"
"$tmcml" run "$mci" $common --checkpoint-every 0.2 -o "$work/blocked" 2>"$work/err" &
pid=$!
check
wait_for "$work/blocked/example.ckpt" || fail "blocked: no periodic checkpoint appeared"
mkdir "$work/blocked/example.mco"
wait $pid
rc=$?
check; [ $rc -eq 1 ] || fail "blocked: exit $rc, expected 1"
check; grep -q "tallies are kept in .*example.ckpt" "$work/err" ||
    fail "blocked: the tallies are not said to be kept: $(cat "$work/err")"
rmdir "$work/blocked/example.mco"
expect 0 "unblocked" -- "$tmcml" run "$mci" -N $photons -S 3 --engine cpu --resume \
    -o "$work/blocked"
contains "unblocked" "resuming from .*example.ckpt, $photons of $photons photons done"
same_mcos "$work/plain" "$work/blocked" 1 "written from the kept tallies"
finish test_sets_resume
