#!/bin/sh
# Carries shipped profiles across a template change that leaves every kernel
# they were tuned for byte for byte the same: for each entry of each profile,
# the kernel of its class and configuration is generated from the templates
# of REV (git show) and from this tree's (both by TMCML, `tmcml gen
# --templates`), and only when every one is identical does the profile get
# this generator's hash.  Identical source, NVRTC version and options give
# the same cubin, so the entry's measurements stand; any difference leaves
# the file as it was and names the entry, which must then be retuned on its
# GPU (CONTRIBUTING.md).
#
# The kernels are compared without their banner's line that names the
# template set's hash (gen/render.c), the one line a template change alters
# in every kernel; it is a comment, which reaches no cubin.  Sources that
# differ otherwise are compiled (NVRTC, `tmcml gen --info`) and their
# cubins compared: a change of comments alone gives the same cubin.
#
# usage: tools/carry_profiles.sh TMCML REV PROFILE.json...
#   TMCML: a build of this tree (its embedded templates are the new ones)
#   REV:   a landed commit whose profiles were current (CI checks that every
#          landed commit's shipped profiles are: tests/test_shipped_profiles.sh)
# Exits 1 when any kernel differs, or a profile is not REV's.
set -u
tmcml=$1 rev=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMCML_PROFILE_DIR="$work/profiles" HOME="$work/home" XDG_DATA_HOME="$work/xdg"

mkdir "$work/old"
git -C "$here" archive "$rev" templates | tar -x -C "$work/old" || exit 1
new_hash=$("$tmcml" profiles list 2>&1 | sed -n 's/^this tmcml: generator \([0-9a-f]\{16\}\).*/\1/p')
[ -n "$new_hash" ] || { echo "$tmcml: no generator hash in 'profiles list'"; exit 1; }

# One MCML input of the class's layers and grid (the optics are any: only
# an entry's "immediate" layers bake them, alike on both sides).
write_input() { # LAYERS NR NZ NA FILE
    {
        echo "1.0"
        echo "1"
        echo "carry.mco A"
        echo "1000"
        echo "0.01 0.01"
        echo "$3 $2 $4"
        echo "$1"
        echo "1.0"
        i=0
        while [ "$i" -lt "$1" ]; do
            echo "1.37 1.0 100.0 0.9 0.1"
            i=$((i + 1))
        done
        echo "1.0"
    } >"$5"
}

# NVRTC 13.0 compiles some sources (the sets' kernel with derivatives and
# absorption) to other cubins in other processes: its vectorizer groups the
# shared-memory loads in an order that follows the process's addresses
# (the same FMAs in the same order, loads of other widths; measured with
# `tmcml gen --jacobian --info` on skin: five processes, five cubins, and
# five identical with address randomization off).  So the compiles run
# with it off where setarch can (Linux), and one source gives one cubin.
fixed_layout() {
    if setarch "$(uname -m)" -R true 2>/dev/null; then
        setarch "$(uname -m)" -R "$@"
    else
        "$@"
    fi
}

# Whether the two sources of the entry (gen's last calls: the same options
# with --info) compile to the same cubin: a difference in comments alone
# reaches no instruction (-lineinfo keeps line numbers, which such a change
# must keep too).  Needs NVRTC; without it, no.
same_cubin() {
    for side in old new; do
        dir=""
        [ "$side" = old ] && dir="--templates $work/old/templates"
        # shellcheck disable=SC2086 # word lists
        fixed_layout "$tmcml" gen "$work/in.mci" $flag $dir --no-profile --arch "sm_$arch" \
            --tile "$tile" --entry "$entry" --block "$block" --min-blocks "$minb" \
            --layers "$place" --last-bin "$last" --edge-cache "$edge" --cluster "$cluster" \
            --cache "$work/cache-$side" --info -o "$work/$side.cu" >/dev/null 2>&1 || return 1
        set -- "$work/cache-$side"/*.cubin
        [ -f "$1" ] && cp "$1" "$work/$side.cubin" || return 1
    done
    cmp -s "$work/old.cubin" "$work/new.cubin"
}

status=0
for profile in "$@"; do
    arch=$(basename "$profile" .json | sed -n 's/.*\.sm_\([0-9]*\)$/\1/p')
    # One line an entry: layers nr nz na A tile entry block min_blocks layers last edge cluster
    python3 - "$profile" >"$work/entries" <<'EOF' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
print(p["toolchain"]["generator"])
for e in p["entries"]:
    c, k = e["class"], e["config"]
    extra = sorted(set(c) - {"num_layers", "nr", "nz", "na", "score_absorption"})
    if extra:
        sys.exit("%s: a class with %s: not carried by this tool" % (sys.argv[1], extra))
    print(c["num_layers"], c["nr"], c["nz"], c["na"], int(c["score_absorption"]),
          "%dx%d" % (k["tile_nr"], k["tile_nz"]), k["entry_bits"], k["block_size"],
          k["min_blocks_per_sm"], k["layer_placement"], "on" if k["last_bin_cache"] else "off",
          "on" if k["edge_cache"] else "off", k["cluster_size"])
EOF
    # The generator REV's copy of the file names: current when REV landed.
    named=$(head -n 1 "$work/entries")
    old_hash=$(git -C "$here" show "$rev:profiles/$(basename "$profile")" |
        sed -n 's/.*"generator":[[:space:]]*"\([0-9a-f]\{16\}\)".*/\1/p')
    if [ "$named" != "$old_hash" ]; then
        echo "$profile: generator $named, not that of $rev's copy ($old_hash): not carried"
        status=1
        continue
    fi
    same=1
    n=0
    tail -n +2 "$work/entries" >"$work/rows"
    while read -r layers nr nz na a tile entry block minb place last edge cluster; do
        n=$((n + 1))
        write_input "$layers" "$nr" "$nz" "$na" "$work/in.mci"
        flag=""
        [ "$a" = 0 ] && flag="-A"
        what="L$layers ${nr}x${nz}x${na}${flag:+ -A}"
        for side in old new; do
            dir=""
            [ "$side" = old ] && dir="--templates $work/old/templates"
            rm -rf "$work/cache-$side"
            # shellcheck disable=SC2086 # word lists
            "$tmcml" gen "$work/in.mci" $flag $dir --no-profile --arch "sm_$arch" --tile "$tile" \
                --entry "$entry" --block "$block" --min-blocks "$minb" --layers "$place" \
                --last-bin "$last" --edge-cache "$edge" --cluster "$cluster" \
                -o "$work/$side.cu" >/dev/null 2>"$work/$side.err" || {
                echo "$profile: entry $n: tmcml gen failed:"
                cat "$work/$side.err"
                exit 1
            }
            grep -v '^ \*   generator: ' "$work/$side.cu" >"$work/$side.body"
        done
        if cmp -s "$work/old.body" "$work/new.body"; then
            echo "$profile: entry $n ($what): the same kernel"
        elif same_cubin; then
            echo "$profile: entry $n ($what): another source (comments), the same cubin"
        else
            echo "$profile: entry $n ($what): the kernel differs: retune it"
            same=0
        fi
    done <"$work/rows"
    if [ "$same" = 1 ]; then
        sed "s/\"generator\":[[:space:]]*\"$old_hash\"/\"generator\":\t\"$new_hash\"/" "$profile" \
            >"$work/carried.json" && cat "$work/carried.json" >"$profile"
        echo "$profile: $n entries, every kernel the same: carried to generator $new_hash"
    else
        status=1
    fi
done
exit "$status"
