/* `tmcml gen` (the generated source of a run, for reading) and `tmcml
 * devices` (the GPUs the engine can use). */
#ifndef TMCML_GEN_COMMAND_H
#define TMCML_GEN_COMMAND_H

#include "cli.h"

int gen_command(const cli_options *opt);
int devices_command(const cli_options *opt);

#endif
