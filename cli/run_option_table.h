/* The options of `tmcml run` and its kin (gen, tune, sweep) as one table
 * (option_table.h), and what each sets in cli_options.  The kernel
 * variant's own options are the knob table's (gen/knob.h). */
#ifndef TMCML_RUN_OPTION_TABLE_H
#define TMCML_RUN_OPTION_TABLE_H

#include <stdbool.h>

#include "cli.h"
#include "option_table.h"

/* The usage's parts, in its order. */
enum run_section {
    RUN_SECTION_OPTIONS,
    RUN_SECTION_GEN,
    RUN_SECTION_TUNING,
    RUN_SECTION_SWEEP,
    RUN_SECTION_VARIANT
};

/* The commands of the table (cli_option.commands). */
enum { RUN_ONLY_SWEEP = 1u << 0 };

extern const cli_option_table run_options;

/* Whether the command takes the row's option (sweep's own are sweep's:
 * another command reads --entry as the kernel variant's knob). */
bool run_option_belongs(const cli_option *row, cli_command command);

/* Sets what the option read says in *opt; false with *err naming the
 * value when it is not one the option takes. */
bool run_option_apply(const option_read *o, cli_options *opt, tm_error *err);

#endif
