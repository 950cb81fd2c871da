#!/bin/sh
# tmcml run --source (issue 26): bad values refused naming the value, exit
# 2, nothing written; the source recorded in the .mco's header ("# Source:",
# read back by tmcml plot; tmcml conv refuses it) and the JSON's
# input.source; an explicit --source pencil writes the plain run's .mco
# byte for byte, without the line; tmcml gen --source writes the source's
# kernel (templates/source.cu) and the pencil's without it;
# a checkpoint resumed with another source (or none) refused, with the same one the
# uninterrupted run's .mco.
# usage: test_sources_cli.sh TMCML EXAMPLES_DIR
. "$(dirname "$0")/lib.sh"
example_setup "$1" "$2"

# Bad values: the message quotes the value; nothing written.
for bad in "flat" "flat:x" "gaussian:-1" "gaussian:0" "point:0" "point:0.1" "point:5" \
    "fiber:0.1" "fiber:-1:0.2" "fiber:0.1:1.5" "laser:1" "gaussian:1:2" "flat:nan"; do
    expect 2 "--source $bad" -- "$tmcml" run "$mci" $common --source "$bad" -o "$work/bad"
    contains "--source $bad" "\"$bad\""
    check
    [ -e "$work/bad" ] && fail "--source $bad: $work/bad written"
done
# Numbers whose text is not 0 but underflows to 0 or a subnormal (issue 42).
for bad in "flat:1e-320" "gaussian:1e-400" "point:1e-310" "fiber:1e-320:0.2" "fiber:0.1:1e-400"; do
    expect 2 "--source $bad" -- "$tmcml" run "$mci" $common --source "$bad" -o "$work/bad"
    contains "--source $bad" "--source \"$bad\": too small to compute with (\"1e-"
    check
    [ -e "$work/bad" ] && fail "--source $bad: $work/bad written"
done
expect 2 "boundary" -- "$tmcml" run "$mci" $common --source point:0.1 -o "$work/bad"
contains "boundary" "mcml_example.mci:12: --source \"point:0.1\": the depth 0.1 cm is a boundary"
# tmcml tune takes the source too (its kernel is tuned): checked before a
# GPU is looked for.
expect 2 "tune boundary" -- "$tmcml" tune "$mci" --source point:0.1 --csv "$work/t.csv"
contains "tune boundary" "mcml_example.mci:12: --source \"point:0.1\": the depth 0.1 cm is a boundary"

# Pencil: the plain run's bytes.
expect 0 "plain" -- "$tmcml" run "$mci" $common --engine cpu -o "$work/plain"
expect 0 "pencil" -- "$tmcml" run "$mci" $common --engine cpu --source pencil -o "$work/pencil"
check
cmp -s "$work/plain/example.mco" "$work/pencil/example.mco" || fail "--source pencil: another .mco"
check
grep -q '^# Source' "$work/plain/example.mco" && fail "a pencil run's .mco names a source"
check
grep -q '"kind":[[:space:]]*"pencil"' "$work/plain/example.json" || fail "no pencil in the JSON"

# The kernels: the source's part only where a source is asked for.
expect 0 "gen pencil" -- "$tmcml" gen "$mci" -o "$work/pencil.cu"
expect 0 "gen point" -- "$tmcml" gen "$mci" --source point:0.05 -o "$work/point.cu"
check
grep -q source_launch "$work/pencil.cu" && fail "the pencil's kernel has a source part"
check
grep -q 'source_launch(p, layer_at(0))' "$work/point.cu" || fail "the point's kernel has none"

# A beam: recorded, read back, not convolved again.
expect 0 "beam" -- "$tmcml" run "$mci" $common --source gaussian:0.05 -o "$work/g"
check
grep -q '^# Source: Gaussian beam, 1/e^2 radius 0.05 cm.*(--source gaussian:0.05)$' \
    "$work/g/example.mco" || fail "no Source line in the .mco"
check
grep -q '"text":[[:space:]]*"gaussian:0.05"' "$work/g/example.json" || fail "no source in the JSON"
check
grep -q '"w":[[:space:]]*0.05' "$work/g/example.json" || fail "no w in the JSON"
check
grep -q '"input.source.w":[[:space:]]*"cm"' "$work/g/example.json" || fail "no unit of w in the JSON"
expect 0 "plot" -- "$tmcml" plot "$work/g/example.mco" -o "$work/g/x.png"
expect 1 "conv" -- "$tmcml" conv "$work/g/example.mco" --beam flat:0.1 -o "$work/g/c.mco"
contains "conv" "pencil-beam response"
# Every kind runs and says so.
for s in flat:0.05 point:0.05 point:0.25 fiber:0.02:0.3; do
    expect 0 "$s" -- "$tmcml" run "$mci" $common --source "$s" -o "$work/k_${s%%:*}"
    check
    grep -q "(--source $s)" "$work/k_${s%%:*}/example.mco" || fail "$s: not in the .mco"
done

# A checkpoint: another source refused, the same one resumed to the
# uninterrupted run's .mco.
n=1500000
stopped_run "$work/r" "$mci" -N $n -S 5 -q --engine cpu --source flat:0.1
check
[ -s "$work/r/example.ckpt" ] || fail "no checkpoint written"
expect 1 "other source" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --source gaussian:0.1 --resume \
    -o "$work/r"
contains "other source" "\"source flat:0.1\" in the checkpoint, \"source gaussian:0.1\" now"
expect 1 "no source" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --resume -o "$work/r"
expect 0 "resume" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --source flat:0.1 --resume -o "$work/r"
expect 0 "whole" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --source flat:0.1 -o "$work/w"
check
cmp -s "$work/r/example.mco" "$work/w/example.mco" || fail "resumed .mco differs"
# A finished run of another source is left alone, naming --source.
expect 1 "finished" -- "$tmcml" run "$mci" -N $n -S 5 -q --engine cpu --source gaussian:0.1 --resume -o "$work/w"
contains "finished" "--path-lengths or --source differ"
finish sources_cli
