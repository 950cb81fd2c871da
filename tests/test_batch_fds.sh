#!/bin/sh
# A batch's runs each hold their output lock open (driver/fd_room.h): a file of
# 400 runs of one shape on the CPU engine
# - under a hard limit of 300 descriptors is opened and batched
#   in slices (about 200 runs each, fewer as more descriptors are open when it
#   starts: 2 or 3 slices), never refused for "Too many open files";
# - under a soft limit of 300 below a higher hard one is one batch (the soft
#   limit raised);
# every .mco the same as with the limits as they were.  Exit 77 (skipped)
# under a hard limit below 1024.
# usage: test_batch_fds.sh TMCML
tmcml=$1
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
runs=400
one_layer_runs "$runs" 20 "5 5 1" 0.5 0.5 20 >"$work/many.mci"
common="--engine cpu -S 3 --threads 2"
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1024 ]; then
    echo "test_batch_fds: a hard limit of $hard open files: skipped (the file's runs are split anyway)"
    exit 77
fi
expect 0 "as set" -- "$tmcml" run "$work/many.mci" $common -o "$work/plain"
contains "as set" "$runs of $runs runs simulated together in 1 batch"
expect 0 "hard 300" -- sh -c "ulimit -n 300 && exec \"\$0\" \"\$@\"" "$tmcml" run \
    "$work/many.mci" $common -o "$work/hard"
contains "hard 300" "$runs of $runs runs simulated together in [2-9] batches"
expect 0 "soft 300" -- sh -c "ulimit -Sn 300 && exec \"\$0\" \"\$@\"" "$tmcml" run \
    "$work/many.mci" $common -o "$work/soft"
contains "soft 300" "$runs of $runs runs simulated together in 1 batch"
for kind in hard soft; do
    same_mcos "$work/plain" "$work/$kind" "$runs" "under the $kind limit"
done
finish test_batch_fds
