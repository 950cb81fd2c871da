#!/bin/sh
# `tmcml run` against the machine's memory and disk, with the limits set by
# TMCML_MEMORY_LIMIT and TMCML_DISK_LIMIT: refused before anything is
# allocated (exit 2, nothing written), or fewer threads, said on stderr.
# Usage: test_resources_cli.sh TMCML DATA_DIR
set -u
tmcml=$1
data=$2
. "$(dirname "$0")/lib.sh"
unset TMCML_MEMORY_LIMIT TMCML_GPU_MEMORY_LIMIT TMCML_DISK_LIMIT TMCML_CGROUP_ROOT

lacks() {
    check
    grep -q -- "$2" "$work/out" && { fail "$1: output has '$2'"; cat "$work/out" >&2; }
}
# nothing_in DESCRIPTION DIR: no file was written there (the directory itself may exist).
nothing_in() {
    check
    [ -z "$(ls -A "$2" 2>/dev/null)" ] || { fail "$1: files written: $(ls -A "$2")"; }
}

example=$data/reference/mcml_example.mci
# grid NZ NR NA RUNS > FILE: the example's stack with another grid, RUNS runs.
grid() {
    printf '1.0\n%d\n' "$4"
    i=0
    while [ "$i" -lt "$4" ]; do
        printf 'g%d.mco A\n1000\n0.01 0.01\n%s %s %s\n' "$i" "$1" "$2" "$3"
        printf '3\n1.0\n1.37 1 100 0.90 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.70 0.2\n1.0\n'
        i=$((i + 1))
    done
}

# The largest grid the reader accepts (nz = na = 2^27 bins beside nr = 1):
# about 12 GiB of arrays and 10.5 GB of .mco.  With 1 GiB allowed it is refused
# at once, naming the file, the run's line and the figures; nothing is written.
grid 134217728 1 134217728 1 >"$work/big.mci"
expect 2 "largest grid, 1G" -- env TMCML_MEMORY_LIMIT=1G "$tmcml" run "$work/big.mci" --engine cpu -o "$work/big"
contains "largest grid, 1G" "big.mci:3: run 1 needs 12.0 GiB of memory even with one thread (a 1x134217728x134217728 grid, nr x nz x na: tallies 6.0 GiB, the thread's batch 3.0 GiB, results 6.0 GiB), 1.0 GiB available (TMCML_MEMORY_LIMIT): nothing was simulated"
nothing_in "largest grid, 1G" "$work/big"
# The same with -q: the refusal is still said.
expect 2 "largest grid, -q" -- env TMCML_MEMORY_LIMIT=1G "$tmcml" run "$work/big.mci" --engine cpu -q -o "$work/big"
contains "largest grid, -q" "run 1 needs 12.0 GiB"
# Its .mco alone would not fit in 1 GiB of disk either (memory allowed here).
expect 2 "largest grid, disk" -- env TMCML_MEMORY_LIMIT=1T TMCML_DISK_LIMIT=1G "$tmcml" run "$work/big.mci" --engine cpu -o "$work/big"
contains "largest grid, disk" "the outputs of $work/big.mci need up to 9.8 GiB here (1 run: .mco and JSON), 1.0 GiB free (TMCML_DISK_LIMIT): nothing was simulated"
nothing_in "largest grid, disk" "$work/big"

