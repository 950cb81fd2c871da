/* Lists of numbers an option takes (number_list.h). */
#include "number_list.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"

/* A range's count is (STOP - START) / STEP + 1 but for rounding: 0:0.1:0.3
 * gives 2.9999999999999996 steps, which is 3 within this fraction of one. */
#define RANGE_SLACK 1e-9

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
static bool item_number(const number_list *l, const char *text, size_t len, int exp10,
                        const char *what, double *v, tm_error *err)
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
        error_set(err, NULL, 0, "%s: an empty %s (two commas, or one at an end?)", l->option, what);
        return false;
    }
    if (s == NUMBER_OK && exp10) {
        scale_text(buf, exp10, scaled, sizeof scaled);
        s = number_parse(scaled, v);
    }
    if (s != NUMBER_OK) {
        char where[96];
        snprintf(where, sizeof where, "%s: %s", l->option, what);
        number_error_set(err, NULL, 0, where, buf, s);
        return false;
    }
    return true;
}

static bool add_value(number_list *l, double v, tm_error *err)
{
    if (l->count == l->most) {
        error_set(err, NULL, 0, "%s: more than %d %s", l->option, l->most, l->nouns);
        return false;
    }
    l->values[l->count++] = v;
    return true;
}

/* START:STEP:STOP, inclusive; each value START + i STEP (not summed, so
 * that no rounding accumulates), the last STOP itself when the steps end
 * on it within the slack. */
static bool add_range(number_list *l, const char *item, const char *c1, const char *c2, int exp10,
                      tm_error *err)
{
    const char *from[3] = {item, c1 + 1, c2 + 1}, *to[3] = {c1, c2, item + strlen(item)};
    double v[3];
    static const char *const names[3] = {"range start", "range step", "range stop"};
    for (int k = 0; k < 3; k++)
        if (!item_number(l, from[k], (size_t)(to[k] - from[k]), exp10, names[k], &v[k], err))
            return false;
    if (!(v[1] > 0.0) || v[2] < v[0]) {
        error_set(err, NULL, 0,
                  "%s: range \"%s\": expected START:STEP:STOP with STEP > 0 and STOP >= START "
                  "(%s)",
                  l->option, item, l->range_said);
        return false;
    }
    double steps = (v[2] - v[0]) / v[1];
    if (!(steps < l->most)) {
        error_set(err, NULL, 0, "%s: range \"%s\" has more than %d %s", l->option, item, l->most,
                  l->nouns);
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

number_list number_list_frequencies(const char *option, const char *range, const char *range_said,
                                    int most)
{
    return (number_list){.option = option,
                         .noun = "frequency",
                         .nouns = "frequencies",
                         .range = range,
                         .range_said = range_said,
                         .most = most,
                         .values = malloc((size_t)most * sizeof(double))};
}

bool number_list_check(const char *what, const double *values, int count, int most,
                       const char *nouns, const char *unit, const char *(*refusal)(double v),
                       tm_error *err)
{
    if (count < 1 || count > most || !values) {
        error_set(err, NULL, 0, "%s: %d %s: 1 to %d are possible", what, count, nouns, most);
        return false;
    }
    for (int i = 0; i < count; i++) {
        const char *why = refusal(values[i]);
        if (why) {
            error_set(err, NULL, 0, "%s: frequency %d, %g %s, %s", what, i + 1, values[i], unit,
                      why);
            return false;
        }
    }
    return true;
}

bool number_list_add_item(number_list *l, const char *item, int exp10, tm_error *err)
{
    const char *c1 = strchr(item, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c1 && (!c2 || strchr(c2 + 1, ':'))) {
        error_set(err, NULL, 0, "%s: \"%s\": a range is START:STEP:STOP, three numbers (%s)",
                  l->option, item, l->range);
        return false;
    }
    double v;
    if (c1)
        return add_range(l, item, c1, c2, exp10, err);
    return item_number(l, item, strlen(item), exp10, l->noun, &v, err) && add_value(l, v, err);
}
