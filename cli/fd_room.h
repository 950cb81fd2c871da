/* Room for the file descriptors of `tmcml run`: every run of a batch holds
 * its output lock open (run_lock.h) from the batch's start until its
 * outputs are written, so a lookup table of thousands of runs holds
 * thousands of descriptors.
 *
 * - The soft RLIMIT_NOFILE is raised to the hard one: a desktop's soft
 *   1024 refused the 1020th lock of a batch ("Too many open files").
 * - The runs opened at once are bounded by what the limit leaves
 *   (fd_room_runs): a hard limit that low splits a batch, never fails it.
 * - The process's descriptor table is grown once, while it has one thread:
 *   Linux grows a table shared by several threads only after an RCU grace
 *   period (expand_fdtable, synchronize_rcu).  With the CUDA driver's
 *   threads running, the 100 lock files of lut100 and luthi100 took 20-49
 *   ms to open on an H100 host (two growths, 64 to 128 to 256), against
 *   0.8-1.4 ms with the table grown here (six runs each,
 *   bench/results_gpu.md, eighteenth session). */
#ifndef TMCML_CLI_FD_ROOM_H
#define TMCML_CLI_FD_ROOM_H

/* Descriptors the table is grown to hold at the start. */
#define FD_ROOM_TABLE 1024

/* Descriptors kept for everything but the run locks (the GPU driver's
 * device files, the writers' outputs, MPI), at most half the limit. */
#define FD_ROOM_RESERVE 256

/* The soft limit raised to the hard one, and the table grown to
 * FD_ROOM_TABLE entries (or the limit).  Call it from the only thread. */
void fd_room_prepare(void);

/* How many runs may hold their locks at once under the current limit. */
int fd_room_runs(void);

#endif
