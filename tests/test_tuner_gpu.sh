#!/bin/sh
# The tuner on a GPU: a short real tune writes a profile entry that a
# following run uses (and --no-profile / explicit options override); the
# bit-identity gate rejects a deliberately wrong candidate; run --tune always
# tunes first; a small sweep writes its CSV and heat map; the kernel of
# absorption sets (with their path lengths, or their absorption) is tuned
# for its own shape, and a sets run takes that entry, its .mco files the
# heuristic's.  Exit 77
# (skipped) without a GPU.
# usage: test_tuner_gpu.sh TMCML EXAMPLES_DIR
set -u
tmcml=$1
ex=$2
if ! "$tmcml" devices >/dev/null 2>&1; then
    echo "test_tuner_gpu: no usable GPU (tmcml devices failed): skipped"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Never the real home: profiles go to a directory of this test only.
export TMCML_PROFILE_DIR="$dir/profiles" HOME="$dir/home" XDG_DATA_HOME="$dir/xdg"
cache="--cache $dir/cache"
input="$ex/vanhulst_slab.mci"
failures=0
check() { # condition description
    if eval "$1"; then
        echo "ok: $2"
    else
        echo "FAILED: $2"
        failures=$((failures + 1))
    fi
}
show() { sed 's/^/    | /' "$1"; }

