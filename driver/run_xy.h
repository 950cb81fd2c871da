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
 * --mua-sets, --optics-sets, --jacobian), naming it; the CPU engine alone
 * scores the grid and launches the beam: --engine gpu is refused, auto
 * takes the CPU (and says so unless quiet). */
bool run_xy_options(driver_options *opt, tm_error *err);

/* Every run of file gets opt's grid; a run whose depth bins make A_xz too
 * large is refused as FILE:LINE. */
bool run_xy_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
