/* Time bins: their text and their checks (time_bins.h). */
#include "time_bins.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "tm_limits.h"

bool time_bins_parse(const char *text, double *dt, int *nt, tm_error *err)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon || colon == text) {
        error_set(err, NULL, 0,
                  "--time: expected DT:NT, the bin width in ns and the bin count (got \"%s\")",
                  text ? text : "");
        return false;
    }
    char width[64];
    snprintf(width, sizeof width, "%.*s", (int)(colon - text < 63 ? colon - text : 63), text);
    double v = 0.0;
    number_status s = colon - text < 63 ? number_parse(width, &v) : NUMBER_TRAILING;
    if (s != NUMBER_OK) {
        number_error_set(err, NULL, 0, "--time: bin width", width, s);
        return false;
    }
    char *end_n = NULL;
    double n = strtod(colon + 1, &end_n);
    if (end_n == colon + 1 || *end_n || n != floor(n) || !(n >= 1 && n <= TM_MAX_TIME_BINS)) {
        error_set(err, NULL, 0, "--time: bin count \"%s\" is not a whole number from 1 to %d",
                  colon + 1, TM_MAX_TIME_BINS);
        return false;
    }
    *dt = v;
    *nt = (int)n;
    return time_bins_check_asked("--time", *dt, *nt, 1, err);
}

bool time_bins_check(const char *what, double dt, int nt, int nr, tm_error *err)
{
    if (!(dt > 0.0 && isfinite(dt))) {
        error_set(err, NULL, 0, "%s: bin width %g ns is not a finite number > 0", what, dt);
        return false;
    }
    if (dt < TM_MIN_TIME_BIN_NS) {
        error_set(err, NULL, 0,
                  "%s: bin width %g ns is below %g ns (an attosecond), too narrow for the time "
                  "of flight to be computed and its arrays normalised",
                  what, dt, TM_MIN_TIME_BIN_NS);
        return false;
    }
    if (nt < 1 || nt > TM_MAX_TIME_BINS) {
        error_set(err, NULL, 0, "%s: %d time bins: 1 to %d are possible", what, nt,
                  TM_MAX_TIME_BINS);
        return false;
    }
    if (!isfinite(dt * nt)) {
        error_set(err, NULL, 0,
                  "%s: %d bins of %g ns end beyond the largest number (their range must be "
                  "finite)",
                  what, nt, dt);
        return false;
    }
    if ((int64_t)nr * nt > MCI_MAX_BINS) {
        error_set(err, NULL, 0, "%s: %d rings x %d time bins exceed %lld bins", what, nr, nt,
                  (long long)MCI_MAX_BINS);
        return false;
    }
    return true;
}

bool time_bins_check_asked(const char *what, double dt, int nt, int nr, tm_error *err)
{
    /* 1e-15 .. 1e-5: a bin of 1 fs to 10 us if it were seconds.  Narrower
     * widths are refused by time_bins_check for what they are. */
    if (dt >= 1e-15 && dt < TM_MIN_ASKED_TIME_BIN_NS) {
        error_set(err, NULL, 0,
                  "%s: bin width %g ns is below %g ns (10 fs): it looks like seconds; time bins "
                  "are in ns (10 ps is 0.01)",
                  what, dt, TM_MIN_ASKED_TIME_BIN_NS);
        return false;
    }
    return time_bins_check(what, dt, nt, nr, err);
}
