#!/bin/sh
# Where a step's issue slots go, instruction by instruction: Nsight Compute's
# source counters on one launch, summarised per SASS instruction as
# warp-instructions per step and active lanes, then by lane band (converged
# work against the divergent paths: boundaries, launches) and the hottest
# divergent runs of instructions.  Needs ncu and the right to read GPU
# performance counters (root on the GPU machine).
# usage: bench/ncu_paths.sh BUILD_DIR [OUT_DIR] [FILE.mci] [PHOTONS] [run options...]
set -eu
build=$1
out=${2:-ncu-paths}
file=${3:-$(dirname "$0")/../examples/skin7_600nm.mci}
n=${4:-10000000}
shift $(($# >= 4 ? 4 : $#))
tmcml=$build/tmcml
ncu=${NCU:-ncu}
mkdir -p "$out"
name=$(basename "$file" .mci)
"$tmcml" run "$file" -N "$n" -q --engine gpu -o "$out/$name" --cache "$out/cache" "$@"
"$ncu" --section SourceCounters --section WarpStateStats --launch-count 1 -k tmcml_kernel -f \
    -o "$out/$name" "$tmcml" run "$file" -N "$n" -q --engine gpu -o "$out/$name" \
    --cache "$out/cache" "$@" >"$out/$name.log" 2>&1 || { cat "$out/$name.log"; exit 1; }
"$ncu" -i "$out/$name.ncu-rep" --page source --csv --print-source sass >"$out/$name.sass.csv"
python3 "$(dirname "$0")/ncu_paths.py" "$out/$name.sass.csv" "$(ls "$out/$name"/*.json | head -n 1)"
