/* --source: every run of the file starts its photons from the given source
 * (runtime/io/source.h; docs/physics.md, "Sources"). */
#ifndef TMCML_RUN_SOURCE_H
#define TMCML_RUN_SOURCE_H

#include <stdbool.h>

#include "driver_options.h"
#include "mci.h"

/* opt->source given to every run of file, checked against each run's
 * layers (a point inside the stack, not on a boundary; a fiber's NA at most
 * n above): FILE:LINE and the value at fault otherwise. */
bool run_source_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
