#!/bin/sh
# The command line as a user meets it: outputs, exit codes, messages,
# reproducibility.  Usage: test_cli.sh TMCML DATA_DIR
set -u
tmcml=$1
data=$2
. "$(dirname "$0")/lib.sh"

example=$data/reference/mcml_example.mci

expect 0 "help" -- "$tmcml" --help
contains "help" "usage: tmcml run"
expect 0 "version" -- "$tmcml" --version
contains "version" "tmcml "

# A run writes the .mco named in the .mci and a JSON summary beside it.
# The runs compared with it are the CPU engine's (on a GPU machine auto
# would take the GPU for some).
expect 0 "run" -- "$tmcml" run "$example" -N 3000 -o "$work/a" --threads 1 --engine cpu
check; [ -s "$work/a/example.mco" ] || fail "run: no example.mco"
check; [ -s "$work/a/example.json" ] || fail "run: no example.json"
check; grep -q '^3000 ' "$work/a/example.mco" || fail "run: photon count not in InParm"

# Same seed: identical files, whatever the thread count.
expect 0 "rerun" -- "$tmcml" run "$example" -N 3000 -o "$work/b" --threads 2 --quiet --engine cpu
check; cmp -s "$work/a/example.mco" "$work/b/example.mco" || fail "same seed, other threads: files differ"
# The JSON's tallies digest is the same too, and another seed changes it.
digest() { sed -n 's/.*"tallies_digest":[[:space:]]*"\(fnv1a64:[0-9a-f]\{16\}\)".*/\1/p' "$1"; }
check; [ -n "$(digest "$work/a/example.json")" ] || fail "run: no tallies_digest in the JSON"
check; [ "$(digest "$work/a/example.json")" = "$(digest "$work/b/example.json")" ] ||
    fail "same seed, other threads: tallies digests differ"
# The classic form with an attached seed equals the long form.
expect 0 "classic" -- "$tmcml" "$example" -N3000 -S1 -o "$work/c" -q --engine cpu
check; cmp -s "$work/a/example.mco" "$work/c/example.mco" || fail "classic form differs"
expect 0 "seed 2" -- "$tmcml" "$example" -N3000 -S 2 -o "$work/d" -q --engine cpu
check; cmp -s "$work/a/example.mco" "$work/d/example.mco" && fail "other seed: same file"
check; [ "$(digest "$work/a/example.json")" = "$(digest "$work/d/example.json")" ] &&
    fail "other seed: same tallies digest"
# --launch-photons splits GPU launches only: the CPU engine's files are unchanged.
expect 0 "launch photons" -- "$tmcml" run "$example" -N 3000 -o "$work/lp" -q --engine cpu --launch-photons 7
check; cmp -s "$work/a/example.mco" "$work/lp/example.mco" || fail "--launch-photons changed a CPU run"
expect 2 "launch photons 0" -- "$tmcml" run "$example" --launch-photons 0
contains "launch photons 0" "--launch-photons: expected a whole number from 1 to 4294967296"

# -A: absorption arrays written as zeros, reflectance unchanged.
expect 0 "-A" -- "$tmcml" "$example" -N3000 -A -o "$work/e" -q --engine cpu
check; awk '/^A_rz/{f=1;next} /^#/{f=0} f&&NF' "$work/e/example.mco" | tr -s ' ' '\n' |
    grep -v -e '^$' -e '^0.0000E+00$' | grep -q . && fail "-A: nonzero A_rz"
check; [ "$(grep 'Diffuse reflectance' "$work/a/example.mco")" = "$(grep 'Diffuse reflectance' "$work/e/example.mco")" ] ||
    fail "-A changed Rd"

# Errors: exit status 2 and a message naming the problem.
expect 2 "no input" -- "$tmcml" run
contains "no input" "no input file"
# An output name of 250 bytes (the temp file's suffix must not push it past
# the file system's 255-byte limit).
long=$(printf 'n%.0s' $(seq 246)).mco
sed "s/^example.mco/$long/" "$example" >"$work/long.mci"
expect 0 "250-byte output name" -- "$tmcml" run "$work/long.mci" -N 200 -o "$work/long" -q
check; [ -s "$work/long/$long" ] || fail "250-byte output name: not written"
# Control bytes in what the user gave never reach the terminal raw.
printf '1.0\n1\nx.mco A\n12\033[31mred\n' >"$work/esc.mci"
expect 2 "escape in a token" -- "$tmcml" run "$work/esc.mci" -o "$work/esc"
contains "escape in a token" "esc.mci:4:"
check; grep -q "$(printf '\033')" "$work/out" && fail "escape in a token: the ESC byte was echoed"
# An output name that would retitle the terminal: the run's report shows it
# escaped (whether or not such a name is accepted).
printf '1.0\n1\nx\033]0;pwned\007.mco A\n200\n0.01 0.01\n10 10 10\n1\n1.0\n1.37 1 100 0.9 0.1\n1.0\n' \
    >"$work/title.mci"
