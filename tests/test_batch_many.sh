#!/bin/sh
# A file of more runs than one launch holds (400 one-layer runs in blocks of
# 256: about 190 fit a block's share of an H100's shared memory; the default
# block of 1024 holds them all): several batches, each batch's
# outputs written while the next one simulates (driver/run_batch.c), and
# a run's as soon as its photons have all ended, while its own batch still
# simulates; every run's .mco the same as simulated alone (--no-batch), its
# JSON's GPU share its own photons, with each run's A_rz tile and edge bins
# in shared memory (templates/batch_tiles.cu), with the tiles alone
# (--edge-cache off) and with neither (--tile 0x0).  Exit 77 (skipped)
# without a GPU.
# usage: test_batch_many.sh TMCML
tmcml=$1
. "$(dirname "$0")/lib.sh"
skip_without_gpu "$tmcml" test_batch_many
isolate_user_dirs
runs=400
one_layer_runs "$runs" 3000 "20 20 4" 0.05 0.25 40 >"$work/many.mci"
common="--engine gpu --tune never -S 5 --cache $work/cache"
expect 0 "batched" -- "$tmcml" run "$work/many.mci" $common --block 256 --verbose -o "$work/batched"
contains "batched" "$runs of $runs runs simulated together in [2-9] batches"
contains "batched" "run tiles [0-9]*x[0-9]* and edge bins"
early=$(sed -n 's/.*(\([0-9]*\) of them written while it ran).*/\1/p' "$work/out" |
    awk '{ n += $1 } END { print n + 0 }')
check; [ "$early" -gt 0 ] || fail "no run was written while its batch simulated"
echo "test_batch_many: $early of $runs runs written while their batch simulated"
shares=0
for f in "$work"/batched/*.json; do
    gpu_photons=$(tr -d ' \t\n' <"$f" | sed -n 's/.*"gpus":\[{[^]]*"photons":\([0-9]*\).*/\1/p')
    [ "$gpu_photons" = 3000 ] && shares=$((shares + 1))
done
check; [ "$shares" -eq "$runs" ] || fail "$shares of $runs JSONs give the GPU the run's 3000 photons"
expect 0 "untiled" -- "$tmcml" run "$work/many.mci" $common --block 256 --tile 0x0 --verbose \
    -o "$work/untiled"
check; grep -q "run tiles" "$work/out" && fail "--tile 0x0: the batch kernel still has run tiles"
expect 0 "tiles alone" -- "$tmcml" run "$work/many.mci" $common --block 256 --edge-cache off \
    --verbose -o "$work/no_edges"
contains "tiles alone" "run tiles [1-9][0-9]*x[1-9][0-9]*"
check; grep -q "edge bins" "$work/out" && fail "--edge-cache off: the runs still have edge bins"
expect 0 "alone" -- "$tmcml" run "$work/many.mci" $common -q --no-batch -o "$work/alone"
for kind in batched no_edges untiled; do
    same_mcos "$work/alone" "$work/$kind" "$runs" "$kind (against alone)"
    echo "test_batch_many: $same runs, each $kind as alone"
done
finish test_batch_many
