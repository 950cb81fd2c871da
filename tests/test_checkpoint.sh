#!/bin/sh
# Checkpoint and resume, driven by real signals to a real process: a run
# stopped by SIGINT, resumed and stopped again by SIGTERM, killed with -9
# while writing periodic checkpoints, and resumed to the end gives the .mco
# of an uninterrupted run, byte for byte.  Mismatched and corrupt
# checkpoints are refused and left as they were.
# usage: test_checkpoint.sh TMCML DATA_DIR [ENGINE]   (ENGINE: cpu, default, gpu, or gpus)
tmcml=$1
data=$2
engine=${3:-cpu}
. "$(dirname "$0")/lib.sh"
isolate_user_dirs

if [ "$engine" = gpu ] || [ "$engine" = gpus ]; then
    "$tmcml" devices >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
    photons=400000000
    common="--engine gpu --tune never --cache $work/cache"
    # gpus: two engines on GPU 0 sharing chunks, so that a stop leaves
    # photon ranges with holes between them (tests/test_multi_gpu.sh).
    [ "$engine" = gpus ] && common="$common --gpus 0,0 --gpu-chunk 9999991"
else
    photons=400000
    common="--engine cpu --threads 2"
fi
mci=$data/reference/skin7_600nm.mci
name=skin7_600nm

# wait_for_change FILE COPY: up to 120 s for FILE to differ from COPY (a
# new periodic checkpoint: the resumed run is simulating).
wait_for_change() {
    n=0
    while cmp -s "$1" "$2" && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
    ! cmp -s "$1" "$2"
}
json_num() { tr -d ' \t\n' <"$1" | sed -n "s/.*\"$2\":\([0-9.e+]*\).*/\1/p"; }

# The reference: one uninterrupted run (with its .npz, for 1a).
"$tmcml" run "$mci" -N $photons -S 5 -q $common --npz -o "$work/full" ||
    fail "uninterrupted run failed"

# 1. SIGINT: exit 130, a checkpoint and partial outputs that say so.
"$tmcml" run "$mci" -N $photons -S 5 -q $common --checkpoint-every 0.3 -o "$work/part" \
    2>"$work/err1" &
pid=$!
check; wait_for "$work/part/$name.ckpt" || fail "no periodic checkpoint appeared"
kill -INT $pid
wait $pid
rc=$?
check; [ $rc -eq 130 ] || { fail "SIGINT: exit $rc, expected 130"; cat "$work/err1" >&2; }
check; grep -q "stopped after [0-9]* of $photons photons" "$work/err1" || fail "SIGINT: no stop message"
check; [ -s "$work/part/$name.partial.mco" ] || fail "SIGINT: no partial .mco"
check; grep -q "PARTIAL: [0-9]* of $photons photons" "$work/part/$name.partial.mco" ||
    fail "SIGINT: the partial .mco does not say it is partial"
done1=$(json_num "$work/part/$name.partial.json" photons_done)
check; [ -n "$done1" ] && [ "$(json_num "$work/part/$name.partial.json" photons_total)" = "$photons" ] ||
    fail "SIGINT: the partial JSON lacks photons_done/photons_total"
check; [ ! -e "$work/part/$name.mco" ] || fail "SIGINT: a final .mco was written"

# 1a. --npz: a stopped run writes NAME.partial.npz too; resumed, NAME.npz is
#     the uninterrupted run's byte for byte and the partial one is removed.
"$tmcml" run "$mci" -N $photons -S 5 -q $common --npz --checkpoint-every 0.3 -o "$work/npz" \
    2>"$work/errn" &
pid=$!
check; wait_for "$work/npz/$name.ckpt" || fail "--npz: no periodic checkpoint appeared"
kill -INT $pid
wait $pid
rc=$?
check; [ $rc -eq 130 ] && [ -s "$work/npz/$name.partial.npz" ] ||
    { fail "--npz, SIGINT: exit $rc, or no partial .npz"; cat "$work/errn" >&2; }
"$tmcml" run "$mci" -N $photons -S 5 -q $common --npz --resume -o "$work/npz" ||
    fail "--npz: the resumed run failed"
check; cmp -s "$work/full/$name.npz" "$work/npz/$name.npz" ||
    fail "--npz: the resumed .npz differs from the uninterrupted run's"
check; [ ! -e "$work/npz/$name.partial.npz" ] || fail "--npz: the partial .npz was left"