"$tmcml" run "$work/title.mci" -o "$work/title" --engine cpu >"$work/out" 2>&1
check; grep -q "$(printf '\033')" "$work/out" && fail "escape in an output name: the ESC byte was printed"
check; grep -q "$(printf '\007')" "$work/out" && fail "escape in an output name: the BEL byte was printed"
# Numbers: a leading blank does not hide a minus sign.
expect 2 "seed ' -1'" -- "$tmcml" run "$example" -S " -1"
contains "seed ' -1'" "seed: expected a whole number"
expect 2 "photons ' -5'" -- "$tmcml" run "$example" -N " -5"
contains "photons ' -5'" "--photons: expected a whole number"
# Counts as Python writes them (issue 47): 2e3, 2_000 and 2000 are one run,
# byte for byte; a fraction, hexadecimal and stray underscores are refused.
for n in 2000 2e3 2_000 0.2e4; do
    expect 0 "-N $n" -- "$tmcml" run "$example" -N "$n" -S 3 -q --engine cpu -o "$work/count_$n"
    check; cmp -s "$work/count_$n/example.mco" "$work/count_2000/example.mco" ||
        fail "-N $n: another .mco than -N 2000's"
done
for n in 1.5 1e-3 0x10 1__0 _1 2_ 2e3x; do
    expect 2 "-N $n" -- "$tmcml" run "$example" -N "$n" -q --engine cpu -o "$work/count_bad"
    contains "-N $n" "--photons: expected a whole number from 1 to"
done
expect 0 "-S 1e3" -- "$tmcml" run "$example" -N 1000 -S 1e3 -q --engine cpu -o "$work/seed_e"
expect 0 "-S 1000" -- "$tmcml" run "$example" -N 1000 -S 1000 -q --engine cpu -o "$work/seed_d"
check; cmp -s "$work/seed_e/example.mco" "$work/seed_d/example.mco" || fail "-S 1e3 is not -S 1000"
# An option given twice with different values is refused (issue 47: the
# last silently won), whatever its spelling; the same value twice, or a
# flag twice, is taken.  A repeatable option (--detector) adds one each
# time instead (tests/test_detectors_cli.sh).
expect 2 "-S twice" -- "$tmcml" run "$example" -N 100 -S 1 -S 2 -q --engine cpu -o "$work/twice"
contains "-S twice" '--seed given twice, with different values ("1", then "2"): give it once'
expect 2 "-N and --photons" -- "$tmcml" run "$example" -N 100 --photons 200 -q --engine cpu \
    -o "$work/twice"
contains "-N and --photons" "--photons given twice"
expect 2 "--time twice" -- "$tmcml" run "$example" -N 100 -q --engine cpu -o "$work/twice" \
    --time 0.01:10 --time=0.02:10
contains "--time twice" '--time given twice, with different values ("0.01:10", then "0.02:10")'
check; [ ! -e "$work/twice" ] || fail "an option given twice: files written"
expect 0 "same twice" -- "$tmcml" run "$example" -N 100 -S 3 -S3 --seed 3 -q -q --engine cpu \
    -o "$work/same"
# An option of the other engine is noted (the run goes on); with --engine
# auto, which takes either, nothing is said.
expect 0 "one engine's" -- "$tmcml" run "$example" -N 100 --engine cpu --gpu-chunk 5 \
    --launch-photons=1e6 --threads 1 -q -o "$work/one_engine"
contains "one engine's" "note: --gpu-chunk is the GPU engine's; --engine cpu makes no use of it"
contains "one engine's" "note: --launch-photons is the GPU engine's"
check; ! grep -q "threads" "$work/out" || fail "one engine's: --threads noted on the CPU engine"
expect 0 "auto, either engine" -- "$tmcml" run "$example" -N 100 --gpu-chunk 5 --threads 1 -q \
    -o "$work/either_engine"
