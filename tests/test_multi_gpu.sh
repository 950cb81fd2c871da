#!/bin/sh
# Several GPUs share a run (gpu_pool.h): the .mco and the integer tallies
# are bit-identical to one GPU's for any number of GPUs and any chunk size,
# the JSON says which GPU ran how many photons, and a GPU that does not
# exist is refused by number.  On a machine with one GPU the pool's engines
# share GPU 0 (--gpus 0,0): the dispatcher, the exact sums and the report
# are the same code as with several GPUs; with two or more, -G 2 and
# --gpus 1,0 run too.  Exit 77 (skipped) without a GPU.
# usage: test_multi_gpu.sh TMCML EXAMPLES_DIR
tmcml=$1
ex=$2
. "$(dirname "$0")/lib.sh"
skip_without_gpu "$tmcml" test_multi_gpu
isolate_user_dirs
gpus=$("$tmcml" devices | grep -c '^GPU [0-9]*:')
common="--engine gpu --tune never -q --cache $work/cache"
# The photons of every entry of the JSON's "gpus" list, one per line.
gpu_photons() {
    tr -d ' \t\n' <"$1" | sed -n 's/.*"gpus":\[\([^]]*\)\].*/\1/p' | tr '}' '\n' |
        sed -n 's/.*"photons":\([0-9.e+]*\).*/\1/p'
}

