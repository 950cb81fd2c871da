/* The command line's requests of time-resolved escapes (--time) and
 * fiber detectors (--detector): runs of their own, and every run of the
 * file given them, checked against its grid and medium as FILE:LINE. */
#ifndef TMCML_RUN_TIMED_H
#define TMCML_RUN_TIMED_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

/* A run's own GPU kernel scores them (with --mua-sets, --optics-sets or
 * --jacobian the sets' kernel), so runs are not batched (--no-batch: the
 * outputs are the same). */
void run_timed_options(driver_options *opt);

/* Every run of file gets opt's time bins and detectors; a run whose grid
 * makes too many time bins, or whose medium above is thinner than a
 * fiber's NA, is refused as FILE:LINE (naming the detector, "--detector
 * 2", when there are several). */
bool run_timed_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