check; ! grep -q "note:" "$work/out" || fail "auto, either engine: noted $(cat "$work/out")"
# Options with a value take it as the next word or after '=' alike.
expect 0 "--profiles=DIR" -- "$tmcml" gen "$example" --profiles="$work/nowhere" -o "$work/eq.cu"
expect 2 "--profiles= empty" -- "$tmcml" gen "$example" --profiles=
contains "--profiles= empty" "--profiles: expected a value (--profiles DIR)"
expect 2 "unknown option" -- "$tmcml" run "$example" --bogus
contains "unknown option" "unknown option \"--bogus\""
# A misspelt option or command is named with the nearest real one; a bare
# tmcml shows the usage; --threads 0 is every core, as in the library.
expect 2 "misspelt option" -- "$tmcml" run "$example" --seeed 3
contains "misspelt option" "did you mean --seed?"
expect 2 "swapped letters" -- "$tmcml" run "$example" --nzp
contains "swapped letters" "did you mean --npz?"
expect 2 "misspelt variant option" -- "$tmcml" gen "$example" --tiel 8x8
contains "misspelt variant option" "did you mean --tile?"
expect 2 "misspelt command" -- "$tmcml" rn "$example"
contains "misspelt command" "unknown command \"rn\": did you mean \"tmcml run\"?"
expect 2 "command prefix" -- "$tmcml" tun "$example"
contains "command prefix" "did you mean \"tmcml tune\"?"
expect 2 "no command" -- "$tmcml" fluence "$example"
contains "no command" "unknown command \"fluence\" (commands: run, gen"
expect 2 "bare tmcml" -- "$tmcml"
contains "bare tmcml" "usage: tmcml run FILE.mci"
expect 0 "threads 0" -- "$tmcml" run "$example" -N 3000 -o "$work/t0" --threads 0 -q --engine cpu
check; cmp -s "$work/a/example.mco" "$work/t0/example.mco" || fail "--threads 0: another file"
printf 'mcmli2.0\n' >"$work/mcml2.mci"
expect 2 "MCML 2.0 input" -- "$tmcml" run "$work/mcml2.mci"
contains "MCML 2.0 input" "mcml2.mci:1: an MCML 2.0 input file"
expect 2 "missing file" -- "$tmcml" run "$work/none.mci"
contains "missing file" "none.mci"
if ! "$tmcml" devices >/dev/null 2>&1; then
    expect 2 "gpu engine" -- "$tmcml" run "$example" --engine gpu
    contains "gpu engine" "no usable GPU"
fi
printf '1.0\n1\nx.mco A\n-5\n' >"$work/bad.mci"
expect 2 "bad input" -- "$tmcml" run "$work/bad.mci" -o "$work/f"
contains "bad input" "bad.mci:4:"
check; [ -e "$work/f/x.mco" ] && fail "bad input: output written"
: >"$work/file"
expect 2 "unwritable output" -- "$tmcml" run "$example" -N 100 -o "$work/file/sub"
contains "unwritable output" "$work/file"

# Every output location is checked before anything is simulated: run 2's
# output name is an existing directory, so nothing runs and nothing is written.
mkdir -p "$work/g/two.mco"
sed -e 's/^1[[:space:]]*# number of runs/3 # number of runs/' "$example" >"$work/multi.mci"
check; grep -q '^3 # number of runs' "$work/multi.mci" || fail "multi: could not build the file"
# Append runs 2 and 3 (the example's run block, renamed).
sed -n '/^example.mco/,$p' "$example" | sed 's/^example.mco/two.mco/' >>"$work/multi.mci"
sed -n '/^example.mco/,$p' "$example" | sed 's/^example.mco/three.mco/' >>"$work/multi.mci"
expect 2 "directory as output" -- "$tmcml" run "$work/multi.mci" -N 500 -o "$work/g" -q
contains "directory as output" "two.mco: is a directory"
check; [ -e "$work/g/example.mco" ] && fail "directory as output: run 1 was simulated anyway"
check; ls -a "$work/g" | grep -q '\.tmp\.' && fail "directory as output: temp file left"

