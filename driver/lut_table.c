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

/* The table's own arrays of each point's errors; false when out of memory. */
static bool errors_init(lut_table *t)
{
    size_t points = (size_t)t->m * (size_t)t->k;
    t->rd_stderr = malloc(points * sizeof *t->rd_stderr);
    t->rd_r_stderr = malloc(points * (size_t)t->nr * sizeof *t->rd_r_stderr);
    t->photons = malloc(points * sizeof *t->photons);
    t->reached = malloc(points * sizeof *t->reached);
    if (t->nfx > 0)
        t->rd_fx_stderr = malloc(points * (size_t)t->nfx * sizeof *t->rd_fx_stderr);
    return t->rd_stderr && t->rd_r_stderr && t->photons && t->reached &&
           (t->nfx == 0 || t->rd_fx_stderr);
}

bool lut_table_init(lut_table *t, const lut_spec *spec, lut_strategy strategy, double *rd,
                    double *rd_r, double *rd_fx, tm_error *err)
{
    memset(t, 0, sizeof *t);
    t->m = spec->m;
    t->k = spec->k;
    t->nr = spec->nr;
    t->nfx = spec->fx_count;
    t->strategy = strategy;
    t->calls = lut_table_calls(spec, strategy);
    t->rd = rd;
    t->rd_r = rd_r;
    t->rd_fx = t->nfx > 0 ? rd_fx : NULL;
    t->done = calloc((size_t)t->calls, sizeof *t->done);
    bool ok = t->done != NULL;
    if (ok && spec->errors)
        ok = errors_init(t);
    if (ok) {
        lut_table_clear(t);
        return true;
    }
    lut_table_free(t);
    error_set(err, NULL, 0, "out of memory for a table of %d simulations", t->calls);
    return false;
}

void lut_table_clear(lut_table *t)
{
    size_t points = (size_t)t->m * (size_t)t->k;
    memset(t->rd, 0, points * sizeof *t->rd);
    memset(t->rd_r, 0, points * (size_t)t->nr * sizeof *t->rd_r);
    memset(t->done, 0, (size_t)t->calls * sizeof *t->done);
    if (t->rd_fx)
        memset(t->rd_fx, 0, points * (size_t)t->nfx * sizeof *t->rd_fx);
    if (t->rd_fx_stderr)
        memset(t->rd_fx_stderr, 0, points * (size_t)t->nfx * sizeof *t->rd_fx_stderr);
    if (t->rd_stderr) {
        memset(t->rd_stderr, 0, points * sizeof *t->rd_stderr);
        memset(t->rd_r_stderr, 0, points * (size_t)t->nr * sizeof *t->rd_r_stderr);
        memset(t->photons, 0, points * sizeof *t->photons);
        memset(t->reached, 0, points * sizeof *t->reached);
    }
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

/* fn(ctx, point) for each point of the calls done. */
static void each_point_done(const lut_table *t, void (*fn)(void *, size_t), void *ctx)
{
    for (int c = 0; c < t->calls; c++) {
        lut_span span = lut_table_span(t, c);
        for (int p = 0; t->done[c] && p < span.count; p++)
            fn(ctx, span.first + (size_t)p * span.stride);
    }
}

typedef struct short_count {
    const lut_table *t;
    double precision;
    int64_t points;
} short_count;

static void count_short(void *ctx, size_t at)
{
    short_count *c = ctx;
    c->points += !(c->t->reached[at] <= c->precision);
}

int64_t lut_table_points_short(const lut_table *t, double precision)
{
    short_count c = {t, precision, 0};
    if (t->reached && precision > 0.0)
        each_point_done(t, count_short, &c);
    return c.points;
}

typedef struct photon_sum {
    const lut_table *t;
    uint64_t photons;
} photon_sum;

static void add_photons(void *ctx, size_t at)
{
    photon_sum *s = ctx;
    uint64_t p = s->t->photons[at];
    s->photons = s->photons + p < s->photons ? UINT64_MAX : s->photons + p;
}

uint64_t lut_table_photons_done(const lut_table *t)
{
    photon_sum s = {t, 0};
    if (t->photons)
        each_point_done(t, add_photons, &s);
    return s.photons;
}

void lut_table_free(lut_table *t)
{
    free(t->done);
    free(t->rd_stderr);
    free(t->rd_r_stderr);
    free(t->photons);
    free(t->reached);
    free(t->rd_fx_stderr);
    memset(t, 0, sizeof *t);
}
