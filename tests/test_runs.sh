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

# seed_of FILE: the seed an .mco's comment line or a JSON names.
seed_of() { sed -n 's/.*seed[": \t]*\([0-9][0-9]*\).*/\1/p' "$1" | head -1; }

# 1. A run in progress holds NAME.lock (its pid inside); a second run into
#    the same directory, another seed, is refused before it simulates,
#    naming the first process, and touches none of its files.  (The first
#    run is long: it is stopped, never finished.)
"$tmcml" run "$mci" -N 40000000 -S 5 -q $common --checkpoint-every 0.2 -o "$work/o" \
    2>"$work/err_a" &
pid=$!
check; wait_for "$work/o/$name.ckpt" || fail "no periodic checkpoint appeared"
check; grep -q "^pid $pid$" "$work/o/$name.lock" || fail "the lock file lacks pid $pid"
expect 2 "second writer" -- "$tmcml" run "$mci" -N 40000000 -S 6 -q $common -o "$work/o"
contains "second writer" "$work/o/$name.mco is being written by process $pid on .* (started "
check; [ ! -e "$work/o/$name.mco" ] && [ ! -e "$work/o/$name.json" ] ||
    fail "second writer: outputs written"
expect 2 "second writer, --resume" -- "$tmcml" run "$mci" -N 40000000 -S 5 -q $common --resume -o "$work/o"
contains "second writer, --resume" "is being written by process $pid"
kill -TERM $pid
wait $pid
rc=$?
check; [ $rc -eq 143 ] || { fail "first run: exit $rc, expected 143"; cat "$work/err_a" >&2; }
check; [ ! -e "$work/o/$name.lock" ] || fail "the lock file was left after the run stopped"
# Free again: what stands in the way now is the checkpoint, not a process.
expect 2 "after the lock" -- "$tmcml" run "$mci" -N 40000000 -S 6 -q $common -o "$work/o"
contains "after the lock" "a checkpoint of run 1 exists"

# 2. --resume and a finished run (no checkpoint): skipped only when its .mco
#    and JSON are one pair and this run's (seed, photons, input, physics);
#    another run's is refused, saying what differs, and left as it was.
n=20000
"$tmcml" run "$mci" -N $n -S 5 -q $common -o "$work/f" || fail "the finished run"
cp "$work/f/$name.mco" "$work/f.mco"
cp "$work/f/$name.json" "$work/f.json"
unchanged() { # DESCRIPTION
    check; cmp -s "$work/f/$name.mco" "$work/f.mco" && cmp -s "$work/f/$name.json" "$work/f.json" ||
        fail "$1: the finished outputs changed"
}
expect 0 "this run" -- "$tmcml" run "$mci" -N $n -S 5 $common --resume -o "$work/f"
contains "this run" "$name.mco is complete (no checkpoint): skipped"
unchanged "this run"
expect 1 "other seed" -- "$tmcml" run "$mci" -N $n -S 6 $common --resume -o "$work/f"
contains "other seed" "$work/f/$name.json: holds a finished run of seed 5, this run has seed 6: --resume leaves it alone"
unchanged "other seed"
expect 1 "other photons" -- "$tmcml" run "$mci" -N $((n + 1)) -S 5 $common --resume -o "$work/f"
contains "other photons" "of $n photons, this run has $((n + 1))"
unchanged "other photons"
expect 1 "-A" -- "$tmcml" run "$mci" -N $n -S 5 -A $common --resume -o "$work/f"
contains "-A" "of another input (its layers, grid, -A, --max-steps, --path-lengths or --source differ)"
sed 's/^1.4    0.7   300    0.8   0.01 /1.4    0.7   301    0.8   0.01 /' "$mci" >"$work/other.mci"
check; grep -q " 301 " "$work/other.mci" || fail "could not make the altered input"
expect 1 "other input" -- "$tmcml" run "$work/other.mci" -N $n -S 5 $common --resume -o "$work/f"
contains "other input" "of another input"
unchanged "other input"
sed 's/"cpu [0-9a-f]*"/"cpu 0123"/' "$work/f.json" >"$work/f/$name.json"
expect 1 "other physics" -- "$tmcml" run "$mci" -N $n -S 5 $common --resume -o "$work/f"
contains "other physics" "of other physics code (cpu 0123; this tmcml: cpu "
echo '{"seed": "5"}' >"$work/f/$name.json"
expect 1 "no identity" -- "$tmcml" run "$mci" -N $n -S 5 $common --resume -o "$work/f"
contains "no identity" "$name.json: does not say which run made it"
cp "$work/f.json" "$work/f/$name.json"
unchanged "restored"

# The .mco of one run beside the JSON of another (two processes before
# locks): not a pair, refused.
example=$data/reference/mcml_example.mci
"$tmcml" run "$example" -N 1000 -S 7 -q $common -o "$work/e7" &&
    "$tmcml" run "$example" -N 1000 -S 8 -q $common -o "$work/e8" || fail "example runs"
cp "$work/e8/example.json" "$work/e7/example.json"
expect 1 "mixed pair" -- "$tmcml" run "$example" -N 1000 -S 8 $common --resume -o "$work/e7"
contains "mixed pair" "$work/e7/example.mco and this summary are not of one run (tallies fnv1a64:"
# An .mco without its JSON (cut short between the two): simulated again.
rm "$work/e7/example.json"
expect 0 "mco alone" -- "$tmcml" run "$example" -N 1000 -S 8 $common --resume -o "$work/e7"
contains "mco alone" "$work/e7/example.mco without $work/e7/example.json (a run cut short between the two): simulating it again"
check; cmp -s "$work/e7/example.mco" "$work/e8/example.mco" || fail "mco alone: not simulated again"

# 3. A job array that forgot to vary the name: four runs, four seeds, one
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
