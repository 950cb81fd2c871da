#!/bin/sh
# `tmcml run --precision` (docs/outputs.md, "Runs that stop at a
# precision"), CPU engine, on the MCML example:
# - a run reaches what it asks: the JSON's "precision" met, its reached
#   relative error (Rd's error over Rd) at most the precision, its photons a
#   decision point (64 groups of 1000, then every 16 groups, the groups
#   doubling every 64) and the .mco's photon count;
# - the photons and the .mco are the same on 1 and 2 threads, paused for
#   periodic checkpoints, stopped by a signal and resumed, and in a batch
#   file (paused for checkpoints) as alone (each run stopping on its own:
#   more photons where Rd is smaller);
# - a cap reached short of the precision: exit 1 saying so, the outputs
#   written with "met": false;
# - over 50 seeds, the spread of Rd agrees with the precision asked: its
#   relative standard deviation is at most 1.25 x the target (the runs stop
#   once their estimate is below the target; the bound allows the estimate's
#   own error, about 9 % at 63 degrees of freedom, and the spread's over 50
#   runs, 10 %: 1.25 is 2.3 of their combined deviations) and above half of
#   it (a run that stopped far too late);
# - absorption sets stop together, when the worst set reaches it;
# - bad input refused before anything runs, naming the option.
# usage: test_precision.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
py=python3
run() { "$tmcml" run "$mci" -S 3 -q --engine cpu "$@"; }

expect 0 "precision" -- run --precision 0.4% -N 10000000 --threads 2 -o "$work/p2"
expect 0 "1 thread" -- run --precision 0.4% -N 10000000 --threads 1 -o "$work/p1"
same_mcos "$work/p2" "$work/p1" 1 "the precision run on 1 thread"
# Paused every 50 ms for a checkpoint: groups cut by the pauses wait for
# their rest, so the photons, the .mco and the errors are the same.  (A
# decision group whose rest is a hole before photons another thread ended
# is decided when the hole's gap ends it: test_uncertainty's hole case
# pins that pause down, which this run meets by chance only.)
expect 0 "paused" -- run --precision 0.4% -N 10000000 --threads 2 --checkpoint-every 0.05 \
    -o "$work/paused"
same_mcos "$work/p2" "$work/paused" 1 "the precision run paused for checkpoints"
check
cmp -s "$work/p2/example.npz" "$work/paused/example.npz" || fail "the paused run's errors differ"
check
$py - "$work/p2/example.json" "$work/p2/example.mco" <<'EOF' || fail "the precision run's JSON"
import json, sys
j = json.load(open(sys.argv[1]))
p, n = j["precision"], j["photons"]
assert p["met"] and p["of"] == "Rd" and p["asked"] == 0.004, p
assert p["reached"] <= 0.004 and abs(p["reached"] - j["stderr"]["Rd"] / j["RAT"]["Rd"]) < 1e-12, p
assert p["max_photons"] == 10000000, p
# a decision point: 64k groups of the plan, k >= 4 (64 groups), every 16th
def starts():
    start, size = 0, 1000
    for g in range(100000):
        yield g, start
        start += size
        if (g + 1) % 64 == 0:
            size *= 2
points = [s for g, s in starts() if g >= 64 and g % 16 == 0]
assert n in points[:200], n
mco = open(sys.argv[2]).read()
assert "%d \t\t\t# No. of photons" % n in mco, "the .mco's photon count"
assert n < 10000000
EOF

# Stopped by a signal after a periodic checkpoint and resumed: the same
# photons, .mco and errors (the groups and the cut one are in the
# checkpoint).
expect 0 "long" -- run --precision 0.15% -N 100000000 --threads 1 -o "$work/long"
"$tmcml" run "$mci" -S 3 -q --engine cpu --precision 0.15% -N 100000000 --threads 1 \
    --checkpoint-every 0.2 -o "$work/stopped" 2>/dev/null &
pid=$!
check
wait_for "$work/stopped/example.ckpt" 20 || fail "the precision run wrote no checkpoint"
kill -INT $pid
wait $pid
check
[ -e "$work/stopped/example.ckpt" ] || fail "the stopped precision run kept no checkpoint"
expect 0 "resumed" -- run --precision 0.15% -N 100000000 --threads 1 --resume -o "$work/stopped"
same_mcos "$work/long" "$work/stopped" 1 "a precision run stopped and resumed"
check
cmp -s "$work/long/example.npz" "$work/stopped/example.npz" || fail "its errors differ"

# A batch of three absorptions: each run stops on its own, as alone.
printf '1.0\n3\n' >"$work/three.mci"
for mua in 0.1 1 5; do
    printf 'r%s.mco A\n1000000\n0.01 0.01\n20 20 1\n1\n1.0\n1.4 %s 80 0.9 1E8\n1.0\n' \
        "$mua" "$mua" >>"$work/three.mci"
done
# Paused every 10 ms: a batch's groups up to a decision are one engine
# call (driver/session_groups.h), and a pause takes each run's up to the
# first unfinished one.
expect 0 "batch" -- "$tmcml" run "$work/three.mci" -S 3 -q --engine cpu --precision 0.5% \
    --checkpoint-every 0.01 -o "$work/batch"
