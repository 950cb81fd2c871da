#!/bin/sh
# compute-sanitizer over the GPU engine: memcheck, racecheck, synccheck and
# initcheck, each on small runs of several kernel variants (tile or none,
# 32- and 64-bit shared entries, -A, every layer placement, the last-bin
# cache, thread-block clusters, a batch of eight runs in one launch (with
# whole-grid run tiles, and with small tiles and the edge bins; and with
# --stderr, each run's 64 photon groups slots of their own),
# absorption sets, the derivatives and optics sets, time bins with several
# fiber detectors, and the spatial frequencies' warp-shared scoring) split
# over several launches, two in flight, and two engines sharing chunks on one
# GPU.  Part of the GPU test protocol
# (CONTRIBUTING.md); ctest runs it as `gpu_sanitizer` (label sanitizer).
#
# usage: tools/gpu_sanitize.sh TMCML [EXAMPLES_DIR] [LOG_DIR]
#   Prints one line per tool and case with the sanitizer's error count, keeps
#   each report in LOG_DIR (default: a temporary directory, removed), and
#   exits 1 if any report has an error, 77 without a GPU or compute-sanitizer.
set -u
tmcml=$1
ex=${2:-$(dirname "$0")/../examples}
logs=${3:-}
sanitizer=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    [ -z "$sanitizer" ] && [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && sanitizer=$d/bin/compute-sanitizer
done
if [ -z "$sanitizer" ]; then
    echo "gpu_sanitize: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin): skipped"
    exit 77
fi
if ! "$tmcml" devices >/dev/null 2>&1; then
    echo "gpu_sanitize: no usable GPU (tmcml devices failed): skipped"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$logs" ] || logs=$work/logs
mkdir -p "$logs"
export TMCML_PROFILE_DIR="$work/profiles" HOME="$work/home" XDG_DATA_HOME="$work/xdg"
common="--engine gpu --tune never --no-profile --cache $work/cache"

# Absorption sets for the sets' kernels (templates/sets.cu): skin's 7
# layers, the example's 3.
printf '0.2 0.15 0.7 1 0.7 1 0.3\n0.1 0.1 0.3 0.5 0.3 0.5 0.1\n0.4 0.3 1.4 2 1.4 2 0.6\n' \
    >"$work/skin_sets.csv"
printf '1 1 2\n0.5 2 1\n3 0.5 0.5\n2 2 2\n' >"$work/example_sets.csv"
# Optics sets: skin's with the dermis's mus and g changed (each deflection
# reweighted), the example's with mus changed (each interaction).
printf '%s\n' "0.2 1000 0.9 0.15 400 0.85 0.7 300 0.8 1 350 0.9 0.7 220 0.78 1 350 0.95 0.3 150 0.8" \
    "0.2 1000 0.9 0.15 400 0.85 0.7 300 0.8 1 350 0.9 0.7 180 0.74 1 350 0.95 0.3 150 0.8" \
    >"$work/skin_optics.csv"
printf '1 110 0.9 1 10 0 2 10 0.7\n1 100 0.9 1 9 0 2 11 0.7\n' >"$work/example_optics.csv"
# Optics sets of the dermis's mus alone (the derivatives keep every g).
printf '%s\n' "0.2 1000 0.9 0.15 400 0.85 0.7 300 0.8 1 350 0.9 0.7 220 0.76 1 350 0.95 0.3 150 0.8" \
    "0.2 1000 0.9 0.15 400 0.85 0.7 300 0.8 1 350 0.9 0.7 180 0.76 1 350 0.95 0.3 150 0.8" \
    >"$work/skin_optics_mus.csv"
# 40 sets: more than a warp's lanes, each depositing its photon's sets.
awk 'BEGIN { for (k = 1; k <= 40; k++) printf "%g %g %g\n", k, k, 2 * k }' \
    >"$work/example_sets40.csv"

# name | input | photons | photons per launch | variant options
cases="example_heuristic|mcml_example.mci|6000|2500|
example_untiled|mcml_example.mci|6000|2500|--tile 0x0
example_e64|mcml_example.mci|6000|6000|--tile 16x16 --entry 64 --block 128
example_A|mcml_example.mci|6000|2000|-A
skin_shared_last_bin|skin7_600nm.mci|3000|1000|--layers shared --last-bin on --tile 20x40
skin_cluster4|skin7_600nm.mci|3000|1000|--tile 60x150 --cluster 4
example_cluster3_e64|mcml_example.mci|6000|2500|--tile 17x23 --entry 64 --cluster 3
skin_immediate_e32|skin7_600nm.mci|3000|3000|--tile 48x128 --entry 32 --layers immediate --block 512
example_two_engines|mcml_example.mci|6000|1000|--gpus 0,0 --gpu-chunk 1500
lut_batch|lookup_table.mci|1500|4000|
lut_batch_two_engines|lookup_table.mci|1500|3000|--gpus 0,0 --gpu-chunk 2500
lut_batch_edges|lookup_table.mci|1500|12000|--tile 16x16
lut_batch_stderr|lookup_table.mci|1500|4000|--stderr
skin_sets|skin7_600nm.mci|3000|1000|-A --mua-sets $work/skin_sets.csv
example_sets_two_engines|mcml_example.mci|6000|2500|-A --mua-sets $work/example_sets.csv --gpus 0,0 --gpu-chunk 1500 --block 128
skin_sets_paths|skin7_600nm.mci|3000|1000|-A --mua-sets $work/skin_sets.csv --path-lengths
example_sets_absorb|mcml_example.mci|6000|2500|--mua-sets $work/example_sets.csv
example_sets40_absorb|mcml_example.mci|3000|1500|--mua-sets $work/example_sets40.csv --path-lengths
skin_jacobian|skin7_600nm.mci|3000|1000|-A --jacobian
example_jacobian_sets_two_engines|mcml_example.mci|6000|2500|--jacobian --mua-sets $work/example_sets.csv --gpus 0,0 --gpu-chunk 1500 --block 128
skin_optics_g|skin7_600nm.mci|3000|1000|-A --optics-sets $work/skin_optics.csv
example_optics_absorb|mcml_example.mci|6000|2500|--optics-sets $work/example_optics.csv
skin_gaussian|skin7_600nm.mci|3000|1000|--source gaussian:0.1
example_point_shared|mcml_example.mci|6000|2500|--source point:0.05 --layers shared
skin_fiber_sets|skin7_600nm.mci|3000|1000|--source fiber:0.02:0.22 -A --mua-sets $work/skin_sets.csv
skin_time_fiber|skin7_600nm.mci|3000|1000|--time 0.005:40 --detector fiber:0.1:0.05:0.5
example_time_A_gaussian|mcml_example.mci|6000|2500|-A --time 0.01:20 --source gaussian:0.05
skin_fibers3_time|skin7_600nm.mci|3000|1000|--time 0.005:40 --detector fiber:0.1:0.05:0.5 --detector fiber:0:0.02:0.22 --detector fiber:0.3:0.05:0.39
example_fx|mcml_example.mci|6000|2500|--spatial-frequencies 0:0.5:20
skin_fx_A_fibers|skin7_600nm.mci|3000|1000|-A --spatial-frequencies 0:1:40 --detector fiber:0.1:0.05:0.5 --detector fiber:0.2:0.05:0.5 --block 128
skin_jacobian_time_fibers2|skin7_600nm.mci|3000|1000|-A --jacobian --time 0.005:40 --detector fiber:0.1:0.05:0.5 --detector fiber:0.2:0.05:0.5
example_sets_time_fiber|mcml_example.mci|6000|2500|--mua-sets $work/example_sets.csv --time 0.01:20 --detector fiber:0.1:0.05:0.5 --block 128
skin_optics_jacobian_time|skin7_600nm.mci|3000|1000|-A --jacobian --optics-sets $work/skin_optics_mus.csv --time 0.005:40
example_mod|mcml_example.mci|6000|2500|--modulation 100,300MHz,1,2GHz
skin_mod_A_time_fibers|skin7_600nm.mci|3000|1000|-A --modulation 100MHz --time 0.005:40 --detector fiber:0.1:0.05:0.5 --detector fiber:0.2:0.05:0.5 --block 128
example_oblique_xy|mcml_example.mci|6000|2500|--source oblique:45 --xy 0.02:60
skin_xy_time_fiber_last_bin|skin7_600nm.mci|3000|1000|--xy 0.01:100 --time 0.005:40 --detector fiber:0.1:0.05:0.5 --min-blocks 0 --last-bin on"

field() { printf '%s\n' "$1" | cut -d'|' -f"$2"; }
# run NAME PREFIX...: the case's tmcml run (plus $extra), after PREFIX (the
# sanitizer or nothing)
run() {
    line=$(printf '%s\n' "$cases" | grep "^$1|")
    shift
    # shellcheck disable=SC2046 # the variant options are a word list
    "$@" "$tmcml" run "$ex/$(field "$line" 2)" -N "$(field "$line" 3)" \
        --launch-photons "$(field "$line" 4)" $(field "$line" 5) ${extra:-} $common -o "$work/out"
}

names=$(printf '%s\n' "$cases" | cut -d'|' -f1)
echo "gpu_sanitize: $("$sanitizer" --version | grep -i version | head -n 1)"
# Compile every variant first, outside the sanitizer.
for name in $names; do
    run "$name" >"$work/warm.log" 2>&1 || { echo "gpu_sanitize: $name fails without the sanitizer:"; cat "$work/warm.log"; exit 1; }
done

# A control: memcheck must see inside our NVRTC kernels, so the test-only
# out-of-bounds variant (one escape scored 2^40 entries too far) must be
# reported.  Without this a sanitizer that watched nothing would pass.
extra=--debug-out-of-bounds
run example_heuristic "$sanitizer" --tool memcheck >"$logs/control.log" 2>&1
extra=
planted=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$logs/control.log" | tail -n 1)
if [ "${planted:-0}" -gt 0 ] && grep -q "tmcml_kernel" "$logs/control.log"; then
    echo "gpu_sanitize: control: memcheck reports the planted out-of-bounds write ($planted errors in tmcml_kernel)"
else
    echo "gpu_sanitize: control FAILED: memcheck did not report the planted out-of-bounds variant"
    sed 's/^/    | /' "$logs/control.log" | tail -n 30
    exit 1
fi

errors=0
printf '| tool | case | errors | seconds |\n|---|---|---|---|\n'
for tool in memcheck racecheck synccheck initcheck; do
    for name in $names; do
        log=$logs/$tool-$name.log
        t0=$(date +%s)
        run "$name" "$sanitizer" --tool "$tool" --error-exitcode 99 >"$log" 2>&1
        rc=$?
        t1=$(date +%s)
        n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
        [ -n "$n" ] || n=$(sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$log" | tail -n 1)
        # the run must have finished and written its report line
        if [ -z "$n" ] || [ "$rc" -ne 0 ] || ! grep -q " photons in " "$log"; then
            # no summary, or the run itself failed: count it, show the report
            [ -n "$n" ] && [ "$n" -gt 0 ] || n="failed (exit $rc)"
            errors=$((errors + 1))
            sed 's/^/    | /' "$log" | tail -n 40
        elif [ "$n" -gt 0 ]; then
            errors=$((errors + 1))
            sed 's/^/    | /' "$log" | head -n 60
        fi
        printf '| %s | %s | %s | %s |\n' "$tool" "$name" "$n" "$((t1 - t0))"
    done
done
if [ "$errors" -eq 0 ]; then
    echo "gpu_sanitize: every tool and case clean"
else
    echo "gpu_sanitize: $errors tool/case runs with errors (reports in $logs)"
    [ "$logs" = "$work/logs" ] && trap - EXIT && echo "gpu_sanitize: kept $work"
fi
[ "$errors" -eq 0 ]
