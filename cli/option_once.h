/* Options given once: an option of the command line given twice with
 * different values is refused (the last silently winning hid mistakes: a
 * second --detector replaced the first), whatever its spelling ("-S 5",
 * "-S5", "--seed 5", "--seed=5").  The same value twice, or a flag twice,
 * is harmless and taken. */
#ifndef TMCML_OPTION_ONCE_H
#define TMCML_OPTION_ONCE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct option_given {
    char name[48];     /* the long name where the option has one */
    const char *value; /* in argv; "" for a flag */
    size_t value_len;
} option_given;

typedef struct options_given {
    option_given *at; /* room for every word of the command line */
    int count;
} options_given;

/* Records the option of argv[first .. last] (the words its parser took)
 * into g; false with *err naming it when it was given before with another
 * value. */
bool option_once(options_given *g, char **argv, int first, int last, tm_error *err);

#endif
