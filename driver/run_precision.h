/* `tmcml run --precision P [--precision-of Q] [--max-photons N]`: each run
 * simulated in growing groups of photons (driver/session_groups.h) until
 * Q's relative standard error is at most P (runtime/io/precision.h), or N
 * photons.  The decision is taken from the groups alone at fixed photon
 * counts, so a seed and a precision give the same photons and the same
 * outputs bit for bit on every engine, thread count, GPU count and batch,
 * and across a stop and --resume (docs/outputs.md). */
#ifndef TMCML_RUN_PRECISION_H
#define TMCML_RUN_PRECISION_H

#include <stdbool.h>

#include "checkpoint.h"
#include "driver_options.h"
#include "mci.h"
#include "precision.h"
#include "precision_stop.h"
#include "session.h"
#include "summary.h"

/* Each run's photon count becomes the most it may take (--max-photons, or
 * its own), and its target is checked (precision_target_parse), before
 * anything runs; false with *err naming the run. */
bool run_precision_runs(const driver_options *opt, mci_file *file, tm_error *err);

/* rp for run, its photons counted in ck (the caller's: a slot's). */
bool run_precision_target(const driver_options *opt, const mci_run *run, checkpoint *ck,
                          precision_stop *rp, tm_error *err);

/* The run's precision as its JSON says it (NULL without --precision):
 * asked, reached from ck's groups, the most photons it could take. */
bool run_precision_report(const driver_options *opt, const mci_run *run, const checkpoint *ck,
                          summary_precision *out);

/* A run that took its most photons without reaching the precision: false
 * with *err saying so (its outputs are written: the caller exits with an
 * error, never as a success). */
bool run_precision_met(const driver_options *opt, const mci_run *run, const checkpoint *ck,
                       const char *mco, tm_error *err);

#endif
