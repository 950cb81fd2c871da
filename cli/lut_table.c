/* The lookup table's simulations through the library (lut_table.h). */
#include "lut_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

const char *lut_strategy_name(lut_strategy s)
{
    static const char *const names[] = {
        [LUT_AUTO] = "auto", [LUT_SETS] = "sets", [LUT_RUNS] = "runs"};
    return names[s];
}

static void call_options(const lut_spec *spec, tmcml_engine engine, uint64_t seed, tmcml_options *o)
{
    tmcml_options_init(o);
    o->photons = spec->photons;
    o->seed = seed;
    o->engine = engine;
    o->absorption = 0; /* a table of reflectance needs the escapes alone */
    o->threads = spec->threads;
    o->gpu = spec->gpu;
}

/* The engine AUTO would take: the GPU when the driver lists spec's. */
static tmcml_engine engine_of(tmcml_session *s, const lut_spec *spec)
{
    if (spec->engine != TMCML_ENGINE_AUTO)
        return spec->engine;
    tmcml_device dev;
    int count = 0;
    bool gpu = tmcml_devices(s, &dev, 1, &count) == TMCML_OK && count > spec->gpu;
    return gpu ? TMCML_ENGINE_GPU : TMCML_ENGINE_CPU;
}

bool lut_plan_choose(tmcml_session *s, const lut_spec *spec, lut_plan *plan, tm_error *err)
{
    (void)err; /* every engine scores absorption sets: both strategies run anywhere */
    plan->strategy = spec->strategy != LUT_AUTO ? spec->strategy : LUT_SETS;
    plan->engine = plan->strategy == LUT_SETS ? engine_of(s, spec) : spec->engine;
    return true;
}

tmcml_problem *lut_point_problem(tmcml_session *s, const lut_spec *spec, double mua, double musp,
                                 tm_error *err)
{
    tmcml_layer layer = {spec->n, mua, musp / (1.0 - spec->g), spec->g, spec->d};
    /* One z bin: nothing is scored in depth without absorption scoring. */
    tmcml_grid grid = {.dz = spec->dr, .dr = spec->dr, .nz = 1, .nr = spec->nr, .na = 1};
    tmcml_problem *p = NULL;
    if (tmcml_problem_new(s, &layer, 1, spec->n_above, spec->n_below, &grid, &p) != TMCML_OK)
        error_set(err, NULL, 0, "mua %.9g, mus' %.9g: %s", mua, musp, tmcml_session_message(s));
    return p;
}

static bool table_init(lut_table *t, const lut_spec *spec)
{
    memset(t, 0, sizeof *t);
    t->m = spec->musp.count;
    t->k = spec->mua.count;
    t->nr = spec->nr;
    size_t points = (size_t)t->m * (size_t)t->k;
    t->rd = calloc(points, sizeof *t->rd);
    t->rd_r = calloc(points * (size_t)t->nr, sizeof *t->rd_r);
    return t->rd && t->rd_r;
}

/* Point (j, i) of the table from its result. */
static void store_point(lut_table *t, int j, int i, const tmcml_result *r)
{
    tmcml_rat rat;
    tmcml_info info;
    size_t count = 0;
    size_t at = (size_t)j * (size_t)t->k + (size_t)i;
    tmcml_result_rat(r, &rat);
    tmcml_result_info(r, &info);
    const double *rd_r = tmcml_result_array(r, TMCML_RD_R, &count);
    t->rd[at] = rat.rd;
    t->rsp = rat.rsp;
    memcpy(t->rd_r + at * (size_t)t->nr, rd_r, (size_t)t->nr * sizeof *rd_r);
    snprintf(t->engine, sizeof t->engine, "%s", info.engine);
    t->trapped += info.trapped_photons;
}

static bool call_failed(tmcml_session *s, const char *what, double value, tm_error *err)
{
    error_set(err, NULL, 0, "%s %.9g: %s", what, value, tmcml_session_message(s));
    return false;
}

