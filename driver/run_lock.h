/* One writer per output: an advisory lock (fcntl F_SETLK, which NFS
 * forwards to its lock manager, unlike flock on older clients) on NAME.lock
 * beside NAME.mco, taken before a run starts and held until its outputs,
 * checkpoint and partial outputs are settled.  A second `tmcml run` writing
 * the same NAME (a job array that forgot to vary it) is refused before it
 * simulates, told which process holds it:
 *
 *   o/skin.mco is being written by process 4242 on node17 (started
 *   2026-11-26 07:10:00 +0100): wait for it to end, or give this run
 *   another output name
 *
 * The lock file holds that process's pid, host and start time.  It is
 * removed when the run ends (while still locked: a process that opened the
 * old file then finds, once it holds the lock, that the file at NAME.lock
 * is no longer the one it locked, and tries again).  A process killed with
 * -9 leaves it unlocked: the next run takes it over.  fcntl locks belong to
 * the process, and closing any descriptor of the file drops them: while it
 * holds a lock the process opens that file no other way (run_lock_free is
 * for the checks before any run starts).  Only `tmcml run`
 * locks (under MPI, rank 0, the only writer); the library (api/)
 * writes an .mco only when its caller saves one, and locks nothing. */
#ifndef TMCML_RUN_LOCK_H
#define TMCML_RUN_LOCK_H

#include <stdbool.h>

#include "error.h"

typedef struct run_lock {
    int fd;     /* the locked file, or -1 */
    char *path; /* its path (malloc'd), or NULL */
} run_lock;

/* Takes the lock of the output `output` whose lock file is path.  False
 * with *err when another process holds it (named, as above) or the file
 * cannot be made.  Where the file system has no locks (ENOLCK) the run
 * goes on unprotected, said on stderr. */
bool run_lock_take(run_lock *lk, const char *path, const char *output, tm_error *err);

/* Removes the lock file and releases the lock; nothing when none is held. */
void run_lock_release(run_lock *lk);

/* False with *err (as run_lock_take's) when another process holds the lock
 * of path now: the check of every run before anything is simulated. */
bool run_lock_free(const char *path, const char *output, tm_error *err);

#endif
