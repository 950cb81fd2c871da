#!/bin/sh
# tmcml run --jacobian (issue 45): the derivatives go to the .npz (implied),
# never to the .mco, whose MCML sections stay the plain run's and whose
# header records the request; --engine gpu with path lengths but no sets is
# refused with nothing written (the GPU's kernel scores the derivatives of
# the escapes by ring, angle, time bin and detector:
# tests/test_jacobian_gpu.c, tests/test_timed_sets_gpu.c);
# a run stopped and resumed, a file of runs batched or not, and (with MPI
# built in) two ranks give the uninterrupted one-process run's .npz bit for
# bit; a checkpoint without the derivatives does not resume a run that asks
# for them.
# usage: test_jacobian_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"

expect 0 "jacobian" -- "$tmcml" run "$mci" $common --engine cpu --jacobian -o "$work/j"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu -o "$work/plain"
for s in Rd_jacobian Rd_r_jacobian Rd_a_jacobian Tt_jacobian Tt_r_jacobian Tt_a_jacobian; do
    check
    npz_has "$work/j/example.npz" "$s.npy" || fail "no $s in the .npz"
done
check
grep -q "jacobian" "$work/j/example.mco" && fail "a Jacobian section in the .mco"
check
grep -q "^# derivatives: of the escapes by each layer's mua, mus and g" "$work/j/example.mco" ||
    fail "the .mco's header does not record --jacobian"
check
sed '/^#/d' "$work/j/example.mco" >"$work/a"
sed '/^#/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's sections differ from the plain run's"
# tmcml plot reads the .mco back.
expect 0 "plot" -- "$tmcml" plot "$work/j/example.mco" -o "$work/j/x.png"
# Stopped and resumed: the uninterrupted run's arrays, derivatives too.
n=1500000
stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu --jacobian
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --jacobian --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --jacobian -o "$work/w"
check
cmp -s "$work/k/example.npz" "$work/w/example.npz" || fail "resumed .npz differs"
# A checkpoint without them is another run's.
stopped_run "$work/np" "$mci" -N $n -S 5 -q --engine cpu
expect 1 "resume with --jacobian" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --jacobian \
    --resume -o "$work/np"
contains "resume with --jacobian" "derivatives"
# A file of several runs, batched or not.
multi=$(dirname "$0")/data/mci/multirun.mci
expect 0 "batch" -- "$tmcml" run "$multi" $common --engine cpu --jacobian -o "$work/mb"
expect 0 "no-batch" -- "$tmcml" run "$multi" $common --engine cpu --jacobian --no-batch -o "$work/mn"
for f in "$work"/mb/*.npz; do
    check
    cmp -s "$f" "$work/mn/${f##*/}" || fail "${f##*/}: batched and not differ"
done
if command -v mpirun >/dev/null && "$tmcml" --version | grep -q "mpi: built in"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    expect 0 "mpi" -- env ASAN_OPTIONS=detect_leaks=0 timeout 300 mpirun --oversubscribe -np 2 \
        "$tmcml" run "$multi" -N 20000 -S 3 -q --engine cpu --jacobian -o "$work/mm"
    expect 0 "one process" -- "$tmcml" run "$multi" -N 20000 -S 3 -q --engine cpu --jacobian \
        -o "$work/m1"
    for f in "$work"/m1/*.npz; do
        check
        cmp -s "$f" "$work/mm/${f##*/}" || fail "${f##*/}: two ranks differ from one process"
    done
fi
# With time bins: the .npz holds the rank-4 Jacobians (a rank-4 member
# once overran the .npz writer's dimensions and crashed the run).
expect 0 "time" -- "$tmcml" run "$mci" $common --engine cpu --jacobian --time 0.01:10 -o "$work/t"
check
npz_has "$work/t/example.npz" "Rd_rt_jacobian.npy" || fail "no Rd_rt_jacobian in the .npz"
# The GPU engine with path lengths and no sets is refused, nothing written.
expect 2 "gpu" -- "$tmcml" run "$mci" $common --engine gpu --jacobian --path-lengths -o "$work/g"
contains "gpu" "--path-lengths: on the GPU, path lengths are scored with absorption sets"
check
[ ! -e "$work/g" ] || fail "--engine gpu --jacobian --path-lengths wrote $work/g"
finish test_jacobian_cli
