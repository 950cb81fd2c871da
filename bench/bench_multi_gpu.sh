#!/bin/sh
# Multi-GPU scaling (gpu_pool.h): each case on one GPU, then on the first
# 2, 4, ... GPUs up to all of them; whole process, warm cubin cache, the
# shipped profiles.  Prints photons/s, the speedup over one GPU, and each
# GPU's photons and chunks (from the JSON).  The .mco of every split is
# checked to equal one GPU's byte for byte.
# usage: bench/bench_multi_gpu.sh BUILD_DIR [OUT_DIR] [SCALE]
#   SCALE divides every photon count (e.g. 10 for a quick look).
set -eu
build=$1
out=${2:-bench-multi-out}
scale=${3:-1}
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
mkdir -p "$out"
cache=$out/cache
gpus=$("$tmcml" devices | grep -c '^GPU [0-9]*:')
now() { date +%s.%N; }
json() { sed -n "s/.*\"$2\": *\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }
shares() { # "photons/chunks" of each GPU in a run's JSON
    tr -d ' \t\n' <"$1" | sed -n 's/.*"gpus":\[\([^]]*\)\].*/\1/p' | tr '}' '\n' |
        sed -n 's/.*"photons":\([0-9.e+]*\),"chunks":\([0-9]*\).*/\1 in \2 chunks/p' |
        paste -sd ';' -
}
"$tmcml" devices
echo "tmcml: $("$tmcml" --version | head -n 1)"
echo
printf '| case | photons | GPUs | wall s | photons/s | speedup | each GPU: photons in chunks | .mco = 1 GPU |\n'
printf '|---|---|---|---|---|---|---|---|\n'
run_case() { # name file photons flags
    name=$1 file=$2 n=$(($3 / scale)) flags=$4
    "$tmcml" run "$file" -N 1000 $flags --tune never -q --engine gpu -G "$gpus" --cache "$cache" \
        -o "$out/warm-$name" >/dev/null
    base=
    g=1
    while [ "$g" -le "$gpus" ]; do
        dir=$out/$name-g$g
        t0=$(now)
        "$tmcml" run "$file" -N "$n" $flags --tune never -q --engine gpu -G "$g" --cache "$cache" -o "$dir"
        t1=$(now)
        wall=$(awk "BEGIN{print $t1 - $t0}")
        [ -n "$base" ] || base=$wall
        same=yes
        cmp -s "$(ls "$dir"/*.mco)" "$(ls "$out/$name-g1"/*.mco)" || same=NO
        printf '| %s | %s | %s | %.3f | %.4g | %.2f | %s | %s |\n' "$name" "$n" "$g" "$wall" \
            "$(awk "BEGIN{print $n / $wall}")" "$(awk "BEGIN{print $base / $wall}")" \
            "$(shares "$(ls "$dir"/*.json)")" "$same"
        g=$((g * 2))
        [ "$g" -le "$gpus" ] || [ $((g / 2)) -ge "$gpus" ] || g=$gpus
    done
}
run_case skin_1e9 "$ex/skin7_600nm.mci" 1000000000 ""
run_case skin_1e9_A "$ex/skin7_600nm.mci" 1000000000 "-A"
run_case intralipid_1e8 "$ex/intralipid_slab.mci" 100000000 ""
run_case intralipid_1e8_A "$ex/intralipid_slab.mci" 100000000 "-A"
