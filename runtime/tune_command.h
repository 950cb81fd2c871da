/* `tmcml tune` and `tmcml sweep`: the tuner's commands (tuner/search.h,
 * tuner/sweep.h) with their outputs: the table, the CSV, the profile entry,
 * the heat maps.  Exit status as `run`: 0 done, 1 failed (or a candidate
 * failed the bit-identity gate), 2 bad command line or input. */
#ifndef TMCML_TUNE_COMMAND_H
#define TMCML_TUNE_COMMAND_H

#include <stdbool.h>

#include "cli.h"
#include "gpu.h"
#include "mci.h"
#include "search.h"

int tune_command(const cli_options *opt);
int sweep_command(const cli_options *opt);

/* Tunes run on eng and stores the winner in the profile directory of opt
 * (--profiles, else $TMCML_PROFILE_DIR, else the user's).  *entry gets the
 * winner.  Used by `tune` and by `run --tune`. */
typedef struct tune_outcome {
    profile_entry entry;      /* the winner */
    char profile_path[4096];  /* where it was stored */
    int mismatches;           /* candidates that failed the bit-identity gate */
} tune_outcome;

/* csv_path: NULL for no CSV.  print_table: the table of candidates on
 * stdout (`tune`), else a one-line summary on stderr (`run --tune`). */
bool tune_and_store(const cli_options *opt, gpu_engine *eng, const mci_run *run, double budget,
                    const char *csv_path, bool print_table, tune_outcome *out, tm_error *err);

#define TUNE_DEFAULT_BUDGET 60.0

#endif
