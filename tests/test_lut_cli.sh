#!/bin/sh
# `tmcml lut` as a user meets it (cli/lut_command.c, docs/lut.md): OUT.csv
# and OUT.npz written; a point of the runs strategy is `tmcml run -A -S S+i`
# of that point and a mus' of the sets strategy `tmcml run -A -S S
# --mua-sets`, as their .mco print them; an existing OUT.csv is replaced as
# `tmcml run` replaces its outputs; bad values (a bad range, g = 1, an
# unknown strategy, an output onto a directory, ...) are refused with a
# message naming them, exit status 2 and nothing written.
#   test_lut_cli.sh TMCML
set -u
tmcml=$1
. "$(dirname "$0")/lib.sh"

table="--mua 0.1:2:3:log --musp 5,12 --d 0.5 --g 0.8 --n 1.37 --nr 6 --dr 0.05 -N 2000 -S 7"
# shellcheck disable=SC2086
expect 0 "lut runs" -- "$tmcml" lut $table --engine cpu --strategy runs -o "$work/runs"
contains "lut runs" "runs.csv and .*runs.npz: 2 mus' x 3 mua, 2000 photons a point, strategy runs"
check; [ -s "$work/runs.csv" ] && [ -s "$work/runs.npz" ] || fail "lut runs: files missing"
check; head -1 "$work/runs.csv" | grep -q "^musp,mua,Rd,Rd_r_0,Rd_r_1,Rd_r_2,Rd_r_3,Rd_r_4,Rd_r_5$" ||
    fail "lut runs: the first line is not the column names"
check; [ "$(grep -vc '^#' "$work/runs.csv")" -eq 7 ] || fail "lut runs: not 1 + 6 lines"
check; grep -q "^# strategy: runs .*seed 7 + i" "$work/runs.csv" || fail "lut runs: seeds not told"

# section FILE NAME: the lines of an .mco section, up to the blank line after it.
section() { awk -v s="$2" '$1 == s {on = 1; next} on && NF == 0 {exit} on {print $1}' "$1"; }
# mci MUA MUSP NAME: the .mci of one point, the numbers as the CSV gives them.
mci() {
    awk -v mua="$1" -v musp="$2" -v name="$3" 'BEGIN {
        printf "1.0\n1\n%s A\n2000\n0.05 0.05\n1 6 1\n1\n1.0\n", name
        printf "1.37 %.17g %.17g 0.8 0.5\n1.0\n", mua, musp / (1 - 0.8) }'
}
# same_point CSV LINE MCO: the CSV's line (musp,mua,Rd,Rd_r...) printed as the .mco prints them.
same_point() {
    check
    want=$(sed -n "$2p" "$1" | awk -F, '{printf "%.6g", $3; for (i = 4; i <= NF; i++) printf " %.4E", $i}')
    got="$(awk '/#Diffuse reflectance/ {print $1}' "$3") $(section "$3" Rd_r | tr '\n' ' ')"
    [ "$want" = "${got% }" ] || fail "$3: $got, the table's $want"
}
# The runs' point (mus' 12, mua number 2): seed 7 + 2.
line=$(grep -vn '^#' "$work/runs.csv" | awk -F: 'NR == 7 {print $1}')
point=$(sed -n "${line}p" "$work/runs.csv")
mci "$(echo "$point" | cut -d, -f2)" 12 point.mco >"$work/point.mci"
expect 0 "run of a point" -- "$tmcml" run "$work/point.mci" -A -S 9 --engine cpu -q -o "$work/run"
same_point "$work/runs.csv" "$line" "$work/run/point.mco"

# The sets' mus' 5: its 3 mua as absorption sets, seed 7.
expect 0 "lut sets" -- "$tmcml" lut $table --engine cpu --strategy sets -o "$work/sets.csv" -q
check; [ ! -s "$work/out" ] || fail "lut sets -q: printed $(cat "$work/out")"
check; [ -s "$work/sets.csv" ] && [ -s "$work/sets.npz" ] || fail "lut sets -o sets.csv: files"
grep -v '^#' "$work/sets.csv" | awk -F, 'NR > 1 && $1 == 5 {printf "%.17g\n", $2}' >"$work/sets.txt"
mci 0.1 5 col.mco >"$work/col.mci"
expect 0 "run of a mus'" -- "$tmcml" run "$work/col.mci" -A -S 7 --engine cpu -q -o "$work/run" \
    --mua-sets "$work/sets.txt"
for k in 1 2 3; do
    line=$(grep -vn '^#' "$work/sets.csv" | awk -F: -v k="$k" 'NR == 1 + k {print $1}')
    same_point "$work/sets.csv" "$line" "$work/run/col.set$k.mco"
done

# An existing OUT.csv is replaced, as `tmcml run` replaces its .mco.
echo old >"$work/old.csv"
expect 0 "replace" -- "$tmcml" lut $table --engine cpu -o "$work/old" -q
check; grep -q "^# tmcml lut" "$work/old.csv" || fail "replace: old.csv not replaced"

