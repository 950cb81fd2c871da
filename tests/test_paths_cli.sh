#!/bin/sh
# tmcml run --path-lengths (issue 25): the .mco gets the path lengths as
# extra sections after MCML's, which mco_read (tmcml plot, tmcml conv) reads
# back; the JSON their totals; --npz their arrays; a run without the option
# writes none of them, and its tallies are the run's with it; a run stopped
# and resumed gives the uninterrupted run's .mco; --engine gpu is refused
# with the message and nothing written.
# usage: test_paths_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"

expect 0 "paths" -- "$tmcml" run "$mci" $common --path-lengths --npz -o "$work/p"
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --npz -o "$work/plain"
for s in Rd_path Tt_path Rd_path_total Tt_path_total; do
    check
    grep -q "^$s\( \|$\)" "$work/p/example.mco" || fail "no section $s in the .mco"
    check
    grep -q "$s" "$work/plain/example.mco" && fail "$s in the .mco of a run without --path-lengths"
done
# After MCML's last section, Tt_ra.
check
[ "$(grep -n '^Tt_ra' "$work/p/example.mco" | cut -d: -f1)" -lt \
    "$(grep -n '^Rd_path$' "$work/p/example.mco" | cut -d: -f1)" ] || fail "Rd_path before Tt_ra"
check
grep -q '"Rd_path_total":[[:space:]]*\[' "$work/p/example.json" || fail "no Rd_path_total in the JSON"
check
grep -q '_path' "$work/plain/example.json" && fail "path lengths in the JSON of a plain run"
check
npz_has "$work/p/example.npz" "Tt_path_total.npy" || fail "no Tt_path_total in the .npz"
# The other arrays are the plain run's: the .mco up to the extra sections.
check
sed -n '/^Rd_path$/q;/^#.*tallies/d;p' "$work/p/example.mco" | sed '/^# Rd_path/,$d' >"$work/a"
sed '/^#.*tallies/d' "$work/plain/example.mco" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "the .mco's MCML sections differ from the plain run's"
# mco_read takes it: tmcml plot and tmcml conv.
expect 0 "plot" -- "$tmcml" plot "$work/p/example.mco" -o "$work/p/x.png"
expect 0 "conv" -- "$tmcml" conv "$work/p/example.mco" --beam flat:0.1 -o "$work/p/c.mco"
# A truncated extra section is refused as MCML's are.
sed '$d' "$work/p/example.mco" | sed '$d' >"$work/cut.mco"
expect 1 "cut" -- "$tmcml" plot "$work/cut.mco" -o "$work/cut.png"
contains "cut" "Tt_path_total"
# Stopped and resumed: the uninterrupted run's .mco.
n=1500000
stopped_run "$work/k" "$mci" -N $n -S 5 -q --engine cpu --path-lengths
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --path-lengths --resume -o "$work/k"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --path-lengths -o "$work/w"
check
cmp -s "$work/k/example.mco" "$work/w/example.mco" || fail "resumed .mco differs"
# A file of several runs: batched as --no-batch, and (with MPI built in)
# two ranks as one process: their path tallies are reduced too.
multi=$(dirname "$0")/data/mci/multirun.mci
expect 0 "batch" -- "$tmcml" run "$multi" $common --path-lengths -o "$work/mb"
expect 0 "no-batch" -- "$tmcml" run "$multi" $common --path-lengths --no-batch -o "$work/mn"
for f in "$work"/mb/*.mco; do
    check
    cmp -s "$f" "$work/mn/${f##*/}" || fail "${f##*/}: batched and not differ"
done
if command -v mpirun >/dev/null && "$tmcml" --version | grep -q "mpi: built in"; then
    # Open MPI keeps its allocations to the end (tests/engine.cmake's mpi);
    # mpirun would take --tune for its own option.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    expect 0 "mpi" -- env ASAN_OPTIONS=detect_leaks=0 timeout 300 mpirun --oversubscribe -np 2 "$tmcml" run "$multi" -N 20000 \
        -S 3 -q --engine cpu --path-lengths -o "$work/mm"
    for f in "$work"/mb/*.mco; do
        check
        cmp -s "$f" "$work/mm/${f##*/}" || fail "${f##*/}: two ranks differ from one process"
    done
    # One run of 3000 photons on 3 ranks: the first chunk is the whole run,
    # so two ranks simulate none of it and must still reduce every optional
    # tally (they hung in the reduction when only the ranks that simulated
    # had them).
    opts="-N 3000 -S 3 -q --engine cpu --threads 1 --path-lengths --time 0.01:10"
    # shellcheck disable=SC2086
    expect 0 "mpi, idle ranks" -- env ASAN_OPTIONS=detect_leaks=0 timeout 120 mpirun \
        --oversubscribe -np 3 "$tmcml" run "$mci" $opts --detector fiber:0.1:0.05:0.5 -o "$work/mi"
    # shellcheck disable=SC2086
    expect 0 "one process" -- "$tmcml" run "$mci" $opts --detector fiber:0.1:0.05:0.5 \
        -o "$work/m1"
    check
    cmp -s "$work/mi/example.mco" "$work/m1/example.mco" ||
        fail "3 ranks, two of them idle, differ from one process"
fi
# The GPU engine without absorption sets is refused, nothing written.
expect 2 "gpu" -- "$tmcml" run "$mci" $common --engine gpu --path-lengths -o "$work/g"
contains "gpu" "on the GPU, path lengths are scored with absorption sets (--mua-sets FILE); else use --engine cpu"
check
[ ! -e "$work/g" ] || fail "--engine gpu --path-lengths wrote $work/g"
finish test_paths_cli
