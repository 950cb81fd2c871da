# Sourced by the GPU benchmarks of the 7-layer skin (bench_jacobian.sh,
# bench_sets.sh), $build and $out set: $tmcml, $ex (examples/) and $cache
# (the cubin cache, in $out); $out made, the GPU named on stdout, and
# $out/skin.mci, examples/skin7_600nm.mci at 10^8 photons.
#   now                the time, in seconds
#   kernel_seconds LOG the first kernel time of a --verbose run's LOG
# shellcheck shell=sh disable=SC2154,SC2034 # $build and $out the script's, $cache its to use
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
mkdir -p "$out"
cache=$out/cache
now() { date +%s.%N; }
kernel_seconds() { grep -o 'kernel [0-9.]* s' "$1" | head -n 1 | cut -d' ' -f2; }
echo "GPU: $("$tmcml" devices | head -n 1)"
sed 's/^1000000 /100000000 /' "$ex/skin7_600nm.mci" >"$out/skin.mci"
