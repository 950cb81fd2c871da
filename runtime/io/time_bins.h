/* Time-resolved escapes (docs/outputs.md, "Time-resolved"): a photon's time
 * of flight is the sum over its steps of the step's length times the
 * layer's refractive index over c; its escape is binned as MCML bins space,
 * it = floor(t / dt), the last of nt bins collecting every later escape,
 * so that the time tallies sum to the escape tallies in integers. */
#ifndef TMCML_TIME_BINS_H
#define TMCML_TIME_BINS_H

#include <stdbool.h>

#include "error.h"

/* The speed of light in vacuum, cm/ns (exact by the SI's definition of the
 * metre: 299 792 458 m/s). */
#define TIME_LIGHT_CM_PER_NS 29.9792458

/* "DT:NT" (--time): dt in ns, nt bins, as time_bins_check takes them, dt's
 * text by the rule of every number (base/number_parse.h: "1e-400" is
 * refused, not read as 0).  False with *err naming the option and the
 * value. */
bool time_bins_parse(const char *text, double *dt, int *nt, tm_error *err);

/* dt and nt valid for a grid of nr rings: dt finite and at least
 * TM_MIN_TIME_BIN_NS (tm_limits.h: the time of flight and the arrays'
 * normalisation stay finite), nt 1 .. TM_MAX_TIME_BINS, nt dt finite, nr x
 * nt within MCI_MAX_BINS; what names the caller's option or function in the
 * message. */
bool time_bins_check(const char *what, double dt, int nt, int nr, tm_error *err);

/* The time_bins_check of a width a user gives (--time, the library's
 * tmcml_problem_set_time_bins): also at least TM_MIN_ASKED_TIME_BIN_NS, a
 * narrower one refused as one that looks like seconds.  Files tmcml wrote
 * are read by time_bins_check alone. */
bool time_bins_check_asked(const char *what, double dt, int nt, int nr, tm_error *err);

#endif
