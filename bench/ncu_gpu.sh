#!/bin/sh
# Where the kernel's time goes: Nsight Compute on one launch of each case of
# bench/README.md (skin with and without A_rz, the intralipid slab),
# with the counters behind instructions per step, active lanes, occupancy,
# issue activity and stall reasons.  Needs ncu (CUDA toolkit) and the right
# to read GPU performance counters (root on the GPU machine).
# usage: bench/ncu_gpu.sh BUILD_DIR [OUT_DIR] [extra variant options...]
set -eu
build=$1
out=${2:-ncu-out}
shift $(($# >= 2 ? 2 : 1))
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
ncu=${NCU:-ncu}
mkdir -p "$out"
metrics=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,\
smsp__thread_inst_executed_per_inst_executed.ratio,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__maximum_warps_per_active_cycle_pct,\
smsp__issue_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread,launch__occupancy_limit_registers,\
launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,\
launch__block_size,launch__grid_size,gpu__time_duration.sum
profile() { # name file photons flags...
    name=$1; file=$2; n=$3; shift 3
    "$tmcml" run "$file" -N "$n" -q --engine gpu -o "$out/$name" --cache "$out/cache" "$@"
    steps=$(sed -n 's/.*"steps_per_photon":[^0-9]*\([0-9.e+]*\).*/\1/p' "$out/$name"/*.json)
    "$ncu" --metrics "$metrics" --section WarpStateStats \
        --launch-count 1 -k tmcml_kernel --csv --page raw \
        "$tmcml" run "$file" -N "$n" -q --engine gpu -o "$out/$name" --cache "$out/cache" "$@" \
        > "$out/$name.csv" 2> "$out/$name.log" || { cat "$out/$name.log"; return 1; }
    python3 - "$out/$name.csv" "$name" "$n" "$steps" <<'PY' 2>/dev/null || \
        echo "$name: counters in $out/$name.csv (python3 missing for the summary)"
import csv, sys
path, name, n, steps = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = [r for r in csv.reader(open(path)) if r]
start = next(i for i, r in enumerate(rows) if r[0] == 'ID')  # after ncu's ==PROF== lines
head = rows[start]; vals = rows[start + 2]  # the row after the header holds units
m = {h: v for h, v in zip(head, vals)}
def num(k):
    try: return float(m[k].replace(',', ''))
    except Exception: return float('nan')
ti = num('smsp__thread_inst_executed.sum'); wi = num('smsp__inst_executed.sum')
print(f"{name}: {n:.0f} photons x {steps:.1f} steps: {ti / (n * steps):.1f} thread-instructions/step, "
      f"{wi * 32 / (n * steps):.1f} lane-slots/step, {num('smsp__thread_inst_executed_per_inst_executed.ratio'):.1f} "
      f"active lanes/warp, occupancy {num('sm__warps_active.avg.pct_of_peak_sustained_active'):.0f} % "
      f"(theoretical {num('sm__maximum_warps_per_active_cycle_pct'):.0f} %), issue active "
      f"{num('smsp__issue_active.avg.pct_of_peak_sustained_active'):.0f} %, "
      f"{num('launch__registers_per_thread'):.0f} regs, block {num('launch__block_size'):.0f}, "
      f"limits regs/smem/warps {num('launch__occupancy_limit_registers'):.0f}/"
      f"{num('launch__occupancy_limit_shared_mem'):.0f}/{num('launch__occupancy_limit_warps'):.0f} blocks")
stalls = sorted(((num(k), k) for k in head
                 if 'issue_stalled' in k and k.endswith('per_issue_active.ratio')
                 and 'not_issued' not in k), reverse=True)
for v, k in stalls[:8]:
    print(f"    {k}: {v:g}")
PY
}
profile skin_A "$ex/skin7_600nm.mci" 10000000 "$@"
profile skin_noA "$ex/skin7_600nm.mci" 10000000 -A "$@"
profile intralipid_A "$ex/intralipid_slab.mci" 1000000 "$@"
profile intralipid_noA "$ex/intralipid_slab.mci" 1000000 -A "$@"
