#!/bin/sh
# Standard errors across a stop and --resume (runtime/io/checkpoint.h,
# version 4): a `--stderr` run stopped by a signal keeps the groups of its
# errors in its checkpoint, and the tallies of the group the stop cut
# (pending until the rest of it is simulated: driver/session_groups.h), and
# resumed it ends with the .mco of the run done at once, byte for byte, and
# with its errors, bit for bit: "stderr" in the JSON (64 groups, the same
# values) and every NAME_stderr array of the .npz (the .npz byte for byte).
# The same for a batch of runs and for absorption sets.  A checkpoint
# written without --stderr and resumed with it warns, naming the run, and
# gives no errors; one with groups resumed without --stderr gives none and
# says nothing.
# usage: test_stderr_resume.sh TMCML EXAMPLES_DIR
tmcml=$1
examples=$2
. "$(dirname "$0")/lib.sh"
isolate_user_dirs
mci=$examples/mcml_example.mci
common="-N 1000000 -S 3 -q --engine cpu --threads 2"

# stderr_field JSON KEY: KEY's value in the JSON's "stderr" object (empty
# when it has none).
stderr_field() {
    awk -v key="\"$2\":" '/"stderr":/ { inside = 1; next }
        inside && /}/ { exit }
        inside && $1 == key { sub(/,$/, "", $2); print $2; exit }' "$1"
}

# close_errors REFERENCE_JSON JSON LABEL: JSON has the reference's errors
# (its "stderr" object the same, 64 groups) and its .npz is the
# reference's, byte for byte.
close_errors() {
    groups=$(stderr_field "$2" groups)
    check
    [ -n "$(stderr_field "$1" Rd)" ] || fail "$3: the reference $(basename "$1") has no errors"
    check
    [ "$groups" = 64 ] || fail "$3: $(basename "$2") has errors of '$groups' groups, not 64"
    check
    [ "$(sed -n '/"stderr"/,/}/p' "$1")" = "$(sed -n '/"stderr"/,/}/p' "$2")" ] ||
        fail "$3: its errors differ from the unbroken run's"
    check
    cmp -s "${1%.json}.npz" "${2%.json}.npz" || fail "$3: its .npz differs from the unbroken run's"
}

# npz_has_errors NPZ LABEL: the .npz holds the totals' and every array's
# errors (stored members: their names are in the file as they are).
npz_has_errors() {
    for member in Rd_stderr A_stderr Tt_stderr A_rz_stderr Rd_ra_stderr Tt_ra_stderr A_z_stderr \
        Rd_r_stderr; do
        check
        grep -a -q "$member\.npy" "$1" || fail "$2: $(basename "$1") lacks $member"
    done
}

# stop DIR CKPT ARGS...: `run ARGS` into DIR stopped by SIGINT once CKPT,
# its first periodic checkpoint, is there; the exit status in $rc.
stop() {
    dir=$1 ckpt=$2
    shift 2
    "$tmcml" run "$@" --checkpoint-every 0.2 -o "$dir" 2>"$work/err" &
    pid=$!
    check
    wait_for "$dir/$ckpt" || fail "$dir: no periodic checkpoint appeared"
    kill -INT $pid
    wait $pid
    rc=$?
    check
    [ $rc -eq 130 ] || { fail "$dir: exit $rc after SIGINT, expected 130"; cat "$work/err" >&2; }
}

# The checkpoint format version (the u32 after the 8 magic bytes).
version() { od -A n -t u4 -j 8 -N 4 "$1" | tr -d ' '; }

# 1. One run: stopped, its checkpoint of version 4 and its partial JSON
#    with errors; resumed, the unbroken run's .mco and close errors.
expect 0 "unbroken" -- "$tmcml" run "$mci" $common --stderr -o "$work/full"
stop "$work/part" example.ckpt "$mci" $common --stderr
check; [ "$(version "$work/part/example.ckpt")" = 4 ] ||
    fail "the stopped run's checkpoint is of version $(version "$work/part/example.ckpt"), not 4"
check; [ -n "$(stderr_field "$work/part/example.partial.json" Rd)" ] ||
    fail "the stopped run's partial JSON has no errors"
