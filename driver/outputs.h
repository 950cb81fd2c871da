/* The files each run of a .mci writes - NAME.mco, its JSON summary, and
 * when it is stopped its checkpoint and partial outputs; NAME.lock while it
 * runs, with --npz NAME.npz (and NAME.partial.npz) - all checked before
 * anything is simulated: each must be creatable,
 * none may be another's or the input, none may be another process's output
 * now, and no fresh run may start over a checkpoint (which would be lost). */
#ifndef TMCML_OUTPUTS_H
#define TMCML_OUTPUTS_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

typedef struct run_paths {
    char *mco;
    char *json;
    char *ckpt;         /* the checkpoint: NAME.ckpt */
    char *partial_mco;  /* what a stopped run had done: NAME.partial.mco */
    char *partial_json; /* and its summary */
    char *lock;         /* NAME.lock while a process writes them (run_lock.h) */
    /* With --npz, the arrays for NumPy: NAME.npz and a stopped run's
     * NAME.partial.npz; NULL without it. */
    char *npz;
    char *partial_npz;
} run_paths;

/* The paths of every run (NULL with *err when one cannot be written, two
 * collide, another process is writing one (run_lock_free), or a checkpoint
 * is in the way without --resume). */
run_paths *outputs_prepare(const driver_options *opt, const mci_file *file, tm_error *err);
void outputs_free(run_paths *paths, int count);

bool output_exists(const char *path);

#endif
