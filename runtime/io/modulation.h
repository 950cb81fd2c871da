/* Modulation frequencies of a run (docs/outputs.md, "Frequency domain"):
 * the f [Hz] at which the reflectance's amplitude and phase are scored
 * (Rd_r_ac, Rd_r_phase, Rd_ac, Rd_phase), as the command line gives them
 * (--modulation) and as every front end checks them. */
#ifndef TMCML_MODULATION_H
#define TMCML_MODULATION_H

#include <stdbool.h>

#include "error.h"

/* text as a list of modulation frequencies appended to the *count already
 * in f (room for TM_MAX_MODULATIONS: --modulation repeats): items separated
 * by commas, each a number or START:STEP:STOP (as --spatial-frequencies'),
 * each with its unit, Hz, kHz, MHz or GHz (in either case; blanks before
 * it allowed), or none: a number without one takes the next unit after it
 * in the list ("100,200MHz" is 100 and 200 MHz), Hz when none follows.
 * A range's unit is its STOP's ("50:50:500MHz").  False with *err naming
 * the option, the item and the reason (an unknown unit, a number that is
 * not one, a bad range, too many, a value modulation_check refuses); *count
 * is then as it was. */
bool modulation_parse(const char *text, double *f, int *count, tm_error *err);

/* count frequencies valid for a run: 1 to TM_MAX_MODULATIONS, each finite,
 * from TM_MIN_MODULATION_HZ to TM_MAX_MODULATION_HZ (tm_limits.h says
 * why); what names the caller's option or function in the message. */
bool modulation_check(const char *what, const double *f, int count, tm_error *err);

#endif
