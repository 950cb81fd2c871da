/* Spatial frequencies: their text and their checks (spatial_frequencies.h). */
#include "spatial_frequencies.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "tm_limits.h"

#define OPTION "--spatial-frequencies"

/* A range's count is (STOP - START) / STEP + 1 but for rounding: 0:0.1:0.3
 * gives 2.9999999999999996 steps, which is 3 within this fraction of one. */
#define RANGE_SLACK 1e-9

/* The list being read: its values in the text's unit. */
typedef struct fx_list {
    double values[TM_MAX_SPATIAL_FREQUENCIES];
    int count;
} fx_list;

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

/* The decimal text of a number (number_parse took it) times 10^exp10, as
 * its own text: the exponent raised, so that 0.3/mm is 3 per cm exactly,
 * where 0.3 x 10 in doubles is 3.0000000000000004.  A text without digits
 * at its end (inf) is left as it is. */
static void scale_text(const char *text, int exp10, char *out, size_t size)
{
    const char *e = strpbrk(text, "eE");
    size_t n = strlen(text);
    if (exp10 == 0 || n == 0 || (!e && !isdigit((unsigned char)text[n - 1]) && text[n - 1] != '.'))
        snprintf(out, size, "%s", text);
    else if (!e)
        snprintf(out, size, "%se%d", text, exp10);
    else
        snprintf(out, size, "%.*se%ld", (int)(e - text), text, strtol(e + 1, NULL, 10) + exp10);
}

/* One number of an item, the len characters at text, its blanks around it
 * skipped, times 10^exp10. */
static bool item_number(const char *text, size_t len, int exp10, const char *what, double *v,
                        tm_error *err)
{
    char buf[64], scaled[80];
    while (len > 0 && isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), text);
    number_status s = len >= sizeof buf ? NUMBER_TRAILING : number_parse(buf, v);
    if (len == 0) {
        error_set(err, NULL, 0, OPTION ": an empty %s (two commas, or one at an end?)", what);
        return false;
    }
    if (s == NUMBER_OK && exp10) {
        scale_text(buf, exp10, scaled, sizeof scaled);
        s = number_parse(scaled, v);
    }
    if (s != NUMBER_OK) {
        char where[96];
        snprintf(where, sizeof where, OPTION ": %s", what);
        number_error_set(err, NULL, 0, where, buf, s);
        return false;
    }
    return true;
}

static bool add_value(fx_list *l, double v, tm_error *err)
{
    if (l->count == TM_MAX_SPATIAL_FREQUENCIES) {
        error_set(err, NULL, 0, OPTION ": more than %d frequencies", TM_MAX_SPATIAL_FREQUENCIES);
        return false;
    }
    l->values[l->count++] = v;
    return true;
}

/* START:STEP:STOP, inclusive; each value START + i STEP (not summed, so
 * that no rounding accumulates), the last STOP itself when the steps end
 * on it within the slack. */
static bool add_range(fx_list *l, const char *item, const char *c1, const char *c2, int exp10,
                      tm_error *err)
{
    const char *from[3] = {item, c1 + 1, c2 + 1}, *to[3] = {c1, c2, item + strlen(item)};
    double v[3];
    static const char *const names[3] = {"range start", "range step", "range stop"};
    for (int k = 0; k < 3; k++)
        if (!item_number(from[k], (size_t)(to[k] - from[k]), exp10, names[k], &v[k], err))
            return false;
    if (!(v[1] > 0.0) || v[2] < v[0]) {
        error_set(err, NULL, 0,
                  OPTION ": range \"%s\": expected START:STEP:STOP with STEP > 0 and STOP >= "
                         "START (0:0.5:26 is 0, 0.5, ..., 26)",
                  item);
        return false;
    }
    double steps = (v[2] - v[0]) / v[1];
    if (!(steps < TM_MAX_SPATIAL_FREQUENCIES)) {
        error_set(err, NULL, 0, OPTION ": range \"%s\" has more than %d frequencies", item,
                  TM_MAX_SPATIAL_FREQUENCIES);
        return false;
    }
    int last = (int)floor(steps + RANGE_SLACK * (steps > 1.0 ? steps : 1.0));
    for (int i = 0; i <= last; i++) {
        double x = i == last && fabs(v[0] + i * v[1] - v[2]) <= RANGE_SLACK * v[1]
                       ? v[2]
                       : v[0] + i * v[1];
        if (!add_value(l, x, err))
            return false;
    }
    return true;
}

/* One item of the list: a number or a range. */
static bool add_item(fx_list *l, const char *item, int exp10, tm_error *err)
{
    const char *c1 = strchr(item, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c1 && (!c2 || strchr(c2 + 1, ':'))) {
        error_set(err, NULL, 0,
                  OPTION ": \"%s\": a range is START:STEP:STOP, three numbers (0:0.5:26)", item);
        return false;
    }
    double v;
    if (c1)
        return add_range(l, item, c1, c2, exp10, err);
    return item_number(item, strlen(item), exp10, "frequency", &v, err) && add_value(l, v, err);
}

static bool parse_list(char *text, fx_list *l, tm_error *err)
{
    int exp10 = take_unit(text);
    for (char *item = text;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!add_item(l, item, exp10, err))
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
    fx_list *l = calloc(1, sizeof *l);
    bool ok = copy && l;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    ok = ok && parse_list(copy, l, err);
    ok = ok && spatial_frequencies_check(OPTION, l->values, l->count, err);
    if (ok) {
        memcpy(fx, l->values, (size_t)l->count * sizeof *fx);
        *count = l->count;
    }
    free(copy);
    free(l);
    return ok;
}

bool spatial_frequencies_check(const char *what, const double *fx, int count, tm_error *err)
{
    if (count < 1 || count > TM_MAX_SPATIAL_FREQUENCIES || !fx) {
        error_set(err, NULL, 0, "%s: %d frequencies: 1 to %d are possible", what, count,
                  TM_MAX_SPATIAL_FREQUENCIES);
        return false;
    }
    for (int i = 0; i < count; i++) {
        double v = fx[i];
        const char *why = !isfinite(v) ? "is not a finite number"
                          : v < 0.0    ? "is negative: a spatial frequency is 0 or more"
                          : v > TM_MAX_SPATIAL_FREQUENCY
                              ? "is above 10000 1/cm (a period of 1 um): radiative transport, "
                                "which the simulation solves, means nothing for a pattern finer "
                                "than a wavelength of light"
                          : number_is_subnormal(v) ? "is too small to compute with (not 0, below "
                                                     "1e-300)"
                                                   : NULL;
        if (why) {
            error_set(err, NULL, 0, "%s: frequency %d, %g 1/cm, %s", what, i + 1, v, why);
            return false;
        }
    }
    return true;
}
