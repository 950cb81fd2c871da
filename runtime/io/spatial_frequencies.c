/* Spatial frequencies: their text and their checks (spatial_frequencies.h). */
#include "spatial_frequencies.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_list.h"
#include "number_parse.h"
#include "tm_limits.h"

#define OPTION "--spatial-frequencies"

/* The unit after the list, taken off the end of text (which it edits):
 * "/mm" or " 1/mm" per mm, "/cm" or " 1/cm", else none; the power of ten
 * from it to 1/cm (1 for mm). */
static int take_unit(char *text)
{
    size_t n = strlen(text);
    int exp10 = 0;
    if (n >= 3 && (strcmp(text + n - 3, "/mm") == 0 || strcmp(text + n - 3, "/cm") == 0)) {
        exp10 = text[n - 2] == 'm' ? 1 : 0;
        n -= 3;
        /* "0.5 1/mm": a 1 alone after a blank is the unit's (0.51/mm is
         * 0.51 per mm, 0:0.1:1/mm ends at 1 per mm). */
        if (n >= 2 && text[n - 1] == '1' && isspace((unsigned char)text[n - 2]))
            n--;
    }
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    text[n] = '\0';
    return exp10;
}

static bool parse_list(char *text, number_list *l, tm_error *err)
{
    int exp10 = take_unit(text);
    for (char *item = text;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!number_list_add_item(l, item, exp10, err))
            return false;
        if (!comma)
            return true;
        item = comma + 1;
    }
}

bool spatial_frequencies_parse(const char *text, double *fx, int *count, tm_error *err)
{
    *count = 0;
    char *copy = strdup(text ? text : "");
    number_list l = number_list_frequencies(OPTION, "0:0.5:26", "0:0.5:26 is 0, 0.5, ..., 26",
                                            TM_MAX_SPATIAL_FREQUENCIES);
    bool ok = copy && l.values;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    ok = ok && parse_list(copy, &l, err);
    ok = ok && spatial_frequencies_check(OPTION, l.values, l.count, err);
    if (ok) {
        memcpy(fx, l.values, (size_t)l.count * sizeof *fx);
        *count = l.count;
    }
    free(copy);
    free(l.values);
    return ok;
}

/* Why spatial frequency v [1/cm] is refused, or NULL. */
static const char *refusal(double v)
{
    return !isfinite(v) ? "is not a finite number"
           : v < 0.0    ? "is negative: a spatial frequency is 0 or more"
           : v > TM_MAX_SPATIAL_FREQUENCY
               ? "is above 10000 1/cm (a period of 1 um): radiative transport, which the "
                 "simulation solves, means nothing for a pattern finer than a wavelength of light"
           : number_is_subnormal(v) ? "is too small to compute with (not 0, below 1e-300)"
                                    : NULL;
}

bool spatial_frequencies_check(const char *what, const double *fx, int count, tm_error *err)
{
    return number_list_check(what, fx, count, TM_MAX_SPATIAL_FREQUENCIES, "frequencies", "1/cm",
                             refusal, err);
}
