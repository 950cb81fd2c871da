#!/bin/sh
# `tmcml conv` as a user meets it (cli/conv_command.c): a CPU run's .mco
# convolved with a Gaussian and a flat beam (default name and -o), the beam
# in the header comment, the totals and the unspread sections unchanged;
# bad --beam values, a missing beam, an output over its input and a bad
# .mco refused with a message naming the value, nothing written.
#   test_conv_cli.sh TMCML DATA_DIR
set -u
tmcml=$1
data=$2
. "$(dirname "$0")/lib.sh"

# section FILE NAME: the lines of an .mco section, up to the blank line after it.
section() { awk -v s="$2" '$1 == s {on = 1; next} on && NF == 0 {exit} on' "$1"; }
same_section() {
    check
    [ "$(section "$2" "$4")" = "$(section "$3" "$4")" ] || fail "$1: section $4 changed"
}
differs() {
    check
    [ "$(section "$2" "$4")" != "$(section "$3" "$4")" ] || fail "$1: section $4 not convolved"
}

example=$data/reference/mcml_example.mci
expect 0 "run" -- "$tmcml" run "$example" -N 3000 -o "$work/run" --engine cpu -q
mco=$work/run/example.mco
expect 0 "conv gaussian" -- "$tmcml" conv "$mco" --beam gaussian:0.1
check; [ -s "$work/run/example.conv.mco" ] || fail "conv: no example.conv.mco beside example.mco"
check; grep -q "^# tmcml conv: Gaussian beam of 1/e2 radius 0.1 cm, unit power; pencil: tmcml" \
    "$work/run/example.conv.mco" || fail "conv: the beam is not in the header comment"
check; ! grep -q "tallies fnv1a64:" "$work/run/example.conv.mco" || fail "conv: claims the pencil's digest"
for s in RAT A_l A_z Rd_a Tt_a; do same_section "gaussian" "$mco" "$work/run/example.conv.mco" $s; done
for s in Rd_r A_rz Rd_ra; do differs "gaussian" "$mco" "$work/run/example.conv.mco" $s; done
expect 0 "conv flat -o" -- "$tmcml" conv --beam=flat:0.05 "$mco" -o "$work/flat.mco"
check; grep -q "^# tmcml conv: flat beam of radius 0.05 cm" "$work/flat.mco" || fail "flat: comment"
check; grep -q "^# Source: flat beam, radius 0.05 cm" "$work/flat.mco" || fail "flat: source line"
expect 0 "conv flat:0" -- "$tmcml" conv "$mco" --beam flat:0 -o "$work/flat0.mco"
for s in RAT Rd_r A_rz Rd_ra Tt_r; do same_section "flat:0" "$mco" "$work/flat0.mco" $s; done
check; ! grep -q "^# Source:" "$work/flat0.mco" || fail "flat:0: the pencil claims a beam"
# A convolved .mco is not convolved again (issue 42: it was, exit 0, under a
# header naming one beam), even by a zero radius: its header says which beam.
for f in flat flat0; do
    expect 1 "conv of $f.mco" -- "$tmcml" conv "$work/$f.mco" --beam gaussian:0.1 -o "$work/bad.mco"
    contains "conv of $f.mco" "$f.mco: already convolved (\"tmcml conv: flat beam of radius"
    check; [ ! -e "$work/bad.mco" ] || fail "conv of $f.mco: written"
done
# An .mco convolved by an older tmcml, without the "# Source:" line: its
# comment says what it is.
grep -v "^# Source:" "$work/flat.mco" >"$work/old.mco"
expect 1 "conv of old.mco" -- "$tmcml" conv "$work/old.mco" --beam gaussian:0.1 -o "$work/bad.mco"
contains "conv of old.mco" "old.mco: already convolved"
# The .mco is read as every text file (issue 42): a UTF-8 byte-order mark
# skipped, a NUL byte refused at its line.
{ printf '\357\273\277'; cat "$mco"; } >"$work/bom.mco"
expect 0 "conv of a marked .mco" -- "$tmcml" conv "$work/bom.mco" --beam flat:0.05 -o "$work/bom.conv.mco"
check; cmp -s "$work/bom.conv.mco" "$work/flat.mco" || fail "the marked .mco converts otherwise"
{ head -n 30 "$mco"; printf '0\0000\n'; tail -n +31 "$mco"; } >"$work/nul.mco"
expect 1 "conv of a .mco with a NUL" -- "$tmcml" conv "$work/nul.mco" --beam flat:0.05 -o "$work/bad.mco"
contains "conv of a .mco with a NUL" "nul.mco:31: the file contains a NUL byte"
check; [ ! -e "$work/bad.mco" ] || fail "conv of a .mco with a NUL: written"
# A radius that underflows is refused, not taken as 0 (issue 42).
expect 2 "--beam gaussian:1e-400" -- "$tmcml" conv "$mco" --beam gaussian:1e-400 -o "$work/bad.mco"
contains "--beam gaussian:1e-400" '--beam "gaussian:1e-400": the radius: too small to compute with ("1e-400")'

# Bad values: exit 2, the value named, nothing written.
for b in gauss:0.1 gaussian gaussian: gaussian:abc flat:1cm gaussian:-1 flat:inf flat:nan; do
    expect 2 "--beam $b" -- "$tmcml" conv "$mco" --beam "$b" -o "$work/bad.mco"
    contains "--beam $b" "--beam \"$b\""
    check; [ ! -e "$work/bad.mco" ] || fail "--beam $b: written"
done
expect 2 "no beam" -- "$tmcml" conv "$mco" -o "$work/bad.mco"
contains "no beam" "no beam given"
expect 2 "--beam without a value" -- "$tmcml" conv "$mco" --beam
contains "--beam without a value" "--beam: expected a value (--beam gaussian:W|flat:R)"
expect 2 "over its input" -- "$tmcml" conv "$mco" --beam gaussian:0.1 -o "$mco"
contains "over its input" "would overwrite"
expect 2 "no file" -- "$tmcml" conv --beam gaussian:0.1
expect 2 "unknown option" -- "$tmcml" conv "$mco" --beam gaussian:0.1 --bogus
printf 'A1\nnot an mco\n' >"$work/broken.mco"
expect 1 "bad .mco" -- "$tmcml" conv "$work/broken.mco" --beam gaussian:0.1 -o "$work/bad.mco"
contains "bad .mco" "broken.mco"
check; [ ! -e "$work/bad.mco" ] || fail "bad .mco: written"
# A missing input in a missing directory is named as missing (issue 47), not
# as an output directory that cannot be written.
expect 1 "missing input" -- "$tmcml" conv "$work/missing/x.mco" --beam gaussian:0.1
contains "missing input" "missing/x.mco: cannot open file: No such file or directory"
expect 1 "plot, missing input" -- "$tmcml" plot "$work/missing/x.mco"
contains "plot, missing input" "missing/x.mco: cannot open file"
check; [ -z "$(find "$work" -name '*.tmp.*')" ] || fail "temporary files left"
expect 0 "help" -- "$tmcml" conv --help
contains "help" "usage: tmcml conv OUT.mco --beam gaussian:W|flat:R"
finish conv_cli
