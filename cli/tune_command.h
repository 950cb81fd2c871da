/* `tmcml tune` and `tmcml sweep`: the tuner's commands (tuner/search.h,
 * tuner/sweep.h) with their outputs: the table, the CSV, the profile entry,
 * the heat maps.  Exit status as `run`: 0 done, 1 failed (or a candidate
 * failed the bit-identity gate), 2 bad command line or input. */
#ifndef TMCML_TUNE_COMMAND_H
#define TMCML_TUNE_COMMAND_H

#include <stdbool.h>

#include "cli.h"

int tune_command(const cli_options *opt);
int sweep_command(const cli_options *opt);

#endif
