#!/bin/sh
# Standard errors and precision runs on the GPU engine (docs/physics.md,
# "Uncertainty"; docs/outputs.md): the groups are engine calls of photon
# ranges, so on a GPU too
# - `--stderr` leaves the .mco as it is without it, and gives the same
#   errors (the .npz byte for byte) with another kernel variant (the
#   heuristic's, untiled) and another launch size;
# - a precision run takes the same photons, and writes the same .mco and
#   .npz, with those variants, on two engines sharing one GPU, and with 2
#   GPUs where the machine has them;
# - a batch's errors, paused for checkpoints, are each run's alone;
# - absorption sets of a precision run stop together, the same with another
#   launch size;
# - the GPU's errors agree with the CPU engine's within their own
#   uncertainty (two estimates of 63 degrees of freedom each: their ratio
#   within 0.6 .. 1.6, more than 3 standard deviations of it).
# Exit 77 (skipped) without a GPU.
# usage: test_stderr_gpu.sh TMCML EXAMPLES_DIR
tmcml=$1
mci=$2/mcml_example.mci
. "$(dirname "$0")/lib.sh"
skip_without_gpu "$tmcml" test_stderr_gpu
isolate_user_dirs
common="-S 5 -q --engine gpu --tune never --cache $work/cache"
run() { dir=$1; shift; "$tmcml" run "$mci" $common "$@" -o "$work/$dir"; }

expect 0 "plain" -- run plain -N 2000000
expect 0 "stderr" -- run se -N 2000000 --stderr
same_mcos "$work/plain" "$work/se" 1 "the GPU .mco with --stderr"
expect 0 "stderr, heuristic untiled" -- run se_other -N 2000000 --stderr --no-profile --tile 0x0 \
    --launch-photons 100000
check
cmp -s "$work/se/example.npz" "$work/se_other/example.npz" ||
    fail "the GPU's errors differ with another variant and launch size"

expect 0 "precision" -- run p --precision 0.2% -N 100000000
expect 0 "precision, heuristic untiled" -- run p_other --precision 0.2% -N 100000000 \
    --no-profile --tile 0x0 --launch-photons 100000
same_mcos "$work/p" "$work/p_other" 1 "a GPU precision run with another variant"
check
cmp -s "$work/p/example.npz" "$work/p_other/example.npz" || fail "its .npz differs"
# Two engines sharing the launches on one GPU (the pool of -G 2): the same.
expect 0 "precision, two engines" -- run p_two --precision 0.2% -N 100000000 --gpus 0,0 \
    --gpu-chunk 300000
same_mcos "$work/p" "$work/p_two" 1 "a precision run on two engines of one GPU"
check
cmp -s "$work/p/example.npz" "$work/p_two/example.npz" || fail "its .npz differs on two engines"
if [ "$("$tmcml" devices 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then
    expect 0 "precision, 2 GPUs" -- run p2 --precision 0.2% -N 100000000 -G 2
    same_mcos "$work/p" "$work/p2" 1 "a precision run on 2 GPUs"
else
    echo "test_stderr_gpu: one GPU: the 2-GPU case not run"
fi

# A batch: each run's groups slots of the batch kernel; paused every 10 ms
# for a checkpoint (a pause takes each run's groups up to the first
# unfinished one), the .mco and errors of each run alone.
one_layer_runs 3 3000000 "20 20 1" 0.5 0.5 3 >"$work/three.mci"
expect 0 "batch, paused" -- "$tmcml" run "$work/three.mci" $common --stderr \
    --checkpoint-every 0.01 -o "$work/batch"
expect 0 "alone" -- "$tmcml" run "$work/three.mci" $common --stderr --no-batch -o "$work/alone"
for r in r000 r001 r002; do
    check
    cmp -s "$work/batch/$r.mco" "$work/alone/$r.mco" &&
        cmp -s "$work/batch/$r.npz" "$work/alone/$r.npz" ||
        fail "$r: the paused batch on the GPU differs from the run alone"
done

# Absorption sets (-A: the sets' kernel) stop together, the same with
# another launch size.
printf '1 1 2\n5 5 5\n20 20 20\n' >"$work/sets.txt"
expect 0 "precision sets" -- run ps -A --precision 0.5% -N 100000000 --mua-sets "$work/sets.txt"
expect 0 "precision sets, launch size" -- run ps_other -A --precision 0.5% -N 100000000 \
    --mua-sets "$work/sets.txt" --launch-photons 100000
for k in 1 2 3; do
    check
    cmp -s "$work/ps/example.set$k.mco" "$work/ps_other/example.set$k.mco" ||
        fail "GPU precision set $k differs with another launch size"
done
check
python3 - "$work/ps" <<'EOF' || fail "the GPU sets' precision"
import json, sys
j = [json.load(open("%s/example.set%d.json" % (sys.argv[1], k))) for k in (1, 2, 3)]
assert len({x["photons"] for x in j}) == 1, [x["photons"] for x in j]
assert all(x["precision"]["met"] and x["precision"]["reached"] <= 0.005 for x in j)
EOF

expect 0 "cpu" -- "$tmcml" run "$mci" -S 5 -q --engine cpu -N 2000000 --stderr -o "$work/cpu"
check
python3 - "$work/se/example.json" "$work/cpu/example.json" <<'EOF' || fail "GPU and CPU errors"
import json, sys
g, c = (json.load(open(f))["stderr"] for f in sys.argv[1:3])
for k in ("Rd", "A", "Tt"):
    assert 0.6 < g[k] / c[k] < 1.6, (k, g[k], c[k])
EOF
finish test_stderr_gpu