cp "$work/part/example.ckpt" "$work/grouped.ckpt"
expect 0 "resumed" -- "$tmcml" run "$mci" $common --stderr --resume -o "$work/part"
same_mcos "$work/full" "$work/part" 1 "resumed with --stderr"
close_errors "$work/full/example.json" "$work/part/example.json" "resumed"
npz_has_errors "$work/part/example.npz" "resumed"

# 2. A checkpoint with groups resumed without --stderr: no errors, no word.
mkdir "$work/plain" && cp "$work/grouped.ckpt" "$work/plain/example.ckpt"
"$tmcml" run "$mci" $common --resume -o "$work/plain" 2>"$work/err"
rc=$?
check; [ $rc -eq 0 ] || fail "groups resumed without --stderr: failed: $(cat "$work/err")"
same_mcos "$work/full" "$work/plain" 1 "resumed without --stderr"
check; [ -z "$(stderr_field "$work/plain/example.json" Rd)" ] && [ ! -s "$work/err" ] ||
    fail "groups resumed without --stderr: errors given, or said: $(cat "$work/err")"

# 3. A checkpoint of version 1 (no --stderr) resumed with --stderr: the
#    run ends with its .mco and no errors, and a warning names the run.
stop "$work/none" example.ckpt "$mci" $common
check; [ "$(version "$work/none/example.ckpt")" = 1 ] ||
    fail "a run without --stderr wrote a checkpoint of version $(version "$work/none/example.ckpt")"
"$tmcml" run "$mci" $common --stderr --resume -o "$work/none" 2>"$work/err"
rc=$?
check; [ $rc -eq 0 ] || fail "no groups resumed with --stderr: failed: $(cat "$work/err")"
same_mcos "$work/full" "$work/none" 1 "no groups resumed with --stderr"
check; grep -q "warning: run 1: [0-9]* of the [0-9]* photons done in .*example.ckpt were simulated without --stderr" \
    "$work/err" || fail "no groups resumed with --stderr: no warning: $(cat "$work/err")"
check; [ -z "$(stderr_field "$work/none/example.json" Rd)" ] ||
    fail "no groups resumed with --stderr: errors given for photons never grouped"

# 4. A batch (the eight runs of one shape, simulated together): each run's
#    groups in its checkpoint, every run resumed to the batch's .mco and
#    close errors.
lut=$examples/lookup_table.mci
lopts="-N 30000 -S 6 -q --engine cpu --threads 2 --stderr"
runs=$(grep -c '^[^#].*\.mco' "$lut")
expect 0 "batch, unbroken" -- "$tmcml" run "$lut" $lopts -o "$work/lut"
stop "$work/lutp" lut_mua0.1_mus50.ckpt "$lut" $lopts
check; [ "$(ls "$work/lutp"/*.ckpt | wc -l)" -eq "$runs" ] ||
    fail "batch: $(ls "$work/lutp"/*.ckpt | wc -l) checkpoints of $runs runs"
expect 0 "batch, resumed" -- "$tmcml" run "$lut" $lopts --resume -o "$work/lutp"
same_mcos "$work/lut" "$work/lutp" "$runs" "batch, resumed"
for f in "$work"/lut/*.json; do
    close_errors "$f" "$work/lutp/$(basename "$f")" "batch, $(basename "$f" .json)"
done
npz_has_errors "$work/lutp/lut_mua0.1_mus50.npz" "batch"

# 5. Absorption sets (one history for all sets): each set's groups kept,
#    resumed to the .mco and close errors.
printf '1 1 2\n2.5 1.5 2\n10 10 20\n5 5 5\n' >"$work/sets.csv"
sopts="$common --stderr --mua-sets $work/sets.csv"
expect 0 "sets, unbroken" -- "$tmcml" run "$mci" $sopts -o "$work/sets"
stop "$work/setsp" example.set1.ckpt "$mci" $sopts
expect 0 "sets, resumed" -- "$tmcml" run "$mci" $sopts --resume -o "$work/setsp"
same_mcos "$work/sets" "$work/setsp" 4 "sets, resumed"
for k in 1 2 3 4; do
    close_errors "$work/sets/example.set$k.json" "$work/setsp/example.set$k.json" "set $k"
done
npz_has_errors "$work/setsp/example.set4.npz" "sets"

finish test_stderr_resume
