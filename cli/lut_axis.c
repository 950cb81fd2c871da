/* An axis of the lookup table from its option's text (lut_axis.h). */
#include "lut_axis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lut_check.h"
#include "number_parse.h"
#include "tm_limits.h"

/* The longest text read: a comma list of LUT_AXIS_MAX values would be
 * longer, and no one types that. */
#define LUT_AXIS_TEXT_MAX 65536

/* One number of the text: all of word, by the rule of every number
 * (base/number_parse.h: finite, "1e-400" refused rather than read as 0). */
static number_status parse_number(const char *word, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return NUMBER_NONE;
    memcpy(buf, word, len);
    buf[len] = '\0';
    return number_parse(buf, out);
}

static bool axis_fail(const char *option, const char *text, const char *why, tm_error *err)
{
    error_set(err, NULL, 0, "%s \"%.200s\": %s", option, text, why);
    return false;
}

/* The failure of a number of the text: why, or the value too small. */
static bool number_fail(const char *option, const char *text, const char *word, size_t len,
                        number_status s, const char *why, tm_error *err)
{
    char small[160];
    if (s == NUMBER_TOO_SMALL) {
        snprintf(small, sizeof small,
                 "\"%.*s\" is too small to compute with: a number other than 0 must be at least "
                 "1e-300",
                 (int)(len < 64 ? len : 64), word);
        why = small;
    }
    return axis_fail(option, text, why, err);
}

/* Every value a coefficient of the .mci, and increasing: the library's
 * rule (driver/lut_check.h), said of the option's text. */
static bool check_values(const char *option, const char *text, const lut_axis *a, tm_error *err)
{
    char why[160];
    return lut_check_axis(a->values, a->count, why, sizeof why) < 0 ||
           axis_fail(option, text, why, err);
}

/* START:STOP:COUNT[:log|:lin] split at its colons (fields[4], lengths). */
static int split_fields(const char *text, const char **fields, size_t *lens)
{
    int n = 0;
    for (const char *p = text; p && n < 5; n++) {
        const char *colon = strchr(p, ':');
        if (n < 4) {
            fields[n] = p;
            lens[n] = colon ? (size_t)(colon - p) : strlen(p);
        }
        p = colon ? colon + 1 : NULL;
    }
    return n;
}

static bool parse_range(const char *option, const char *text, lut_axis *out, tm_error *err)
{
    const char *f[4];
    size_t len[4];
    int n = split_fields(text, f, len);
    if (n < 3 || n > 4)
        return axis_fail(option, text,
                         "expected START:STOP:COUNT, START:STOP:COUNT:log or a "
                         "comma list of values",
                         err);
    double start, stop, count;
    for (int i = 0; i < 2; i++) {
        number_status s = parse_number(f[i], len[i], i == 0 ? &start : &stop);
        if (s != NUMBER_OK)
            return number_fail(option, text, f[i], len[i], s,
                               "START and STOP must be numbers (1/cm)", err);
    }
    if (parse_number(f[2], len[2], &count) != NUMBER_OK || count != floor(count) || count < 1 ||
        count > LUT_AXIS_MAX)
        return axis_fail(option, text, "COUNT must be a whole number from 1 to 1000000", err);
    bool log_spaced = n == 4 && len[3] == 3 && strncmp(f[3], "log", 3) == 0;
    if (n == 4 && !log_spaced && !(len[3] == 3 && strncmp(f[3], "lin", 3) == 0))
        return axis_fail(option, text, "the spacing after COUNT must be log or lin", err);
    int k = (int)count;
    if (k == 1 && start != stop)
        return axis_fail(option, text, "one value (COUNT 1) needs START equal to STOP", err);
    if (k > 1 && !(start < stop))
        return axis_fail(option, text, "START must be below STOP", err);
    if (log_spaced && !(start > 0))
        return axis_fail(option, text, "log spacing needs START above 0", err);
    out->values = malloc((size_t)k * sizeof *out->values);
    if (!out->values)
        return axis_fail(option, text, "out of memory", err);
    out->count = k;
    for (int i = 0; i < k; i++) {
        double t = k > 1 ? (double)i / (k - 1) : 0.0;
        out->values[i] = log_spaced ? exp(log(start) + t * (log(stop) - log(start)))
                                    : start + t * (stop - start);
    }
    out->values[0] = start; /* the ends as given, not as rounded */
    out->values[k - 1] = stop;
    return true;
}

static bool parse_list(const char *option, const char *text, lut_axis *out, tm_error *err)
{
    int k = 1;
    for (const char *p = text; *p; p++)
        k += *p == ',';
    if (k > LUT_AXIS_MAX)
        return axis_fail(option, text, "more than 1000000 values", err);
    out->values = malloc((size_t)k * sizeof *out->values);
    if (!out->values)
        return axis_fail(option, text, "out of memory", err);
    out->count = 0;
    for (const char *p = text; p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        number_status s = parse_number(p, len, &out->values[out->count++]);
        if (s != NUMBER_OK)
            return number_fail(option, text, p, len, s,
                               "expected START:STOP:COUNT, START:STOP:COUNT:log or a comma list "
                               "of numbers (1/cm)",
                               err);
        p = comma ? comma + 1 : NULL;
    }
    return true;
}

bool lut_axis_parse(const char *option, const char *text, lut_axis *out, tm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return axis_fail(option, "", "expected START:STOP:COUNT[:log] or a comma list", err);
    if (strlen(text) > LUT_AXIS_TEXT_MAX)
        return axis_fail(option, "...", "longer than 65536 characters", err);
    bool ok = strchr(text, ':') ? parse_range(option, text, out, err)
                                : parse_list(option, text, out, err);
    ok = ok && check_values(option, text, out, err);
    if (!ok)
        lut_axis_free(out);
    return ok;
}

void lut_axis_free(lut_axis *a)
{
    free(a->values);
    memset(a, 0, sizeof *a);
}
