#!/bin/sh
# The cost of standard errors (--stderr: 64 photon groups; a run alone one
# engine call a group, a batch's runs each group a slot of the batch
# kernel; docs/physics.md, "Uncertainty"): each case run without and with
# them, alternating, ROUNDS times, whole process; the .mco of both must be
# byte for byte the same (the groups add the same integers).
# usage: bench/bench_stderr.sh BUILD_DIR [OUT_DIR] [ENGINE] [ROUNDS] [CASES]
#   CASES: the names to run (default all: skin skin_A slab lut100).
#   ENGINE gpu (default) or cpu; on the CPU the photon counts are / 100.
set -eu
build=$1
out=${2:-bench-stderr}
engine=${3:-gpu}
rounds=${4:-2}
tmcml=$build/tmcml
ex=$(dirname "$0")/../examples
mkdir -p "$out"
cache=$out/cache
scale=1
[ "$engine" = cpu ] && scale=100

now() { date +%s.%N; }
echo "engine: $engine; $("$tmcml" devices 2>/dev/null | head -n 1)"
echo "tmcml: $("$tmcml" --version | head -n 1)"
printf '| case | photons | without: wall s | with --stderr: wall s | ratio (medians) |\n'
printf '|---|---|---|---|---|\n'
one() { # dir file photons flags -> seconds
    t0=$(now)
    "$tmcml" run "$2" -N "$3" $4 --tune never -q --engine "$engine" --cache "$cache" -o "$1" \
        >/dev/null
    t1=$(now)
    awk "BEGIN{printf \"%.3f\", $t1 - $t0}"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
cases=${5:-skin skin_A slab lut100}
run_case() { # name file photons flags
    name=$1; file=$2; n=$(($3 / scale)); flags=$4
    case " $cases " in *" $name "*) ;; *) return 0 ;; esac
    one "$out/warm" "$file" 1000 "$flags" >/dev/null
    plain=""; with=""
    for _ in $(seq "$rounds"); do
        plain="$plain $(one "$out/$name.plain" "$file" "$n" "$flags")"
        with="$with $(one "$out/$name.stderr" "$file" "$n" "$flags --stderr")"
    done
    for m in "$out/$name.plain"/*.mco; do
        cmp -s "$m" "$out/$name.stderr/$(basename "$m")" || echo "DIFFERENT: $m"
    done
    a=$(echo "$plain" | median); b=$(echo "$with" | median)
    printf '| %s | %s | %s | %s | %.3f |\n' "$name" "$n" "$plain" "$with" \
        "$(awk "BEGIN{print $b / $a}")"
}
run_case skin "$ex/skin7_600nm.mci" 1000000000 ""
run_case skin_A "$ex/skin7_600nm.mci" 1000000000 "-A"
run_case slab "$ex/intralipid_slab.mci" 100000000 ""
# A batch (the 100 runs of lut100, 10^5 photons each): each run's 64 groups
# slots of the batch kernel, in one launch (driver/session_groups.h).
run_case lut100 "$(dirname "$0")/inputs/lut100.mci" 100000 ""