echo "== tune (budget 10 s)"
"$tmcml" tune "$input" --budget 10 --csv "$dir/tune.csv" $cache >"$dir/tune.out" 2>&1
rc=$?
show "$dir/tune.out"
check '[ $rc -eq 0 ]' "tune exits 0 (got $rc)"
profile=$(ls "$dir"/profiles/*.json 2>/dev/null | head -n 1)
check '[ -n "$profile" ]' "tune wrote a profile file in \$TMCML_PROFILE_DIR"
check 'grep -q "<- winner" "$dir/tune.out"' "the table marks a winner"
check 'grep -q "profile entry stored in" "$dir/tune.out"' "tune says where the entry went"
check '[ "$(grep -c ",measured," "$dir/tune.csv")" -ge 3 ]' "the CSV holds at least 3 measured candidates"
check '! grep -q MISMATCH "$dir/tune.out"' "no candidate failed the gate"
check '"$tmcml" profiles check >/dev/null 2>&1' "profiles check accepts the written file"

echo "== run uses the entry"
"$tmcml" run "$input" -N 200000 -o "$dir/out1" $cache >"$dir/run1.out" 2>&1
rc=$?
show "$dir/run1.out"
check '[ $rc -eq 0 ]' "run exits 0"
check 'grep -q "kernel variant: profile .*exact entry" "$dir/run1.out"' "run says it used the exact profile entry"
"$tmcml" run "$input" -N 200000 -o "$dir/out2" --no-profile $cache >"$dir/run2.out" 2>&1
check 'grep -q "kernel variant: heuristic (--no-profile)" "$dir/run2.out"' "--no-profile takes the heuristic"
check 'cmp -s "$dir/out1/vanhulst_slab.mco" "$dir/out2/vanhulst_slab.mco"' \
    "tuned and heuristic variants write identical .mco files"
"$tmcml" run "$input" -N 200000 -o "$dir/out3" --block 64 $cache >"$dir/run3.out" 2>&1
check 'grep -q "exact entry.*with explicit options" "$dir/run3.out"' "explicit options override the entry"
check 'grep -q "block_size=64" "$dir/out3/vanhulst_slab.json"' "the explicit block size is the kernel's"

echo "== the bit-identity gate"
mkdir -p "$dir/gate"
TMCML_PROFILE_DIR="$dir/gate" "$tmcml" tune "$input" --budget 4 --debug-wrong-candidate \
    --csv "$dir/gate.csv" $cache >"$dir/gate.out" 2>&1
rc=$?
show "$dir/gate.out"
check '[ $rc -eq 1 ]' "a wrong candidate makes tune exit 1 (got $rc)"
check 'grep -q "wrong .*MISMATCH" "$dir/gate.out"' "the wrong candidate is listed as MISMATCH"
check 'grep -q "failed the bit-identity gate" "$dir/gate.out"' "tune reports the gate failure"
check 'grep -q "^wrong,.*,MISMATCH," "$dir/gate.csv"' "the CSV records the mismatch"

echo "== run --tune always"
mkdir -p "$dir/always"
TMCML_PROFILE_DIR="$dir/always" "$tmcml" run "$input" -N 100000 -o "$dir/out4" --tune always \
    --budget 4 $cache >"$dir/always.out" 2>&1
rc=$?
show "$dir/always.out"
check '[ $rc -eq 0 ]' "run --tune always exits 0"
check 'grep -q "tmcml: tuned " "$dir/always.out"' "run --tune always tuned first"
check 'ls "$dir"/always/*.json >/dev/null 2>&1' "and stored the entry"

echo "== absorption sets: their own shape"
mkdir -p "$dir/sets"
printf '5\n10\n20\n' >"$dir/sets.csv"
TMCML_PROFILE_DIR="$dir/sets" "$tmcml" tune "$input" -A --mua-sets "$dir/sets.csv" \
    --path-lengths --budget 6 --csv "$dir/sets_tune.csv" $cache >"$dir/sets_tune.out" 2>&1
rc=$?
show "$dir/sets_tune.out"
check '[ $rc -eq 0 ]' "tune --mua-sets -A --path-lengths exits 0 (got $rc)"
check 'grep -q "tuned L1 .* -A sets=3 2-D paths" "$dir/sets_tune.out"' \
    "the entry is the sets' shape (3 sets, their path lengths)"
check '! grep -q MISMATCH "$dir/sets_tune.out"' "no sets candidate failed the gate"
for p in entry no-profile; do
    extra=""
    [ "$p" = no-profile ] && extra=--no-profile
    # shellcheck disable=SC2086
    TMCML_PROFILE_DIR="$dir/sets" "$tmcml" run "$input" -N 200000 -A --mua-sets "$dir/sets.csv" \
        --path-lengths --engine gpu $extra -o "$dir/sets_$p" $cache >"$dir/sets_$p.out" 2>&1
    check '[ $? -eq 0 ]' "a sets run ($p) exits 0"
done
show "$dir/sets_entry.out"
check 'grep -q "kernel variant: profile .*exact entry L1 .* sets=3 2-D paths" "$dir/sets_entry.out"' \
    "the sets run takes the sets' entry"
for k in 1 2 3; do
    check 'cmp -s "$dir/sets_entry/vanhulst_slab.set$k.mco" "$dir/sets_no-profile/vanhulst_slab.set$k.mco"' \
        "set $k: the tuned and the heuristic sets' kernels write identical .mco files"
done
"$tmcml" tune "$input" --mua-sets "$dir/sets.csv" --budget 3 --profiles "$dir/sets" $cache \
    >"$dir/sets_A.out" 2>&1
rc=$?
show "$dir/sets_A.out"
check '[ $rc -eq 0 ] && grep -q "tuned L1 .* sets=3 2-D A in" "$dir/sets_A.out"' \
    "tune --mua-sets without -A tunes the kernel of the sets' absorption"
"$tmcml" tune "$input" --path-lengths --budget 2 --profiles "$dir/sets" $cache \
    >"$dir/paths.out" 2>&1
check '[ $? -ne 0 ] && grep -q "add --mua-sets FILE" "$dir/paths.out"' \
    "tune --path-lengths without sets is refused"

echo "== sweep"
"$tmcml" sweep "$input" --nr 4:20:8 --nz 20:100:40 --entry 32,64 -o "$dir/sweep" $cache \
    >"$dir/sweep.out" 2>&1
rc=$?
show "$dir/sweep.out"
check '[ $rc -eq 0 ]' "sweep exits 0"
check '[ "$(grep -c ",measured," "$dir/sweep.csv")" -eq 18 ]' "18 shapes measured (3 x 3 x 2 widths)"
check '[ -s "$dir/sweep.e32.png" ] && [ -s "$dir/sweep.e64.png" ]' "a heat map per entry width"
check 'grep -q "best/worst" "$dir/sweep.out"' "sweep reports the best/worst ratio"

echo "test_tuner_gpu: $failures failed"
[ "$failures" -eq 0 ]
