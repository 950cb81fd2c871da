#!/bin/sh
# Batches (docs/batches.md): the lookup-table inputs of bench/inputs (100
# runs of 10^5 photons, bench/inputs/README.md), whole process, batched and
# run by run (--no-batch), alternating, warm cubin cache; every .mco of the
# batched run compared with the run-by-run one (bit-identical or the script
# fails).
# usage: bench/bench_batch.sh BUILD_DIR [BENCH_DIR [OUT_DIR [REPEATS [run options...]]]]
#   BENCH_DIR holds lut100.mci and luthi100.mci (default: bench/inputs);
#   run options (e.g. --block 512) go to every tmcml run.
set -eu
build=$1
inputs=${2:-$(dirname "$0")/inputs}
out=${3:-bench-batch}
repeats=${4:-3}
shift $(($# < 4 ? $# : 4))
tmcml=$build/tmcml
mkdir -p "$out"
cache=$out/cache
now() { date +%s.%N; }
echo "GPU: $("$tmcml" devices | head -n 1)"
timed() { # label dir args...
    label=$1; dir=$2; shift 2
    rm -rf "$dir"
    t0=$(now)
    "$tmcml" run "$@" -q --tune never --engine gpu --cache "$cache" -o "$dir" 2>"$dir.err" ||
        { cat "$dir.err"; exit 1; }
    t1=$(now)
    printf '| %s | %.3f |\n' "$label" "$(awk "BEGIN{print $t1 - $t0}")"
}
for f in lut100 luthi100; do
    # warm the cache for both kernels
    "$tmcml" run "$inputs/$f.mci" -N 1000 -q --tune never --engine gpu --cache "$cache" \
        -o "$out/warm" "$@" 2>/dev/null
    "$tmcml" run "$inputs/$f.mci" -N 1000 -q --tune never --engine gpu --cache "$cache" \
        -o "$out/warm" --no-batch "$@" 2>/dev/null
    printf '| %s | wall s |\n|---|---|\n' "$f"
    r=1
    while [ "$r" -le "$repeats" ]; do
        timed "batched" "$out/$f.batched" "$inputs/$f.mci" "$@"
        timed "--no-batch" "$out/$f.alone" "$inputs/$f.mci" --no-batch "$@"
        r=$((r + 1))
    done
    for m in "$out/$f.batched"/*.mco; do
        cmp -s "$m" "$out/$f.alone/$(basename "$m")" || { echo "DIFFERENT: $m"; exit 1; }
    done
    echo "every .mco of $f identical batched and alone ($(ls "$out/$f.batched"/*.mco | wc -l) files)"
    "$tmcml" run "$inputs/$f.mci" --tune never --engine gpu --cache "$cache" -o "$out/$f.verbose" \
        --verbose "$@" 2>&1 | grep -E "batch|launch|kernel|GPU engine" | grep -v "^tmcml: kernel variant" | tail -n 8
done
