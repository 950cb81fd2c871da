#!/bin/sh
# Absorption sets on the GPU (docs/physics.md, "Absorption sets"): issue 25's
# two targets, whole process, warm cubin cache, alternating.
#  1. Skin (examples/skin7_600nm.mci, 10^8 photons, -A): no sets, one set
#     (the skin's own mua) and 64 sets (each layer's mua x 0.5 ... 2, log
#     steps); the kernel's time from --verbose beside the whole process's;
#     one set and 64 sets again with their path lengths (--path-lengths),
#     and with their absorption (no -A: a deposit per set per interaction).
#  2. A lookup table of 64 mua (0.01-10 /cm, log) x 16 mus' (5-40 /cm) of a
#     semi-infinite medium at 10^6 photons a point (tmcml lut): sets (16
#     simulations of 64 sets) and, once, runs (1,024 runs in batches).
# usage: bench/bench_sets.sh BUILD_DIR [OUT_DIR] [REPEATS]
# (BENCH_SETS_LUT=0: the skin cases only; BENCH_SETS_ABSORB=0: none with
# absorption, whose 64 sets take about a minute on an H100)
set -eu
build=$1
out=${2:-bench-sets}
repeats=${3:-3}
# shellcheck source=bench/skin_gpu.sh
. "$(dirname "$0")/skin_gpu.sh"
awk 'BEGIN { split("0.2 0.15 0.7 1 0.7 1 0.3", m, " ");
             for (j = 0; j < 64; j++) { s = 0.5 * 4 ^ (j / 63); line = "";
               for (i = 1; i <= 7; i++) line = line sprintf(i > 1 ? " %.6g" : "%.6g", m[i] * s);
               print line } }' >"$out/skin64.csv"
echo "0.2 0.15 0.7 1 0.7 1 0.3" >"$out/skin1.csv"
skin() { # label [--mua-sets FILE]: -A
    mode=-A
    skin_mode "$@"
}
skin_absorbing() { # label [--mua-sets FILE]: with absorption
    mode=""
    skin_mode "$@"
}
skin_mode() {
    label=$1; shift
    rm -rf "$out/o"
    t0=$(now)
    # shellcheck disable=SC2086
    "$tmcml" run "$out/skin.mci" $mode --tune never --engine gpu --verbose --cache "$cache" "$@" \
        -o "$out/o" >"$out/skin.log" 2>&1 || { cat "$out/skin.log"; exit 1; }
    t1=$(now)
    printf '| skin 10^8 %s, %s | %s | %.3f |\n' "${mode:-A}" "$label" \
        "$(kernel_seconds "$out/skin.log")" \
        "$(awk "BEGIN{print $t1 - $t0}")"
}
lut() { # strategy
    rm -f "$out/lut.csv" "$out/lut.npz"
    t0=$(now)
    "$tmcml" lut --mua 0.01:10:64:log --musp 5:40:16 -N 1000000 --engine gpu -q \
        --strategy "$1" -o "$out/lut" >"$out/lut.log" 2>&1 || { cat "$out/lut.log"; exit 1; }
    t1=$(now)
    printf '| lut 64 x 16 x 10^6, %s | | %.3f |\n' "$1" "$(awk "BEGIN{print $t1 - $t0}")"
}
skin "warm-up" >/dev/null
skin "warm-up" --mua-sets "$out/skin1.csv" >/dev/null
skin "warm-up" --mua-sets "$out/skin64.csv" >/dev/null
skin "warm-up" --mua-sets "$out/skin1.csv" --path-lengths >/dev/null
skin "warm-up" --mua-sets "$out/skin64.csv" --path-lengths >/dev/null
absorb_too=${BENCH_SETS_ABSORB:-1}
if [ "$absorb_too" != 0 ]; then
    skin_absorbing "warm-up" --mua-sets "$out/skin1.csv" >/dev/null
    skin_absorbing "warm-up" --mua-sets "$out/skin64.csv" >/dev/null
fi
lut_too=${BENCH_SETS_LUT:-1}
[ "$lut_too" = 0 ] || "$tmcml" lut --mua 0.01:10:64:log --musp 5:40:16 -N 1000 --engine gpu -q -o "$out/warm" \
    2>/dev/null || true
printf '| case | kernel s | whole s |\n|---|---|---|\n'
r=1
while [ "$r" -le "$repeats" ]; do
    skin "no sets"
    skin "1 set" --mua-sets "$out/skin1.csv"
    skin "64 sets" --mua-sets "$out/skin64.csv"
    skin "1 set, paths" --mua-sets "$out/skin1.csv" --path-lengths
    skin "64 sets, paths" --mua-sets "$out/skin64.csv" --path-lengths
    if [ "$absorb_too" != 0 ]; then
        skin_absorbing "no sets"
        skin_absorbing "1 set" --mua-sets "$out/skin1.csv"
        skin_absorbing "64 sets" --mua-sets "$out/skin64.csv"
    fi
    [ "$lut_too" = 0 ] || lut sets
    r=$((r + 1))
done
[ "$lut_too" = 0 ] || lut runs
