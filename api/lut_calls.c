/* The library calls of a lookup table (lut_calls.h). */
#include "lut_calls.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t times_saturated(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

void lut_work_count(lut_work *w)
{
    uint64_t photons = (uint64_t)w->spec.photons;
    w->per_call = w->t.strategy == LUT_SETS ? photons : times_saturated(photons, (uint64_t)w->t.m);
    w->total = times_saturated(w->per_call, (uint64_t)w->t.calls);
}

/* The session's failure, its message after what the table was at
 * ("mus' 5: ..."); returns its status. */
static tmcml_status named(tmcml_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static tmcml_status named(tmcml_session *s, const char *fmt, ...)
{
    char what[128], message[sizeof s->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(message, sizeof message, "%s", s->message);
    return api_failf(s, s->status, "%s: %s", what, message);
}

tmcml_problem *lut_point_problem(lut_work *w, double mua, double musp)
{
    const lut_spec *sp = &w->spec;
    tmcml_layer layer = {sp->n, mua, musp / (1.0 - sp->g), sp->g, sp->d};
    /* One z bin: nothing is scored in depth without absorption scoring. */
    tmcml_grid grid = {.dz = sp->dr, .dr = sp->dr, .nz = 1, .nr = sp->nr, .na = 1};
    tmcml_problem *p = NULL;
    tmcml_status status = api_problem_new(w->s, &layer, 1, sp->n_above, sp->n_below, &grid, &p);
    if (status == TMCML_OK && sp->errors) {
        p->stderr_groups = true;
        /* The most photons are the options' (the spec's photons). */
        status = api_problem_precision(w->s, p, sp->precision, sp->precision_of, 0);
    }
    if (status == TMCML_OK && sp->fx_count > 0)
        status = api_problem_spatial_frequencies(w->s, p, sp->fx, sp->fx_count);
    if (status == TMCML_OK)
        return p;
    named(w->s, "mua %.9g, mus' %.9g", mua, musp);
    tmcml_problem_delete(p);
    return NULL;
}

/* The caller's callback, told the whole table's photons: those of the
 * calls done before this one and this one's.  Its answer also raises the
 * session's stop flag itself: tmcml_run's watch does not read the answer
 * of a call's last report, and the table must not start another call. */
static int table_progress(uint64_t done, uint64_t total, void *user)
{
    (void)total;
    lut_work *w = user;
    uint64_t base = times_saturated((uint64_t)w->before, w->per_call);
    base = base + w->within < base ? UINT64_MAX : base + w->within;
    uint64_t at = base + done < base ? UINT64_MAX : base + done;
    int answer = w->opt->progress(at, w->total, w->opt->progress_user);
    if (answer != 0)
        w->s->stop = 1;
    return answer;
}

/* The options of every call but its seed: the caller's, without absorption
 * scoring (a table of reflectance needs the escapes alone). */
static void call_options(lut_work *w, uint64_t seed, tmcml_options *o)
{
    *o = *w->opt;
    o->photons = w->spec.photons;
    o->seed = seed;
    o->engine = w->engine;
    o->absorption = 0;
    if (w->opt->progress) {
        o->progress = table_progress;
        o->progress_user = w;
    }
}

/* Point at's errors from its result: Rd's and Rd_r's standard errors, the
 * photons it took and the relative error reached (of the precision's
 * quantity, else of Rd). */
static void store_errors(lut_table *t, size_t at, const tmcml_result *r)
{
    tmcml_rat rat, err;
    tmcml_precision prec;
    size_t count = 0;
    tmcml_result_rat(r, &rat);
    tmcml_result_rat_stderr(r, &err);
    const double *rd_r = tmcml_result_stderr(r, TMCML_RD_R, &count);
    t->rd_stderr[at] = err.rd;
    memcpy(t->rd_r_stderr + at * (size_t)t->nr, rd_r, (size_t)t->nr * sizeof *rd_r);
    if (t->rd_fx_stderr)
        memcpy(t->rd_fx_stderr + at * (size_t)t->nfx, tmcml_result_stderr(r, TMCML_RD_FX, &count),
               (size_t)t->nfx * sizeof *t->rd_fx_stderr);
    if (tmcml_result_precision(r, &prec) == TMCML_OK) {
        t->photons[at] = (uint64_t)prec.photons;
        t->reached[at] = prec.reached;
    } else {
        t->photons[at] = (uint64_t)tmcml_problem_photons(tmcml_result_problem(r));
        t->reached[at] = rat.rd > 0.0 ? err.rd / rat.rd : INFINITY;
    }
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
    if (t->rd_fx)
        memcpy(t->rd_fx + at * (size_t)t->nfx, tmcml_result_array(r, TMCML_RD_FX, &count),
               (size_t)t->nfx * sizeof *t->rd_fx);
    t->trapped += info.trapped_photons;
    if (t->rd_stderr)
        store_errors(t, at, r);
}

/* The results of one call came from the engine of the table's earlier
 * calls (or are the first): a table of one engine's values alone, since
 * the engines' values differ (AUTO may fall back to the CPU). */
static tmcml_status same_engine(lut_work *w, tmcml_result *const *r, const char *what, double value)
{
    tmcml_info info;
    tmcml_result_info(r[0], &info);
    lut_table *t = &w->t;
    if (t->engine[0] && strcmp(t->engine, info.engine) != 0)
        return api_failf(w->s, TMCML_ERR_ENGINE,
                         "%s %.9g: simulated on the %s engine, the table's other points on the %s "
                         "engine, whose values differ: run the table on the %s engine (--engine "
                         "%s)",
                         what, value, info.engine, t->engine, t->engine, t->engine);
    snprintf(t->engine, sizeof t->engine, "%s", info.engine);
    return TMCML_OK;
}

/* Call c of the sets: a chunk of column j's mua, one history a photon for
 * all of them. */
static tmcml_status simulate_chunk(lut_work *w, int c)
{
    lut_table *t = &w->t;
    lut_span span = lut_table_span(t, c);
    int j = (int)(span.first / (size_t)t->k), first = (int)(span.first % (size_t)t->k);
    double musp = w->spec.musp[j];
    tmcml_problem *p = lut_point_problem(w, w->spec.mua[0], musp);
    if (!p)
        return w->s->status;
    tmcml_options o;
    call_options(w, w->spec.seed, &o);
    tmcml_result *r[TMCML_MUA_SETS_MAX] = {0};
    tmcml_status status = api_run_sets(w->s, p, &w->spec.mua[first], span.count, &o, r);
    status = status != TMCML_OK ? named(w->s, "mus' %.9g", musp) : same_engine(w, r, "mus'", musp);
    for (int i = 0; i < span.count; i++) {
        if (status == TMCML_OK)
            store_point(t, j, first + i, r[i]);
        tmcml_result_delete(r[i]);
    }
    tmcml_problem_delete(p);
    return status;
}

/* The m points of a row, each a run of its own with o (point_runs): the
 * progress counts the row's photons across them, and a stop between two
 * ends the row as a stop within one does. */
static tmcml_status run_points(lut_work *w, tmcml_problem *const *p, int m, const tmcml_options *o,
                               tmcml_result **r)
{
    tmcml_status status = TMCML_OK;
    for (int j = 0; status == TMCML_OK && j < m; j++) {
        if (w->s->stop)
            return api_failf(w->s, TMCML_ERR_CANCELLED, "cancelled");
        status = api_run_batch(w->s, (const tmcml_problem *const *)&p[j], 1, o, &r[j]);
        uint64_t after = w->within + (uint64_t)w->spec.photons;
        w->within = after < w->within ? UINT64_MAX : after;
    }
    return status;
}

/* Call i of the runs: every mus' of mua i, batched (or each point alone:
 * point_runs), with seed S + i. */
static tmcml_status simulate_row(lut_work *w, int i)
{
    lut_table *t = &w->t;
    double mua = w->spec.mua[i];
    tmcml_problem **p = calloc((size_t)t->m, sizeof *p);
    tmcml_result **r = calloc((size_t)t->m, sizeof *r);
    tmcml_status status =
        p && r ? TMCML_OK : api_failf(w->s, TMCML_ERR_MEMORY, "mua %.9g: out of memory", mua);
    for (int j = 0; status == TMCML_OK && j < t->m; j++)
        if (!(p[j] = lut_point_problem(w, mua, w->spec.musp[j])))
            status = w->s->status;
    tmcml_options o;
    call_options(w, w->spec.seed + (uint64_t)i, &o);
    if (status == TMCML_OK) {
        status = w->point_runs ? run_points(w, p, t->m, &o, r)
                               : api_run_batch(w->s, (const tmcml_problem *const *)p, t->m, &o, r);
        status = status != TMCML_OK ? named(w->s, "mua %.9g", mua) : same_engine(w, r, "mua", mua);
    }
    for (int j = 0; p && r && j < t->m; j++) {
        if (status == TMCML_OK)
            store_point(t, j, i, r[j]);
        tmcml_result_delete(r[j]);
        tmcml_problem_delete(p[j]);
    }
    free(p);
    free(r);
    return status;
}

tmcml_status lut_call(lut_work *w, int c)
{
    w->before = w->t.done_count;
    w->within = 0;
    return w->t.strategy == LUT_SETS ? simulate_chunk(w, c) : simulate_row(w, c);
}
