#!/bin/sh
# The oblique beam and the Cartesian grid on the GPU (docs/outputs.md,
# "Cartesian grid"; templates/xy.cu): skin (examples/skin7_600nm.mci, 10^8
# photons, -A) alone, with the grid (200 x 200 cells of 100 um, and 1000 x
# 1000 of 20 um) for the pencil beam, and the beam at 45 degrees with the
# first grid.  Whole process, warm cubin cache, alternating; the kernel's
# time from --verbose beside the whole process's.
# usage: bench/bench_xy.sh BUILD_DIR [OUT_DIR] [REPEATS] [run options]
set -eu
build=$1
out=${2:-bench-xy}
repeats=${3:-3}
shift $(($# < 3 ? $# : 3))
# shellcheck source=bench/skin_gpu.sh
. "$(dirname "$0")/skin_gpu.sh"
cases() {
    skin "alone" "$@"
    skin "grid 200 x 200 of 0.01 cm" --xy 0.01:200 "$@"
    skin "grid 1000 x 1000 of 0.002 cm" --xy 0.002:1000 "$@"
    skin "oblique:45, grid 200 x 200" --source oblique:45 --xy 0.01:200 "$@"
}
alternate "$repeats" "$@"
