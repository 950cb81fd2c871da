#!/bin/sh
# The derivatives and optics sets on the GPU (docs/physics.md,
# "Derivatives", "Optics sets"): issue 45's two targets on skin
# (examples/skin7_600nm.mci, 10^8 photons, -A), whole process, warm cubin
# cache, alternating:
#  1. the run alone and with --jacobian (every layer's mua, mus and g
#     derivatives of Rd, Tt, Rd_r, Tt_r, Rd_a and Tt_a): target <= 2x;
#     with 100 time bins and two detectors, alone (the run's own kernel)
#     and with their derivatives too (the sets' kernel);
#  2. one optics set (the skin's own optics), 16 sets of the dermis's mus
#     x0.9 .. 1.1, and 16 sets changing its g by -0.02 .. +0.02 too (each
#     deflection reweighted): target 16 sets <= 2x one set.
# The kernel's time from --verbose beside the whole process's.
# usage: bench/bench_jacobian.sh BUILD_DIR [OUT_DIR] [REPEATS] [run options]
set -eu
build=$1
out=${2:-bench-jacobian}
repeats=${3:-3}
shift $(($# < 3 ? $# : 3))
# shellcheck source=bench/skin_gpu.sh
. "$(dirname "$0")/skin_gpu.sh"
# The skin's layers (mua mus g), the dermis the fifth.
OUT=$out awk 'BEGIN {
    split("0.2 1000 0.9  0.15 400 0.85  0.7 300 0.8  1 350 0.9  0.7 200 0.76  1 350 0.95  0.3 150 0.8", v, " ")
    for (file = 0; file < 3; file++) {
        name = file == 0 ? "one" : file == 1 ? "mus16" : "g16"
        for (k = 0; k < (file == 0 ? 1 : 16); k++) {
            line = ""
            for (i = 0; i < 7; i++) {
                mua = v[3 * i + 1]; mus = v[3 * i + 2]; g = v[3 * i + 3]
                if (file > 0 && i == 4) mus *= 0.9 + 0.2 * k / 15
                if (file == 2 && i == 4) g += -0.02 + 0.04 * k / 15
                line = line sprintf(i ? " %.6g %.6g %.6g" : "%.6g %.6g %.6g", mua, mus, g)
            }
            print line > (ENVIRON["OUT"] "/skin_" name ".csv")
        }
    }
}'
detectors="--detector fiber:0.1:0.05:0.5 --detector fiber:0.3:0.1:0.39"
cases() {
    skin "alone" "$@"
    skin "--jacobian" --jacobian "$@"
    skin "--time 0.01:100, two detectors" --time 0.01:100 $detectors "$@"
    skin "--jacobian --time 0.01:100, two detectors" --jacobian --time 0.01:100 $detectors "$@"
    skin "1 optics set" --optics-sets "$out/skin_one.csv" "$@"
    skin "16 optics sets (mus)" --optics-sets "$out/skin_mus16.csv" "$@"
    skin "16 optics sets (mus, g)" --optics-sets "$out/skin_g16.csv" "$@"
}
alternate "$repeats" "$@"