# 1b. SIGHUP (an ssh session closing), SIGUSR1/2 (a batch system's warning)
#     and SIGXCPU (a CPU time limit) stop a run as SIGTERM does: checkpoint,
#     partial outputs, exit 128 + the signal, no temp file left.  These runs
#     are stopped, never finished: ten times the photons keeps them running
#     until the signal on any machine.
long=$((photons * 10))
no_temps() { ! ls -A "$1" | grep -q '\.tmp\.'; }
stops_like_term() { # SIGNAL NUMBER (Linux's)
    dir=$work/sig$1
    "$tmcml" run "$mci" -N $long -S 5 -q $common --checkpoint-every 0.3 -o "$dir" \
        2>"$work/errs" &
    pid=$!
    check; wait_for "$dir/$name.ckpt" || fail "SIG$1: no periodic checkpoint appeared"
    kill -"$1" $pid
    wait $pid
    rc=$?
    want=$((128 + $2))
    check; [ $rc -eq $want ] || { fail "SIG$1: exit $rc, expected $want"; cat "$work/errs" >&2; }
    check; grep -q "SIG$1.*stopped after [0-9]* of $long photons" "$work/errs" ||
        { fail "SIG$1: no stop message"; cat "$work/errs" >&2; }
    check; [ -s "$dir/$name.partial.mco" ] && [ -s "$dir/$name.partial.json" ] ||
        fail "SIG$1: no partial outputs"
    check; no_temps "$dir" || fail "SIG$1: temp files left: $(ls -A "$dir")"
}
stops_like_term HUP 1
# The same with stderr into a pipe whose reader is gone (`| tee log` of an
# ssh session that closed): the stop message must not kill the run.
dir=$work/sigpipe
( "$tmcml" run "$mci" -N $long -S 5 -q $common --checkpoint-every 0.3 -o "$dir" 2>&1 &
    echo $! >"$work/pid"
    wait $!
    echo $? >"$work/rc" ) | true &
check; wait_for "$dir/$name.ckpt" || fail "SIGHUP, broken pipe: no periodic checkpoint appeared"
kill -HUP "$(cat "$work/pid")"
wait
check; [ "$(cat "$work/rc")" = 129 ] && [ -s "$dir/$name.partial.mco" ] ||
    fail "SIGHUP, broken pipe: exit $(cat "$work/rc"), files: $(ls -A "$dir")"
stops_like_term USR1 10
stops_like_term USR2 12
stops_like_term XCPU 24
if [ "$engine" = cpu ]; then
    # A real CPU time limit: the soft limit's SIGXCPU (the kernel repeats it
    # every CPU second; the repeats must not cut the checkpoint short).
    (ulimit -S -t 2 && exec "$tmcml" run "$mci" -N $long -S 5 -q $common -o "$work/xcpu") \
        2>"$work/errs"
    rc=$?
    check; [ $rc -eq 152 ] && [ -s "$work/xcpu/$name.ckpt" ] &&
        [ -s "$work/xcpu/$name.partial.mco" ] ||
        { fail "ulimit -t: exit $rc, files: $(ls -A "$work/xcpu")"; cat "$work/errs" >&2; }
    # A file size limit (ulimit -f): the .mco cannot be written; said like a
    # full disk, no temp file left, the run fails (exit 1).
    (ulimit -f 64 && exec "$tmcml" run "$mci" -N 2000 -S 5 -q $common -o "$work/fsize") \
        2>"$work/errs"
    rc=$?
    check; [ $rc -eq 1 ] && grep -q "$name.mco: File too large.*ulimit -f" "$work/errs" ||
        { fail "ulimit -f: exit $rc"; cat "$work/errs" >&2; }
    check; no_temps "$work/fsize" && [ ! -e "$work/fsize/$name.mco" ] ||
        fail "ulimit -f: files left: $(ls -A "$work/fsize")"
fi

# 1c. A periodic checkpoint that cannot be written (a directory in its
#     place: no rename goes over it, even as root) is said and retried; the
#     run goes on, and a later period writes it again.
dir=$work/retry
"$tmcml" run "$mci" -N $long -S 5 -q $common --checkpoint-every 0.2 -o "$dir" \
    2>"$work/errr" &
pid=$!
check; wait_for "$dir/$name.ckpt" || fail "retry: no periodic checkpoint appeared"
n=0
until mkdir "$dir/$name.ckpt" 2>/dev/null || [ $n -ge 100 ]; do
    rm -f "$dir/$name.ckpt"
    n=$((n + 1))
done
n=0
while ! grep -q "checkpoint not written: .*; retrying in 0.2 s" "$work/errr" && [ $n -lt 1200 ] &&
    kill -0 $pid 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
check; grep -q "checkpoint not written" "$work/errr" ||
    { fail "retry: no warning of the failed checkpoint"; cat "$work/errr" >&2; }
