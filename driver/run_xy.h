/* The command line's Cartesian grid (--xy) and oblique beam (--source
 * oblique:ANGLE): the engine they need, the outputs that cannot go with
 * the beam, and every run of the file given the grid. */
#ifndef TMCML_RUN_XY_H
#define TMCML_RUN_XY_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

/* An oblique beam needs the grid (its one spatial output that keeps its
 * meaning) and is refused with each output that assumes a beam along the
 * axis (--time, --detector, --spatial-frequencies, --modulation,
 * --mua-sets, --optics-sets, --jacobian), naming it.  A run's own GPU
 * kernel scores the grid and launches the beam (templates/xy.cu,
 * source.cu), so runs with the grid are not batched; with absorption or
 * optics sets or the derivatives the CPU engine alone scores it
 * (driver_own_kernel_group: --engine gpu refused, auto takes the CPU). */
bool run_xy_options(driver_options *opt, tm_error *err);

/* Every run of file gets opt's grid; a run whose depth bins make A_xz too
 * large is refused as FILE:LINE. */
bool run_xy_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