static void progress(const lut_spec *spec, const lut_table *t, int total)
{
    if (spec->progress)
        fprintf(stderr, "\rtmcml lut: %d/%d simulations (%s)%s", t->calls, total,
                lut_strategy_name(t->strategy), t->calls == total ? "\n" : "");
}

static int chunks(int k) { return (k + TMCML_MUA_SETS_MAX - 1) / TMCML_MUA_SETS_MAX; }

/* Column j: one history a photon for every mua, in chunks of sets. */
static bool simulate_column(tmcml_session *s, const lut_spec *spec, const lut_plan *plan, int j,
                            lut_table *t, tm_error *err)
{
    double musp = spec->musp.values[j];
    tmcml_problem *p = lut_point_problem(s, spec, spec->mua.values[0], musp, err);
    tmcml_options o;
    call_options(spec, plan->engine, spec->seed, &o);
    bool ok = p != NULL;
    for (int first = 0; ok && first < t->k; first += TMCML_MUA_SETS_MAX) {
        int n = t->k - first < TMCML_MUA_SETS_MAX ? t->k - first : TMCML_MUA_SETS_MAX;
        tmcml_result *r[TMCML_MUA_SETS_MAX];
        ok = tmcml_run_sets(s, p, &spec->mua.values[first], n, &o, r) == TMCML_OK ||
             call_failed(s, "mus'", musp, err);
        for (int i = 0; ok && i < n; i++) {
            store_point(t, j, first + i, r[i]);
            tmcml_result_delete(r[i]);
        }
        t->calls++;
        progress(spec, t, t->m * chunks(t->k));
    }
    tmcml_problem_delete(p);
    return ok;
}

/* Row i: every mus' of mua i, batched, with seed S + i. */
static bool simulate_row(tmcml_session *s, const lut_spec *spec, const lut_plan *plan, int i,
                         lut_table *t, tm_error *err)
{
    double mua = spec->mua.values[i];
    tmcml_problem **p = calloc((size_t)t->m, sizeof *p);
    tmcml_result **r = calloc((size_t)t->m, sizeof *r);
    bool ok = p && r;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int j = 0; ok && j < t->m; j++)
        ok = (p[j] = lut_point_problem(s, spec, mua, spec->musp.values[j], err)) != NULL;
    tmcml_options o;
    call_options(spec, plan->engine, spec->seed + (uint64_t)i, &o);
    ok = ok && (tmcml_run_batch(s, (const tmcml_problem *const *)p, t->m, &o, r) == TMCML_OK ||
                call_failed(s, "mua", mua, err));
    for (int j = 0; ok && j < t->m; j++)
        store_point(t, j, i, r[j]);
    for (int j = 0; p && r && j < t->m; j++) {
        tmcml_result_delete(r[j]);
        tmcml_problem_delete(p[j]);
    }
    free(p);
    free(r);
    t->calls++;
    progress(spec, t, t->k);
    return ok;
}

bool lut_table_simulate(tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                        lut_table *out, tm_error *err)
{
    if (!table_init(out, spec)) {
        lut_table_free(out);
        error_set(err, NULL, 0, "out of memory for a table of %d x %d points and %d rings",
                  spec->musp.count, spec->mua.count, spec->nr);
        return false;
    }
    out->strategy = plan->strategy;
    bool ok = true;
    if (plan->strategy == LUT_SETS)
        for (int j = 0; ok && j < out->m; j++)
            ok = simulate_column(s, spec, plan, j, out, err);
    else
        for (int i = 0; ok && i < out->k; i++)
            ok = simulate_row(s, spec, plan, i, out, err);
    if (!ok)
        lut_table_free(out);
    return ok;
}

void lut_table_free(lut_table *t)
{
    free(t->rd);
    free(t->rd_r);
    memset(t, 0, sizeof *t);
}
