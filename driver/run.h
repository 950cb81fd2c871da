/* `tmcml run`: every run of an input file, from .mci to .mco and JSON. */
#ifndef TMCML_RUN_H
#define TMCML_RUN_H

#include "driver_options.h"
#include "ranks.h"

/* Exit status of the whole command (see cli_print_usage). */
enum { RUN_OK = 0, RUN_FAILED = 1, RUN_BAD_INPUT = 2 };

/* world: the MPI ranks sharing the runs (ranks.h; one process: rank 0 of 1). */
int run_input_file(const driver_options *opt, const ranks *world);

#endif
