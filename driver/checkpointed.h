/* One run's photons on a session, continued from and kept in a checkpoint
 * file: what the library's checkpointed runs (tmcml_run_checkpointed) are
 * made of.  The photons left (the gaps of the checkpoint's ranges) are
 * simulated in order; every `every` seconds, and when the caller's cancel
 * flag rises, the checkpoint is written atomically (checkpoint.h), so a
 * run stopped anywhere, continued from the file, ends with the tallies of
 * an uninterrupted run bit for bit. */
#ifndef TMCML_CHECKPOINTED_H
#define TMCML_CHECKPOINTED_H

#include <signal.h>

#include "checkpoint.h"
#include "driver_options.h"
#include "session.h"

typedef struct checkpointed_call {
    session *ses;
    session_sim sim; /* its stop, done and done_ctx are set here */
    const mci_run *run;
    const kernel_spec *specs; /* NULL: the CPU engine */
    const char *path;         /* the checkpoint file */
    double every;             /* seconds between checkpoints (<= 0: only when cancelled) */
    const volatile sig_atomic_t *cancel; /* the caller's: once raised, stop and keep */
} checkpointed_call;

typedef enum checkpointed_status {
    CHECKPOINTED_DONE,      /* every photon simulated (ck holds them all) */
    CHECKPOINTED_CANCELLED, /* stopped by *cancel; ck written to path */
    CHECKPOINTED_FAILED     /* *err; the file, if any, as it was last written */
} checkpointed_status;

/* The run's checkpoint to continue: read from path when opt->resume is set
 * and it exists (checked against the run, seed, input and physics: refused
 * with *err naming what differs), else fresh; a file at path without
 * opt->resume is refused, not overwritten (it is a stopped run's work).
 * *resumed tells which. */
bool checkpointed_begin(checkpoint *ck, const driver_options *opt, const mci_run *run,
                        const char *physics, const char *path, bool *resumed, tm_error *err);

/* The photons left of ck's run, into ck (its tallies and ranges); stats
 * sum the engine calls' times (the first call's kernel source). */
checkpointed_status checkpointed_simulate(const checkpointed_call *c, checkpoint *ck,
                                          session_run_stats *stats, tm_error *err);

#endif
