#!/bin/sh
# Two builds of tmcml, the same results: runs each case with both binaries
# (same seed, photons and kernel options) and compares the .mco files byte
# for byte and the JSON tallies digests.  For refactorings that must not
# change behaviour.
#
# usage: tools/compare_builds.sh OLD_TMCML NEW_TMCML EXAMPLES_DIR [ENGINES]
#   ENGINES: "cpu gpu" (default), "cpu" or "gpu"
# Prints one line per case and engine; exits 1 when any case differs.
set -u
old=$1 new=$2 ex=$3
engines=${4:-cpu gpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMCML_PROFILE_DIR="$work/profiles" HOME="$work/home" XDG_DATA_HOME="$work/xdg"

# name | input | photons (cpu) | photons (gpu) | options
cases="skin|skin7_600nm.mci|20000|3000000|
skin_A|skin7_600nm.mci|20000|3000000|-A
example|mcml_example.mci|50000|5000000|
vanhulst|vanhulst_slab.mci|200000|20000000|
intralipid|intralipid_slab.mci|2000|200000|
skin_seed7_no_tile|skin7_600nm.mci|20000|2000000|-S 7 --tile 0x0"

json() { sed -n "s/.*\"$2\":[[:space:]]*\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }
field() { printf '%s\n' "$1" | cut -d'|' -f"$2"; }
differ=0
for engine in $engines; do
    printf '%s\n' "$cases" | while IFS= read -r line; do
        name=$(field "$line" 1)
        n=$(field "$line" 3)
        [ "$engine" = gpu ] && n=$(field "$line" 4)
        opts=$(field "$line" 5)
        [ "$engine" = cpu ] && case $opts in *--tile*) continue ;; esac
        for b in old new; do
            bin=$old
            [ "$b" = new ] && bin=$new
            # shellcheck disable=SC2086 # the options are a word list
            "$bin" run "$ex/$(field "$line" 2)" -N "$n" $opts --engine "$engine" --tune never \
                --no-profile -q --cache "$work/cache-$b" -o "$work/$b/$engine/$name" \
                >"$work/$b-$engine-$name.log" 2>&1 || {
                echo "FAILED: $engine $name: the $b build failed"; cat "$work/$b-$engine-$name.log"
                exit 1
            }
        done
        mco=$(cd "$work/old/$engine/$name" && ls ./*.mco)
        j=${mco%.mco}.json
        d_old=$(json "$work/old/$engine/$name/$j" tallies_digest)
        d_new=$(json "$work/new/$engine/$name/$j" tallies_digest)
        if cmp -s "$work/old/$engine/$name/$mco" "$work/new/$engine/$name/$mco" && [ "$d_old" = "$d_new" ]; then
            echo "same: $engine $name ($n photons): .mco identical, $d_new"
        else
            echo "DIFFERENT: $engine $name: digests $d_old / $d_new"
            exit 1
        fi
    done || differ=1
done
[ "$differ" -eq 0 ] && echo "compare_builds: every case identical"
exit "$differ"
