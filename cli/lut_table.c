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
    plan->expected = engine_of(s, spec);
    plan->engine = plan->strategy == LUT_SETS ? plan->expected : spec->engine;
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

static int chunks(int k) { return (k + TMCML_MUA_SETS_MAX - 1) / TMCML_MUA_SETS_MAX; }

lut_span lut_table_span(const lut_table *t, int call)
{
    if (t->strategy == LUT_SETS) {
        int j = call / chunks(t->k), first = call % chunks(t->k) * TMCML_MUA_SETS_MAX;
        int n = t->k - first < TMCML_MUA_SETS_MAX ? t->k - first : TMCML_MUA_SETS_MAX;
        return (lut_span){(size_t)j * (size_t)t->k + (size_t)first, 1, n};
    }
    return (lut_span){(size_t)call, (size_t)t->k, t->m};
}

bool lut_table_init(lut_table *t, const lut_spec *spec, lut_strategy strategy, tm_error *err)
{
    memset(t, 0, sizeof *t);
    t->m = spec->musp.count;
    t->k = spec->mua.count;
    t->nr = spec->nr;
    t->strategy = strategy;
    t->calls = strategy == LUT_SETS ? t->m * chunks(t->k) : t->k;
    size_t points = (size_t)t->m * (size_t)t->k;
    t->rd = calloc(points, sizeof *t->rd);
    t->rd_r = calloc(points * (size_t)t->nr, sizeof *t->rd_r);
    t->done = calloc((size_t)t->calls, sizeof *t->done);
    if (t->rd && t->rd_r && t->done)
        return true;
    lut_table_free(t);
    error_set(err, NULL, 0, "out of memory for a table of %d x %d points and %d rings",
              spec->musp.count, spec->mua.count, spec->nr);
    return false;
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
    t->trapped += info.trapped_photons;
}

static bool call_failed(tmcml_session *s, const char *what, double value, tm_error *err)
{
    error_set(err, NULL, 0, "%s %.9g: %s", what, value, tmcml_session_message(s));
    return false;
}

/* The results of one call came from the engine of the table's earlier
 * calls (or are the first): a table of one engine's values alone, since
 * the engines' values differ. */
static bool same_engine(lut_table *t, tmcml_result *const *r, const char *what, double value,
                        tm_error *err)
{
    tmcml_info info;
    tmcml_result_info(r[0], &info);
    if (t->engine[0] && strcmp(t->engine, info.engine) != 0) {
        error_set(err, NULL, 0,
                  "%s %.9g: simulated on the %s engine, the table's other points on the %s "
                  "engine, whose values differ: run the table with --engine %s",
                  what, value, info.engine, t->engine, t->engine);
        return false;
    }
    snprintf(t->engine, sizeof t->engine, "%s", info.engine);
    return true;
}

static void progress(const lut_spec *spec, const lut_table *t)
{
    if (spec->progress)
        fprintf(stderr, "\rtmcml lut: %d/%d simulations (%s)%s", t->done_count, t->calls,
                lut_strategy_name(t->strategy), t->done_count == t->calls ? "\n" : "");
}

/* The library's progress callback: a nonzero answer cancels the call. */
static int stop_poll(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    const volatile sig_atomic_t *stop = user;
    return *stop != 0;
}

static void call_options(const lut_spec *spec, tmcml_engine engine, uint64_t seed,
                         const lut_watch *watch, tmcml_options *o)
{
    tmcml_options_init(o);
    o->photons = spec->photons;
    o->seed = seed;
    o->engine = engine;
    o->absorption = 0; /* a table of reflectance needs the escapes alone */
    o->threads = spec->threads;
    o->gpu = spec->gpu;
    if (watch && watch->stop) {
        o->progress = stop_poll;
        o->progress_user = (void *)watch->stop;
        o->progress_interval = LUT_STOP_POLL_SECONDS;
    }
}

/* Call c of the sets: a chunk of column j's mua, one history a photon for
 * all of them. */
static bool simulate_chunk(tmcml_session *s, const lut_spec *spec, const lut_plan *plan, int c,
                           const lut_watch *watch, lut_table *t, tm_error *err)
{
    lut_span span = lut_table_span(t, c);
    int j = (int)(span.first / (size_t)t->k), first = (int)(span.first % (size_t)t->k);
    double musp = spec->musp.values[j];
    tmcml_problem *p = lut_point_problem(s, spec, spec->mua.values[0], musp, err);
    tmcml_options o;
    call_options(spec, plan->engine, spec->seed, watch, &o);
    tmcml_result *r[TMCML_MUA_SETS_MAX];
    bool ran =
        p && (tmcml_run_sets(s, p, &spec->mua.values[first], span.count, &o, r) == TMCML_OK ||
              call_failed(s, "mus'", musp, err));
    bool ok = ran && same_engine(t, r, "mus'", musp, err);
    for (int i = 0; ok && i < span.count; i++)
        store_point(t, j, first + i, r[i]);
    for (int i = 0; ran && i < span.count; i++)
        tmcml_result_delete(r[i]);
    tmcml_problem_delete(p);
    return ok;
}

/* Call i of the runs: every mus' of mua i, batched, with seed S + i. */
static bool simulate_row(tmcml_session *s, const lut_spec *spec, const lut_plan *plan, int i,
                         const lut_watch *watch, lut_table *t, tm_error *err)
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
    call_options(spec, plan->engine, spec->seed + (uint64_t)i, watch, &o);
    ok = ok && (tmcml_run_batch(s, (const tmcml_problem *const *)p, t->m, &o, r) == TMCML_OK ||
                call_failed(s, "mua", mua, err));
    ok = ok && same_engine(t, r, "mua", mua, err);
    for (int j = 0; ok && j < t->m; j++)
        store_point(t, j, i, r[j]);
    for (int j = 0; p && r && j < t->m; j++) {
        tmcml_result_delete(r[j]);
        tmcml_problem_delete(p[j]);
    }
    free(p);
    free(r);
    return ok;
}

static bool stop_raised(const lut_watch *watch) { return watch && watch->stop && *watch->stop; }

lut_outcome lut_table_continue(tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                               lut_table *t, const lut_watch *watch, tm_error *err)
{
    for (int c = 0; c < t->calls; c++) {
        if (t->done[c])
            continue;
        if (stop_raised(watch))
            return LUT_TABLE_STOPPED;
        bool ok = t->strategy == LUT_SETS ? simulate_chunk(s, spec, plan, c, watch, t, err)
                                          : simulate_row(s, spec, plan, c, watch, t, err);
        /* A call the stop cancelled failed as TMCML_ERR_CANCELLED: it is
         * discarded, and the table stopped, not failed. */
        if (!ok && stop_raised(watch) && tmcml_session_status(s) == TMCML_ERR_CANCELLED)
            return LUT_TABLE_STOPPED;
        if (!ok)
            return LUT_TABLE_FAILED;
        t->done[c] = 1;
        t->done_count++;
        t->made++;
        progress(spec, t);
        if (watch && watch->ended && !watch->ended(watch->ctx, t, err))
            return LUT_TABLE_FAILED;
    }
    return LUT_TABLE_DONE;
}

bool lut_table_simulate(tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                        lut_table *out, tm_error *err)
{
    if (!lut_table_init(out, spec, plan->strategy, err))
        return false;
    if (lut_table_continue(s, spec, plan, out, NULL, err) == LUT_TABLE_DONE)
        return true;
    lut_table_free(out);
    return false;
}

void lut_table_free(lut_table *t)
{
    free(t->rd);
    free(t->rd_r);
    free(t->done);
    memset(t, 0, sizeof *t);
}
