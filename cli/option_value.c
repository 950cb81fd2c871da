/* The values of the commands' options (option_value.h). */
#include "option_value.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"

/* text as digits with single underscores between them ("1_000_000", as
 * Python writes an int) into digits (size cap), else false. */
static bool digits_of(const char *text, char *digits, size_t cap)
{
    size_t n = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '_' && c > text && c[-1] >= '0' && c[-1] <= '9' && c[1] >= '0' && c[1] <= '9')
            continue;
        if (*c < '0' || *c > '9' || n + 1 >= cap)
            return false;
        digits[n++] = *c;
    }
    digits[n] = '\0';
    return n > 0;
}

/* text in the decimal forms of a float ("2e4", "2.5e3"), not hexadecimal:
 * what Python's float() reads. */
static bool decimal_form(const char *text)
{
    for (const char *c = text; *c; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' || *c == '+' ||
              *c == '-'))
            return false;
    return true;
}

bool option_u64(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    char digits[40];
    if (digits_of(text, digits, sizeof digits)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(digits, &end, 10);
        if (errno || *end)
            return false;
        *out = v;
        return true;
    }
    /* A whole number written as a float, within the doubles' exact
     * integers (2^53): 1e6 photons, as Python's photons=1e6 and pmcx take. */
    double v;
    if (!decimal_form(text) || number_parse(text, &v) != NUMBER_OK || v != floor(v) || v < 0 ||
        v > 9007199254740992.0)
        return false;
    *out = (uint64_t)v;
    return true;
}

bool option_positive(const char *option, const char *text, uint64_t max, uint64_t *out,
                     tm_error *err)
{
    if (!option_u64(text, out) || *out == 0 || *out > max) {
        error_set(err, NULL, 0, "%s: expected a whole number from 1 to %llu (got \"%s\")", option,
                  (unsigned long long)max, text ? text : "");
        return false;
    }
    return true;
}

bool option_whole(const char *option, const char *text, int min, int max, int *out, tm_error *err)
{
    uint64_t v;
    if (!option_u64(text, &v) || v < (uint64_t)min || v > (uint64_t)max) {
        error_set(err, NULL, 0, "%s: expected a whole number from %d to %d (got \"%s\")", option,
                  min, max, text ? text : "");
        return false;
    }
    *out = (int)v;
    return true;
}

bool option_seed(const char *option, const char *text, uint64_t *out, tm_error *err)
{
    if (option_u64(text, out))
        return true;
    error_set(err, NULL, 0, "%s: expected a whole number from 0 to 2^64-1 (got \"%s\")", option,
              text ? text : "");
    return false;
}

bool option_number(const char *option, const char *text, bool inf_ok, double *out, tm_error *err)
{
    double v = 0.0;
    number_status s = text ? number_parse(text, &v) : NUMBER_NONE;
    if (s == NUMBER_TOO_SMALL) {
        number_error_set(err, NULL, 0, option, text, s);
        return false;
    }
    if (s != NUMBER_OK && !(s == NUMBER_NOT_FINITE && inf_ok && v == INFINITY)) {
        error_set(err, NULL, 0, "%s: expected a number (got \"%s\")", option, text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

bool option_count(const char *option, const char *text, double max, int64_t *out, tm_error *err)
{
    uint64_t v;
    if (!option_u64(text, &v) || v < 1 || (double)v > max) {
        error_set(err, NULL, 0, "%s: expected a whole number from 1 to %.0f (got \"%s\")", option,
                  max, text ? text : "");
        return false;
    }
    *out = (int64_t)v;
    return true;
}

bool option_seconds(const char *option, const char *text, double lo, bool lo_excluded, double hi,
                    const char *range, double *out, tm_error *err)
{
    double v = lo - 1;
    number_status s = text ? number_parse(text, &v) : NUMBER_NONE;
    if (s == NUMBER_TOO_SMALL) {
        number_error_set(err, NULL, 0, option, text, s);
        return false;
    }
    bool above = lo_excluded ? v > lo : v >= lo;
    if (s != NUMBER_OK || !(above && v <= hi)) {
        error_set(err, NULL, 0, "%s: expected seconds, %s (got \"%s\")", option, range,
                  text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

bool option_checkpoint_every(const char *text, double *out, tm_error *err)
{
    return option_seconds("--checkpoint-every", text, 0, false, 604800,
                          "from 0 (only on a signal) to 604800", out, err);
}

bool option_engine(const char *text, int *out, tm_error *err)
{
    static const char *const names[] = {"auto", "cpu", "gpu"};
    for (int e = 0; e < 3; e++)
        if (text && strcmp(text, names[e]) == 0) {
            *out = e;
            return true;
        }
    error_set(err, NULL, 0, "--engine: expected cpu, gpu or auto (got \"%s\")", text ? text : "");
    return false;
}
