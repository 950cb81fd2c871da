#!/bin/sh
# Runs that share an output directory (issue 21): one process writes a run's
# outputs at a time (NAME.lock), a second is refused naming the first, and
# a finished run's .mco and JSON stay one pair.
# usage: test_runs.sh TMCML DATA_DIR
tmcml=$1
data=$2
. "$(dirname "$0")/lib.sh"
mci=$data/reference/skin7_600nm.mci
name=skin7_600nm
common="--engine cpu --threads 2"

wait_for() { # FILE: up to 120 s for it to appear
    n=0
    while [ ! -s "$1" ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
    [ -s "$1" ]
}
# seed_of FILE: the seed an .mco's comment line or a JSON names.
seed_of() { sed -n 's/.*seed[": \t]*\([0-9][0-9]*\).*/\1/p' "$1" | head -1; }

# 1. A run in progress holds NAME.lock (its pid inside); a second run into
#    the same directory, another seed, is refused before it simulates,
#    naming the first process, and touches none of its files.
"$tmcml" run "$mci" -N 400000 -S 5 -q $common --checkpoint-every 0.2 -o "$work/o" \
    2>"$work/err_a" &
pid=$!
check; wait_for "$work/o/$name.ckpt" || fail "no periodic checkpoint appeared"
check; grep -q "^pid $pid$" "$work/o/$name.lock" || fail "the lock file lacks pid $pid"
cp "$work/o/$name.ckpt" "$work/saved.ckpt"
expect 2 "second writer" -- "$tmcml" run "$mci" -N 400000 -S 6 -q $common -o "$work/o"
contains "second writer" "$work/o/$name.mco is being written by process $pid on .* (started "
check; [ ! -e "$work/o/$name.mco" ] && [ ! -e "$work/o/$name.json" ] ||
    fail "second writer: outputs written"
expect 2 "second writer, --resume" -- "$tmcml" run "$mci" -N 400000 -S 5 -q $common --resume -o "$work/o"
contains "second writer, --resume" "is being written by process $pid"
kill -TERM $pid
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "first run: exit $rc, expected 143"; cat "$work/err_a" >&2; }
check; [ ! -e "$work/o/$name.lock" ] || fail "the lock file was left after the run stopped"
# Free again: the interrupted run resumes.
expect 0 "resume after the lock" -- "$tmcml" run "$mci" -N 400000 -S 5 -q $common --resume -o "$work/o"
check; [ -s "$work/o/$name.mco" ] && [ ! -e "$work/o/$name.lock" ] && [ ! -e "$work/o/$name.ckpt" ] ||
    fail "resume after the lock: files: $(ls -A "$work/o")"

# 2. A job array that forgot to vary the name: four runs, four seeds, one
#    directory, at once, three times.  Each either writes its .mco and JSON
#    or is refused; the pair left is always one run's.
round=0
while [ $round -lt 3 ]; do
    for s in 11 12 13 14; do
        "$tmcml" run "$mci" -N 3000 -S $s -q $common -o "$work/array" 2>/dev/null &
    done
    wait
    check; [ "$(seed_of "$work/array/$name.mco")" = "$(seed_of "$work/array/$name.json")" ] ||
        fail "round $round: .mco of seed $(seed_of "$work/array/$name.mco"), JSON of seed $(seed_of "$work/array/$name.json")"
    check; [ -z "$(ls -A "$work/array" | grep -v "^$name\.\(mco\|json\)$")" ] ||
        fail "round $round: files left: $(ls -A "$work/array")"
    round=$((round + 1))
done

finish runs
