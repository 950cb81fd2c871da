/* Spatial frequencies of a run (docs/outputs.md, "Spatial frequencies"):
 * the fx [1/cm] at which the escapes' Hankel transforms R(fx) and T(fx)
 * are scored, as the command line gives them (--spatial-frequencies) and
 * as every front end checks them. */
#ifndef TMCML_SPATIAL_FREQUENCIES_H
#define TMCML_SPATIAL_FREQUENCIES_H

#include <stdbool.h>

#include "error.h"

/* text as a list of frequencies in 1/cm, into fx (room for
 * TM_MAX_SPATIAL_FREQUENCIES) and *count:
 * items separated by commas, each a number or START:STEP:STOP (MATLAB's
 * colon: START, START + STEP, ... up to STOP inclusive), and after the
 * last an optional unit, "/mm" or " 1/mm" (converted to 1/cm: x 10), or
 * "/cm" or " 1/cm" (the default).  "0:0.5:26" is 53 frequencies; "0,0.1,
 * 0.2/mm" three, 0, 1 and 2 per cm.  False with *err naming the option,
 * the item and the reason (an empty item, a number that is not one, a
 * range that runs backwards or has no step, too many, a value
 * spatial_frequencies_check refuses). */
bool spatial_frequencies_parse(const char *text, double *fx, int *count, tm_error *err);

/* count frequencies valid for a run: 1 to TM_MAX_SPATIAL_FREQUENCIES, each
 * finite, >= 0 and at most TM_MAX_SPATIAL_FREQUENCY (tm_limits.h says why);
 * what names the caller's option or function in the message. */
bool spatial_frequencies_check(const char *what, const double *fx, int count, tm_error *err);

#endif