# case NAME INPUT PHOTONS OPTIONS...: a run whose .mco must equal the
# one-GPU reference's (NAME/ref) byte for byte, with every GPU's photons in
# the JSON adding up to PHOTONS, each GPU having taken some.
run_case() {
    name=$1 input=$2 photons=$3
    shift 3
    check
    # shellcheck disable=SC2086 # common is a word list
    "$tmcml" run "$ex/$input" -N "$photons" -S 9 $common "$@" -o "$work/$name" \
        >"$work/$name.log" 2>&1 || { fail "$name: $* exited $?"; cat "$work/$name.log" >&2; return; }
    mco=$(ls "$work/$name"/*.mco) js=$(ls "$work/$name"/*.json)
    ref=$work/ref-$input-$photons
    [ -d "$ref" ] || reference "$input" "$photons"
    check; cmp -s "$mco" "$(ls "$ref"/*.mco)" || fail "$name ($*): .mco differs from one GPU's"
    check
    [ "$(json "$js" tallies_digest)" = "$(json "$(ls "$ref"/*.json)" tallies_digest)" ] ||
        fail "$name: tallies differ from one GPU's"
    sum=0 n=0
    for p in $(gpu_photons "$js"); do
        n=$((n + 1)) sum=$((sum + p))
        [ "$p" -gt 0 ] || fail "$name: a GPU simulated no photons ($(gpu_photons "$js" | tr '\n' ' '))"
    done
    check; [ "$sum" -eq "$photons" ] || fail "$name: the GPUs' photons add up to $sum, not $photons"
    echo "$name ($*): $n GPUs, photons $(gpu_photons "$js" | tr '\n' ' ')"
}

# reference INPUT PHOTONS: the one-GPU run the cases are compared with.
reference() {
    # shellcheck disable=SC2086
    "$tmcml" run "$ex/$1" -N "$2" -S 9 $common --gpu 0 -o "$work/ref-$1-$2" ||
        fail "one-GPU reference of $1 failed"
}
run_case two_engines skin7_600nm.mci 3000000 --gpus 0,0 --gpu-chunk 77777 --verbose
# One hardware queue a context unless the user names a count
# (driver/driver_queues.h); the driver's own eight give the same tallies.
if [ -z "${CUDA_DEVICE_MAX_CONNECTIONS+set}" ]; then
    check; grep -q "CUDA_DEVICE_MAX_CONNECTIONS=1)" "$work/two_engines.log" ||
        fail "two_engines: the driver was not asked for one queue a context"
    CUDA_DEVICE_MAX_CONNECTIONS=8 run_case eight_queues skin7_600nm.mci 3000000 --gpus 0,0 \
        --gpu-chunk 77777 --verbose
    check; grep -q "CUDA_DEVICE_MAX_CONNECTIONS=8)" "$work/eight_queues.log" ||
        fail "eight_queues: the user's CUDA_DEVICE_MAX_CONNECTIONS=8 was not kept"
fi
run_case three_engines skin7_600nm.mci 3000000 --gpus 0,0,0 --gpu-chunk 1000003 --launch-photons 300001
run_case shares intralipid_slab.mci 3000000 --gpus 0,0
run_case slab_chunks intralipid_slab.mci 3000000 --gpus 0,0 --gpu-chunk 123457
run_case more_launches skin7_600nm.mci 3000000 --gpus 0,0,0 --launch-photons 400000
# Photons given back as often as the dispatcher allows: launches stopped
# part-way and their rest shared out again.
# (TMCML_TEST_STEAL_SECONDS=0: GPU 0's share is an eighth of GPU 1's, and
# photons are taken back whenever any are left to take.)
TMCML_TEST_STEAL_SECONDS=0 run_case given_back skin7_600nm.mci 100000000 --gpus 0,0
chunks=$(tr -d ' \t\n' <"$(ls "$work/given_back/"*.json)" | grep -o '"chunks":[0-9]*' |
    awk -F: '{s += $2} END {print s}')
check; [ "${chunks:-0}" -gt 2 ] || fail "given_back: $chunks launches: no photons were given back"
if [ "$gpus" -ge 2 ]; then
    run_case dash_G skin7_600nm.mci 3000000 -G 2
    run_case reversed skin7_600nm.mci 3000000 --gpus 1,0 --gpu-chunk 500009
    run_case slab_two intralipid_slab.mci 3000000 -G 2
    # One GPU of several: the driver is let see it alone (driver/gpu_view.h),
    # and the run still names it GPU 1.  A batch on it too.
    run_case second_alone skin7_600nm.mci 3000000 --gpu 1 --verbose
    if [ -d /proc/driver/nvidia/gpus ] && [ -z "${CUDA_VISIBLE_DEVICES+set}" ]; then
        check; grep -q "CUDA_VISIBLE_DEVICES=1:" "$work/second_alone.log" ||
            fail "second_alone: the driver was not narrowed to GPU 1"
    fi
    check; tr -d ' \t\n' <"$(ls "$work/second_alone/"*.json)" | grep -q '"gpus":\[{"device":1,' ||
        fail "second_alone: the JSON does not name GPU 1"
    # A kernel fault on GPU 1 is said of GPU 1, whatever the driver numbers it.
    # shellcheck disable=SC2086
    "$tmcml" run "$ex/skin7_600nm.mci" -N 100000 $common --gpu 1 --debug-out-of-bounds \
        -o "$work/fault1" 2>"$work/fault1.err" && fail "an out-of-bounds kernel succeeded on GPU 1"
    check; grep -q "context of GPU 1 " "$work/fault1.err" ||
        { fail "the fault on GPU 1 is not said of GPU 1"; cat "$work/fault1.err" >&2; }
    # The user's own list: its entry of the GPU asked for is kept.
    if [ -z "${CUDA_VISIBLE_DEVICES+set}" ]; then
        export CUDA_VISIBLE_DEVICES=1,0
        run_case listed_second skin7_600nm.mci 3000000 --gpu 0 --verbose
        unset CUDA_VISIBLE_DEVICES
        check; grep -q "CUDA_VISIBLE_DEVICES=1:" "$work/listed_second.log" ||
            fail "listed_second: CUDA_VISIBLE_DEVICES=1,0 --gpu 0 was not narrowed to entry 1"
    fi
else
    echo "test_multi_gpu: one GPU: the two-GPU cases (-G 2, --gpus 1,0) need two"
fi
# Every GPU of the machine, and a list of three out of order, where there
# are three or more: the shares, the give-back and the exact sums with
# more engines than two (issue 28 asks the same of eight).
if [ "$gpus" -ge 3 ]; then
    last=$((gpus - 1))
    run_case dash_G_all skin7_600nm.mci 3000000 -G "$gpus"
    run_case slab_all intralipid_slab.mci 3000000 -G "$gpus"
    run_case three_listed skin7_600nm.mci 3000000 --gpus "$last,0,1" --gpu-chunk 500009
    every=$(seq -s, 0 "$last")
    # (a quarter of 10^9 photons a GPU: launches long enough on fast GPUs
    # for the dispatcher to see them running and ask for photons back)
    TMCML_TEST_STEAL_SECONDS=0 run_case given_back_all skin7_600nm.mci $((gpus * 250000000)) \
        --gpus "$every"
    chunks=$(tr -d ' \t\n' <"$(ls "$work/given_back_all/"*.json)" | grep -o '"chunks":[0-9]*' |
        awk -F: '{s += $2} END {print s}')
    check; [ "${chunks:-0}" -gt "$gpus" ] ||
        fail "given_back_all: $chunks launches on $gpus GPUs: no photons were given back"
fi
# A batch (runs of one shape in one launch) shared by the GPUs: every .mco
# the one of its run alone on one GPU (--no-batch), byte for byte; on two
# engines, whole launches or chunks, some runs written while the batch still
# ran (each once its photons had ended on every engine: gpu_pool.c).
batch=$work/batch.mci
{
    printf '1.0\n4\n'
    for i in 1 2 3 4; do
        sed -n '/^skin7_600nm.mco/,$p' "$ex/skin7_600nm.mci" | sed "s/^skin7_600nm.mco/b$i.mco/" |
            sed "s/^1.4    0.7   300 /1.4    0.$i   30$i /"
    done
} >"$batch"
check; [ "$(grep -c '^b[1234].mco' "$batch")" -eq 4 ] || fail "could not make the batch input"
# shellcheck disable=SC2086
"$tmcml" run "$batch" -N 500000 -S 9 $common --gpu 0 --no-batch -o "$work/batch_alone" ||
    fail "the batch's runs alone failed"
batch_case() { # NAME OPTIONS...
    name=$1
    shift
    # shellcheck disable=SC2086
    "$tmcml" run "$batch" -N 500000 -S 9 $common --verbose "$@" -o "$work/$name" \
        >"$work/$name.log" 2>&1 || { fail "$name: $* exited $?"; cat "$work/$name.log" >&2; return; }
    for i in 1 2 3 4; do
        check; cmp -s "$work/$name/b$i.mco" "$work/batch_alone/b$i.mco" ||
            fail "$name ($*): run $i's .mco differs from the run alone"
    done
    early=$(sed -n 's/.*(\([0-9]*\) of them written while it ran).*/\1/p' "$work/$name.log" |
        awk '{ n += $1 } END { print n + 0 }')
    echo "$name ($*): 4 runs batched, each as alone, $early written while the batch ran"
}
early_written() { # NAME: some of its runs were written while the batch ran
    check; [ "$early" -gt 0 ] || fail "$1: no run was written while its batch ran"
}
batch_case batch_two_engines --gpus 0,0
early_written batch_two_engines
batch_case batch_chunks --gpus 0,0,0 --gpu-chunk 77777 --launch-photons 300001
early_written batch_chunks
TMCML_TEST_STEAL_SECONDS=0 batch_case batch_given_back --gpus 0,0
[ "$gpus" -ge 2 ] && batch_case batch_dash_G -G 2 && early_written batch_dash_G
[ "$gpus" -ge 2 ] && batch_case batch_second_alone --gpu 1
[ "$gpus" -ge 3 ] && batch_case batch_all -G "$gpus"
# Absorption sets (-A) on several engines: every set's .mco as one GPU's.
printf '0.2 0.15 0.7 1 0.7 1 0.3\n0.4 0.3 1.4 2 1.4 2 0.6\n0.1 0.1 0.35 0.5 0.35 0.5 0.15\n' \
    >"$work/sets.csv"
