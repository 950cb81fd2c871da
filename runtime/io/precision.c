/* What a precision run asks for, and whether its groups reach it
 * (precision.h). */
#include "precision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "output_arrays.h"
#include "run_options.h"

/* A layer this thick or more is MCML's "infinite" (1E8 cm): nothing goes
 * through it. */
#define PRECISION_SEMI_INFINITE_CM 1e7

bool precision_parse_value(const char *text, const char *option, double *out, tm_error *err)
{
    const char *end = text;
    double v = NAN;
    number_status st = text ? number_parse_prefix(text, &end, &v) : NUMBER_NONE;
    while (st == NUMBER_OK && *end == ' ')
        end++;
    bool percent = st == NUMBER_OK && *end == '%';
    if (st != NUMBER_OK || (*end && !(percent && end[1] == '\0'))) {
        error_set(err, NULL, 0,
                  "%s: expected a relative standard error, as a fraction (0.01) or a per cent "
                  "(1%%) (got \"%s\")",
                  option, text ? text : "");
        return false;
    }
    v = percent ? v / 100.0 : v;
    if (!(v > 0.0 && v < 1.0)) {
        error_set(err, NULL, 0,
                  "%s: a relative standard error must be above 0 and below 100%% "
                  "(got \"%s\")",
                  option, text);
        return false;
    }
    *out = v;
    return true;
}

static bool semi_infinite(const mci_run *run)
{
    for (int i = 1; i <= run->num_layers; i++)
        if (run->layers[i].d >= PRECISION_SEMI_INFINITE_CM)
            return true;
    return false;
}

/* "[i]" or "[i:j]" after an array's name into [first, end) of bins
 * entries; false when it is not that form or out of range. */
static bool parse_index(const char *text, uint64_t bins, uint64_t *first, uint64_t *end)
{
    char *after;
    if (*text != '[')
        return false;
    unsigned long long a = strtoull(text + 1, &after, 10), b = a + 1;
    if (after == text + 1)
        return false;
    if (*after == ':') {
        const char *from = after + 1;
        b = strtoull(from, &after, 10);
        if (after == from)
            return false;
    }
    if (strcmp(after, "]") != 0 || a >= b || b > bins)
        return false;
    *first = a;
    *end = b;
    return true;
}

/* Why an array the run has cannot be a target, or NULL. */
static const char *zero_in_expectation(const output_array *o, const mci_run *run,
                                       bool score_absorption)
{
    if (o->absorption && !score_absorption)
        return "is not scored without absorption (-A)";
    if (!strncmp(o->name, "Tt", 2) && semi_infinite(run))
        return "is zero in expectation: the medium is semi-infinite";
    return NULL;
}

static bool parse_array(const char *text, const mci_run *run, bool score_absorption,
                        precision_target *t, tm_error *err)
{
    size_t len = strcspn(text, "[");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), text);
    const output_array *o = output_by_name(name);
    output_grid g = run_options_grid(run);
    if (!o || o->rank != 1 || !text[len]) {
        error_set(err, NULL, 0,
                  "--precision-of: \"%s\" is not a quantity: name Rd, A or Tt, an entry of a "
                  "1-D array (Rd_r[40]) or a range of its entries (Rd_r[0:100])",
                  text);
        return false;
    }
    const char *why = !run_options_wants(run, o) ? "is not scored by this run (its option is off)"
                                                 : zero_in_expectation(o, run, score_absorption);
    if (why) {
        error_set(err, NULL, 0, "--precision-of %s: %s %s", text, o->name, why);
        return false;
    }
    uint64_t bins = output_bins(o, &g);
    if (!parse_index(text + len, bins, &t->first, &t->end)) {
        error_set(err, NULL, 0,
                  "--precision-of %s: expected [i] or [i:j] with 0 <= i < j <= %llu (%s's entries)",
                  text, (unsigned long long)bins, o->name);
        return false;
    }
    t->total = -1;
    t->row = (int)(o - output_table);
    return true;
}

bool precision_target_parse(const char *text, const mci_run *run, bool score_absorption,
                            precision_target *t, tm_error *err)
{
    static const char *const totals[3] = {"Rd", "A", "Tt"};
    double relative = t->relative;
    memset(t, 0, sizeof *t);
    t->relative = relative;
    text = text ? text : "Rd";
    snprintf(t->name, sizeof t->name, "%s", text);
    for (int k = 0; k < 3; k++) {
        if (strcmp(text, totals[k]) != 0)
            continue;
        const char *why = k == 1 && !score_absorption ? "is not scored without absorption (-A)"
                          : k == 2 && semi_infinite(run)
                              ? "is zero in expectation: the medium is semi-infinite"
                              : NULL;
        if (why) {
            error_set(err, NULL, 0, "--precision-of %s: %s %s", text, text, why);
            return false;
        }
        t->total = k;
        return true;
    }
    return parse_array(text, run, score_absorption, t, err);
}

/* The relative error of a mean with this m2 over u's groups. */
static double relative(const uncertainty *u, double mean, double m2)
{
    if (u->groups < 2 || mean == 0.0)
        return INFINITY;
    return sqrt(m2 / ((double)(u->groups - 1) * (double)u->photons)) / fabs(mean);
}

double precision_reached(const precision_target *t, const uncertainty *u)
{
    if (t->total >= 0)
        return relative(u, u->mean[t->total], u->m2[t->total]);
    const double *mean = u->array_mean[t->row], *m2 = u->array_m2[t->row];
    if (!mean)
        return INFINITY;
    int shown = output_first(&output_table[t->row]);
    double worst = 0.0;
    for (uint64_t i = t->first; i < t->end; i++) {
        double r = relative(u, mean[shown + i], m2[shown + i]);
        worst = r > worst ? r : worst;
    }
    return worst;
}
