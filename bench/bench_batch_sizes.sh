#!/bin/sh
# A batch of few big runs against its runs alone: 8 copies of one run of a
# lookup-table input (its first, by default lut100.mci's: mua 0.0444, mus
# 72.63 1/cm, a 1 cm grid whose edges its light reaches), batched
# (--batch-all), --no-batch and as tmcml chooses by default (big runs
# alone: driver/run_batch.h), at each photon count given, alternating, whole
# process and the kernel from --verbose; every .mco compared among the
# three.  Where a batch stops paying: docs/batches.md, "Few big runs".
# usage: bench/bench_batch_sizes.sh BUILD_DIR LUT.mci [OUT_DIR] [REPEATS] [PHOTONS...]
#   PHOTONS default: 250000 1000000 4000000 12500000 (per run).
#   ENGINE=cpu runs the CPU engine instead (a check of the script itself).
set -eu
build=$1
lut=$2
out=${3:-bench-batch-sizes}
repeats=${4:-2}
shift $(($# < 4 ? $# : 4))
counts=${*:-250000 1000000 4000000 12500000}
engine=${ENGINE:-gpu}
tmcml=$build/tmcml
mkdir -p "$out"
cache=$out/cache
runs=8
# The file's first run (the 8 lines after the version and the run count),
# copied `runs` times under names of its own.
{
    printf '1.0\n%d\n' "$runs"
    i=0
    while [ "$i" -lt "$runs" ]; do
        sed -n '3,10p' "$lut" | sed "1s/^[^ ]*/same$i.mco/"
        i=$((i + 1))
    done
} >"$out/same.mci"
[ "$(grep -c '^same[0-9]\.mco' "$out/same.mci")" -eq "$runs" ] ||
    { echo "bench_batch_sizes: could not copy the first run of $lut"; exit 1; }
now() { date +%s.%N; }
kernel() { grep -o 'kernel [0-9.]* s' "$1" | awk '{ s += $2 } END { printf "%.3f", s }'; }
together() { sed -n 's/^tmcml: \([0-9]*\) of [0-9]* runs simulated together.*/\1/p' "$1" |
    awk '{ n += $1 } END { print n + 0 }'; }
timed() { # label dir photons args...
    label=$1; dir=$2; n=$3; shift 3
    rm -rf "$dir"
    t0=$(now)
    "$tmcml" run "$out/same.mci" -N "$n" --engine "$engine" --tune never --cache "$cache" \
        --verbose -o "$dir" "$@" >/dev/null 2>"$dir.err" || { cat "$dir.err"; exit 1; }
    t1=$(now)
    printf '| %s | %s | %.3f | %s | %s |\n' "$n" "$label" "$(awk "BEGIN{print $t1 - $t0}")" \
        "$(kernel "$dir.err")" "$(together "$dir.err")"
}
echo "engine: $engine; $("$tmcml" devices 2>/dev/null | head -n 1 || true)"
"$tmcml" run "$out/same.mci" -N 1000 -q --engine "$engine" --tune never --cache "$cache" \
    -o "$out/warm" >/dev/null 2>&1
"$tmcml" run "$out/same.mci" -N 1000 -q --engine "$engine" --tune never --cache "$cache" \
    -o "$out/warm" --no-batch >/dev/null 2>&1
printf '| photons a run | how | wall s | kernel s | runs batched |\n|---|---|---|---|---|\n'
for n in $counts; do
    r=1
    while [ "$r" -le "$repeats" ]; do
        timed "--batch-all" "$out/batched" "$n" --batch-all
        timed "--no-batch" "$out/alone" "$n" --no-batch
        timed "default" "$out/default" "$n"
        r=$((r + 1))
    done
    for m in "$out/alone"/*.mco; do
        for kind in batched default; do
            cmp -s "$m" "$out/$kind/$(basename "$m")" || { echo "DIFFERENT: $kind $m"; exit 1; }
        done
    done
done
echo "every .mco identical batched, alone and by default"
