#!/bin/sh
# Modulation frequencies on the GPU (docs/physics.md, "Frequency domain";
# templates/timed.cu): issue 48's target, the frequency domain at 4
# modulation frequencies on skin (examples/skin7_600nm.mci, 10^8 photons,
# -A) within 1.3x the plain -A run; also 1 and 16 frequencies.  Whole
# process, warm cubin cache, alternating; the kernel's time from --verbose
# beside the whole process's.
# usage: bench/bench_mod.sh BUILD_DIR [OUT_DIR] [REPEATS] [run options]
set -eu
build=$1
out=${2:-bench-mod}
repeats=${3:-3}
shift $(($# < 3 ? $# : 3))
# shellcheck source=bench/skin_gpu.sh
. "$(dirname "$0")/skin_gpu.sh"
cases() {
    skin "alone" "$@"
    skin "1 frequency (100 MHz)" --modulation 100MHz "$@"
    skin "4 frequencies (100, 300 MHz, 1, 2 GHz)" --modulation 100,300MHz,1,2GHz "$@"
    skin "16 frequencies (100:100:1600 MHz)" --modulation 100:100:1600MHz "$@"
}
alternate "$repeats" "$@"