sets_case() { # NAME OPTIONS... ($photons a run)
    name=$1
    shift
    # shellcheck disable=SC2086
    "$tmcml" run "$ex/skin7_600nm.mci" -N "$photons" -S 9 -A $common \
        --mua-sets "$work/sets.csv" \
        "$@" -o "$work/$name" >"$work/$name.log" 2>&1 ||
        { fail "$name: $* exited $?"; cat "$work/$name.log" >&2; return; }
}
photons=700000
sets_case sets_one
sets_case sets_two_engines --gpus 0,0 --gpu-chunk 123457
[ "$gpus" -ge 2 ] && sets_case sets_dash_G -G 2
[ "$gpus" -ge 3 ] && sets_case sets_all -G "$gpus"
# With path lengths (launches of at most 2^24 photons: 2^24 + 5 makes two).
photons=16777221
sets_case paths_one --path-lengths
sets_case paths_two_engines --path-lengths --gpus 0,0 --gpu-chunk 1234567
[ "$gpus" -ge 2 ] && sets_case paths_dash_G --path-lengths -G 2
for pair in sets_two_engines:sets_one sets_dash_G:sets_one sets_all:sets_one \
    paths_two_engines:paths_one paths_dash_G:paths_one; do
    name=${pair%%:*} one=${pair##*:}
    [ -d "$work/$name" ] || continue
    for k in 1 2 3; do
        check; cmp -s "$work/$name/skin7_600nm.set$k.mco" "$work/$one/skin7_600nm.set$k.mco" ||
            fail "$name: set $k's .mco differs from one GPU's"
    done
done
check; grep -q "Rd_path" "$work/paths_one/skin7_600nm.set1.mco" ||
    fail "paths_one: no Rd_path section in set 1's .mco"
check; cmp -s "$work/sets_one/skin7_600nm.set1.mco" "$work/sets_one/skin7_600nm.set2.mco" &&
    fail "sets 1 and 2 gave the same .mco"

# Another seed must not equal the reference: the checks above would then
# be blind.
# shellcheck disable=SC2086
"$tmcml" run "$ex/skin7_600nm.mci" -N 3000000 -S 10 $common --gpus 0,0 -o "$work/seed10" ||
    fail "seed 10 run failed"
cmp -s "$(ls "$work/seed10"/*.mco)" "$(ls "$work/ref-skin7_600nm.mci-3000000"/*.mco)" &&
    fail "seed 10 gave seed 9's .mco: the comparison cannot tell runs apart"

# A GPU that does not exist: refused by number, nothing written.
"$tmcml" run "$ex/skin7_600nm.mci" -N 1000 $common --gpus 0,$gpus -o "$work/bad" \
    2>"$work/bad.err" && fail "--gpus 0,$gpus (no such GPU) succeeded"
grep -q "GPU $gpus: no such GPU" "$work/bad.err" || { fail "no message naming GPU $gpus"; cat "$work/bad.err" >&2; }
[ -z "$(ls "$work/bad" 2>/dev/null)" ] || fail "a refused run left files: $(ls "$work/bad")"

echo "test_multi_gpu: $gpus GPUs"
finish test_multi_gpu
