#!/bin/sh
# `tmcml profiles list|show|check` on fixture directories: exit codes and the
# lines a user reads.  Usage: test_profiles_cli.sh TMCML SHIPPED_DIR
# (SHIPPED_DIR: the source tree's profiles/, last on the search path: its
# files are counted by `check` too.)
# HOME and XDG_DATA_HOME point into a temporary directory, so the user's own
# profiles are never read.
set -u
tmcml=$1
shipped=$(ls "${2:-/nonexistent}"/*.json 2>/dev/null | wc -l)
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"
unset XDG_DATA_HOME TMCML_PROFILE_DIR

lacks() {
    check
    grep -q -- "$2" "$work/out" && { fail "$1: output has '$2'"; cat "$work/out" >&2; }
    return 0
}

# This program's toolchain, as `profiles list` reports it.
expect 0 "list, nothing there" -- "$tmcml" profiles list
contains "list, nothing there" "this tmcml: generator "
contains "list, nothing there" "user: $HOME/.local/share/tmcml/profiles (no such directory)"
contains "list, nothing there" "shipped: "
generator=$(sed -n 's/^this tmcml: generator \([0-9a-f]*\),.*/\1/p' "$work/out")
nvrtc=$(sed -n 's/^this tmcml: generator [0-9a-f]*, NVRTC \([0-9.]*\)$/\1/p' "$work/out")
check; [ ${#generator} -eq 16 ] || fail "no generator hash in: $(head -1 "$work/out")"
if [ -n "$nvrtc" ]; then
    file_nvrtc=$nvrtc; current="current"
else
    file_nvrtc="13.0"; current="toolchain unknown (no NVRTC)"
fi

# profile NAME CC_MAJOR GENERATOR NVRTC ENTRIES...: a profile file's text.
profile() {
    printf '{\n"format": 1,\n"device": {"name": "%s", "cc_major": %s, "cc_minor": 0,\n' "$1" "$2"
    printf '  "sm_count": 132, "shared_per_block_optin": 232448, "driver_version": 13000},\n'
    printf '"toolchain": {"nvrtc_version": "%s", "generator": "%s"},\n"entries": [' "$4" "$3"
    shift 4
    sep=""
    for e in "$@"; do printf '%s\n%s' "$sep" "$e"; sep=","; done
    printf '\n]\n}\n'
}
# entry LAYERS NR NZ A BLOCK: one entry, 1.5x the heuristic.
entry() {
    printf '{"class": {"num_layers": %s, "nr": %s, "nz": %s, "na": 30,' "$1" "$2" "$3"
    printf ' "score_absorption": %s},\n' "$4"
    printf ' "config": {"tile_nr": 48, "tile_nz": 128, "entry_bits": 32, "block_size": %s,\n' "$5"
    printf '   "min_blocks_per_sm": 2, "layer_placement": "shared", "last_bin_cache": true},\n'
    printf ' "photons_per_second": 15000000, "steps_per_second": 9.2e9,\n'
    printf ' "heuristic_photons_per_second": 10000000, "pilot_photons": 1000000,\n'
    printf ' "candidates": 48, "tuning_seconds": 61.2, "date": "2026-11-22T10:00:00Z"}'
}

a="$work/a"
mkdir -p "$a"
profile "Test GPU X" 9 "$generator" "$file_nvrtc" "$(entry 7 500 200 true 256)" \
    "$(entry 7 500 200 false 128)" >"$a/Test_GPU_X.sm_90.json"
profile "Old GPU" 8 "0000000000000000" "$file_nvrtc" "$(entry 3 200 300 true 64)" \
    >"$a/Old_GPU.sm_80.json"
profile "Broken GPU" 9 "$generator" "$file_nvrtc" "$(entry 7 500 200 true 100)" \
    >"$a/Broken_GPU.sm_90.json"
head -c 150 "$a/Test_GPU_X.sm_90.json" >"$a/Cut_GPU.sm_90.json"
touch "$a/Test_GPU_X.sm_90.json.lock"   # a store's lock file: not a profile

# list
expect 0 "list" -- "$tmcml" profiles list --profiles "$a"
contains "list" "--profiles: $a (4 profile files)"
contains "list" "$a/Test_GPU_X.sm_90.json  Test GPU X  sm_90  2 entries  $current"
contains "list" \
    "$a/Old_GPU.sm_80.json  Old GPU  sm_80  1 entry  stale: generator 0000000000000000 (this tmcml: $generator)"
contains "list" \
    "Broken_GPU.sm_90.json  corrupt: entries\[0\].config.block_size: 100: must be 32..1024"
contains "list" "Cut_GPU.sm_90.json  corrupt: line [0-9]*: not valid JSON"
lacks "list" "json\.lock"
expect 0 "list from the environment" -- env TMCML_PROFILE_DIR="$a" "$tmcml" profiles list
contains "list from the environment" "\$TMCML_PROFILE_DIR: $a (4 profile files)"
expect 0 "list, XDG" -- env XDG_DATA_HOME="$work/xdg" "$tmcml" profiles list
contains "list, XDG" "user: $work/xdg/tmcml/profiles"

# show: by device name (any part, any case), by file
expect 0 "show by name" -- "$tmcml" profiles show "test gpu x" --profiles "$a"
contains "show by name" "device: Test GPU X, sm_90, 132 SMs"
contains "show by name" "photons/s"
contains "show by name" \
    "L7 500x200x30 .*48x128 .*32 .*256 .*2 .*shared .*on .*1.5e+07 .*1.50x  2026-11-22T10:00:00Z"
contains "show by name" "L7 500x200x30 -A"
expect 0 "show by file" -- "$tmcml" profiles show "$a/Test_GPU_X.sm_90.json"
contains "show by file" "L7 500x200x30 -A "
expect 0 "show by part of the name" -- env TMCML_PROFILE_DIR="$a" "$tmcml" profiles show old
contains "show by part of the name" "Old GPU"
contains "show by part of the name" "L3 200x300x30"
expect 2 "show, no match" -- "$tmcml" profiles show "No Such GPU" --profiles "$a"
contains "show, no match" "no profile file or device matches \"No Such GPU\""
expect 1 "show corrupt" -- "$tmcml" profiles show "$a/Broken_GPU.sm_90.json"
contains "show corrupt" "corrupt: entries\[0\].config.block_size"

# check: corrupt files give exit 1; stale ones are reported, not errors
expect 1 "check" -- "$tmcml" profiles check --profiles "$a"
contains "check" "$a/Broken_GPU.sm_90.json: corrupt: entries\[0\].config.block_size: 100"
contains "check" "$a/Cut_GPU.sm_90.json: corrupt: line"
contains "check" "$a/Old_GPU.sm_80.json: stale: generator 0000000000000000"
contains "check" "$a/Test_GPU_X.sm_90.json: ok, 2 entries"
# (The shipped profiles are on the path too; whether they are current is the
# shipped_profiles test's question, not this one's.)
contains "check" "$((4 + shipped)) profile files: .* 2 corrupt or unreadable"
expect 1 "check from the environment" -- env TMCML_PROFILE_DIR="$a" "$tmcml" profiles check
expect 0 "check one good file" -- "$tmcml" profiles check "$a/Test_GPU_X.sm_90.json"
contains "check one good file" "1 profile file: "
expect 0 "check a stale file" -- "$tmcml" profiles check "$a/Old_GPU.sm_80.json"
expect 1 "check a missing file" -- "$tmcml" profiles check "$a/none.json"
contains "check a missing file" "unreadable: No such file or directory"
b="$work/b"
mkdir -p "$b"
cp "$a/Test_GPU_X.sm_90.json" "$b/Renamed.sm_90.json"
expect 0 "check a renamed file" -- "$tmcml" profiles check --profiles "$b"
contains "check a renamed file" "warning: its device's profiles are named Test_GPU_X.sm_90.json"

# A directory other users can write is not read (as ssh refuses such a
# ~/.ssh): list says so naming it and its mode, check counts it, show skips it.
g="$work/g"
mkdir -p "$g"
cp "$a/Test_GPU_X.sm_90.json" "$g/"
chmod 775 "$g"
expect 0 "list, group-writable" -- "$tmcml" profiles list --profiles "$g"
contains "list, group-writable" "--profiles: $g (not read: $g: writable by its group (mode 0775, not sticky)"
lacks "list, group-writable" "Test_GPU_X.sm_90.json  Test GPU X"
expect 1 "check, group-writable" -- "$tmcml" profiles check --profiles "$g"
contains "check, group-writable" "$g: not read: $g: writable by its group (mode 0775"
expect 2 "show, group-writable" -- "$tmcml" profiles show "test gpu x" --profiles "$g"
contains "show, group-writable" "profiles in $g not read"
chmod 755 "$g"
expect 0 "show, private again" -- "$tmcml" profiles show "test gpu x" --profiles "$g"

# A shared profile whose device name holds a terminal escape (it would
# retitle the terminal): shown escaped, the bytes never printed raw.
ev="$work/evil"
mkdir -p "$ev"
profile 'Evil\u001b]0;pwned\u0007 GPU' 9 "$generator" "$file_nvrtc" "$(entry 7 500 200 true 256)" \
    >"$ev/Evil_GPU.sm_90.json"
esc=$(printf '\033')
bel=$(printf '\007')
for action in list check "show evil"; do
    # shellcheck disable=SC2086 # the action's words
    expect 0 "escape, $action" -- "$tmcml" profiles $action --profiles "$ev"
    contains "escape, $action" 'Evil\\x1b]0;pwned\\x07 GPU'
    lacks "escape, $action" "$esc"
    lacks "escape, $action" "$bel"
done

# the command line
expect 0 "help" -- "$tmcml" profiles --help
contains "help" "usage: tmcml profiles list"
expect 0 "main help" -- "$tmcml" --help
contains "main help" "tmcml profiles list|show|check"
expect 2 "no action" -- "$tmcml" profiles
contains "no action" "expected list, show or check"
expect 2 "bad action" -- "$tmcml" profiles frob
contains "bad action" "unknown action \"frob\""
expect 2 "bad option" -- "$tmcml" profiles list --bogus
expect 2 "no directory" -- "$tmcml" profiles list --profiles
expect 2 "show without a name" -- "$tmcml" profiles show

finish test_profiles_cli