rmdir "$dir/$name.ckpt"
n=0
while [ ! -f "$dir/$name.ckpt" ] && [ $n -lt 1200 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
check; [ -f "$dir/$name.ckpt" ] || fail "retry: the checkpoint was not written again"
kill -TERM $pid
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "retry: exit $rc, expected 143 (still running)"; cat "$work/errr" >&2; }

# 2. A fresh run over a checkpoint is refused (it would be lost).
"$tmcml" run "$mci" -N $photons -S 5 -q $common -o "$work/part" 2>"$work/err2"
rc=$?
check; [ $rc -eq 2 ] && grep -q "a checkpoint of run 1 exists" "$work/err2" ||
    fail "fresh run over a checkpoint: exit $rc, $(cat "$work/err2")"

# 3. Mismatches and corruption are refused; the checkpoint stays as it was.
cp "$work/part/$name.ckpt" "$work/saved.ckpt"
refused() { # description expected-text -- command...
    what=$1 text=$2
    shift 3
    "$@" >"$work/out" 2>&1
    rc=$?
    check; [ $rc -ne 0 ] && grep -q -- "$text" "$work/out" ||
        { fail "$what: exit $rc, output: $(cat "$work/out")"; }
    check; cmp -s "$work/part/$name.ckpt" "$work/saved.ckpt" || fail "$what: the checkpoint changed"
    check; [ ! -e "$work/part/$name.mco" ] || fail "$what: a .mco was written"
}
refused "other seed" "made with seed 5, this run has seed 6" -- \
    "$tmcml" run "$mci" -N $photons -S 6 -q $common --resume -o "$work/part"
sed 's/^1.4    0.7   300    0.8   0.01 /1.4    0.7   301    0.8   0.01 /' "$mci" >"$work/other.mci"
check; grep -q " 301 " "$work/other.mci" || fail "could not make the altered input"
refused "other input" 'the input differs from the checkpoint.s: "layer 3: n 1.3' -- \
    "$tmcml" run "$work/other.mci" -N $photons -S 5 -q $common --resume -o "$work/part"
refused "other photon count" "a run of $photons photons" -- \
    "$tmcml" run "$mci" -N $((photons + 1)) -S 5 -q $common --resume -o "$work/part"
size=$(wc -c <"$work/saved.ckpt")
head -c $((size - 100)) "$work/saved.ckpt" >"$work/part/$name.ckpt"
cp "$work/part/$name.ckpt" "$work/truncated.ckpt"
cp "$work/truncated.ckpt" "$work/saved.ckpt.t"
"$tmcml" run "$mci" -N $photons -S 5 -q $common --resume -o "$work/part" >"$work/out" 2>&1
rc=$?
check; [ $rc -ne 0 ] && grep -q "not a valid tmcml checkpoint: truncated" "$work/out" ||
    fail "truncated checkpoint: exit $rc, $(cat "$work/out")"
check; cmp -s "$work/part/$name.ckpt" "$work/truncated.ckpt" || fail "truncated: the file changed"
cp "$work/saved.ckpt" "$work/part/$name.ckpt"
printf 'X' | dd of="$work/part/$name.ckpt" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$tmcml" run "$mci" -N $photons -S 5 -q $common --resume -o "$work/part" >"$work/out" 2>&1
rc=$?
check; [ $rc -ne 0 ] && grep -q "checksum mismatch" "$work/out" ||
    fail "corrupt checkpoint: exit $rc, $(cat "$work/out")"
cp "$work/saved.ckpt" "$work/part/$name.ckpt"

# 4. Resumed, then SIGTERM: exit 143, more photons done than before.
"$tmcml" run "$mci" -N $photons -S 5 -q $common --resume --checkpoint-every 0.3 \
    -o "$work/part" 2>"$work/err4" &
pid=$!
check; wait_for_change "$work/part/$name.ckpt" "$work/saved.ckpt" || fail "resume: no new checkpoint"
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: the resumed run ended before SIGTERM (a fast machine); step 4 is vacuous"
else
    check; [ $rc -eq 143 ] || { fail "SIGTERM: exit $rc, expected 143"; cat "$work/err4" >&2; }
    done2=$(json_num "$work/part/$name.partial.json" photons_done)
    check; awk "BEGIN{exit !($done2 > $done1)}" || fail "SIGTERM: $done2 photons done, not more than $done1"
fi

# 5. kill -9 while periodic checkpoints are written: the file is the old or
#    the new checkpoint, never a broken one.
if [ $rc -ne 0 ]; then
    "$tmcml" run "$mci" -N $photons -S 5 -q $common --resume --checkpoint-every 0.05 \
        -o "$work/part" 2>/dev/null &
    pid=$!
    sleep 0.8
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
fi

