#!/bin/sh
# Builds the libFuzzer harnesses of tests/fuzz (build-fuzz: CC=clang,
# -DTMCML_FUZZ=ON) and runs each for SECONDS (default 60) on a copy of its
# seed corpus (tests/fuzz/corpus/HARNESS plus the crash regressions in
# tests/data/fuzz/HARNESS), in a scratch directory under build-fuzz/runs: the
# checked-in corpus never grows.  Prints libFuzzer's final statistics per
# harness.  Exit status: 0 when no harness found anything, 1 when one found a
# crash, leak, timeout or out-of-memory (the input's path is printed; the
# scratch directory is kept), 2 when the build fails, 77 when clang or
# libFuzzer is missing.
#   sh tools/fuzz.sh [SECONDS] [HARNESS...]      HARNESS: mci profile run npz cli
# Environment: TMCML_FUZZ_JOBS=N runs N harnesses at a time (default 1);
# FUZZ_CC names the clang to use (default clang).
set -u
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)

seconds=60
if [ $# -gt 0 ]; then
    seconds=$1
    shift
fi
case $seconds in
    '' | *[!0-9]*)
        echo "fuzz: SECONDS must be a whole number (got '$seconds')" >&2
        exit 2
        ;;
esac
harnesses=${*:-mci profile run npz cli}
for h in $harnesses; do
    case $h in
        mci | profile | run | npz | cli) ;;
        *)
            echo "fuzz: unknown harness '$h' (mci, profile, run, npz or cli)" >&2
            exit 2
            ;;
    esac
done
jobs=${TMCML_FUZZ_JOBS:-1}

# ---- clang and libFuzzer ------------------------------------------------------
CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "fuzz: $CC is not installed (apt-get install clang libclang-rt-dev): skipped"
    exit 77
fi
probe=$(mktemp -d "${TMPDIR:-/tmp}/tmcml-fuzz-probe.XXXXXX") || exit 2
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
    >"$probe/probe.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" \
    >"$probe/log" 2>&1; then
    echo "fuzz: $CC cannot build a libFuzzer program (apt-get install libclang-rt-dev): skipped"
    sed 's/^/    /' "$probe/log" | tail -5
    rm -rf "$probe"
    exit 77
fi
rm -rf "$probe"

# ---- build ----------------------------------------------------------------------
build="build-fuzz"
echo "== $build: configure, build (CC=$CC, TMCML_FUZZ=ON)"
if ! CC=$CC cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMCML_FUZZ=ON \
    >"$build.log" 2>&1 ||
    ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz >>"$build.log" 2>&1; then
    tail -30 "$build.log"
    echo "fuzz: the build failed (log: $build.log)" >&2
    exit 2
fi
rm -f "$build.log"

# ---- run ------------------------------------------------------------------------
mkdir -p "$build/runs"
scratch=$(mktemp -d "$root/$build/runs/$(date +%Y%m%d-%H%M%S).XXXX") || exit 2
# The files the harnesses write (.mci, .mco, profiles: fsync'd by
# fs_write_atomic) go to memory where there is a tmpfs: on a disk the syncs
# take most of the time.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    files=$(mktemp -d /dev/shm/tmcml-fuzz.XXXXXX) || exit 2
else
    files=$scratch/tmp
fi
trap 'rm -rf "$files"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs harness $1 in $scratch/$1; its exit status is libFuzzer's.
fuzz_one() {
    h=$1
    dir=$scratch/$h
    mkdir -p "$dir/corpus" "$files/$h"
    cp tests/fuzz/corpus/"$h"/* "$dir/corpus/"
    if [ -d tests/data/fuzz/"$h" ]; then
        for f in tests/data/fuzz/"$h"/*; do
            [ -f "$f" ] && cp "$f" "$dir/corpus/"
        done
    fi
    dict=tests/fuzz/mci.dict
    [ "$h" = profile ] && dict=tests/fuzz/profile.dict
    [ "$h" = npz ] && dict=tests/fuzz/npz.dict
    [ "$h" = cli ] && dict=tests/fuzz/cli.dict
    (cd "$dir" && TMPDIR=$files/$h "$root/$build/tests/fuzz/fuzz_$h" \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -dict="$root/$dict" -artifact_prefix="$dir/" \
        corpus >"$dir/log" 2>&1)
}

# The final statistics of harness $1 from its log.
report() {
    h=$1
    dir=$scratch/$h
    log=$dir/log
    stat_of() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    # "#1234 DONE cov: 310 ft: 752 corp: 195/102Kb lim: ... exec/s: 3480 rss: 133Mb"
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|INITED|NEW|REDUCE)' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p')
    printf '%-8s %10s execs %8s exec/s  cov %5s  ft %6s  corpus %-12s new %5s  rss %5s MB  slowest %s s\n' \
        "$h" "$(stat_of number_of_executed_units)" "$(stat_of average_exec_per_sec)" "${cov:-?}" \
        "${ft:-?}" "${corp:-?}" "$(stat_of new_units_added)" "$(stat_of peak_rss_mb)" \
        "$(stat_of slowest_unit_time_sec)"
}

echo "== fuzzing $seconds s per harness ($harnesses; $jobs at a time) in $scratch"
failed=""
# shellcheck disable=SC2086 # a word list of harness names
set -- $harnesses
while [ $# -gt 0 ]; do
    batch=""
    pids=""
    n=0
    while [ $# -gt 0 ] && [ "$n" -lt "$jobs" ]; do
        fuzz_one "$1" &
        pids="$pids $!"
        batch="$batch $1"
        n=$((n + 1))
        shift
    done
    i=0
    for pid in $pids; do
        i=$((i + 1))
        h=$(echo "$batch" | cut -d' ' -f$((i + 1)))
        wait "$pid"
        rc=$?
        report "$h"
        artifacts=$(ls -d "$scratch/$h"/crash-* "$scratch/$h"/leak-* "$scratch/$h"/timeout-* \
            "$scratch/$h"/oom-* 2>/dev/null)
        if [ "$rc" -ne 0 ] || [ -n "$artifacts" ]; then
            failed="$failed $h"
            echo "fuzz: $h FAILED (libFuzzer exit status $rc); the last lines of $scratch/$h/log:"
            grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$scratch/$h/log" | tail -40 |
                sed 's/^/    /'
            for a in $artifacts; do
                echo "fuzz: $h: input that fails: $a"
                echo "      reproduce: $build/tests/fuzz/fuzz_$h $a"
            done
        fi
    done
done

if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed (kept $scratch; tests/fuzz/README.md says how a crash becomes a regression test)"
    exit 1
fi
rm -rf "$scratch"
echo "fuzz: $harnesses: nothing found in $seconds s each"
