/* The values of the commands' options (option_value.h). */
#include "option_value.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "number_parse.h"

bool option_u64(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
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
    double v;
    if (!option_number(option, text, false, &v, err) || v != floor(v) || v < 1 || v > max) {
        error_set(err, NULL, 0, "%s: expected a whole number from 1 to %.0f (got \"%s\")", option,
                  max, text ? text : "");
        return false;
    }
    *out = (int64_t)v;
    return true;
}
