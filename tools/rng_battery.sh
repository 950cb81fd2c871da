#!/bin/sh
# The full dieharder battery (dieharder -a) on the per-photon MWC streams.
# For people, not ctest: it takes about an hour on one core.  The quick
# selection that ctest runs is tests/rng_dieharder.sh; results go to
# docs/rng.md.
#
#   sh tools/rng_battery.sh [-l LAYOUT] [-s SEED] [-p PHOTON] PATH/TO/rng_stream [LOG]
#
#   LAYOUT  adjacent  photons PHOTON..PHOTON+1023, round-robin (default)
#           sharing   1024 photons PHOTON + j*2^17, one multiplier
#           single    the stream of photon PHOTON alone
#   SEED    run seed (default 1, the tmcml default); PHOTON default 0
#   LOG     where dieharder's report goes (default rng_battery-LAYOUT-SEED.log)
#
# dieharder is seeded (-S 1) and so is the input, so a run is repeatable.
# Read the result as dieharder's author advises: over ~110 assessments a
# few WEAK (p < 0.005 or > 0.995) are expected from a perfect generator;
# a FAILED (p < 1e-6), or a test that is WEAK again and again across seeds,
# is a finding.  Try another SEED before believing a single WEAK, and never
# rerun until it passes.
set -u
layout=adjacent seed=1 photon=0
while getopts l:s:p: opt; do
    case $opt in
        l) layout=$OPTARG ;;
        s) seed=$OPTARG ;;
        p) photon=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: sh $0 [-l adjacent|sharing|single] [-s SEED] [-p PHOTON] PATH/TO/rng_stream [LOG]" >&2; exit 2; }
stream=$1
log=${2:-rng_battery-$layout-$seed.log}
command -v dieharder >/dev/null 2>&1 || { echo "rng_battery: dieharder is not installed (apt-get install dieharder)" >&2; exit 77; }

case $layout in
    adjacent) sopts="-s $seed -k 1024 -f $photon" ;;
    sharing) sopts="-s $seed -k 1024 -f $photon -t 131072" ;;
    single) sopts="-s $seed -1 -f $photon" ;;
    *) echo "rng_battery: unknown layout $layout" >&2; exit 2 ;;
esac

echo "rng_battery: rng_stream $sopts | dieharder -a -g 200 -S 1  > $log"
start=$(date +%s)
# shellcheck disable=SC2086 # word list on purpose
"$stream" $sopts | dieharder -a -g 200 -S 1 >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
passed=$(grep -c '|[[:space:]]*PASSED' "$log")
weak=$(grep -c '|[[:space:]]*WEAK' "$log")
failed=$(grep -c '|[[:space:]]*FAILED' "$log")
grep -E '\|[[:space:]]*(WEAK|FAILED)' "$log"
echo "rng_battery: $layout seed $seed photon $photon: $passed PASSED, $weak WEAK, $failed FAILED in $secs s (dieharder exit $rc)"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
