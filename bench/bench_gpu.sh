#!/bin/sh
# GPU engine benchmark: the cases of bench/README.md ("The cases"), whole process
# (start, compile or cache, simulate, write), photons/s and steps/s.
# usage: [BENCH_FLAGS="--no-profile"] bench/bench_gpu.sh BUILD_DIR [OUT_DIR] [SCALE]
#   Kernel variants come from the profiles on the search path (exact entry,
#   else nearest, else the heuristic); BENCH_FLAGS adds run options.
#   SCALE divides every photon count (e.g. 10 for a quick look).
set -eu
build=$1
out=${2:-bench-out}
scale=${3:-1}
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
mkdir -p "$out"
cache=$out/cache
rm -rf "$cache"

now() { date +%s.%N; }
json() { sed -n "s/.*\"$2\": *\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }

echo "GPU: $("$tmcml" devices | head -n 1)"
echo "tmcml: $("$tmcml" --version | head -n 1)"
echo

# Compile time of one variant (no cache), registers and spills.
"$tmcml" gen "$ex/skin7_600nm.mci" -o "$out/skin.cu" --info --cache "" 2>&1 | sed 's/^/compile (skin, the variant a run uses): /'
"$tmcml" gen "$ex/skin7_600nm.mci" -A -o "$out/skin_A.cu" --info --cache "" 2>&1 | sed 's/^/compile (skin, -A): /'
echo

printf '| case | photons | -A | wall s | photons/s | steps/photon | steps/s | kernel |\n'
printf '|---|---|---|---|---|---|---|---|\n'
run_case() { # name file photons flags
    name=$1; file=$2; n=$(($3 / scale)); flags=$4
    dir=$out/$name
    t0=$(now)
    "$tmcml" run "$file" -N "$n" $flags ${BENCH_FLAGS:-} --tune never -o "$dir" -q --engine gpu --cache "$cache"
    t1=$(now)
    j=$(ls "$dir"/*.json | head -n 1)
    wall=$(awk "BEGIN{print $t1 - $t0}")
    pps=$(awk "BEGIN{print $n / $wall}")
    spp=$(json "$j" steps_per_photon)
    sps=$(awk "BEGIN{print $spp * $n / $wall}")
    printf '| %s | %s | %s | %.3f | %.4g | %.1f | %.4g | %s |\n' "$name" "$n" \
        "$(case "$flags" in *-A*) echo yes;; *) echo no;; esac)" "$wall" "$pps" "$spp" "$sps" \
        "$(json "$j" kernel | cut -c1-60)"
}
# Warm the cubin cache for each variant first (the table is warm-start).
for f in skin7_600nm intralipid_slab vanhulst_slab; do
    "$tmcml" run "$ex/$f.mci" -N 1000 ${BENCH_FLAGS:-} --tune never -q --engine gpu --cache "$cache" -o "$out/warm" >/dev/null
    "$tmcml" run "$ex/$f.mci" -N 1000 -A ${BENCH_FLAGS:-} --tune never -q --engine gpu --cache "$cache" -o "$out/warm" >/dev/null
done
run_case skin_1e8 "$ex/skin7_600nm.mci" 100000000 ""
run_case skin_1e8_A "$ex/skin7_600nm.mci" 100000000 "-A"
run_case skin_1e9 "$ex/skin7_600nm.mci" 1000000000 ""
run_case skin_1e9_A "$ex/skin7_600nm.mci" 1000000000 "-A"
run_case intralipid_1e8 "$ex/intralipid_slab.mci" 100000000 ""
run_case intralipid_1e8_A "$ex/intralipid_slab.mci" 100000000 "-A"
run_case vanhulst_1e7 "$ex/vanhulst_slab.mci" 10000000 ""
run_case vanhulst_1e7_A "$ex/vanhulst_slab.mci" 10000000 "-A"

# Warm start: the whole process for a tiny run with the cubin cached.
t0=$(now)
"$tmcml" run "$ex/skin7_600nm.mci" -N 1000 ${BENCH_FLAGS:-} --tune never -q --engine gpu --cache "$cache" -o "$out/warm"
t1=$(now)
echo
echo "warm start (skin, 1000 photons, cubin cached): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
