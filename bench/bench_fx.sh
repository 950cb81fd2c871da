#!/bin/sh
# Spatial frequencies on the GPU (docs/physics.md, "Spatial frequencies";
# templates/fx.cu): issue 48's target, R(fx) and T(fx) at 32 frequencies on
# skin (examples/skin7_600nm.mci, 10^8 photons, -A) within 1.3x the plain
# -A run; also 8 and 128 frequencies.  Whole process, warm cubin cache,
# alternating; the kernel's time from --verbose beside the whole process's.
# usage: bench/bench_fx.sh BUILD_DIR [OUT_DIR] [REPEATS] [run options]
set -eu
build=$1
out=${2:-bench-fx}
repeats=${3:-3}
shift $(($# < 3 ? $# : 3))
# shellcheck source=bench/skin_gpu.sh
. "$(dirname "$0")/skin_gpu.sh"
cases() {
    skin "alone" "$@"
    skin "8 frequencies (0:1:7 /cm)" --spatial-frequencies 0:1:7 "$@"
    skin "32 frequencies (0:0.5:15.5 /cm)" --spatial-frequencies 0:0.5:15.5 "$@"
    skin "128 frequencies (0:0.125:15.875 /cm)" --spatial-frequencies 0:0.125:15.875 "$@"
}
alternate "$repeats" "$@"
