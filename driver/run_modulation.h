/* The command line's request of modulation frequencies (--modulation):
 * the engine they need, and every run of the file given them. */
#ifndef TMCML_RUN_MODULATION_H
#define TMCML_RUN_MODULATION_H

#include <stdbool.h>

#include "driver_options.h"
#include "error.h"
#include "mci.h"

/* The CPU engine alone scores them: --engine gpu is refused naming the
 * option, auto takes the CPU (and says so unless quiet). */
bool run_modulation_options(driver_options *opt, tm_error *err);

/* Every run of file gets its own copy of opt's frequencies; false (*err)
 * when out of memory. */
bool run_modulation_runs(const driver_options *opt, mci_file *file, tm_error *err);

#endif
