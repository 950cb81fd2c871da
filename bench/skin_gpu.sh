# Sourced by the GPU benchmarks of the 7-layer skin (bench_jacobian.sh,
# bench_sets.sh, bench_fx.sh), $build and $out set: $tmcml, $ex (examples/)
# and $cache (the cubin cache, in $out); $out made, the GPU named on
# stdout, and $out/skin.mci, examples/skin7_600nm.mci at 10^8 photons.
#   now                the time, in seconds
#   kernel_seconds LOG the first kernel time of a --verbose run's LOG
#   skin LABEL [OPTIONS]  one run of $out/skin.mci -A on the GPU: a table row
#                         of its kernel's and its whole process's seconds
#   alternate N [OPTIONS] the caller's `cases` once to warm up (every kernel
#                         compiled and cached), then the table's header and
#                         N rounds of them
# shellcheck shell=sh disable=SC2154,SC2034 # $build and $out the script's, $cache its to use
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
mkdir -p "$out"
cache=$out/cache
now() { date +%s.%N; }
kernel_seconds() { grep -o 'kernel [0-9.]* s' "$1" | head -n 1 | cut -d' ' -f2; }
echo "GPU: $("$tmcml" devices | head -n 1)"
sed 's/^1000000 /100000000 /' "$ex/skin7_600nm.mci" >"$out/skin.mci"
skin() {
    label=$1
    shift
    rm -rf "$out/o"
    t0=$(now)
    "$tmcml" run "$out/skin.mci" -A --engine gpu --verbose --cache "$cache" "$@" -o "$out/o" \
        >"$out/skin.log" 2>&1 || { cat "$out/skin.log"; exit 1; }
    t1=$(now)
    printf '| skin 10^8 -A, %s | %s | %.3f |\n' "$label" \
        "$(kernel_seconds "$out/skin.log")" \
        "$(awk "BEGIN{print $t1 - $t0}")"
}
alternate() {
    rounds=$1
    shift
    cases "$@" >/dev/null
    echo "| case | kernel s | whole process s |"
    echo "|---|---|---|"
    r=0
    while [ "$r" -lt "$rounds" ]; do
        cases "$@"
        r=$((r + 1))
    done
}
