/* Numbers read from text a user wrote (number_parse.h). */
#include "number_parse.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool number_is_subnormal(double v) { return v != 0.0 && fabs(v) < DBL_MIN; }

/* Whether the significand of the number text[0 .. len) has a digit other
 * than 0: its value is then not zero, whatever the double it became.  (The
 * C standard leaves errno's ERANGE on underflow to the implementation, so
 * the text decides, not errno.) */
static bool significand_nonzero(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end && (isspace((unsigned char)*p) || *p == '+' || *p == '-'))
        p++;
    bool hex = end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex)
        p += 2;
    for (; p < end; p++) {
        char c = *p;
        if (hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E'))
            return false;
        if (hex ? isxdigit((unsigned char)c) && c != '0' : c >= '1' && c <= '9')
            return true;
    }
    return false;
}

number_status number_parse_prefix(const char *text, const char **end, double *out)
{
    char *stop;
    double v = strtod(text, &stop);
    *end = stop;
    if (stop == text)
        return NUMBER_NONE;
    if (!isfinite(v)) {
        *out = v;
        return NUMBER_NOT_FINITE;
    }
    if (number_is_subnormal(v) || (v == 0.0 && significand_nonzero(text, (size_t)(stop - text))))
        return NUMBER_TOO_SMALL;
    *out = v == 0.0 ? 0.0 : v;
    return NUMBER_OK;
}

number_status number_parse(const char *text, double *out)
{
    const char *end;
    double v = 0.0;
    number_status s = number_parse_prefix(text, &end, &v);
    if (s != NUMBER_NONE && *end != '\0')
        return NUMBER_TRAILING;
    if (s == NUMBER_OK || s == NUMBER_NOT_FINITE)
        *out = v;
    return s;
}

void number_error_set(tm_error *err, const char *file, int line, const char *what, const char *text,
                      number_status status)
{
    const char *reason = status == NUMBER_TRAILING     ? "unexpected characters after the number"
                         : status == NUMBER_NOT_FINITE ? "not a finite number"
                         : status == NUMBER_TOO_SMALL  ? "too small to compute with"
                                                       : "not a number";
    error_set(err, file, line, "%s: %s (\"%.60s\")%s", what, reason, text,
              status == NUMBER_TOO_SMALL ? ": a number other than 0 must be at least 1e-300" : "");
}