# Output collisions are refused before anything is simulated: two runs that
# would write one file, or a run that would overwrite the input.
two_runs() { # name1 name2: $work/c.mci, the example's run under each name
    sed -n '/^example.mco/,$p' "$example" | sed "s|^example.mco|$2|" >"$work/c2.mci.tail"
    sed -e 's/^1[[:space:]]*# number of runs/2 # number of runs/' -e "s|^example.mco|$1|" \
        "$example" >"$work/c.mci"
    cat "$work/c2.mci.tail" >>"$work/c.mci"
    rm -rf "$work/c"
}
collide() { # name1 name2 description expected-text [options]
    two_runs "$1" "$2"
    what=$3 text=$4
    shift 4
    expect 2 "$what" -- "$tmcml" run "$work/c.mci" -N 200 -o "$work/c" -q "$@"
    contains "$what" "$text"
    check; [ -n "$(ls -A "$work/c" 2>/dev/null)" ] && fail "$what: something was written"
}
collide x x.mco "x and x.mco" "runs 1 and 2 would write the same file"
collide y.mco y.json "y.mco and y.json" "run 1's JSON summary, run 2's .mco"
collide o.mco ./o.mco "o.mco and ./o.mco" "runs 1 and 2 would write the same file"
# --npz: NAME.npz and NAME.partial.npz are checked as the other outputs; without
# --npz they are not written, and the same names run.
collide a.mco a.npz "--npz: a.mco and a.npz" "run 1's .npz, run 2's .mco" --npz
collide b.mco b.partial.npz "--npz: b.mco and b.partial.npz" "run 1's partial .npz, run 2's .mco" \
    --npz
two_runs a.mco a.npz
expect 0 "a.mco and a.npz without --npz" -- "$tmcml" run "$work/c.mci" -N 200 -o "$work/c" -q
check; [ "$(ls "$work/c" | tr '\n' ' ')" = "a.json a.mco a.npz a.npz.json " ] || fail "without --npz: $(ls "$work/c")"
mkdir -p "$work/npzdir/n.npz"
sed 's/^example.mco/n.mco/' "$example" >"$work/n.mci"
expect 2 "--npz onto a directory" -- "$tmcml" run "$work/n.mci" -N 200 -o "$work/npzdir" -q --npz
contains "--npz onto a directory" "n.npz: is a directory"
cp "$example" "$work/self.mci"
sed -i 's/^example.mco/self.mci/' "$work/self.mci"
expect 2 "output over the input" -- "$tmcml" run "$work/self.mci" -N 200 -o "$work" -q
contains "output over the input" "over the input file itself"
check; cmp -s "$work/self.mci" "$example" && fail "output over the input: the input was not the renamed copy"
check; grep -q '^self.mci' "$work/self.mci" || fail "output over the input: the input was overwritten"

# What stands at an output's path (docs/outputs.md): a character device or a
# FIFO is written through and stays what it was (as root, a temp file renamed
# over `-o /dev/null` made /dev/null a regular file); a symbolic link is
# followed and stays a link; a link to nothing is refused before anything
# runs.  Private device nodes, never the real /dev/null.
if mknod "$work/null" c 1 3 2>/dev/null && : >"$work/null" 2>/dev/null; then
    expect 0 "gen -o device" -- "$tmcml" gen "$example" -o "$work/null"
    check; [ -c "$work/null" ] || fail "gen -o device: the device node was replaced by a file"
    mkdir "$work/dev" && mknod "$work/dev/null" c 1 3
    sed 's/^example.mco/null/' "$example" >"$work/null.mci"
    expect 0 "run into a device" -- "$tmcml" run "$work/null.mci" -N 200 -o "$work/dev" -q
    check; [ -c "$work/dev/null" ] || fail "run into a device: the device node was replaced"
else
    echo "cli: no device-node cases (mknod refused: not root, or $work is on a nodev mount)"
fi
mkdir "$work/fifo" && mkfifo "$work/fifo/example.mco"
timeout 60 cat "$work/fifo/example.mco" >"$work/fifo.out" &
reader=$!
expect 0 "run into a FIFO" -- "$tmcml" run "$example" -N 3000 --threads 1 -o "$work/fifo" -q --engine cpu
wait $reader
check; [ -p "$work/fifo/example.mco" ] || fail "run into a FIFO: the FIFO was replaced"
check; cmp -s "$work/a/example.mco" "$work/fifo.out" || fail "run into a FIFO: the reader got another file"
mkdir "$work/keep" "$work/ln" && : >"$work/keep/example.mco"
ln -s ../keep/example.mco "$work/ln/example.mco"
expect 0 "run through a link" -- "$tmcml" run "$example" -N 3000 --threads 1 -o "$work/ln" -q --engine cpu
check; [ -L "$work/ln/example.mco" ] || fail "run through a link: the link was replaced by a file"
check; cmp -s "$work/a/example.mco" "$work/keep/example.mco" ||
    fail "run through a link: the target does not hold the result"