# A grid of 500 x 500 x 1: a thread's batch is 1.9 MiB, the tallies 3.8 MiB;
# 9.6 MiB (10040000 + 1000 bytes) hold the tallies and three batches.  8
# threads asked for, 3 used, said; the output is the one of any thread count.
grid 500 500 1 1 >"$work/mid.mci"
expect 0 "fewer threads" -- env TMCML_MEMORY_LIMIT=10041000 "$tmcml" run "$work/mid.mci" --engine cpu --threads 8 -N 9000 -o "$work/mid"
contains "fewer threads" "tmcml: run 1 ($work/mid.mci:3): 8 threads need 19.1 MiB of tallies, 9.6 MiB available (TMCML_MEMORY_LIMIT): using 3 threads"
check; grep -q '"threads":[[:space:]]*3,' "$work/mid/g0.json" || fail "fewer threads: the JSON does not say 3 threads"
expect 0 "one thread" -- "$tmcml" run "$work/mid.mci" --engine cpu --threads 1 -N 9000 -o "$work/one" -q
check; cmp -s "$work/mid/g0.mco" "$work/one/g0.mco" || fail "fewer threads: the .mco differs from one thread's"
lacks "one thread" "threads need"
# -q: fewer threads, silently.
expect 0 "fewer threads, -q" -- env TMCML_MEMORY_LIMIT=10041000 "$tmcml" run "$work/mid.mci" --engine cpu --threads 8 -N 9000 -q -o "$work/midq"
lacks "fewer threads, -q" "threads need"
# Without the limit (this machine has far more than 19 MiB): no message.
expect 0 "enough memory" -- "$tmcml" run "$work/mid.mci" --engine cpu --threads 8 -N 9000 -o "$work/all"
lacks "enough memory" "threads need"

# A memory cgroup (Slurm's --mem, docker --memory) limits the run however
# much the node has free: 80 % of its limit is the 10041000 bytes above.
# Faked under TMCML_CGROUP_ROOT (a directory standing in for /).
mkdir -p "$work/cg/proc/self" "$work/cg/sys/fs/cgroup/job"
echo "0::/job" >"$work/cg/proc/self/cgroup"
echo 12551250 >"$work/cg/sys/fs/cgroup/job/memory.max"
echo 0 >"$work/cg/sys/fs/cgroup/job/memory.current"
expect 0 "cgroup" -- env TMCML_CGROUP_ROOT="$work/cg" "$tmcml" run "$work/mid.mci" --engine cpu --threads 8 -N 9000 -o "$work/cg/out"
contains "cgroup" "8 threads need 19.1 MiB of tallies, 9.6 MiB available (80 % of the memory cgroup's limit 12.0 MiB less 0 bytes in use): using 3 threads"

# Disk: one run's outputs (the .mco bound is about 43 KiB with its JSON, a
# little more for a longer input path, which the JSON echoes) do not fit in
# 10 KiB; two runs' add up (about 86 KiB > 60 KiB) though each fits alone.
expect 2 "disk" -- env TMCML_DISK_LIMIT=10K "$tmcml" run "$example" -N 100 --engine cpu -o "$work/disk"
contains "disk" "$work/disk: the outputs of $example need up to 4[3-4]\.[0-9] KiB here (1 run: .mco and JSON), 10.0 KiB free (TMCML_DISK_LIMIT): nothing was simulated"
nothing_in "disk" "$work/disk"
expect 0 "disk, one run" -- env TMCML_DISK_LIMIT=60K "$tmcml" run "$example" -N 100 --engine cpu -q -o "$work/disk1"
grid 40 50 1 2 >"$work/two.mci"
expect 2 "disk, two runs" -- env TMCML_DISK_LIMIT=60K "$tmcml" run "$work/two.mci" -N 100 --engine cpu -o "$work/disk2"
contains "disk, two runs" "need up to 8[5-9]\.[0-9] KiB here (2 runs: .mco and JSON), 60.0 KiB free (TMCML_DISK_LIMIT)"
nothing_in "disk, two runs" "$work/disk2"

# A limit that is not a byte count: exit 2, named.
expect 2 "bad limit" -- env TMCML_MEMORY_LIMIT=lots "$tmcml" run "$example" -N 100 --engine cpu -o "$work/bad"
contains "bad limit" 'TMCML_MEMORY_LIMIT: expected a byte count such as 4G, 512M or 1048576 (got "lots")'
nothing_in "bad limit" "$work/bad"

finish test_resources_cli
