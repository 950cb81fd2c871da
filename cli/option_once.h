/* Options given once: an option of the command line given twice with
 * different values is refused (the last silently winning hid mistakes: a
 * second --seed replaced the first), whatever its spelling ("-S 5",
 * "-S5", "--seed 5", "--seed=5": the option table gives its one name).
 * The same value twice, or a flag twice, is harmless and taken.  An
 * option whose row is repeatable (OPTION_REPEATABLE: --detector) adds
 * one more each time instead, as many as its apply takes. */
#ifndef TMCML_OPTION_ONCE_H
#define TMCML_OPTION_ONCE_H

#include <stdbool.h>

#include "error.h"
#include "option_table.h"

typedef struct option_given {
    char name[48];     /* the option's name in its table */
    const char *value; /* in argv; "" for a flag */
} option_given;

typedef struct options_given {
    option_given *at; /* room for every word of the command line */
    int count;
} options_given;

/* Records the option name given with value into g; false with *err naming
 * it when it was given before with another value. */
bool option_once(options_given *g, const char *name, const char *value, tm_error *err);

/* What one option's words gave (option_table_read), by its row: a
 * repeatable option taken every time, another as option_once. */
bool option_once_read(options_given *g, const option_read *o, tm_error *err);

#endif
