#!/bin/sh
# The GPU kernels of the derivatives and of the optics sets (issue 45), with
# time bins and detectors too, keep the contract every kernel keeps: two engines on GPU 0 that share photon
# chunks (--gpus 0,0, as tests/test_multi_gpu.sh for the other kernels), and
# a run stopped by SIGINT and resumed (its chunks leave holes), give one
# GPU's uninterrupted outputs bit for bit: every .mco and every .npz, the
# derivatives and the optics sets' weight sums included.
# usage: test_sets_gpu_identity.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
tmcml=$1
mci=$2/skin7_600nm.mci
name=skin7_600nm
isolate_user_dirs
skip_without_gpu "$tmcml" sets_gpu_identity
common="-q -A --engine gpu --tune never --cache $work/cache"
seed=7 # every run's (jac_seed sets 8 around its own)

# Absorption sets (the sets' kernel with the derivatives of each set) and
# optics sets: one that changes mus and mua only (run with the derivatives),
# and one that changes g in three layers (each deflection reweighted).
printf '0.2 0.15 0.7 1 0.7 1 0.3\n0.4 0.3 1.4 2 1.4 2 0.6\n' >"$work/mua.csv"
printf '%s\n%s\n' \
    '0.2 1000 0.9  0.15 400 0.85  0.7 300 0.8  1 350 0.9  0.7 200 0.76  1 350 0.95  0.3 150 0.8' \
    '0.3 1050 0.9  0.15 420 0.85  0.8 280 0.8  1 350 0.9  0.9 210 0.76  1 330 0.95  0.3 150 0.8' \
    >"$work/mus.csv"
printf '%s\n%s\n' \
    '0.2 1000 0.9  0.15 400 0.85  0.7 300 0.8  1 350 0.9  0.7 200 0.76  1 350 0.95  0.3 150 0.8' \
    '0.2 1000 0.9  0.15 400 0.86  0.7 300 0.8  1 350 0.9  0.7 200 0.78  1 350 0.94  0.3 150 0.8' \
    >"$work/g.csv"

# run_case NAME OPTIONS...: a run into $work/NAME.
run_case() {
    case_name=$1
    shift
    # shellcheck disable=SC2086
    "$tmcml" run "$mci" $common -S "$seed" "$@" -o "$work/$case_name" \
        >"$work/$case_name.log" 2>&1 ||
        { fail "$case_name: $* exited $?"; cat "$work/$case_name.log" >&2; }
}

# same NAME ONE: every .mco and .npz of NAME is ONE's, byte for byte (and
# there is at least one of each kind the reference wrote).
same() {
    check
    n=0
    for f in "$work/$2"/*.mco "$work/$2"/*.npz; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        cmp -s "$f" "$work/$1/${f##*/}" || fail "$1: ${f##*/} differs from $2's"
    done
    [ $n -gt 0 ] || fail "$2 wrote no .mco or .npz"
}

# stopped_case NAME CKPT OPTIONS...: a run checkpointing every 0.2 s,
# stopped by SIGINT at its first checkpoint CKPT, then resumed.
stopped_case() {
    case_name=$1 ckpt=$2
    shift 2
    # shellcheck disable=SC2086
    "$tmcml" run "$mci" $common -S "$seed" "$@" --checkpoint-every 0.2 -o "$work/$case_name" \
        2>"$work/$case_name.stop.log" &
    pid=$!
    wait_for "$work/$case_name/$ckpt" 60
    kill -INT $pid
    wait $pid
    rc=$?
    check
    [ $rc -eq 130 ] || { fail "$case_name: the run was not stopped midway (exit $rc)"; return; }
    run_case "$case_name" "$@" --resume
}

# 1. Two engines on one GPU, each kernel.
run_case jac_one -N 3000000 --jacobian
run_case jac_two -N 3000000 --jacobian --gpus 0,0 --gpu-chunk 123457
same jac_two jac_one
check
grep -aq "Rd_r_jacobian.npy" "$work/jac_one/$name.npz" || fail "jac_one: no Rd_r_jacobian"
run_case jac_sets_one -N 3000000 --jacobian --mua-sets "$work/mua.csv"
run_case jac_sets_two -N 3000000 --jacobian --mua-sets "$work/mua.csv" --gpus 0,0 --gpu-chunk 123457
same jac_sets_two jac_sets_one
run_case mus_one -N 3000000 --jacobian --optics-sets "$work/mus.csv"
run_case mus_two -N 3000000 --jacobian --optics-sets "$work/mus.csv" --gpus 0,0 --gpu-chunk 123457
same mus_two mus_one
run_case g_one -N 3000000 --optics-sets "$work/g.csv"
run_case g_two -N 3000000 --optics-sets "$work/g.csv" --gpus 0,0,0 --gpu-chunk 77777 --launch-photons 300001
same g_two g_one
# Time bins and two detectors in the sets' kernel, each set's and their
# derivatives.
timed="--time 0.01:50 --detector fiber:0.1:0.05:0.5 --detector fiber:0.3:0.1:0.39"
# shellcheck disable=SC2086
run_case time_one -N 3000000 --jacobian --mua-sets "$work/mua.csv" $timed
# shellcheck disable=SC2086
run_case time_two -N 3000000 --jacobian --mua-sets "$work/mua.csv" $timed --gpus 0,0 \
    --gpu-chunk 123457
same time_two time_one
check
grep -aq "Rd_fiber_jacobian.npy" "$work/time_one/$name.set1.npz" ||
    fail "time_one: no Rd_fiber_jacobian"
# The checks are not blind: sets 1 and 2 differ, another seed differs.
check
cmp -s "$work/g_one/$name.set1.mco" "$work/g_one/$name.set2.mco" && fail "g sets 1 and 2 gave the same .mco"
seed=8
run_case jac_seed -N 3000000 --jacobian
seed=7
check
cmp -s "$work/jac_seed/$name.npz" "$work/jac_one/$name.npz" && fail "seeds 7 and 8 gave the same .npz"

# 2. Stopped and resumed, on two engines sharing chunks (holes in the
#    photon ranges), against one GPU's uninterrupted run.
n=400000000
stopped_case jac_stop "$name.ckpt" -N $n --jacobian --gpus 0,0 --gpu-chunk 9999991
run_case jac_whole -N $n --jacobian
same jac_stop jac_whole
n=200000000
stopped_case g_stop "$name.set1.ckpt" -N $n --optics-sets "$work/g.csv" --gpus 0,0 --gpu-chunk 9999991
run_case g_whole -N $n --optics-sets "$work/g.csv"
same g_stop g_whole
n=200000000
# shellcheck disable=SC2086
stopped_case time_stop "$name.ckpt" -N $n --jacobian $timed --gpus 0,0 --gpu-chunk 9999991
# shellcheck disable=SC2086
run_case time_whole -N $n --jacobian $timed
same time_stop time_whole

finish test_sets_gpu_identity