expect 0 "alone" -- "$tmcml" run "$work/three.mci" -S 3 -q --engine cpu --precision 0.5% \
    --no-batch -o "$work/alone"
same_mcos "$work/batch" "$work/alone" 3 "a precision run in a batch"
check
$py - "$work/batch" <<'EOF' || fail "the batch's runs did not each stop on their own"
import json, sys
n = [json.load(open("%s/r%s.json" % (sys.argv[1], m)))["photons"] for m in ("0.1", "1", "5")]
assert n[0] < n[2], n  # Rd smaller at higher absorption: more photons
EOF

# The cap.
expect 1 "cap" -- run --precision 0.01% --max-photons 100000 -o "$work/cap"
contains "cap" "max-photons 100000 reached with Rd's relative standard error"
contains "cap" "the precision is not met"
check
$py - "$work/cap/example.json" <<'EOF' || fail "the capped run's JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["photons"] == 100000 and not j["precision"]["met"], j["precision"]
EOF

# 50 seeds: the spread against the target.
for s in $(seq 1 50); do
    "$tmcml" run "$mci" -S "$s" -q --engine cpu --threads 2 --precision 0.5% -N 10000000 \
        -o "$work/seeds/$s" || fail "seed $s"
done
check
$py - "$work/seeds" <<'EOF' || fail "the spread of 50 precision runs"
import json, math, sys
rd = [json.load(open("%s/%d/example.json" % (sys.argv[1], s)))["RAT"]["Rd"] for s in range(1, 51)]
m = sum(rd) / 50
sd = math.sqrt(sum((x - m) ** 2 for x in rd) / 49) / m
print("50 seeds: Rd relative spread %.3f %% (asked 0.5 %%)" % (100 * sd))
assert 0.5 * 0.005 < sd <= 1.25 * 0.005, sd
EOF

# Bad input: refused before anything runs, naming the option.
for bad in 0 0% 100% 1.5 -1% nan abc "1%%"; do
    expect 2 "--precision $bad" -- run --precision "$bad" -o "$work/bad"
    contains "--precision $bad" "--precision"
done
expect 2 "Tt semi-infinite" -- "$tmcml" run "$work/three.mci" -q --engine cpu --precision 1% \
    --precision-of Tt -o "$work/bad"
contains "Tt semi-infinite" "zero in expectation"
expect 2 "Rd_t without --time" -- run --precision 1% --precision-of "Rd_t[3]" -o "$work/bad"
contains "Rd_t without --time" "not scored by this run"
expect 2 "A with -A" -- run --precision 1% --precision-of A -A -o "$work/bad"
contains "A with -A" "without absorption"
for q in "Rd_r[99999]" "Rd_r[5:2]" "Rd_r[x]" "A_rz[1]" "Foo" "Rd_r"; do
    expect 2 "--precision-of $q" -- run --precision 1% --precision-of "$q" -o "$work/bad"
    contains "--precision-of $q" "precision-of"
done
expect 2 "cap below 64 groups" -- run --precision 1% --max-photons 1000 -o "$work/bad"
contains "cap below 64 groups" "needs at least 64000 photons"
expect 2 "--precision-of alone" -- run --precision-of Rd -o "$work/bad"
contains "--precision-of alone" "only with --precision"
printf '0.1\n' >"$work/sets.txt"
expect 2 "a set of 1 of 3 layers" -- run --precision 1% --mua-sets "$work/sets.txt" -o "$work/bad"
contains "a set of 1 of 3 layers" "sets.txt"
check
[ ! -e "$work/bad" ] || fail "a refused run wrote $work/bad"

# Absorption sets share their photons: one decision, when the worst set has
# reached the precision; every set then met, with the same photons, and the
# same on 2 threads and on 1 paused every 20 ms for a checkpoint.
printf '1 1 2\n5 5 5\n20 20 20\n' >"$work/sets.txt"
sets="-A --precision 1% -N 10000000 --mua-sets $work/sets.txt"
# shellcheck disable=SC2086
expect 0 "sets" -- run $sets --threads 2 -o "$work/sets2"
# shellcheck disable=SC2086
expect 0 "sets, 1 thread" -- run $sets --threads 1 --checkpoint-every 0.02 -o "$work/sets1"
check
$py - "$work/sets2" <<'EOF' || fail "the sets' precision"
import json, sys
j = [json.load(open("%s/example.set%d.json" % (sys.argv[1], k))) for k in (1, 2, 3)]
n = {x["photons"] for x in j}
assert len(n) == 1 and 64000 < n.pop() < 10000000, [x["photons"] for x in j]
assert all(x["precision"]["met"] and x["precision"]["reached"] <= 0.01 for x in j)
r = [x["precision"]["reached"] for x in j]
assert r[2] == max(r) and r[0] < r[2], r  # the set of most absorption decided
EOF
for k in 1 2 3; do
    check
    cmp -s "$work/sets2/example.set$k.mco" "$work/sets1/example.set$k.mco" ||
        fail "set $k differs on 1 thread paused for checkpoints and 2 threads"
    check
    cmp -s "$work/sets2/example.set$k.npz" "$work/sets1/example.set$k.npz" ||
        fail "set $k's errors differ on 1 thread paused for checkpoints and 2 threads"
done
finish test_precision
