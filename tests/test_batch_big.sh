#!/bin/sh
# A run big enough to fill the GPUs by itself is simulated alone, out of its
# shape's batch (runtime/engine/batch.h, BATCH_ALONE_PHOTONS_PER_THREAD): a
# file of three runs of one shape, one of 2*10^7 photons (above the size on
# any GPU of fewer than 488 SMs; its photons end in ~3 steps, so it costs
# little), two of 3000.  By default the two small ones share a batch and the
# big one runs alone, said on stderr; --batch-all batches all three; every
# .mco the same as with --no-batch.  Exit 77 (skipped) without a GPU.
# usage: test_batch_big.sh TMCML
tmcml=$1
. "$(dirname "$0")/lib.sh"
skip_without_gpu "$tmcml" test_batch_big
isolate_user_dirs
{
    printf '1.0\n3\n'
    printf 'big.mco A\n20000000\n0.01 0.01\n20 20 4\n1\n1.0\n1.4 1000 10 0.9 1E8\n1.0\n'
    for i in 1 2; do
        printf 'small%d.mco A\n3000\n0.01 0.01\n20 20 4\n1\n1.0\n1.4 %d 80 0.9 1E8\n1.0\n' "$i" "$i"
    done
} >"$work/three.mci"
common="--engine gpu --tune never -S 5 --cache $work/cache"
expect 0 "default" -- "$tmcml" run "$work/three.mci" $common --verbose -o "$work/default"
contains "default" "1 run of [0-9]* photons or more simulated alone"
contains "default" "2 of 3 runs simulated together in 1 batch"
expect 0 "batch-all" -- "$tmcml" run "$work/three.mci" $common --batch-all --verbose \
    -o "$work/all"
contains "batch-all" "3 of 3 runs simulated together in 1 batch"
check; grep -q "simulated alone" "$work/out" && fail "--batch-all: a run was still left alone"
expect 0 "alone" -- "$tmcml" run "$work/three.mci" $common -q --no-batch -o "$work/alone"
for kind in default all; do
    for name in big small1 small2; do
        check; cmp -s "$work/alone/$name.mco" "$work/$kind/$name.mco" ||
            fail "$name.mco: $kind differs from --no-batch"
    done
done
finish test_batch_big