ln -s ../keep/missing.mco "$work/ln/dangling.mco"
sed 's/^example.mco/dangling.mco/' "$example" >"$work/dangling.mci"
expect 2 "link to nothing" -- "$tmcml" run "$work/dangling.mci" -N 200 -o "$work/ln" -q
contains "link to nothing" "dangling.mco: is a symbolic link to ../keep/missing.mco, which does not exist"
check; [ -e "$work/keep/missing.mco" ] && fail "link to nothing: the target was created"

# With -o DIR, an output name that leaves DIR (absolute, or climbing out with
# '..') is refused, naming the file, line and run, unless
# --allow-outside-output-dir; without -o an absolute name is MCML's usage.
sed 's|^example.mco|../escaped.mco|' "$example" >"$work/escape.mci"
expect 2 "name climbs out of -o" -- "$tmcml" run "$work/escape.mci" -N 200 -o "$work/in" -q
contains "name climbs out of -o" "escape.mci:[0-9]*: run 1: output name \"../escaped.mco\" climbs out of -o"
check; [ -e "$work/escaped.mco" ] && fail "name climbs out of -o: written outside"
expect 0 "--allow-outside-output-dir" -- "$tmcml" run "$work/escape.mci" -N 200 -o "$work/in" -q \
    --allow-outside-output-dir
check; [ -s "$work/escaped.mco" ] || fail "--allow-outside-output-dir: not written"
sed "s|^example.mco|$work/abs.mco|" "$example" >"$work/abs.mci"
expect 2 "absolute name with -o" -- "$tmcml" run "$work/abs.mci" -N 200 -o "$work/in" -q
contains "absolute name with -o" "abs.mci:[0-9]*: run 1: output name \"$work/abs.mco\" is an absolute path"
check; [ -e "$work/abs.mco" ] && fail "absolute name with -o: written"
expect 0 "absolute name without -o" -- "$tmcml" run "$work/abs.mci" -N 200 -q
check; [ -s "$work/abs.mco" ] || fail "absolute name without -o: not written"

# A photon that never ends is stopped after --max-steps steps and counted as
# trapped: a warning names the count, the JSON has it, and the weight adds up
# (Rsp + Rd + A + Tt + trapped = 1).
printf '1.0\n1\ntrap.mco A\n40\n0.01 0.01\n10 10 5\n1\n1.0\n1.4 0 10000 0 1\n1.0\n' >"$work/trap.mci"
expect 0 "trapped photons" -- "$tmcml" run "$work/trap.mci" -o "$work/trap" -q --engine cpu --max-steps 100000
contains "trapped photons" "warning: .*trap.mco: [0-9]* photons never ended (still alive after 100000 steps"
check; tr -d ' \t\n' <"$work/trap/trap.json" | grep -q '"trapped":{"photons":[1-9]' ||
    fail "trapped photons: no trapped count in the JSON"
check; tr -d ' \t\n' <"$work/trap/trap.json" |
    sed 's/.*"Rsp":\([^,]*\),"Rd":\([^,]*\),"A":\([^,]*\),"Tt":\([^}]*\)}.*"weight":\([^}]*\)}.*/\1 \2 \3 \4 \5/' |
    awk '{ s = $1 + $2 + $3 + $4 + $5; if (s < 1 - 1e-6 || s > 1 + 1e-6) exit 1 }' ||
    fail "trapped photons: Rsp + Rd + A + Tt + trapped is not 1"
expect 2 "--max-steps 0" -- "$tmcml" run "$work/trap.mci" --max-steps 0
contains "--max-steps 0" "--max-steps: expected a whole number from 1 to 4294967295"

