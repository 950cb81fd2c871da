/* A lookup table's shape, calls and values (lut_table.h). */
#include "lut_table.h"

#include <stdlib.h>
#include <string.h>

#include "tm_limits.h"

const char *lut_strategy_name(lut_strategy s)
{
    static const char *const names[] = {
        [LUT_AUTO] = "auto", [LUT_SETS] = "sets", [LUT_RUNS] = "runs"};
    return names[s];
}

static int chunks(int k) { return (k + TM_MAX_ABSORPTION_SETS - 1) / TM_MAX_ABSORPTION_SETS; }

int lut_table_calls(const lut_spec *spec, lut_strategy strategy)
{
    return strategy == LUT_SETS ? spec->m * chunks(spec->k) : spec->k;
}

lut_span lut_table_span(const lut_table *t, int call)
{
    if (t->strategy == LUT_SETS) {
        int j = call / chunks(t->k), first = call % chunks(t->k) * TM_MAX_ABSORPTION_SETS;
        int n = t->k - first < TM_MAX_ABSORPTION_SETS ? t->k - first : TM_MAX_ABSORPTION_SETS;
        return (lut_span){(size_t)j * (size_t)t->k + (size_t)first, 1, n};
    }
    return (lut_span){(size_t)call, (size_t)t->k, t->m};
}

bool lut_table_init(lut_table *t, const lut_spec *spec, lut_strategy strategy, double *rd,
                    double *rd_r, tm_error *err)
{
    memset(t, 0, sizeof *t);
    t->m = spec->m;
    t->k = spec->k;
    t->nr = spec->nr;
    t->strategy = strategy;
    t->calls = lut_table_calls(spec, strategy);
    t->rd = rd;
    t->rd_r = rd_r;
    t->done = calloc((size_t)t->calls, sizeof *t->done);
    if (t->done) {
        lut_table_clear(t);
        return true;
    }
    error_set(err, NULL, 0, "out of memory for a table of %d simulations", t->calls);
    return false;
}

void lut_table_clear(lut_table *t)
{
    size_t points = (size_t)t->m * (size_t)t->k;
    memset(t->rd, 0, points * sizeof *t->rd);
    memset(t->rd_r, 0, points * (size_t)t->nr * sizeof *t->rd_r);
    memset(t->done, 0, (size_t)t->calls * sizeof *t->done);
    t->rsp = 0.0;
    t->engine[0] = '\0';
    t->done_count = t->made = 0;
    t->trapped = 0;
}

int64_t lut_table_points_done(const lut_table *t)
{
    int64_t points = 0;
    for (int c = 0; c < t->calls; c++)
        if (t->done[c])
            points += lut_table_span(t, c).count;
    return points;
}

void lut_table_free(lut_table *t)
{
    free(t->done);
    memset(t, 0, sizeof *t);
}
