/* The command line's request of modulation frequencies (--modulation):
 * the engine they need, and every run of the file given them. */
#ifndef TMCML_RUN_MODULATION_H
#define TMCML_RUN_MODULATION_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

/* A run's own GPU kernel scores up to TM_MAX_GPU_MODULATIONS of them, so
 * runs are not batched; with sets, derivatives or more, the CPU engine
 * alone: --engine gpu is refused naming the option and why, auto takes the
 * CPU (and says so unless quiet). */
bool run_modulation_options(driver_options *opt, tm_error *err);

/* Every run of file gets its own copy of opt's frequencies; false (*err)
 * when out of memory. */
bool run_modulation_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
