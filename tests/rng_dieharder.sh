#!/bin/sh
# A fast selection of dieharder tests on the per-photon MWC streams (ctest
# "rng_dieharder", label rng; the full battery is tools/rng_battery.sh).
#
#   sh tests/rng_dieharder.sh PATH/TO/rng_stream
#
# Three stream layouts, each read by dieharder from stdin (-g 200):
#   adjacent  photons 0..1023 of seed 1, round-robin one word each: a
#             correlation between neighbouring photons' start states (the
#             splitmix64 seeding) would show here;
#   sharing   photons 0, 2^17, 2*2^17, ... (1024 of them) round-robin: all
#             share one multiplier, so only their start points differ;
#   single    one photon's own stream, as one photon consumes it.  The photon
#             is RNG_DIEHARDER_SINGLE (default 1000).  Photon 0's stream
#             failed the 3-D minimum distance test until the table dropped
#             multipliers with a small 3-D spectral figure (docs/rng.md);
#             RNG_DIEHARDER_SINGLE=0 checks it.
#
# Assessments.  Everything is seeded (rng_stream -s, dieharder -S), so a run
# is deterministic: the same build gives the same p-values every time, and
# rerunning cannot turn a failure into a pass (there is no retry here, on
# purpose).  dieharder calls p < 0.005 or p > 0.995 WEAK and p < 1e-6 or
# p > 1 - 1e-6 FAILED.  There are ~90 assessments (sts_serial alone gives
# 30), so a perfect generator shows about one WEAK per run: WEAK counts as
# a pass (it is listed in the output); FAILED fails the test, and a false
# FAILED has probability ~2e-4 per run.  A change of the generator, the
# table or the seeding changes every p-value: if that yields a WEAK, look at
# it with tools/rng_battery.sh (more seeds) before believing either way.
#
# Exit codes: 0 pass, 1 a FAILED (or dieharder produced no assessment),
# 2 usage, 77 dieharder not installed (ctest SKIP_RETURN_CODE).
# RNG_DIEHARDER_JOBS sets how many dieharder processes run at once
# (default: the number of cores, at most 4).
set -u

usage() {
    echo "usage: sh $0 PATH/TO/rng_stream" >&2
    exit 2
}

# One job: LABEL STREAM_OPTIONS DIEHARDER_OPTIONS (run by xargs below).
if [ "${1:-}" = "--job" ]; then
    [ $# -eq 6 ] || usage
    stream=$2 dir=$3 label=$4 sopts=$5 dopts=$6
    out="$dir/$(echo "$label $dopts" | tr -c 'A-Za-z0-9_\n' '_').out"
    # shellcheck disable=SC2086 # the options are word lists on purpose
    "$stream" $sopts | dieharder -g 200 -S 1 $dopts >"$out" 2>&1
    echo "$label" >>"$out"
    exit 0
fi

[ $# -eq 1 ] || usage
stream=$1
[ -x "$stream" ] || { echo "rng_dieharder: $stream is not an executable" >&2; exit 2; }
if ! command -v dieharder >/dev/null 2>&1; then
    echo "rng_dieharder: SKIPPED: dieharder is not installed (Debian/Ubuntu: apt-get install dieharder)"
    exit 77
fi

single=${RNG_DIEHARDER_SINGLE:-1000}
jobs=${RNG_DIEHARDER_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 4 ] && jobs=4
dir=$(mktemp -d "${TMPDIR:-/tmp}/rng_dieharder.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

adjacent="-s 1 -k 1024 -f 0"
sharing="-s 1 -k 1024 -f 0 -t 131072"
one="-s 1 -1 -f $single"

# Tests by number (diehard_count_1s_str does not resolve by name in 3.31.1).
# Longest first, so the parallel lanes finish together.  Times on one core
# of the development machine, from docs/rng.md.
{
    echo "adjacent|$adjacent|-d 102"       # sts_serial            10 s
    echo "single|$one|-d 102"
    echo "adjacent|$adjacent|-d 201 -n 3"  # rgb_minimum_distance   7 s
    echo "sharing|$sharing|-d 201 -n 3"
    echo "single|$one|-d 201 -n 3"
    echo "adjacent|$adjacent|-d 200 -n 4"  # rgb_bitdist            4 s
    echo "adjacent|$adjacent|-d 209"       # dab_monobit2           4 s
    echo "adjacent|$adjacent|-d 16"        # diehard_craps          4 s
    echo "sharing|$sharing|-d 16"
    echo "single|$one|-d 16"
    echo "adjacent|$adjacent|-d 208"       # dab_filltree2          3 s
    echo "adjacent|$adjacent|-d 3"         # diehard_rank_6x8       3 s
    echo "adjacent|$adjacent|-d 12"        # diehard_3dsphere       3 s
    echo "single|$one|-d 12"
    echo "adjacent|$adjacent|-d 203"       # rgb_lagged_sum         3 s
    echo "single|$one|-d 203"
    echo "adjacent|$adjacent|-d 0"         # diehard_birthdays      2 s
    echo "sharing|$sharing|-d 0"
    echo "single|$one|-d 0"
    echo "adjacent|$adjacent|-d 204"       # rgb_kstest_test        2 s
    echo "adjacent|$adjacent|-d 10"        # diehard_parking_lot    2 s
    echo "adjacent|$adjacent|-d 4"         # diehard_bitstream      1 s
    echo "adjacent|$adjacent|-d 206"       # dab_dct                1 s
    echo "sharing|$sharing|-d 206"
    echo "adjacent|$adjacent|-d 100"       # sts_monobit            1 s
    echo "adjacent|$adjacent|-d 11"        # diehard_2dsphere       1 s
    echo "adjacent|$adjacent|-d 15"        # diehard_runs           0.4 s
    echo "adjacent|$adjacent|-d 8"         # diehard_count_1s_str   0.3 s
    echo "sharing|$sharing|-d 8"
} >"$dir/jobs"

echo "rng_dieharder: $(wc -l <"$dir/jobs") dieharder runs, $jobs at a time (single = photon $single)"
start=$(date +%s)
# Each line becomes: sh THIS --job STREAM DIR LABEL SOPTS DOPTS.
tr '|' '\n' <"$dir/jobs" |
    xargs -d '\n' -n 3 -P "$jobs" sh "$0" --job "$stream" "$dir"

status=0
printf '%-9s %-22s %5s %10s  %s\n' layout test ntup p-value assessment
for f in "$dir"/*.out; do
    label=$(tail -n 1 "$f")
    lines=$(grep -E '\|[[:space:]]*(PASSED|WEAK|FAILED)[[:space:]]*$' "$f")
    if [ -z "$lines" ]; then
        echo "$label: dieharder gave no assessment:" && sed 's/^/  /' "$f"
        status=1
        continue
    fi
    echo "$lines" | awk -F'|' -v l="$label" '{
        gsub(/ /, "", $1); gsub(/ /, "", $2); gsub(/ /, "", $6)
        printf "%-9s %-22s %5s %10s  %s\n", l, $1, $2, $5, $6 }'
    echo "$lines" | grep -q FAILED && status=1
done
weak=$(cat "$dir"/*.out | grep -c '|[[:space:]]*WEAK')
failed=$(cat "$dir"/*.out | grep -c '|[[:space:]]*FAILED')
passed=$(cat "$dir"/*.out | grep -c '|[[:space:]]*PASSED')
echo "rng_dieharder: $passed PASSED, $weak WEAK (counted as passes), $failed FAILED in $(( $(date +%s) - start )) s"
exit $status
