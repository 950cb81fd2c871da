#!/bin/sh
# A table of one precision against a uniform photon count (issue 44's
# target: `tmcml lut --precision 2%` over mua 0.01-10 /cm, the worst
# point's relative error <= 2 % and the photons <= half of a uniform count
# reaching 2 % everywhere).  Two seeds of the precision table: each point's
# estimated relative error (at most P by construction), and the spread of
# the two seeds' difference against their estimated errors (chi: its RMS
# near 1 says the errors are honest on this engine).  The uniform table
# needs the worst point's photons at every point: its photons are computed,
# and the table is timed at them.
# usage: bench/bench_lut_precision.sh BUILD_DIR [OUT_DIR] [ENGINE] [MUSP_COUNT] [MUA_COUNT]
set -eu
build=$1
out=${2:-bench-lut-precision}
engine=${3:-gpu}
m=${4:-16}
k=${5:-64}
tmcml=$build/tmcml
mkdir -p "$out"
now() { date +%s.%N; }
axes="--mua 0.01:10:$k:log --musp 1:50:$m:log --nr 1 --dr 0.1"
echo "engine: $engine; $("$tmcml" devices 2>/dev/null | head -n 1)"
echo "tmcml: $("$tmcml" --version | head -n 1)"
for seed in 1 2; do
    t0=$(now)
    # shellcheck disable=SC2086
    "$tmcml" lut $axes --precision 2% -N 100000000 -S "$seed" --engine "$engine" -q \
        -o "$out/p$seed"
    t1=$(now)
    echo "precision table, seed $seed: $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s"
done
# columns: musp,mua,Rd,Rd_r_0,Rd_stderr,photons,Rd_r_0_stderr
summary=$(paste -d, "$out/p1.csv" "$out/p2.csv" | grep -v '^#' | awk -F, '
    NR > 1 {
        n++; rel = $5 / $3; if (rel > worst) worst = rel
        p += $6; if ($6 > most) most = $6; if ($6 < least || least == 0) least = $6
        chi = ($3 - $10) / sqrt($5 * $5 + $12 * $12); s2 += chi * chi
        if (chi > 2.5 || chi < -2.5) far++
    }
    END { printf "%d %.6g %.0f %.0f %.0f %.4f %d\n", n, worst, p, least, most, sqrt(s2 / n), far }')
set -- $summary
n=$1; worst=$2; photons=$3; least=$4; most=$5; chi=$6; far=$7
uniform=$(awk "BEGIN{printf \"%.0f\", $most * $n}")
echo "points $n; worst estimated relative error $worst; photons a point $least to $most"
echo "photons: precision table $photons, uniform at the worst point's count $uniform," \
    "ratio $(awk "BEGIN{printf \"%.3f\", $photons / $uniform}")"
echo "two seeds: RMS of (Rd1 - Rd2) / sqrt(se1^2 + se2^2) = $chi; beyond 2.5: $far of $n"
t0=$(now)
# shellcheck disable=SC2086
"$tmcml" lut $axes -N "$most" -S 1 --engine "$engine" --strategy runs -q -o "$out/u"
t1=$(now)
echo "uniform table at $most photons a point (runs): $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s"
