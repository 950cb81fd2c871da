#!/bin/sh
# The descriptors of `tmcml run` under a low open-file limit (driver/fd_room.h):
# the run locks, the writer threads' temp files and directory syncs all fit
# in what the limit leaves, so nothing simulated is lost to "Too many open
# files":
# - a batch of 40 runs under `ulimit -n 20` (which used to simulate every
#   run and then fail to write about 15 of them) writes every run;
# - 256 absorption sets (the maximum) under `ulimit -n 64` (which used to
#   fail at the first lock, nothing written) are simulated in groups, each
#   set's .mco the same as with every set together;
# - a limit too low for even one run is refused before anything runs.
# Every .mco byte for byte the one of the run under the usual limit.
# usage: test_fd_budget.sh TMCML
tmcml=$1
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
common="--engine cpu -S 3 --threads 2"

# 1. A batch of 40 runs of one shape.
one_layer_runs 40 200 "5 5 1" 0.5 0.5 20 >"$work/many.mci"
expect 0 "40 runs" -- "$tmcml" run "$work/many.mci" $common -q -o "$work/plain"
expect 0 "40 runs, ulimit -n 20" -- sh -c "ulimit -n 20 && exec \"\$0\" \"\$@\"" "$tmcml" run \
    "$work/many.mci" $common -q -o "$work/low"
same_mcos "$work/plain" "$work/low" 40 "under ulimit -n 20"

# 2. 256 absorption sets of one layer.
printf '1.0\n1\none.mco A\n1000\n0.01 0.01\n5 5 1\n1\n1.0\n1.4 0.5 80 0.9 1E8\n1.0\n' \
    >"$work/one.mci"
awk 'BEGIN { for (i = 0; i < 256; i++) printf "%g\n", 0.1 + i * 0.05 }' >"$work/sets.csv"
expect 0 "256 sets" -- "$tmcml" run "$work/one.mci" $common -q --mua-sets "$work/sets.csv" \
    -o "$work/sets"
expect 0 "256 sets, ulimit -n 64" -- sh -c "ulimit -n 64 && exec \"\$0\" \"\$@\"" "$tmcml" run \
    "$work/one.mci" $common --mua-sets "$work/sets.csv" -o "$work/sets64"
contains "256 sets, ulimit -n 64" "256 absorption sets hold an output lock each"
contains "256 sets, ulimit -n 64" "simulated in [0-9]* groups"
same_mcos "$work/sets" "$work/sets64" 256 "a set simulated in a group"

# 3. Too few for one run: refused, naming the limit, nothing written.
expect 1 "ulimit -n 6" -- sh -c "ulimit -n 6 && exec \"\$0\" \"\$@\"" "$tmcml" run \
    "$work/many.mci" $common -q -o "$work/none"
contains "ulimit -n 6" "open files allowed (ulimit -n)"
check
[ -z "$(ls "$work/none" 2>/dev/null | grep '\.mco$')" ] || fail "ulimit -n 6: an .mco was written"
finish test_fd_budget
