/* Room for the file descriptors of `tmcml run`: every run of a batch holds
 * its output lock open (run_lock.h) from the batch's start until its
 * outputs are written, so a lookup table of thousands of runs holds
 * thousands of descriptors, and the threads that write the outputs each
 * hold one or two more while they write.
 *
 * - The soft RLIMIT_NOFILE is raised to the hard one: a desktop's soft
 *   1024 refused the 1020th lock of a batch ("Too many open files").
 * - What the limit leaves is shared out (fd_room_budget): first a margin
 *   for what opens later, then the writer threads, then the run locks.  A
 *   hard limit that low splits a batch, or a run's absorption sets, and
 *   runs fewer writers; it never fails a write.  (Budgeting the locks
 *   alone, a 40-run batch under `ulimit -n 20` simulated every run and
 *   then lost 15 of them to "Too many open files" in the writers.)
 * - The process's descriptor table is grown once, while it has one thread:
 *   Linux grows a table shared by several threads only after an RCU grace
 *   period (expand_fdtable, synchronize_rcu).  With the CUDA driver's
 *   threads running, the 100 lock files of lut100 and luthi100 took 20-49
 *   ms to open on an H100 host (two growths, 64 to 128 to 256), against
 *   0.8-1.4 ms with the table grown here (six runs each,
 *   bench/results_gpu.md, eighteenth session). */
#ifndef TMCML_DRIVER_FD_ROOM_H
#define TMCML_DRIVER_FD_ROOM_H

#include <stdbool.h>

#include "error.h"

/* Descriptors the table is grown to hold at the start. */
#define FD_ROOM_TABLE 1024

/* Descriptors kept free for what opens after the budget is made (the GPU
 * driver's files as modules load, the cubin cache, a checkpoint, MPI's
 * sockets), at most a quarter of what is free. */
#define FD_ROOM_MARGIN 64

/* Descriptors one writer thread may hold at once: the temp file it fills
 * and the directory it syncs after the rename (base/fs.c), with one to
 * spare for what a writer may read. */
#define FD_ROOM_PER_WRITER 2

/* The soft limit raised to the hard one, and the table grown to
 * FD_ROOM_TABLE entries (or the limit).  Call it from the only thread. */
void fd_room_prepare(void);

/* What the descriptors free now allow: how many runs may hold their locks
 * at once, and how many threads each of `queues` writer queues (batches
 * whose outputs are written at the same time) may run, at most
 * max_writers. */
typedef struct fd_budget {
    int runs;
    int writers;
} fd_budget;

/* The budget under the current limit, counting the descriptors open now;
 * false with *err when the limit leaves too few to lock and write even one
 * run (the message says how many are open and allowed). */
bool fd_room_budget(int queues, int max_writers, fd_budget *b, tm_error *err);

#endif
