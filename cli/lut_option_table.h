/* The options of `tmcml lut` as one table (option_table.h), and what each
 * sets in the command's arguments. */
#ifndef TMCML_LUT_OPTION_TABLE_H
#define TMCML_LUT_OPTION_TABLE_H

#include <stdbool.h>

#include "lut_axis.h"
#include "lut_run.h"
#include "option_table.h"

typedef struct lut_args {
    lut_request req; /* the table, its options and checkpoint, as the library takes them */
    lut_axis mua, musp;
    const char *output, *mua_text, *musp_text;
    bool help;
} lut_args;

extern const cli_option_table lut_options;

/* Sets what the option read says in *a; false with *err naming the value
 * when it is not one the option takes. */
bool lut_option_apply(const option_read *o, lut_args *a, tm_error *err);

#endif
