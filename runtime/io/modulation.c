/* Modulation frequencies: their text and their checks (modulation.h). */
#include "modulation.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_list.h"
#include "number_parse.h"
#include "tm_limits.h"

#define OPTION "--modulation"

/* No unit at an item's end: it takes the next one given (modulation.h). */
#define NO_UNIT (-1)

static const struct {
    const char *name;
    int exp10;
} units[] = {{"hz", 0}, {"khz", 3}, {"mhz", 6}, {"ghz", 9}};

/* Whether the len letters at text are name's, in any case. */
static bool same_letters(const char *text, size_t len, const char *name)
{
    if (len != strlen(name))
        return false;
    for (size_t i = 0; i < len; i++)
        if (tolower((unsigned char)text[i]) != name[i])
            return false;
    return true;
}

/* The unit at the end of item, taken off (item edited), as its power of
 * ten into *exp10 (NO_UNIT for none): the trailing letters, or their end
 * ("nanMHz" is MHz after "nan"), that are a unit with text before them.
 * Letters that are none are the number's ("nan", "-inf"), which its reader
 * refuses, unless a digit or a point is before them: false with *err for
 * an unknown unit ("100Mhzz"). */
static bool take_unit(char *item, int *exp10, tm_error *err)
{
    size_t n = strlen(item);
    while (n > 0 && isspace((unsigned char)item[n - 1]))
        n--;
    size_t letters = n;
    while (letters > 0 && isalpha((unsigned char)item[letters - 1]))
        letters--;
    *exp10 = NO_UNIT;
    size_t unit = n;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        size_t len = strlen(units[k].name);
        if (n - letters >= len && n - len > 0 && n - len < unit &&
            same_letters(item + n - len, len, units[k].name)) {
            *exp10 = units[k].exp10;
            unit = n - len;
        }
    }
    size_t before = unit;
    while (before > 0 && isspace((unsigned char)item[before - 1]))
        before--;
    if (*exp10 == NO_UNIT && letters < n && letters > 0 &&
        (isdigit((unsigned char)item[letters - 1]) || item[letters - 1] == '.' ||
         isspace((unsigned char)item[letters - 1]))) {
        error_set(err, NULL, 0, OPTION ": unknown unit \"%.*s\" in \"%s\": Hz, kHz, MHz or GHz",
                  (int)(n - letters), item + letters, item);
        return false;
    }
    if (*exp10 != NO_UNIT)
        item[before] = '\0';
    return true;
}

/* The items of text (edited: each ends at its comma, its unit taken off)
 * into items[] and their units' powers of ten into exp10[], each without
 * one given the next unit after it (Hz at the end). */
static bool split_items(char *text, char **items, int *exp10, int *count, tm_error *err)
{
    *count = 0;
    for (char *item = text; item; (*count)++) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (*count == TM_MAX_MODULATIONS) {
            error_set(err, NULL, 0, OPTION ": more than %d frequencies", TM_MAX_MODULATIONS);
            return false;
        }
        items[*count] = item;
        if (!take_unit(item, &exp10[*count], err))
            return false;
        item = comma ? comma + 1 : NULL;
    }
    for (int k = *count - 1, next = 0; k >= 0; k--)
        next = exp10[k] = exp10[k] == NO_UNIT ? next : exp10[k];
    return true;
}

bool modulation_parse(const char *text, double *f, int *count, tm_error *err)
{
    char *copy = strdup(text ? text : "");
    number_list l = number_list_frequencies(
        OPTION, "100:100:500MHz", "100:100:500MHz is 100, 200, ..., 500 MHz", TM_MAX_MODULATIONS);
    char **items = malloc(TM_MAX_MODULATIONS * sizeof *items);
    int *exp10 = malloc(TM_MAX_MODULATIONS * sizeof *exp10), n = 0;
    bool ok = copy && l.values && items && exp10;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    ok = ok && split_items(copy, items, exp10, &n, err);
    for (int k = 0; ok && k < n; k++)
        ok = number_list_add_item(&l, items[k], exp10[k], err);
    ok = ok && modulation_check(OPTION, l.values, l.count, err);
    if (ok && *count + l.count > TM_MAX_MODULATIONS) {
        error_set(err, NULL, 0,
                  OPTION ": more than %d frequencies, with the earlier --modulation's",
                  TM_MAX_MODULATIONS);
        ok = false;
    }
    if (ok) {
        memcpy(f + *count, l.values, (size_t)l.count * sizeof *f);
        *count += l.count;
    }
    free(copy);
    free(l.values);
    free(items);
    free(exp10);
    return ok;
}

/* Why frequency v [Hz] is refused, or NULL. */
static const char *refusal(double v)
{
    if (!isfinite(v))
        return "is not a finite number";
    if (v < 0.0)
        return "is negative: a modulation frequency is above 0";
    if (v == 0.0)
        return "is no modulation: the amplitude at 0 Hz is Rd_r itself and its phase 0";
    if (v < TM_MIN_MODULATION_HZ)
        return "is below 1 kHz: looks like the wrong unit (a number without one is Hz: "
               "100MHz, or 1e8, is 100 MHz)";
    if (v > TM_MAX_MODULATION_HZ)
        return "is above 10 GHz: looks like the wrong unit (a number without one is Hz: "
               "100MHz, or 1e8, is 100 MHz)";
    return NULL;
}

bool modulation_check(const char *what, const double *f, int count, tm_error *err)
{
    return number_list_check(what, f, count, TM_MAX_MODULATIONS, "modulation frequencies", "Hz",
                             refusal, err);
}
