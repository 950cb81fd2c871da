#!/bin/sh
# A shared GPU must not change a result (docs/design.md, "Sharing a GPU").  Several
# tmcml processes, each with its own input, kernel variant, seed and split of
# the photon range into launches, run at once on one GPU; every one of them
# must write the tallies (JSON tallies_digest) and the .mco file of its solo
# run, bit for bit.  Exit 77 (skipped) without a GPU.
#
# usage: test_gpu_stress.sh TMCML EXAMPLES_DIR [SECONDS] [ROUNDS]
#   SECONDS  GPU time of one concurrent round: the solo run times of its
#            cases add up to about this (default 24)
#   ROUNDS   concurrent rounds (default 2)
set -u
tmcml=$1
ex=$2
target=${3:-24}
rounds=${4:-2}
if ! "$tmcml" devices >/dev/null 2>&1; then
    echo "test_gpu_stress: no usable GPU (tmcml devices failed): skipped"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export TMCML_PROFILE_DIR="$dir/profiles" HOME="$dir/home" XDG_DATA_HOME="$dir/xdg"
common="--engine gpu --tune never --no-profile -q --cache $dir/cache"

# name | input | seed | launches | pilot photons | variant options
cases="skin_heuristic|skin7_600nm.mci|11|8|20000000|
skin_A_untiled|skin7_600nm.mci|12|3|20000000|-A --tile 0x0 --block 512
skin_e64_one_launch|skin7_600nm.mci|13|1|20000000|--tile 48x128 --entry 64 --layers constant
slab_small_tile|intralipid_slab.mci|14|5|2000000|--tile 16x16 --entry 32 --block 128
vanhulst_last_bin|vanhulst_slab.mci|15|10|100000000|--layers shared --last-bin on
example_many_launches|mcml_example.mci|16|25|20000000|--tile 50x20 --block 256 --min-blocks 4"
count=$(printf '%s\n' "$cases" | wc -l)

json() { sed -n "s/.*\"$2\":[[:space:]]*\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }
field() { printf '%s\n' "$1" | cut -d'|' -f"$2"; }

# run_case NAME OUTDIR PHOTONS: one tmcml run of case NAME.
run_case() {
    line=$(printf '%s\n' "$cases" | grep "^$1|")
    n=$3
    launches=$(field "$line" 4)
    per_launch=$(( (n + launches - 1) / launches ))
    mkdir -p "$(dirname "$2")"
    # shellcheck disable=SC2046 # the variant options are a word list
    "$tmcml" run "$ex/$(field "$line" 2)" -S "$(field "$line" 3)" -N "$n" \
        --launch-photons "$per_launch" $(field "$line" 6) $common -o "$2" \
        >"$2.log" 2>&1
}

names=$(printf '%s\n' "$cases" | cut -d'|' -f1)
failures=0
passed=0

echo "== pilot: photons/s of each case alone (after a warm-up that compiles it)"
total_photons_s=""
for name in $names; do
    line=$(printf '%s\n' "$cases" | grep "^$name|")
    pilot=$(field "$line" 5)
    run_case "$name" "$dir/warm/$name" 1000 && run_case "$name" "$dir/pilot/$name" "$pilot" || {
        echo "FAILED: $name: the pilot run failed"; cat "$dir/pilot/$name.log" "$dir/warm/$name.log"
        exit 1
    }
    rate=$(json "$(ls "$dir/pilot/$name"/*.json)" photons_per_second)
    # Photons for target / count seconds of this case alone.
    n=$(awk "BEGIN{printf \"%.0f\", $rate * $target / $count}")
    echo "$name: $rate photons/s -> $n photons"
    total_photons_s="$total_photons_s $name=$n"
done
photons_of() { printf '%s\n' $total_photons_s | sed -n "s/^$1=//p"; }

# The solo runs, rescaled once when the pilots' rates (which include each
# launch's ramp-up and tail) made them add up to less than the target.
solo_runs() {
    echo "== solo: each case alone"
    solo_seconds=0
    for name in $names; do
        rm -rf "$dir/solo/$name"
        run_case "$name" "$dir/solo/$name" "$(photons_of "$name")" || {
            echo "FAILED: $name: the solo run failed"; cat "$dir/solo/$name.log"; exit 1
        }
        j=$(ls "$dir/solo/$name"/*.json)
        s=$(json "$j" wall_seconds)
        solo_seconds=$(awk "BEGIN{print $solo_seconds + $s}")
        echo "$name: $(photons_of "$name") photons in $s s, $(json "$j" tallies_digest)"
    done
    echo "solo runs together: $solo_seconds s of GPU time per concurrent round"
}
solo_runs
if awk "BEGIN{exit !($solo_seconds < 0.9 * $target)}"; then
    f=$(awk "BEGIN{print 1.1 * $target / $solo_seconds}")
    scaled=""
    for name in $names; do
        scaled="$scaled $name=$(awk "BEGIN{printf \"%.0f\", $(photons_of "$name") * $f}")"
    done
    total_photons_s=$scaled
    echo "(short of $target s: every case scaled by $f)"
    solo_runs
fi

round=1
while [ "$round" -le "$rounds" ]; do
    echo "== round $round: $count processes at once"
    t0=$(date +%s.%N)
    pids=""
    for name in $names; do
        run_case "$name" "$dir/r$round/$name" "$(photons_of "$name")" &
        pids="$pids $!"
    done
    rc_all=0
    for p in $pids; do wait "$p" || rc_all=1; done
    t1=$(date +%s.%N)
    echo "round $round: $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s wall"
    [ "$rc_all" -eq 0 ] || { echo "FAILED: a process of round $round exited non-zero"; failures=$((failures + 1)); }
    for name in $names; do
        d=$dir/r$round/$name
        j=$(ls "$d"/*.json 2>/dev/null | head -n 1)
        got=$( [ -n "$j" ] && json "$j" tallies_digest)
        want=$(json "$(ls "$dir/solo/$name"/*.json)" tallies_digest)
        mco=$(cd "$dir/solo/$name" && ls ./*.mco)
        if [ "$got" = "$want" ] && cmp -s "$d/$mco" "$dir/solo/$name/$mco"; then
            echo "ok: $name: tallies and .mco identical to the solo run"
            passed=$((passed + 1))
        else
            echo "FAILED: $name: tallies ${got:-(none)} differ from the solo run's $want"
            solo=$(ls "$dir/solo/$name"/*.json)
            for q in Rd A Tt; do
                [ -n "$j" ] && echo "    $q $(json "$j" $q), solo $(json "$solo" $q)"
            done
            cat "$d.log"
            failures=$((failures + 1))
        fi
    done
    round=$((round + 1))
done

echo "$passed passed, $failures failed"
[ "$failures" -eq 0 ]