# Tuning options: bad values are refused before anything runs (exit 2).
expect 2 "bad --tune" -- "$tmcml" run "$example" --tune sometimes
contains "bad --tune" "--tune: expected never, auto or always"
expect 2 "bad --budget" -- "$tmcml" tune "$example" --budget -3
contains "bad --budget" "--budget: expected seconds"
expect 2 "bad --repeats" -- "$tmcml" tune "$example" --repeats 0
expect 2 "sweep without ranges" -- "$tmcml" sweep "$example" --nz 8:16:8
contains "sweep without ranges" "--nr A:B:STEP and --nz A:B:STEP are required"
expect 2 "--profile without a file" -- "$tmcml" run "$example" --profile
# The CPU engine takes no profile: the options are accepted and change nothing.
expect 0 "profile options, CPU engine" -- "$tmcml" run "$example" -N 3000 --threads 1 \
    --engine cpu --no-profile --tune never -o "$work/p" -q
check; cmp -s "$work/a/example.mco" "$work/p/example.mco" || fail "profile options changed a CPU run"
if ! "$tmcml" devices >/dev/null 2>&1; then
    expect 1 "tune without a GPU" -- "$tmcml" tune "$example" --csv "$work/t.csv"
    contains "tune without a GPU" "tune and sweep need a GPU"
    check; [ ! -e "$work/t.csv" ] || fail "tune without a GPU wrote a CSV"
    expect 1 "sweep without a GPU" -- "$tmcml" sweep "$example" --nr 8:16:8 --nz 8:16:8 -o "$work/s"
fi

# gen shows the variant a profile gives (--profile FILE works without a GPU;
# the file must be this tmcml's: its generator hash and NVRTC version).  A
# machine with a GPU plans for that GPU instead of the file's "Test GPU".
toolchain=$("$tmcml" profiles list 2>/dev/null | sed -n 's/^this tmcml: generator \([0-9a-f]*\), NVRTC \([0-9.]*\)$/\1 \2/p')
if [ -n "$toolchain" ] && ! "$tmcml" devices >/dev/null 2>&1; then
    set -- $toolchain
    write_profile() { # FILE GENERATOR NVRTC
        cat >"$1" <<EOF
{"format": 1,
 "device": {"name": "Test GPU", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
            "shared_per_block_optin": 232448, "driver_version": 13000},
 "toolchain": {"nvrtc_version": "$3", "generator": "$2"},
 "entries": [{"class": {"num_layers": 3, "nr": 50, "nz": 40, "na": 1, "score_absorption": true},
   "config": {"tile_nr": 12, "tile_nz": 34, "entry_bits": 64, "block_size": 384,
              "min_blocks_per_sm": 2, "layer_placement": "constant", "last_bin_cache": false},
   "photons_per_second": 1e8, "steps_per_second": 1e10, "heuristic_photons_per_second": 9e7,
   "pilot_photons": 1000000, "candidates": 10, "tuning_seconds": 12.5,
   "date": "2026-11-22T00:00:00Z"}]}
EOF
    }
    write_profile "$work/p.json" "$1" "$2"
    expect 0 "gen --profile" -- "$tmcml" gen "$example" --profile "$work/p.json" -o "$work/p.cu"
    contains "gen --profile" "kernel variant: profile .*exact entry L3 50x40x1"
    check; grep -q "tile=12x34 entry_bits=64 block_size=384 min_blocks_per_sm=2" "$work/p.cu" || fail "gen --profile: not the entry's kernel"
    expect 0 "gen --profile, explicit block" -- "$tmcml" gen "$example" --profile "$work/p.json" --block 256 -o "$work/q.cu"
    contains "gen --profile, explicit block" "with explicit options"
    check; grep -q "tile=12x34 entry_bits=64 block_size=256" "$work/q.cu" || fail "gen: explicit --block did not override"
    expect 0 "gen --no-profile" -- "$tmcml" gen "$example" --no-profile -o "$work/h.cu"
    contains "gen --no-profile" "kernel variant: heuristic (--no-profile)"
    write_profile "$work/stale.json" 0123456789abcdef "$2"
    expect 0 "gen, stale profile" -- "$tmcml" gen "$example" --profile "$work/stale.json" -o "$work/s.cu"
    contains "gen, stale profile" "another generator/NVRTC; ignored"
    contains "gen, stale profile" "kernel variant: heuristic"
    echo "{ broken" >"$work/broken.json"
    expect 2 "gen, corrupt profile" -- "$tmcml" gen "$example" --profile "$work/broken.json" -o "$work/b.cu"
    contains "gen, corrupt profile" "broken.json"
fi

finish cli
