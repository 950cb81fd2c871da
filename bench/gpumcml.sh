#!/bin/sh
# The reference: GPU-MCML (the IMSY-DKFZ fork) built -O3 --use_fast_math for
# this GPU and timed on the cases of bench/README.md, whole process, as
# bench/bench_gpu.sh times tmcml.  GPU-MCML is GPL: it is built and run, never
# copied into tmcml.  (-include array: its main.cu uses std::array without
# including <array>, which newer host compilers refuse.)
# usage: [GPUMCML_FILES="a.mci b.mci"] [GPUMCML_FLAGS="-G 2"] bench/gpumcml.sh
#        GPUMCML_SOURCE_DIR OUT_DIR [SCALE] [MULTIPLIER_FILE]
#   GPUMCML_FILES: time these inputs as they are instead of the cases.
#   GPUMCML_FLAGS: added to every GPU-MCML command (-G N: its first N GPUs).
#   SCALE divides every photon count; MULTIPLIER_FILE is its
#   safeprimes_base32.txt (made by bench/gpumcml_multipliers.c when absent:
#   1 + SMs x 1024 lines).
set -eu
src=$1
out=$2
scale=${3:-1}
mult=${4:-}
ex=$(dirname "$0")/../examples
mkdir -p "$out"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
sms=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "GPU: $sms, sm_$arch"
# (The -D values stand in for what its CMakeLists.txt defines.)
nvcc -O3 --use_fast_math -arch="sm_$arch" -DUNIX -std=c++14 -include array -I"$src/src" -I"$src" \
    -DBUILD_TIMESTAMP='"bench"' -DCMAKE_SYSTEM='"Linux"' -DCMAKE_SYSTEM_PROCESSOR='"x86_64"' \
    -DCMAKE_CXX_COMPILER='"nvcc"' -DGIT_COMMIT='"c10d726"' -DPROJECT_VERSION_MAJOR='"0"' \
    -DPROJECT_VERSION_MINOR='"0"' -DPROJECT_VERSION_PATCH='"4"' \
    "$src/src/gpumcml_main.cu" "$src/src/gpumcml_io.cpp" -o "$out/MCML" >"$out/build.log" 2>&1 || {
    cat "$out/build.log"
    exit 1
}
if [ -n "$mult" ]; then
    cp "$mult" "$out/safeprimes_base32.txt"
else
    cc -O2 -o "$out/multipliers" "$(dirname "$0")/gpumcml_multipliers.c"
    # GPU-MCML reads a multiplier for each of its threads on every GPU it
    # runs on (SMs x 1024 a GPU) and quits when the file is short: 1 + 200 x
    # 1024 a GPU of the node, for GPUs of up to 200 SMs.  (Two GPUs' file
    # took 2 min 18 s to make on a 2-core machine: pass MULTIPLIER_FILE to
    # reuse one.)
    gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
    count=$((1 + gpus * 200 * 1024))
    "$out/multipliers" "$count" >"$out/safeprimes_base32.txt"
fi

# The input with its photon count replaced (GPU-MCML has no -N).
with_photons() { # in out photons
    awk -v n="$3" 'done == 0 && seen && $1 !~ /^#/ && NF > 0 { $1 = n; done = 1 }
                   /\.mco[ \t]+[AB]/ { seen = 1 } { print }' "$1" >"$2"
}
now() { date +%s.%N; }
printf '| case | photons | -A | wall s | photons/s |\n|---|---|---|---|---|\n'
run_case() { # name file photons flags
    n=$(($3 / scale))
    with_photons "$ex/$2" "$out/$1.mci" "$n"
    t0=$(now)
    (cd "$out" && ./MCML -i "$1.mci" -O "$1.mco" -S 1 $4 ${GPUMCML_FLAGS:-} >"$1.log" 2>&1) || { cat "$out/$1.log"; exit 1; }
    t1=$(now)
    wall=$(awk "BEGIN{print $t1 - $t0}")
    printf '| %s | %s | %s | %.3f | %.4g |\n' "$1" "$n" "$([ -n "$4" ] && echo yes || echo no)" \
        "$wall" "$(awk "BEGIN{print $n / $wall}")"
}
if [ -n "${GPUMCML_FILES:-}" ]; then # other inputs as they are (bench/bench_batch.sh)
    for f in $GPUMCML_FILES; do
        name=$(basename "$f" .mci)
        cp "$f" "$out/$name.mci"
        t0=$(now)
        (cd "$out" && ./MCML -i "$name.mci" -O "$name.mco" -S 1 ${GPUMCML_FLAGS:-} >"$name.log" 2>&1) || {
            cat "$out/$name.log"
            exit 1
        }
        t1=$(now)
        printf '| %s | file | no | %.3f | |\n' "$name" "$(awk "BEGIN{print $t1 - $t0}")"
    done
    exit 0
fi
run_case skin_1e8 skin7_600nm.mci 100000000 ""
run_case skin_1e8_A skin7_600nm.mci 100000000 "-A"
run_case skin_1e9 skin7_600nm.mci 1000000000 ""
run_case skin_1e9_A skin7_600nm.mci 1000000000 "-A"
run_case intralipid_1e8 intralipid_slab.mci 100000000 ""
run_case intralipid_1e8_A intralipid_slab.mci 100000000 "-A"
run_case vanhulst_1e7 vanhulst_slab.mci 10000000 ""
run_case vanhulst_1e7_A vanhulst_slab.mci 10000000 "-A"