# Bad values: exit 2, the value named, nothing written.
bad() {
    what=$1
    shift
    expect 2 "$what" -- "$tmcml" lut "$@"
    contains "$what" "$what"
    check; [ -z "$(ls "$work" | grep '^bad')" ] || fail "$what: wrote $(ls "$work" | grep '^bad')"
}
# (each option once: a value that another replaces is refused as given twice)
base="--engine cpu -o $work/bad"
ok="--mua 0.1,1 --musp 5 -N 100 $base"
# shellcheck disable=SC2086
{
    bad '--mua "1:0.1:3": START must be below STOP' --musp 5 -N 100 $base --mua 1:0.1:3
    bad '--mua "0:1:3:log": log spacing needs START above 0' --musp 5 -N 100 $base --mua 0:1:3:log
    bad '--musp "5:40:0": COUNT must be a whole number' --mua 0.1,1 -N 100 $base --musp 5:40:0
    bad '--mua "0.1,x": expected START:STOP:COUNT' --musp 5 -N 100 $base --mua 0.1,x
    bad '--mua "0.5,0.1": the values must increase' --musp 5 -N 100 $base --mua 0.5,0.1
    bad '--musp "-5": -5 is no coefficient' --mua 0.1,1 -N 100 $base --musp=-5
    bad '--g 1: expected -1 to below 1' $ok --g 1
    bad '--d 0: expected a thickness above 0 cm, or inf' $ok --d 0
    bad '--strategy: expected auto, sets or runs (got "fast")' $ok --strategy fast
    bad '--photons: expected a whole number' --mua 0.1,1 --musp 5 $base -N 1.5
    # Every number option's message names the option given (issue 42):
    # --dr was "dz must be positive", --n "layer 1: n must be between".
    bad '--n 1000: expected a refractive index from 0.01 to 100' $ok --n 1000
    bad '--n-above 0: expected a refractive index' $ok --n-above 0
    bad '--n-below 1000: expected a refractive index' $ok --n-below 1000
    bad '--dr -1: expected a ring width of at least 1e-09 cm' $ok --dr -1
    bad '--dr 0: expected a ring width' $ok --dr 0
    # Numbers whose text is not 0 but underflows are refused, not read as 0.
    bad '--dr: too small to compute with ("1e-320")' $ok --dr 1e-320
    bad '--g: too small to compute with ("1e-400")' $ok --g 1e-400
    bad '--d: too small to compute with ("2e-324")' $ok --d 2e-324
    bad '--mua "1e-400,1": "1e-400" is too small to compute with' --musp 5 -N 100 $base --mua 1e-400,1
    bad '--musp "2e-324:5:3": "2e-324" is too small to compute with' --mua 0.1,1 -N 100 $base --musp 2e-324:5:3
    bad 'lut: unknown option "--bogus"' $ok --bogus
    bad 'values of Rd_r, more than 2^27' -N 100 $base --mua 0.1:1:2000 --musp 1:10:1000
    bad 'lut: --mua is required' --musp 5 -o "$work/bad"
    # The errors' options (docs/lut.md, "Error bars and a table of one precision").
    bad '--precision: a relative standard error must be above 0' $ok --precision 0
    bad '--precision: a relative standard error must be above 0' $ok --precision 100%
    bad 'lut: --max-photons: only with --precision' $ok --max-photons 100000
    bad 'lut: --precision-of: only with --precision' $ok --precision-of Rd
    bad 'lut: --precision with --strategy sets' $ok --precision 2% --strategy sets
    bad 'lut: --precision needs at least 64000 photons a point' $ok --precision 2%
    bad 'lut: --precision needs at least 64000 photons a point' $ok --precision 2% \
        --max-photons 1000
    bad 'of: Rd, an entry of Rd_r' --mua 0.1,1 --musp 5 $base --precision 2% -N 64000 --precision-of Tt
    bad 'lut: -o OUT is required' --mua 1 --musp 5
}
# A precision out of reach at a point's most photons: the files written,
# the points short said, exit 1.
expect 1 "precision short" -- "$tmcml" lut --mua 0.1,20 --musp 5 --d 0.5 --nr 4 -N 64000 \
    --engine cpu --precision 0.2% -o "$work/short" -q
contains "precision short" "2 of 2 points took their most photons (64000) short of the precision"
check; [ -s "$work/short.csv" ] && [ -s "$work/short.npz" ] || fail "precision short: no files"
check; head -1 "$work/short.csv" | grep -q ",Rd_stderr,photons,Rd_r_0_stderr," ||
    fail "precision short: no error columns"
check; grep -q "^# precision: .*0.002 (2 points short" "$work/short.csv" ||
    fail "precision short: the outcome is not in the CSV"
mkdir "$work/dir.csv"
expect 2 "onto a directory" -- "$tmcml" lut --mua 1 --musp 5 -N 100 --engine cpu -o "$work/dir"
contains "onto a directory" "dir.csv: is a directory"
check; [ ! -e "$work/dir.npz" ] || fail "onto a directory: dir.npz written"
check; [ -z "$(find "$work" -name '*.tmp.*')" ] || fail "temporary files left"
# OUT's directory is made when missing (issue 47), as `run -o DIR` makes DIR.
expect 0 "new directory" -- "$tmcml" lut --mua 1 --musp 5 -N 100 --engine cpu -q \
    -o "$work/new/deeper/table"
check; [ -s "$work/new/deeper/table.csv" ] && [ -s "$work/new/deeper/table.npz" ] ||
    fail "new directory: no table in it"
# Counts as Python writes them (issue 47): 2e3, 2_000 and 2000 are one table.
for n in 2000 2e3 2_000; do
    expect 0 "-N $n" -- "$tmcml" lut --mua 1 --musp 5 -N "$n" --engine cpu -q -o "$work/count_$n"
    check; cmp -s "$work/count_$n.npz" "$work/count_2000.npz" || fail "-N $n: another table"
done
expect 0 "help" -- "$tmcml" lut --help
contains "help" "usage: tmcml lut --mua AXIS --musp AXIS -o OUT"
finish lut_cli
