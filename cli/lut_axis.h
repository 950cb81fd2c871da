/* An axis of `tmcml lut`'s table (mua or mus'): START:STOP:COUNT, evenly
 * spaced, START:STOP:COUNT:log, evenly spaced in log, or a comma list; the
 * values strictly increasing, each 0 or a coefficient the .mci accepts
 * (tm_limits.h), so a table can be looked up by interpolation. */
#ifndef TMCML_LUT_AXIS_H
#define TMCML_LUT_AXIS_H

#include <stdbool.h>

#include "error.h"

typedef struct lut_axis {
    int count;
    double *values; /* count, increasing; malloc'd */
} lut_axis;

/* Parses text, the value of option ("--mua"), into *out; false with *err
 * naming the option and the text. */
bool lut_axis_parse(const char *option, const char *text, lut_axis *out, tm_error *err);

void lut_axis_free(lut_axis *a);

#endif
