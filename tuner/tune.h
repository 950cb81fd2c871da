/* Tuning a run and storing the winner in the GPU's profile (tune.c): the
 * search (search.h), its table and CSV (report.h), the profile store.  Used
 * by `tune` and by the planner's auto mode (plan.c). */
#ifndef TMCML_TUNE_H
#define TMCML_TUNE_H

#include <stdbool.h>

#include "error.h"
#include "mci.h"
#include "plan_options.h"
#include "profile.h"
#include "runner.h"
#include "search.h"

/* Tunes run through runner and stores the winner in the profile directory
 * (profile_dir, else $TMCML_PROFILE_DIR, else the user's).  Used by `tune`
 * and by plan_choose. */
typedef struct tune_outcome {
    profile_entry entry;     /* the winner */
    char profile_path[4096]; /* where it was stored */
    int mismatches;          /* candidates that failed the bit-identity gate */
} tune_outcome;

/* The search's options (tuner/search.h) of these plan options and budget. */
void plan_tune_options(const plan_options *opt, double budget, tune_options *t);

/* Whether a tuned entry could be stored: the profile directory a tuner
 * writes to is known and no other user can write it (profile_dir_trusted).
 * Checked before tuning, so that minutes of tuning are not thrown away. */
bool plan_can_store(const plan_options *opt, tm_error *err);

/* csv_path: NULL for no CSV.  print_table: the table of candidates on
 * stdout (`tune`), else a one-line summary on stderr (`run --tune`).  Fails
 * at once when !plan_can_store. */
bool plan_tune_and_store(const plan_options *opt, const tune_runner *runner, const mci_run *run,
                         double budget, const char *csv_path, bool print_table, tune_outcome *out,
                         tm_error *err);

#endif
