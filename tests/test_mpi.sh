#!/bin/sh
# Several processes through MPI (driver/ranks.c), on the CPU engine:
# `mpirun -np 2` and `-np 3 --oversubscribe` give the .mco of one process,
# byte for byte, for a file of three runs; a failing rank ends the job with
# a message naming it and no output; ranks paused by SIGTERM leave a
# checkpoint that --resume continues with another number of ranks;
# periodic checkpoints under MPI, and a job killed with -9 resumed from one.
# --stderr: rank 0 folds every group of the standard errors whole and in
# order (driver/ranks.h), so `-np 2`, `-np 3` and `-np 5 --stderr` give
# one process's .mco and errors byte for byte (the JSON's "stderr" and the
# .npz), and two `-np 2` jobs each other's; so do the periodic checkpoints,
# the job paused by SIGTERM or killed and resumed, and a batch under MPI.
# usage: test_mpi.sh TMCML DATA_DIR   (exit 77 without mpirun or MPI built in)
tmcml=$1
data=$2
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
"$tmcml" --version | grep -q "mpi: built in" || { echo "tmcml built without MPI: skipped"; exit 77; }
# CI runs as root; Open MPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { timeout 300 mpirun --oversubscribe "$@"; }

# Two runs of different optics in one file.
mci=$data/mci/multirun.mci
runs=$(grep -c '\.mco' "$mci")
check; [ "$runs" -ge 2 ] || fail "multirun.mci has $runs runs"
opts="-N 30000 -S 9 -q --engine cpu --threads 1"
"$tmcml" run "$mci" $opts -o "$work/one" || fail "one process failed"
for np in 2 3; do
    mpi -np $np "$tmcml" run "$mci" $opts -o "$work/np$np" >"$work/out$np" 2>&1
    rc=$?
    check; [ $rc -eq 0 ] || { fail "-np $np: exit $rc"; cat "$work/out$np" >&2; }
    for f in "$work"/one/*.mco; do
        check; cmp -s "$f" "$work/np$np/$(basename "$f")" ||
            fail "-np $np: $(basename "$f") differs from one process's"
    done
done

# A rank that fails ends the job: non-zero, a message naming it, no output.
TMCML_TEST_FAIL_RANK=1 mpi -np 2 "$tmcml" run "$mci" $opts -o "$work/fail" >"$work/outf" 2>&1
rc=$?
check; [ $rc -ne 0 ] || fail "failing rank: exit 0"
check; grep -q "rank 1 of 2 failed, ending the job" "$work/outf" || fail "failing rank: no message"
check; [ -z "$(ls "$work/fail" 2>/dev/null | grep '\.mco$')" ] || fail "failing rank: outputs written"

# SIGTERM to the ranks (as a batch scheduler sends it): rank 0 writes the
# checkpoint; resumed with another number of ranks, the .mco is one
# process's, byte for byte.
skin=$data/reference/skin7_600nm.mci
sopts="-N 400000 -S 3 -q --engine cpu --threads 1"
"$tmcml" run "$skin" $sopts -o "$work/skin1" || fail "skin, one process"
mpirun --oversubscribe -np 2 "$tmcml" run "$skin" $sopts -o "$work/skinp" >"$work/outp" 2>&1 &
mpid=$!
sleep 1.5
pkill -TERM -P $mpid 2>/dev/null
wait $mpid
rc=$?
if [ -s "$work/skinp/skin7_600nm.ckpt" ]; then
    check; [ $rc -ne 0 ] || fail "paused ranks: mpirun exit 0"
    check; [ -s "$work/skinp/skin7_600nm.partial.mco" ] || fail "paused ranks: no partial .mco"
else
    echo "note: no checkpoint (rc $rc: the ranks ended, or the signal came before they ran)"
fi
# Resumed (or, without a checkpoint, run or skipped) with 3 ranks.
mpi -np 3 "$tmcml" run "$skin" $sopts --resume -o "$work/skinp" >"$work/outq" 2>&1
rc=$?
check; [ $rc -eq 0 ] || { fail "resume with 3 ranks: exit $rc"; cat "$work/outq" >&2; }
check; [ ! -e "$work/skinp/skin7_600nm.ckpt" ] || fail "the checkpoint was left after the run"
check; cmp -s "$work/skin1/skin7_600nm.mco" "$work/skinp/skin7_600nm.mco" ||
    fail "paused and resumed under MPI: the .mco differs from one process's"

# stderr_field JSON KEY: KEY's value in the JSON's "stderr" object (empty
# when it has none).
stderr_field() {
    awk -v key="\"$2\":" '/"stderr":/ { inside = 1; next }
        inside && /}/ { exit }
        inside && $1 == key { sub(/,$/, "", $2); print $2; exit }' "$1"
}
# same_errors REFERENCE_JSON JSON LABEL: JSON has the reference's errors,
# byte for byte: its "stderr" object (64 groups) and its .npz (every
# NAME_stderr array, and the arrays themselves).
same_errors() {
    check
    [ "$(stderr_field "$1" groups)" = 64 ] || fail "$3: the reference $(basename "$1") has no errors"
    check
    [ "$(stderr_field "$2" groups)" = 64 ] ||
        fail "$3: $(basename "$2") has errors of '$(stderr_field "$2" groups)' groups, not 64"
    check
    [ "$(sed -n '/"stderr"/,/}/p' "$1")" = "$(sed -n '/"stderr"/,/}/p' "$2")" ] ||
        fail "$3: its errors differ from one process's: $(stderr_field "$2" Rd) for Rd, not $(stderr_field "$1" Rd)"
    check
    cmp -s "${1%.json}.npz" "${2%.json}.npz" || fail "$3: its .npz differs from one process's"
}

# --stderr on 2, 3 and 5 ranks: one process's .mco and errors, byte for
# byte (the groups are the 64 of the photon indices whatever rank simulated
# them, and rank 0 folds each whole, in order); two jobs of 2 ranks too.
# On 2 and 3 ranks a chunk is a group (6250 photons); on 5 a group is more
# than a chunk (4096), so it is cut in two pieces, which two ranks may take.
"$tmcml" run "$skin" $sopts --stderr -o "$work/skin1e" || fail "skin, one process, --stderr"
for job in 2a 2b 3 5; do
    mpi -np "${job%[ab]}" "$tmcml" run "$skin" $sopts --stderr -o "$work/skine$job" \
        >"$work/oute" 2>&1
    rc=$?
    check; [ $rc -eq 0 ] || { fail "--stderr, -np $job: exit $rc"; cat "$work/oute" >&2; }
    check; cmp -s "$work/skin1/skin7_600nm.mco" "$work/skine$job/skin7_600nm.mco" ||
        fail "--stderr, -np $job: the .mco differs from one process's"
    same_errors "$work/skin1e/skin7_600nm.json" "$work/skine$job/skin7_600nm.json" \
        "--stderr, -np $job"
done
check; cmp -s "$work/skine2a/skin7_600nm.npz" "$work/skine2b/skin7_600nm.npz" ||
    fail "--stderr: two jobs of 2 ranks wrote different .npz"

# Periodic checkpoints under MPI (rank 0's timer pauses every rank, rank 0
# writes, all go on): the run ends with one process's .mco; killed with -9
# after a checkpoint, --resume with 3 ranks ends there too.  Both with
# --stderr: each pause gathers the groups, the checkpoint keeps them.
sopts="$sopts --stderr"
mpi -np 2 "$tmcml" run "$skin" $sopts --checkpoint-every 0.2 -o "$work/skinc" >"$work/outc" 2>&1 &
mpid=$!
seen=no
while kill -0 $mpid 2>/dev/null; do
    [ -s "$work/skinc/skin7_600nm.ckpt" ] && seen=yes
    sleep 0.05
done
wait $mpid
rc=$?
check; [ $rc -eq 0 ] || { fail "periodic checkpoints: exit $rc"; cat "$work/outc" >&2; }
check; [ $seen = yes ] || fail "periodic checkpoints: no checkpoint appeared during the run"
check; [ ! -e "$work/skinc/skin7_600nm.ckpt" ] || fail "periodic checkpoints: checkpoint left"
check; cmp -s "$work/skin1/skin7_600nm.mco" "$work/skinc/skin7_600nm.mco" ||
    fail "periodic checkpoints: the .mco differs from one process's"
same_errors "$work/skin1e/skin7_600nm.json" "$work/skinc/skin7_600nm.json" \
    "periodic checkpoints, --stderr"
mpirun --oversubscribe -np 2 "$tmcml" run "$skin" $sopts --checkpoint-every 0.2 -o "$work/skink" \
    >"$work/outk" 2>&1 &
mpid=$!
n=0
while [ ! -s "$work/skink/skin7_600nm.ckpt" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
sleep 0.3
pkill -KILL -P $mpid 2>/dev/null
kill -KILL $mpid 2>/dev/null
wait $mpid 2>/dev/null
check; [ -s "$work/skink/skin7_600nm.ckpt" ] || fail "kill -9: no checkpoint to resume from"
mpi -np 3 "$tmcml" run "$skin" $sopts --resume -o "$work/skink" >"$work/outr" 2>&1
rc=$?
check; [ $rc -eq 0 ] || { fail "kill -9, resume with 3 ranks: exit $rc"; cat "$work/outr" >&2; }
check; cmp -s "$work/skin1/skin7_600nm.mco" "$work/skink/skin7_600nm.mco" ||
    fail "killed and resumed under MPI: the .mco differs from one process's"
same_errors "$work/skin1e/skin7_600nm.json" "$work/skink/skin7_600nm.json" \
    "killed and resumed, --stderr"

# SIGTERM to 3 ranks with --stderr: each rank's chunk cut where the signal
# found it, so the checkpoint keeps several groups begun and not ended;
# resumed in one process, the .mco and errors are one process's.
mpirun --oversubscribe -np 3 "$tmcml" run "$skin" $sopts -o "$work/skint" >"$work/outt" 2>&1 &
mpid=$!
sleep 2
pkill -TERM -P $mpid 2>/dev/null
wait $mpid
rc=$?
[ -s "$work/skint/skin7_600nm.ckpt" ] ||
    echo "note: no checkpoint (rc $rc: the ranks ended, or the signal came before they ran)"
"$tmcml" run "$skin" $sopts --resume -o "$work/skint" >"$work/outu" 2>&1
rc=$?
check; [ $rc -eq 0 ] || { fail "paused with --stderr, resumed alone: exit $rc"; cat "$work/outu" >&2; }
check; cmp -s "$work/skin1/skin7_600nm.mco" "$work/skint/skin7_600nm.mco" ||
    fail "paused with --stderr, resumed alone: the .mco differs from one process's"
same_errors "$work/skin1e/skin7_600nm.json" "$work/skint/skin7_600nm.json" \
    "paused with --stderr, resumed alone"

# A batch (the runs of one shape, simulated together) shared by the ranks:
# every .mco one process's; periodic checkpoints pause every rank and
# write every run's; SIGTERM stops the batch with every run's checkpoint,
# and --resume with another number of ranks ends with one process's files.
lut=$(dirname "$data")/../examples/lookup_table.mci
lopts="-N 40000 -S 6 -q --engine cpu --threads 1"
"$tmcml" run "$lut" $lopts --no-batch -o "$work/lut1" || fail "lookup table, one process"
"$tmcml" run "$lut" $lopts --stderr -o "$work/lut1e" || fail "lookup table, one process, --stderr"
lut_same() { # DIR WHAT
    for f in "$work"/lut1/*.mco; do
        check; cmp -s "$f" "$1/$(basename "$f")" || fail "$2: $(basename "$f") differs from one process's"
    done
}
mpi -np 3 "$tmcml" run "$lut" $lopts --stderr --checkpoint-every 0.1 -o "$work/lut3" \
    >"$work/outl" 2>&1
rc=$?
check; [ $rc -eq 0 ] || { fail "batch, 3 ranks: exit $rc"; cat "$work/outl" >&2; }
lut_same "$work/lut3" "batch, 3 ranks"
for f in "$work"/lut1e/*.json; do
    same_errors "$f" "$work/lut3/$(basename "$f")" "batch, 3 ranks, $(basename "$f" .json)"
done
mpirun --oversubscribe -np 2 "$tmcml" run "$lut" $lopts --checkpoint-every 0.1 -o "$work/lutp" \
    >"$work/outlp" 2>&1 &
mpid=$!
n=0
while [ -z "$(ls "$work/lutp"/*.ckpt 2>/dev/null)" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
pkill -TERM -P $mpid 2>/dev/null
wait $mpid
rc=$?
if [ -n "$(ls "$work/lutp"/*.ckpt 2>/dev/null)" ]; then
    check; [ $rc -ne 0 ] || fail "paused batch: mpirun exit 0"
    check; [ "$(ls "$work/lutp"/*.ckpt | wc -l)" -eq "$(ls "$work"/lut1/*.mco | wc -l)" ] ||
        fail "paused batch: not every run has its checkpoint"
else
    echo "note: the batch ended before SIGTERM (rc $rc)"
fi
mpi -np 3 "$tmcml" run "$lut" $lopts --resume -o "$work/lutp" >"$work/outlr" 2>&1
rc=$?
check; [ $rc -eq 0 ] || { fail "batch resumed with 3 ranks: exit $rc"; cat "$work/outlr" >&2; }
lut_same "$work/lutp" "batch paused and resumed under MPI"
check; [ -z "$(ls "$work/lutp"/*.ckpt "$work/lutp"/*.lock 2>/dev/null)" ] ||
    fail "batch under MPI: checkpoints or locks left"

finish mpi
