/* Lists of numbers an option takes (--spatial-frequencies, --modulation):
 * items separated by commas, each a number or a range START:STEP:STOP
 * (MATLAB's colon: START, START + STEP, ... up to STOP inclusive), each
 * number's decimal text scaled by a power of ten its unit gives, exactly
 * (the exponent raised: 0.3 x 10 is 3, not 3.0000000000000004).  The
 * options' units and checks are their own (spatial_frequencies.c,
 * modulation.c); the items' reading and its messages are shared here. */
#ifndef TMCML_NUMBER_LIST_H
#define TMCML_NUMBER_LIST_H

#include <stdbool.h>

#include "error.h"

/* A list being read: what messages call it, and its values so far. */
typedef struct number_list {
    const char *option;     /* "--spatial-frequencies" */
    const char *noun;       /* "frequency": "an empty frequency" */
    const char *nouns;      /* "frequencies": "more than 1024 frequencies" */
    const char *range;      /* a range's example: "0:0.5:26" */
    const char *range_said; /* and what it gives: "0:0.5:26 is 0, 0.5, ..., 26" */
    int most;               /* room in values */
    double *values;
    int count;
} number_list;

/* An empty list of frequencies for option, room for most of them (values
 * malloc'd, the caller's to free; NULL when out of memory), its messages
 * calling an item a frequency and a range's example range ("0:0.5:26"),
 * which gives range_said ("0:0.5:26 is 0, 0.5, ..., 26"). */
number_list number_list_frequencies(const char *option, const char *range, const char *range_said,
                                    int most);

/* item (a number or START:STEP:STOP, blanks around each number skipped),
 * each of its numbers times 10^exp10, appended to l; false with *err
 * naming the option, the item and the reason (an empty item, a number
 * that is not one, a range of no step or running backwards, more than
 * l->most values). */
bool number_list_add_item(number_list *l, const char *item, int exp10, tm_error *err);

/* count values an option or function (what) takes: 1 to most of them
 * ("WHAT: 0 NOUNS: 1 to MOST are possible"), each one refusal() passes
 * (NULL; else "WHAT: frequency K, V UNIT, REASON", K from 1); false with
 * *err. */
bool number_list_check(const char *what, const double *values, int count, int most,
                       const char *nouns, const char *unit, const char *(*refusal)(double v),
                       tm_error *err);

#endif
