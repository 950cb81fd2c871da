/* A finished run's outputs, NAME.mco and NAME.json, as one unit that says
 * what made it.  The JSON is written last (the old one removed before the
 * new .mco, run.c), so an .mco without its JSON is a run cut short between
 * the two; both name the tallies' digest (the .mco in its comment line), so
 * a pair of two runs (two processes writing one name, before locks) shows;
 * and the JSON records the seed, the photons, a digest of the run's input
 * and the physics code.  --resume skips a run only when all of that is this
 * run's, and refuses one that is another's, saying what differs, as it
 * refuses another run's checkpoint. */
#ifndef TMCML_FINISHED_H
#define TMCML_FINISHED_H

#include <stdbool.h>
#include <stdio.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"
#include "outputs.h"
#include "summary.h"

/* What this run's outputs must record (summary_identity; no tallies
 * digest): opt's seed, -A and --max-steps, the run's photons and input,
 * the engine's physics (resume_physics).  False only when out of memory. */
bool finished_identity(const driver_options *opt, const mci_run *run, const char *physics,
                       summary_identity *id, tm_error *err);

/* For --resume without a checkpoint: *done when paths hold this run's
 * finished .mco and JSON (skip it); not done when neither is there, or only
 * one (said on notes, which may be NULL: run it again), nor when --npz
 * asks for NAME.npz and it is missing.  False with *err
 * when they are another run's, or not one run's pair. */
bool finished_check(const run_paths *paths, const summary_identity *id, FILE *notes, bool *done,
                    tm_error *err);

#endif
