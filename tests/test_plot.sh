#!/bin/sh
# `tmcml plot` as a user meets it: a figure of a CPU run (default name and
# -o), of MCML's own outputs, of a -A run; each checked pixel by pixel by
# `test_plot --figure`; the bands of a --stderr run's errors, and none from
# an .npz that is not the .mco's.  Bad files and unwritable outputs: a
# non-zero exit, a message naming the file (and the line), no figure and no
# temporary file left, an older figure untouched.
#   test_plot.sh TMCML TEST_PLOT DATA_DIR
set -u
tmcml=$1
test_plot=$2
data=$3
. "$(dirname "$0")/lib.sh"

absent() {
    check
    [ ! -e "$2" ] || fail "$1: $2 was written"
}
no_temps() {
    check
    [ -z "$(find "$work" -name '*.tmp.*')" ] || fail "$1: temporary files left: $(find "$work" -name '*.tmp.*')"
}
# figure DESCRIPTION PNG MCO [--none]: test_plot's pixel checks
figure() {
    what=$1; shift
    expect 0 "$what: pixel checks" -- "$test_plot" --figure "$@"
}

# A CPU run of MCML's example (three layers), its figure beside it.
example=$data/reference/mcml_example.mci
expect 0 "run" -- "$tmcml" run "$example" -N 40000 -o "$work/run" --engine cpu -q
expect 0 "plot" -- "$tmcml" plot "$work/run/example.mco"
check; [ -s "$work/run/example.png" ] || fail "plot: no example.png beside example.mco"
figure "CPU run" "$work/run/example.png" "$work/run/example.mco"
expect 0 "plot -o" -- "$tmcml" plot "$work/run/example.mco" -o "$work/fig.png"
check; cmp -s "$work/run/example.png" "$work/fig.png" || fail "plot -o: another figure"
expect 0 "plot --output=" -- "$tmcml" plot --output="$work/fig2.png" "$work/run/example.mco"
check; [ -s "$work/fig2.png" ] || fail "--output=: not written"
# -o LINK: the file the link leads to gets the figure, the link stays a link.
mkdir "$work/figs" && : >"$work/figs/latest.png" && ln -s figs/latest.png "$work/latest.png"
expect 0 "plot -o LINK" -- "$tmcml" plot "$work/run/example.mco" -o "$work/latest.png"
check; [ -L "$work/latest.png" ] || fail "plot -o LINK: the link was replaced by a file"
check; cmp -s "$work/run/example.png" "$work/figs/latest.png" || fail "plot -o LINK: the target does not hold the figure"

# MCML 1.2.2's own outputs: its example (3 layers) and the 7-layer skin.
expect 0 "MCML example" -- "$tmcml" plot "$data/reference/mcml_example_1e6.mco" -o "$work/mcml.png"
figure "MCML example" "$work/mcml.png" "$data/reference/mcml_example_1e6.mco"
expect 0 "MCML skin" -- "$tmcml" plot "$data/reference/mcml_skin7_600nm_1e8.mco" -o "$work/skin.png"
figure "MCML skin" "$work/skin.png" "$data/reference/mcml_skin7_600nm_1e8.mco"

# -A: no absorption scored; the figure says so, R_d(r) is still drawn.
expect 0 "run -A" -- "$tmcml" run "$example" -N 5000 -A -o "$work/a" --engine cpu -q
expect 0 "plot -A" -- "$tmcml" plot "$work/a/example.mco"
figure "-A run" "$work/a/example.png" "$work/a/example.mco" --none

# --stderr: R_d(r) and A(z) on bands of their standard errors from the .npz
# beside the .mco, checked row by row (test_plot --figure --bands), nothing
# said.  Without them (--no-stderr, no .npz, an .npz without errors, one of
# another seed, a damaged one) no band and the same figure, byte for byte;
# the last two said on stderr, exit 0.
expect 0 "run --stderr" -- "$tmcml" run "$example" -N 4000 -S 7 -o "$work/se" --engine cpu -q --stderr
expect 0 "plot with errors" -- "$tmcml" plot "$work/se/example.mco"
check; [ ! -s "$work/out" ] || fail "plot with errors: said $(cat "$work/out")"
figure "bands" "$work/se/example.png" "$work/se/example.mco" --bands
expect 0 "--no-stderr" -- "$tmcml" plot "$work/se/example.mco" --no-stderr -o "$work/plain.png"
figure "--no-stderr" "$work/plain.png" "$work/se/example.mco"
check; cmp -s "$work/se/example.png" "$work/plain.png" && fail "--no-stderr: the figure with bands"
# plain_figure WHAT: the last plot wrote $work/fig_se.png, the figure without bands.
plain_figure() {
    check; cmp -s "$work/plain.png" "$work/fig_se.png" || fail "$1: not the figure without bands"
}
mv "$work/se/example.npz" "$work/se/kept.npz"
expect 0 "no .npz" -- "$tmcml" plot "$work/se/example.mco" -o "$work/fig_se.png"
check; [ ! -s "$work/out" ] || fail "no .npz: said $(cat "$work/out")"
plain_figure "no .npz"
expect 0 "run --npz" -- "$tmcml" run "$example" -N 4000 -S 7 -o "$work/npz" --engine cpu -q --npz
cp "$work/npz/example.npz" "$work/se/example.npz"
expect 0 "an .npz without errors" -- "$tmcml" plot "$work/se/example.mco" -o "$work/fig_se.png"
check; [ ! -s "$work/out" ] || fail "an .npz without errors: said $(cat "$work/out")"
plain_figure "an .npz without errors"
expect 0 "run -S 8 --stderr" -- "$tmcml" run "$example" -N 4000 -S 8 -o "$work/se8" --engine cpu -q --stderr
cp "$work/se8/example.npz" "$work/se/example.npz"
expect 0 "another seed's .npz" -- "$tmcml" plot "$work/se/example.mco" -o "$work/fig_se.png"
contains "another seed's .npz" "example.npz: not example.mco's (another run's?): its A_l\[0\] is"
contains "another seed's .npz" "drawn without error bands"
plain_figure "another seed's .npz"
head -c 3000 "$work/se/kept.npz" >"$work/se/example.npz"
expect 0 "a damaged .npz" -- "$tmcml" plot "$work/se/example.mco" -o "$work/fig_se.png"
contains "a damaged .npz" "example.npz: not a zip archive"
contains "a damaged .npz" "drawn without error bands"
plain_figure "a damaged .npz"
mv "$work/se/kept.npz" "$work/se/example.npz"

