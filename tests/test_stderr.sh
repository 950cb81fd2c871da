#!/bin/sh
# `tmcml run --stderr` (docs/outputs.md, "Standard errors"), CPU engine:
# - the .mco and the JSON's values and digest are those of the run without
#   it, bit for bit; the JSON has "stderr" (Rd, A, Tt, 64 groups, the .npz
#   named) and the .npz each array's NAME_stderr of the array's shape;
# - the errors are the same on 1 and 2 threads (the groups are fixed by the
#   photon count), and a run's in a batch file are its errors alone;
# - absorption sets each get their errors;
# - Rd's error agrees with the binomial-like bound of its photons: Rd is a
#   mean of per-photon weights in [0, 1], so its error is at most
#   sqrt(Rd (1 - Rd) / N) (and, for this albedo, more than a tenth of it).
# usage: test_stderr.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"
py=python3

expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu --threads 2 -o "$work/plain"
expect 0 "stderr" -- "$tmcml" run "$mci" $common --engine cpu --threads 2 --stderr -o "$work/se2"
expect 0 "stderr, 1 thread" -- "$tmcml" run "$mci" $common --engine cpu --threads 1 --stderr \
    -o "$work/se1"
same_mcos "$work/plain" "$work/se2" 1 "the .mco with --stderr"
for key in Rd A Tt tallies_digest; do
    check
    [ "$(json "$work/plain/example.json" "$key")" = "$(json "$work/se2/example.json" "$key")" ] ||
        fail "the JSON's $key differs with --stderr"
done

# The JSON's "stderr" and the .npz's members, read with Python's json and
# zipfile (no numpy needed: the .npy header gives the shape).
check_outputs() { # DIR NAME
    $py - "$1/$2.json" "$1/$2.npz" <<'EOF' || fail "$1/$2: the errors' outputs"
import json, re, sys, zipfile
j = json.load(open(sys.argv[1]))
se = j["stderr"]
assert se["groups"] == 64 and se["arrays"] == sys.argv[2].split("/")[-1], se
for k in ("Rd", "A", "Tt"):
    assert se[k] >= 0, (k, se[k])
z = zipfile.ZipFile(sys.argv[2])
names = {n[:-4] for n in z.namelist()}
def shape(n):
    head = z.read(n + ".npy")[:128].decode("latin1")
    return re.search(r"'shape': \(([^)]*)\)", head).group(1)
arrays = [n for n in names if n + "_stderr" in names]
assert {"Rd_r", "A_z", "A_rz", "Rd", "A", "Tt"} <= set(arrays), sorted(names)
for n in arrays:
    assert shape(n) == shape(n + "_stderr"), (n, shape(n), shape(n + "_stderr"))
assert "Rsp_stderr" not in names
EOF
    check
}
check_outputs "$work/se2" example

# 1 and 2 threads: the same errors, bit for bit (the .npz too).
check
cmp -s "$work/se1/example.npz" "$work/se2/example.npz" || fail "the .npz differs on 1 and 2 threads"
check
[ "$(json "$work/se1/example.json" Rd)" = "$(json "$work/se2/example.json" Rd)" ] &&
    [ "$(sed -n '/"stderr"/,/}/p' "$work/se1/example.json")" = \
        "$(sed -n '/"stderr"/,/}/p' "$work/se2/example.json")" ] ||
    fail "the errors differ on 1 and 2 threads"

# Rd's error against its bound.
check
$py - "$work/se2/example.json" <<'EOF' || fail "Rd's error outside (0.1, 1) x its bound"
import json, math, sys
j = json.load(open(sys.argv[1]))
rd, n, e = j["RAT"]["Rd"], j["photons"], j["stderr"]["Rd"]
bound = math.sqrt(rd * (1 - rd) / n)
assert 0.1 * bound < e <= bound, (e, bound)
EOF

# A batch file of three runs: each run's errors are those of the run alone.
one_layer_runs 3 20000 "20 20 1" 0.5 0.5 3 >"$work/three.mci"
expect 0 "batch" -- "$tmcml" run "$work/three.mci" -S 3 -q --engine cpu --stderr -o "$work/batch"
expect 0 "alone" -- "$tmcml" run "$work/three.mci" -S 3 -q --engine cpu --stderr --no-batch \
    -o "$work/alone"
# A batch packs each run's 64 groups into one engine call (each group a
# slot of its own: driver/session_groups.h); paused every 10 ms for a
# checkpoint, the groups a pause cut are taken up to the first unfinished
# one and the rest simulated again: the same .mco and errors.
one_layer_runs 3 300000 "20 20 1" 0.5 0.5 3 >"$work/three_long.mci"
expect 0 "batch, paused" -- "$tmcml" run "$work/three_long.mci" -S 3 -q --engine cpu --stderr \
    --threads 2 --checkpoint-every 0.01 -o "$work/batch_paused"
expect 0 "alone, long" -- "$tmcml" run "$work/three_long.mci" -S 3 -q --engine cpu --stderr \
    --threads 2 --no-batch -o "$work/alone_long"
for r in r000 r001 r002; do
    check_outputs "$work/batch" $r
    check
    cmp -s "$work/batch/$r.npz" "$work/alone/$r.npz" || fail "$r: its errors in a batch differ"
    check
    cmp -s "$work/batch_paused/$r.mco" "$work/alone_long/$r.mco" &&
        cmp -s "$work/batch_paused/$r.npz" "$work/alone_long/$r.npz" ||
        fail "$r: a batch paused for checkpoints differs from the run alone"
done

# Absorption sets: each its errors.
printf '0.5\n2.0\n' >"$work/sets.txt"
expect 0 "sets" -- "$tmcml" run "$work/three.mci" -S 3 -q --engine cpu --stderr \
    --mua-sets "$work/sets.txt" -o "$work/sets"
for r in r000.set1 r000.set2 r002.set2; do
    check_outputs "$work/sets" $r
done
finish test_stderr
