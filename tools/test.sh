#!/bin/sh
# Builds tmcml twice (optimised, and with AddressSanitizer + UBSan) and runs
# the whole test suite in both builds; compiles a Debug build with the
# sanitizers.
set -e
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
for config in "build -DCMAKE_BUILD_TYPE=Release" \
              "build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMCML_SANITIZE=ON"; do
    set -- $config
    dir=$1
    shift
    echo "== $dir: configure, build, test"
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
    ctest --test-dir "$dir" --output-on-failure -j "$jobs"
done
# A Debug build with the sanitizers, compiled only (91 s on 2 cores, its tests
# being the second build's): without optimisation gcc cannot see the bounds an
# optimiser proves, so its warnings differ (-Wformat-truncation), and under
# -Werror each one stops a developer's Debug build.
echo "== build-debug: Debug with the sanitizers, compile only"
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DTMCML_SANITIZE=ON >/dev/null
cmake --build build-debug -j "$jobs" >/dev/null
# Then a short fuzzing run of every harness (tests/fuzz/README.md): about 60 s
# each; skipped (status 77) where clang or libFuzzer is missing.
echo "== build-fuzz: fuzz each harness for 60 s"
status=0
sh tools/fuzz.sh 60 || status=$?
[ "$status" -eq 77 ] || exit "$status"