# A name not ending in .mco gets .png appended.
cp "$work/run/example.mco" "$work/results.txt"
expect 0 "other suffix" -- "$tmcml" plot "$work/results.txt"
check; [ -s "$work/results.txt.png" ] || fail "other suffix: no results.txt.png"

# Unreadable and corrupt files: exit 1, the file (and line) named, no figure.
expect 1 "missing" -- "$tmcml" plot "$work/nothere.mco"
contains "missing" "nothere.mco"
absent "missing" "$work/nothere.png"
printf 'garbage\n' >"$work/bad.mco"
expect 1 "corrupt" -- "$tmcml" plot "$work/bad.mco"
contains "corrupt" "bad.mco:1:"
absent "corrupt" "$work/bad.png"
head -c 12000 "$work/run/example.mco" >"$work/cut.mco"
expect 1 "truncated" -- "$tmcml" plot "$work/cut.mco"
contains "truncated" "cut.mco:[0-9][0-9]*:"
absent "truncated" "$work/cut.png"
# A step of 0 (dz = 0): the file, the line and the value named.
sed 's/^0\.01\t0\.01\t\t# dz, dr/0\t0.01\t\t# dz, dr/' "$data/reference/mcml_example_1e6.mco" \
    >"$work/dz0.mco"
expect 1 "dz = 0" -- "$tmcml" plot "$work/dz0.mco"
contains "dz = 0" "dz0.mco:15: dz = 0 in InParm: it must be at least 1e-09 cm"
check; grep -q "is not the input's" "$work/out" && fail "dz = 0: said the grid differs from itself"
absent "dz = 0" "$work/dz0.png"
mkdir "$work/dir.mco"
expect 1 "directory" -- "$tmcml" plot "$work/dir.mco"
contains "directory" "dir.mco"
absent "directory" "$work/dir.png"
# An older figure survives a failed plot.
cp "$work/fig.png" "$work/keep.png"
expect 1 "corrupt over a figure" -- "$tmcml" plot "$work/bad.mco" -o "$work/keep.png"
check; cmp -s "$work/fig.png" "$work/keep.png" || fail "a failed plot changed the older figure"

# Unwritable outputs: exit 1, the path named, nothing left.
expect 1 "no such directory" -- "$tmcml" plot "$work/run/example.mco" -o "$work/none/fig.png"
contains "no such directory" "$work/none/fig.png"
touch "$work/plain"
expect 1 "under a file" -- "$tmcml" plot "$work/run/example.mco" -o "$work/plain/fig.png"
contains "under a file" "$work/plain/fig.png"
mkdir -p "$work/isdir/x"
expect 1 "a directory" -- "$tmcml" plot "$work/run/example.mco" -o "$work/isdir"
contains "a directory" "$work/isdir"
no_temps "unwritable"
# The figure never replaces its data.
cp "$work/run/example.mco" "$work/same.mco"
expect 2 "onto the .mco" -- "$tmcml" plot "$work/same.mco" -o "$work/./same.mco"
contains "onto the .mco" "overwrite"
check; cmp -s "$work/run/example.mco" "$work/same.mco" || fail "onto the .mco: the .mco changed"
ln -s same.mco "$work/same_link.png"
expect 2 "onto the .mco through a link" -- "$tmcml" plot "$work/same.mco" -o "$work/same_link.png"
contains "onto the .mco through a link" "overwrite"
check; cmp -s "$work/run/example.mco" "$work/same.mco" || fail "onto the .mco through a link: the .mco changed"

# The command line.
expect 2 "no file" -- "$tmcml" plot
contains "no file" "no .mco file"
expect 2 "two files" -- "$tmcml" plot a.mco b.mco
contains "two files" "more than one"
expect 2 "unknown option" -- "$tmcml" plot "$work/run/example.mco" --seed 3
contains "unknown option" "unknown option"
expect 2 "-o without a name" -- "$tmcml" plot "$work/run/example.mco" -o
contains "-o without a name" "--output: expected a value (--output FIG.png)"
expect 0 "help" -- "$tmcml" plot --help
contains "help" "usage: tmcml plot OUT.mco"
contains "help" "--no-stderr"
contains "help" "value - error to value +"
expect 0 "usage lists plot" -- "$tmcml" --help
contains "usage lists plot" "tmcml plot OUT.mco"
no_temps "end"

finish test_plot.sh
