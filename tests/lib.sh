# The shell tests' common part, sourced first thing after their arguments
# are read: a scratch directory removed on exit ($work), the failure and
# check counters, the assertions and helpers (json, isolate_user_dirs,
# skip_without_gpu, ...).
# `finish NAME` prints the counts and gives the exit status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

fail() { failures=$((failures + 1)); echo "FAIL: $*" >&2; }
check() { checks=$((checks + 1)); }

# expect STATUS DESCRIPTION -- command...: runs the command, output in $work/out
expect() {
    want=$1; what=$2; shift 3
    check
    "$@" >"$work/out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] || { fail "$what: exit $got, expected $want"; cat "$work/out" >&2; }
}
# contains DESCRIPTION TEXT: the last expect's output has TEXT.
contains() {
    check
    grep -q -- "$2" "$work/out" || { fail "$1: output lacks '$2'"; cat "$work/out" >&2; }
}

# same_mcos REFERENCE_DIR OTHER_DIR COUNT LABEL: every .mco of the
# reference directory is byte for byte the one of that name in the other,
# and there are COUNT of them.
same_mcos() {
    same=0
    for f in "$1"/*.mco; do
        check
        if cmp -s "$f" "$2/$(basename "$f")"; then
            same=$((same + 1))
        else
            fail "$(basename "$f"): $4 differs"
        fi
    done
    check
    [ "$same" -eq "$3" ] || fail "$4: $same of $3 outputs compared equal"
}

# one_layer_runs COUNT PHOTONS "NZ NR NA" MUA_FIRST MUA_STEP PERIOD: on
# stdout, a .mci of COUNT runs (r000.mco, r001.mco, ...) of PHOTONS photons
# in one layer (n 1.4, mus 80 1/cm, g 0.9) on NZ x NR x NA bins of 0.01 cm,
# run i's mua MUA_FIRST + (i % PERIOD) x MUA_STEP.
one_layer_runs() {
    printf '1.0\n%d\n' "$1"
    awk -v n="$1" -v photons="$2" -v grid="$3" -v first="$4" -v step="$5" -v period="$6" '
        BEGIN {
            for (i = 0; i < n; i++)
                printf "r%03d.mco A\n%d\n0.01 0.01\n%s\n1\n1.0\n1.4 %g 80 0.9 1E8\n1.0\n",
                    i, photons, grid, first + (i % period) * step
        }'
}

# wait_for FILE [SECONDS]: up to SECONDS (120) for FILE to appear (a run
# writing it is then simulating, past its start-up, with the signal
# handler in its graceful mode); the status says whether it did.
wait_for() {
    tenths=0
    while [ ! -s "$1" ] && [ $tenths -lt $((${2:-120} * 10)) ]; do
        sleep 0.1
        tenths=$((tenths + 1))
    done
    [ -s "$1" ]
}

# example_setup TMCML EXAMPLES_DIR: the tests of run's options on the MCML
# example: $tmcml, $mci the example, $common the options of a short
# deterministic run, the user's directories isolated.
example_setup() {
    tmcml=$1
    mci=$2/mcml_example.mci
    common="-N 20000 -S 3 -q --tune never --no-profile"
    isolate_user_dirs
}

# stopped_run DIR ARGS...: `$tmcml run ARGS` of the MCML example into DIR
# on one thread, checkpointing every 0.2 s, stopped by SIGINT once its
# first checkpoint is there (at most 10 s on): a run for --resume.  Callers
# pin --engine cpu: a GPU would finish the run before the signal lands.
stopped_run() {
    stopped_dir=$1
    shift
    "$tmcml" run "$@" --threads 1 --checkpoint-every 0.2 -o "$stopped_dir" 2>/dev/null &
    stopped_pid=$!
    wait_for "$stopped_dir/example.ckpt" 10
    kill -INT $stopped_pid
    wait $stopped_pid
}

# checkpoint_version FILE: the format version of a checkpoint (its u32
# after the magic), empty when there is none.
checkpoint_version() { od -A n -t u4 -j 8 -N 4 "$1" 2>/dev/null | tr -d ' '; }

# stopped_at_version VERSION DIR ARGS...: `$tmcml run ARGS` of the MCML
# example into DIR on one thread, checkpointing every 0.2 s, stopped by
# SIGINT once its checkpoint is of format VERSION (at most 20 s on: a run
# with --stderr writes version 5 once it holds groups), which is checked.
stopped_at_version() {
    stopped_want=$1
    stopped_dir=$2
    shift 2
    "$tmcml" run "$@" --threads 1 --checkpoint-every 0.2 -o "$stopped_dir" 2>/dev/null &
    stopped_pid=$!
    tenths=0
    while [ "$(checkpoint_version "$stopped_dir/example.ckpt")" != "$stopped_want" ] &&
        [ $tenths -lt 200 ]; do
        sleep 0.1
        tenths=$((tenths + 1))
    done
    kill -INT $stopped_pid
    wait $stopped_pid
    check
    [ "$(checkpoint_version "$stopped_dir/example.ckpt")" = "$stopped_want" ] ||
        fail "the checkpoint in $stopped_dir is not of version $stopped_want"
}

# ranks_as_one OPTS...: `$tmcml run $mci -N 3000 -S 3 OPTS` on two MPI
# ranks, and on three of which two are idle (3000 photons are one
# chunk), each checked to give the one process's .mco; nothing where
# mpirun or tmcml's MPI is missing.
ranks_as_one() {
    command -v mpirun >/dev/null && "$tmcml" --version | grep -q "mpi: built in" || return 0
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    for np in 2 3; do
        expect 0 "mpi $np" -- env ASAN_OPTIONS=detect_leaks=0 timeout 120 mpirun --oversubscribe \
            -np $np "$tmcml" run "$mci" -N 3000 -S 3 -q --engine cpu --threads 1 "$@" \
            -o "$work/mpi$np"
    done
    expect 0 "one process" -- "$tmcml" run "$mci" -N 3000 -S 3 -q --engine cpu "$@" -o "$work/m1"
    for np in 2 3; do
        check
        cmp -s "$work/mpi$np/example.mco" "$work/m1/example.mco" ||
            fail "$np ranks differ from one process"
    done
}

# json FILE KEY: the first value of KEY in a JSON file (a string unquoted).
json() { sed -n "s/.*\"$2\":[[:space:]]*\"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -n 1; }

# npz_names FILE: the members of a .npz (a zip), one a line.  unzip where
# there is one; else Python's zipfile (the GPU machine has no unzip).
npz_names() {
    if command -v unzip >/dev/null; then
        unzip -Z1 "$1"
    else
        python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1"
    fi
}

# npz_has FILE NAME: true when the .npz FILE has the member NAME ("Rd_r.npy").
npz_has() { npz_names "$1" | grep -qxF "$2"; }

# npz_head FILE NAME: the first 128 bytes of member NAME (its .npy header).
npz_head() {
    if command -v unzip >/dev/null; then
        unzip -p "$1" "$2" | head -c 128
    else
        python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2])[:128])' "$1" "$2"
    fi
}

# Exits 77 (skipped), saying why, when TMCML finds no usable GPU.
# usage: skip_without_gpu TMCML NAME
skip_without_gpu() {
    if ! "$1" devices >/dev/null 2>&1; then
        echo "$2: no usable GPU (tmcml devices failed): skipped"
        exit 77
    fi
}

# Profiles, the cubin cache's default home and the data directory in $work:
# a test neither reads nor writes the user's.
isolate_user_dirs() {
    export TMCML_PROFILE_DIR="$work/profiles" HOME="$work/home" XDG_DATA_HOME="$work/xdg"
}

finish() {
    echo "$1: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}
