/* The values of the commands' options, read by one rule whichever command
 * takes them (`run` and its kin in cli.c, `lut` in lut_command.c), so that
 * a value one command refuses, every command refuses, with the same words:
 * "OPTION: expected WHAT (got \"TEXT\")". */
#ifndef TMCML_OPTION_VALUE_H
#define TMCML_OPTION_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/* A whole number as Python writes one, the whole of text from its first
 * character (strtoull would skip blanks and read " -1" as 2^64 - 1):
 * digits with single underscores between them ("1_000_000"), within 64
 * bits; or a float that is whole ("2e4", "1e6", "2.5e3"), up to 2^53.
 * Not "1.5", "1e-3", "0x10", "1__0" or "_1". */
bool option_u64(const char *text, uint64_t *out);

/* A whole number 1 .. max (option_u64's forms). */
bool option_positive(const char *option, const char *text, uint64_t max, uint64_t *out,
                     tm_error *err);

/* A whole number min .. max (min >= 0; option_u64's forms). */
bool option_whole(const char *option, const char *text, int min, int max, int *out, tm_error *err);

/* A random seed, 0 .. 2^64 - 1. */
bool option_seed(const char *option, const char *text, uint64_t *out, tm_error *err);

/* A number by the rule of every number (base/number_parse.h: "1e-400" is
 * refused, not read as 0), finite, or +inf where inf_ok. */
bool option_number(const char *option, const char *text, bool inf_ok, double *out, tm_error *err);

/* A whole number 1 .. max (option_u64's forms: 1000000, 1_000_000, 1e6). */
bool option_count(const char *option, const char *text, double max, int64_t *out, tm_error *err);

/* A number of seconds in [lo, hi] (above lo when lo_excluded); range says
 * what is expected in the message ("from 0 (only on a signal) to 604800"). */
bool option_seconds(const char *option, const char *text, double lo, bool lo_excluded, double hi,
                    const char *range, double *out, tm_error *err);

/* --checkpoint-every: seconds from 0 (only when a signal stops the run) to
 * a week, for `run` and `lut` alike. */
bool option_checkpoint_every(const char *text, double *out, tm_error *err);

/* --engine: "auto", "cpu" or "gpu" as 0, 1 and 2, the order of the
 * driver's driver_engine and the library's tmcml_engine. */
bool option_engine(const char *text, int *out, tm_error *err);

#endif
