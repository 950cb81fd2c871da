/* The command line's request of spatial frequencies (--spatial-frequencies):
 * the engine they need, and every run of the file given them. */
#ifndef TMCML_RUN_SPATIAL_H
#define TMCML_RUN_SPATIAL_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

/* A run's own GPU kernel scores up to TM_MAX_GPU_SPATIAL_FREQUENCIES of
 * them (templates/fx.cu), so the runs are not batched; more, or with
 * absorption or optics sets or derivatives (whose kernel scores none), the
 * CPU engine alone: --engine gpu is then refused naming the option and
 * why, auto takes the CPU (and says so unless quiet). */
bool run_spatial_options(driver_options *opt, tm_error *err);

/* Every run of file gets its own copy of opt's frequencies; false (*err)
 * when out of memory. */
bool run_spatial_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