# 6. Resumed to the end: bit-identical to the uninterrupted run.
"$tmcml" run "$mci" -N $photons -S 5 -q $common --resume -o "$work/part" 2>"$work/err6"
rc=$?
check; [ $rc -eq 0 ] || { fail "final resume: exit $rc"; cat "$work/err6" >&2; }
check; cmp -s "$work/full/$name.mco" "$work/part/$name.mco" ||
    fail "the resumed .mco differs from the uninterrupted run's"
digest() { sed -n 's/.*"tallies_digest":[[:space:]]*"\(fnv1a64:[0-9a-f]*\)".*/\1/p' "$1"; }
check; [ "$(digest "$work/full/$name.json")" = "$(digest "$work/part/$name.json")" ] ||
    fail "the tallies digests differ"
check; [ ! -e "$work/part/$name.ckpt" ] && [ ! -e "$work/part/$name.partial.mco" ] ||
    fail "the checkpoint or partial outputs were left after the run ended"
# A second --resume finds the run complete and leaves it alone.
"$tmcml" run "$mci" -N $photons -S 5 $common --resume -o "$work/part" >"$work/out" 2>&1
check; grep -q "is complete (no checkpoint): skipped" "$work/out" || fail "complete run not skipped"

# 7. A batch (three runs of one shape, simulated together): SIGTERM stops
#    them all, each with its checkpoint and partial outputs, but for a run
#    whose photons had all ended (one GPU writes its outputs then, while the
#    batch goes on: they are whole); resumed, every .mco is the one each run
#    gives alone (--no-batch), byte for byte.  (--batch-all: on a GPU runs
#    this big would each run alone.)
three=$work/three.mci
{
    printf '1.0\n3\n'
    for i in 1 2 3; do
        sed -n '/^skin7_600nm.mco/,$p' "$mci" | sed "s/^skin7_600nm.mco/batch$i.mco/" |
            sed "s/^1.53   0.2 /1.53   0.$i /"
    done
} >"$three"
check; [ "$(grep -c '^batch[123].mco' "$three")" -eq 3 ] || fail "could not make the batch input"
each=$((photons / 3))
"$tmcml" run "$three" -N $each -S 5 -q $common --no-batch -o "$work/alone3" ||
    fail "the runs alone failed"
"$tmcml" run "$three" -N $each -S 5 $common --batch-all --checkpoint-every 0.3 -o "$work/batch3" \
    >"$work/out7" 2>"$work/err7" &
pid=$!
check; wait_for "$work/batch3/batch3.ckpt" || fail "batch: no periodic checkpoint appeared"
for i in 1 2 3; do # every run of the batch locked by it
    check; grep -q "^pid $pid$" "$work/batch3/batch$i.lock" 2>/dev/null ||
        [ ! -e "$work/batch3/batch$i.ckpt" ] || fail "batch: run $i is not locked by the batch"
done
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: the batch ended before SIGTERM (a fast machine); the stop is vacuous"
else
    check; [ $rc -eq 143 ] || { fail "batch SIGTERM: exit $rc, expected 143"; cat "$work/err7" >&2; }
    # Every run its checkpoint, or its finished outputs and no lock; partial
    # outputs where photons were done (the longest-lived run's first: the
    # batch stopped before the others' perhaps).
    for i in 1 2 3; do
        check; [ -s "$work/batch3/batch$i.ckpt" ] ||
            { [ -s "$work/batch3/batch$i.json" ] && [ ! -e "$work/batch3/batch$i.lock" ]; } ||
            fail "batch SIGTERM: run $i has neither a checkpoint nor its outputs"
    done
    partial=no
    ls "$work/batch3"/batch*.partial.mco >/dev/null 2>&1 && partial=yes
    "$tmcml" run "$three" -N $each -S 5 $common --batch-all --resume -o "$work/batch3" \
        >"$work/out7" 2>"$work/err7" || { fail "batch resume failed"; cat "$work/err7" >&2; }
    # (On a GPU shared with other tests the stop may come before the first
    # launch has handed out a photon: no run then has partial outputs.)
    if [ $partial = no ]; then
        check; grep -q "resuming from .*, [1-9][0-9]* of" "$work/err7" &&
            fail "batch SIGTERM: a run stopped after some photons has no partial outputs"
        echo "note: the batch was stopped before any of its photons; no partial outputs to check"
    fi
fi
for i in 1 2 3; do
    check; cmp -s "$work/alone3/batch$i.mco" "$work/batch3/batch$i.mco" ||
        fail "batch: run $i's .mco differs from the run alone"
    check; [ ! -e "$work/batch3/batch$i.ckpt" ] && [ ! -e "$work/batch3/batch$i.lock" ] ||
        fail "batch: run $i's checkpoint or lock was left"
done

finish "checkpoint ($engine)"
