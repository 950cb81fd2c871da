/* Numbers read from text a user wrote (a file's token, an option's value):
 * the one rule of every number reader, so that a value refused in one place
 * is refused everywhere.
 *
 * strtod's syntax (decimal or hexadecimal, in the C locale the caller set:
 * base/c_locale.h).  Refused: no number at all, characters after it, NaN
 * and infinities (written so, or beyond the doubles: "1e999"), and a value
 * whose text is not zero but that the doubles cannot hold as a normal
 * number: "1e-400" and "2e-324" underflow to 0, "1e-320" is subnormal.  A
 * subnormal is no quantity anyone measured, 1/v of it is infinite, and an
 * underflow to 0 would turn a small absorption into none at all without a
 * word.  Zero written as zero ("0", "0.0", "-0", "0e5") is 0 (never -0: it
 * would print as "-0"). */
#ifndef TMCML_NUMBER_PARSE_H
#define TMCML_NUMBER_PARSE_H

#include <stdbool.h>

#include "error.h"

typedef enum number_status {
    NUMBER_OK,
    NUMBER_NONE,       /* no number at the start: "", "x", "." */
    NUMBER_TRAILING,   /* a number followed by other characters: "1.5cm", "1,5" */
    NUMBER_NOT_FINITE, /* "nan", "inf", "1e999": *out gets strtod's value */
    NUMBER_TOO_SMALL   /* not zero, but below the normal doubles (2.2e-308) */
} number_status;

/* The whole of text as a double into *out (set only when NUMBER_OK, or
 * NUMBER_NOT_FINITE where a caller takes infinity). */
number_status number_parse(const char *text, double *out);

/* The number at the start of text, as number_parse; *end (not NULL) gets
 * where it stops, and what follows is the caller's ("0.1:10"): never
 * NUMBER_TRAILING. */
number_status number_parse_prefix(const char *text, const char **end, double *out);

/* *err (file and line as error_set takes them) for text that number_parse
 * refused with status: "WHAT: REASON (\"TEXT\")", REASON "not a number",
 * "unexpected characters after the number", "not a finite number" or "too
 * small to compute with", the last followed by ": a number other than 0
 * must be at least 1e-300".  what names the quantity and where it was given ("layer
 * 1: mua", "--time: bin width"). */
void number_error_set(tm_error *err, const char *file, int line, const char *what, const char *text,
                      number_status status);

/* v is not zero but below the normal doubles: a value that comes as a
 * double (the library's arguments) and that number_parse would refuse as
 * text. */
bool number_is_subnormal(double v);

#endif
