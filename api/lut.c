/* tmcml_lut: a lookup table through the library, kept in a checkpoint
 * file (lut.h). */
#include "lut.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "clock.h"
#include "fs.h"
#include "lut_calls.h"
#include "lut_check.h"
#include "lut_checkpoint.h"
#include "precision.h"
#include "resume.h"
#include "spatial_frequencies.h"
#include "tm_limits.h"

_Static_assert((int)TMCML_LUT_AUTO == (int)LUT_AUTO && (int)TMCML_LUT_SETS == (int)LUT_SETS &&
                   (int)TMCML_LUT_RUNS == (int)LUT_RUNS,
               "tmcml.h's strategies are the driver's (and the checkpoint's numbers)");
_Static_assert(LUT_AXIS_MAX <= TMCML_BATCH_MAX, "a row of the runs strategy is one batch");

void tmcml_lut_spec_init(tmcml_lut_spec *spec)
{
    if (spec)
        *spec = (tmcml_lut_spec){.n = 1.4,
                                 .n_above = 1.0,
                                 .n_below = 1.0,
                                 .g = 0.9,
                                 .d = INFINITY,
                                 .nr = 100,
                                 .dr = 0.01,
                                 .strategy = TMCML_LUT_AUTO};
}

/* One tmcml_lut call: its table, and the file that keeps it. */
typedef struct table_job {
    lut_work w;
    tmcml_lut_errors *errors;        /* NULL: none asked */
    const tmcml_lut_frequencies *fx; /* NULL: none asked */
    const tmcml_checkpoint *ck;      /* NULL: no file */
    const api_lut_watch *watch;      /* NULL: none */
    tmcml_engine expected;           /* where the calls run: TMCML_ENGINE_CPU or _GPU */
    char physics[256];               /* of the engine of the table's values (driver/resume.h) */
    int saved;                       /* calls done that the file holds */
    double due;                      /* clock_now of the next periodic checkpoint */
} table_job;

/* ---- the checks ------------------------------------------------------------------ */

static const lut_names field_names = {
    "n", "n_above", "n_below", "g", "d", "dr", "nr", "num_musp x num_mua x nr: ", "count"};

static tmcml_status check_axis(tmcml_session *s, const char *name, const double *values, int count)
{
    if (count < 1 || count > LUT_AXIS_MAX)
        return api_failf(s, TMCML_ERR_ARGUMENT, "num_%s: expected 1 to %d values (got %d)", name,
                         LUT_AXIS_MAX, count);
    if (!values)
        return api_failf(s, TMCML_ERR_ARGUMENT, "%s: NULL for %d values", name, count);
    char why[160];
    int bad = lut_check_axis(values, count, why, sizeof why);
    if (bad >= 0)
        return api_failf(s, TMCML_ERR_ARGUMENT, "%s[%d]: %s", name, bad, why);
    return TMCML_OK;
}

/* The spec as the driver's (d = INFINITY as LUT_SEMI_INFINITE_D), checked
 * by the rules `tmcml lut` checks its options by (driver/lut_check.h). */
static tmcml_status check_spec(tmcml_session *s, const tmcml_lut_spec *in, lut_spec *out)
{
    *out = (lut_spec){.n = in->n,
                      .n_above = in->n_above,
                      .n_below = in->n_below,
                      .g = in->g,
                      .d = in->d == INFINITY ? LUT_SEMI_INFINITE_D : in->d,
                      .mua = in->mua,
                      .musp = in->musp,
                      .k = in->num_mua,
                      .m = in->num_musp,
                      .nr = in->nr,
                      .dr = in->dr};
    tm_error err = {0};
    tmcml_status status = check_axis(s, "mua", in->mua, in->num_mua);
    if (status == TMCML_OK)
        status = check_axis(s, "musp", in->musp, in->num_musp);
    if (status != TMCML_OK)
        return status;
    if (in->strategy < TMCML_LUT_AUTO || in->strategy > TMCML_LUT_RUNS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "strategy: expected TMCML_LUT_AUTO, _SETS or _RUNS (got %d)",
                         (int)in->strategy);
    if (in->nr < 1 || in->nr > MCI_MAX_BINS)
        return api_failf(s, TMCML_ERR_ARGUMENT, "nr: expected 1 to %lld rings (got %d)",
                         (long long)MCI_MAX_BINS, in->nr);
    if (!lut_check_layer(out, &field_names, &err) ||
        !lut_check_size(out->m, out->k, out->nr, &field_names, &err))
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    return TMCML_OK;
}

/* The options a point is simulated with: its photons (which a table must
 * be given), seed and step limit into the spec. */
static tmcml_status check_options(tmcml_session *s, const tmcml_options *o, lut_spec *sp)
{
    if (o->photons < 1)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "photons: expected the photons of a point, 1 to 2^63-1 (got %lld)",
                         (long long)o->photons);
    tmcml_status status = api_check_options(s, o, 0, &sp->photons);
    sp->seed = o->seed;
    sp->max_steps = o->max_steps;
    return status;
}

/* The errors asked (tmcml_lut_errors): a precision within (0, 1) or 0,
 * its quantity and most photons only with one, the most photons at
 * least a decision's; into the spec (its photons then the most). */
static tmcml_status check_errors(tmcml_session *s, const tmcml_lut_errors *e,
                                 tmcml_lut_strategy strategy, lut_spec *sp)
{
    if (!e)
        return TMCML_OK;
    if (!(e->precision == 0.0 || (e->precision > 0.0 && e->precision < 1.0)))
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "precision: a relative standard error above 0 and below 1 (0.02 for "
                         "2 %%), or 0 for none (got %g)",
                         e->precision);
    if (e->precision == 0.0 && (e->of || e->max_photons != 0))
        return api_failf(s, TMCML_ERR_ARGUMENT, "%s: only with a precision",
                         e->of ? "of" : "max_photons");
    if (e->precision > 0.0 && strategy == TMCML_LUT_SETS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "strategy: SETS with a precision: the absorption sets of a mus' share "
                         "its photons, so its points cannot stop on their own; use RUNS (or "
                         "AUTO)");
    if (e->of && strcmp(e->of, "Rd") != 0 && strncmp(e->of, "Rd_r[", 5) != 0)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "of: Rd, an entry of Rd_r (Rd_r[3]) or a range of them (Rd_r[0:10]): "
                         "a table scores those alone (got \"%.40s\")",
                         e->of);
    if (e->max_photons != 0 && e->max_photons < PRECISION_MIN_PHOTONS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "max_photons: expected 0 (the options' photons) or at least %lld (the "
                         "64 groups of %d a precision run decides after) (got %lld)",
                         (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK,
                         (long long)e->max_photons);
    if (e->max_photons > 0)
        sp->photons = e->max_photons;
    if (e->precision > 0.0 && sp->photons < PRECISION_MIN_PHOTONS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "photons: a precision needs at least %lld photons a point (the 64 "
                         "groups of %d it decides after), and a point may take %lld: raise "
                         "max_photons or the photons",
                         (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK, (long long)sp->photons);
    sp->errors = true;
    sp->precision = e->precision;
    sp->precision_of = e->precision > 0.0 ? (e->of ? e->of : "Rd") : NULL;
    return TMCML_OK;
}

/* The spatial frequencies asked (tmcml_lut_frequencies) as a problem's
 * are checked, their outs, and Rd_fx's size; into the spec. */
static tmcml_status check_frequencies(tmcml_session *s, const tmcml_lut_frequencies *fx,
                                      const tmcml_lut_errors *errors, lut_spec *sp)
{
    tm_error err = {0};
    if (!fx)
        return TMCML_OK;
    if (!spatial_frequencies_check("spatial frequencies", fx->fx, fx->count, &err) ||
        !lut_check_fx_size(sp->m, sp->k, fx->count, &field_names, &err))
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    if (!fx->rd_fx)
        return api_failf(s, TMCML_ERR_ARGUMENT, "rd_fx: NULL for %d frequencies", fx->count);
    if (fx->rd_fx_stderr && !errors)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "rd_fx_stderr: standard errors need errors (tmcml_lut_errors): give "
                         "them, or NULL");
    sp->fx = fx->fx;
    sp->fx_count = fx->count;
    return TMCML_OK;
}

/* Every point's values as the library checks a problem's: each mus' with
 * the first mua and each mua with the first mus' (the layer's other
 * values are common). */
static tmcml_status check_points(lut_work *w)
{
    const lut_spec *sp = &w->spec;
    for (int j = 0; j < sp->m + sp->k; j++) {
        bool musp = j < sp->m;
        double mua = musp ? sp->mua[0] : sp->mua[j - sp->m];
        tmcml_problem *p = lut_point_problem(w, mua, musp ? sp->musp[j] : sp->musp[0]);
        if (!p)
            return w->s->status;
        tmcml_problem_delete(p);
    }
    return TMCML_OK;
}

/* ---- the checkpoint file ----------------------------------------------------------- */

/* The engine AUTO takes: the GPU when the driver lists the options'. */
static tmcml_engine expected_engine(const tmcml_options *o)
{
    if (o->engine != TMCML_ENGINE_AUTO)
        return o->engine;
    tmcml_device dev;
    tm_error none = {0};
    return api_device(o->gpu, &dev, &none) ? TMCML_ENGINE_GPU : TMCML_ENGINE_CPU;
}

/* The physics of an engine as `tmcml run`'s checkpoints record it
 * (driver/resume.h), the GPU's from its compute capability. */
static bool physics_of(table_job *j, tmcml_engine engine, tm_error *err)
{
    if (engine != TMCML_ENGINE_GPU)
        return resume_physics(NULL, j->physics, sizeof j->physics, err);
    tmcml_device dev;
    return api_device(j->w.opt->gpu, &dev, err) &&
           resume_gpu_physics(dev.cc_major, dev.cc_minor, j->physics, sizeof j->physics, err);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The file can be written; then, with resume and a file there, the calls it
 * holds, checked (another table's, another engine's or a damaged one is
 * refused naming what differs); without resume a file there is refused
 * (the work it holds would be lost).  The file is only read. */
static tmcml_status begin_checkpoint(table_job *j)
{
    tmcml_session *s = j->w.s;
    const tmcml_checkpoint *ck = j->ck;
    tm_error err = {0};
    if (!ck)
        return TMCML_OK;
    if (!fs_check_output(ck->path, &err))
        return api_fail(s, TMCML_ERR_FILE, &err);
    bool there = exists(ck->path);
    if (there && !ck->resume)
        return api_failf(s, TMCML_ERR_FILE,
                         "%s: a checkpoint of this table exists (a stopped table's work): continue "
                         "it with resume (--resume), or delete it to start over",
                         ck->path);
    /* A fresh table's physics is its first call's engine's (call_ended):
     * AUTO may fall back to the CPU, and a GPU unused needs no NVRTC. */
    if (!there)
        return TMCML_OK;
    if (!physics_of(j, j->expected, &err))
        return api_fail(s, TMCML_ERR_NO_GPU, &err);
    if (!lut_checkpoint_read(ck->path, &j->w.spec, j->physics, &j->w.t, &err)) {
        lut_table_clear(&j->w.t);
        return api_fail(s, TMCML_ERR_FILE, &err);
    }
    j->saved = j->w.t.done_count;
    return TMCML_OK;
}

/* Writes the calls done to the file; false with *err (the file before, if
 * any, left as it was). */
static bool save(table_job *j, tm_error *err)
{
    if (!lut_checkpoint_write(j->ck->path, &j->w.spec, j->physics, &j->w.t, err))
        return false;
    j->saved = j->w.t.done_count;
    return true;
}

/* ---- the table ------------------------------------------------------------------------ */

static void fill_info(const table_job *j, tmcml_lut_info *info)
{
    const lut_table *t = &j->w.t;
    *info = (tmcml_lut_info){.strategy = (tmcml_lut_strategy)t->strategy,
                             .rsp = t->rsp,
                             .trapped_photons = t->trapped,
                             .simulations = t->calls,
                             .done = t->done_count,
                             .resumed = t->done_count - t->made,
                             .kept = j->saved,
                             .points_done = lut_table_points_done(t)};
    snprintf(info->engine, sizeof info->engine, "%s", t->engine);
}

static void tell(const table_job *j, void (*hook)(void *, const tmcml_lut_info *))
{
    tmcml_lut_info info;
    if (!hook)
        return;
    fill_info(j, &info);
    hook(j->watch->ctx, &info);
}

/* After each call: the physics of the engine the calls ran on (known after
 * the first: AUTO may have fallen back to the CPU), and the periodic
 * checkpoint, one that cannot be written (a disk full for a moment) tried
 * again a period later. */
static tmcml_status call_ended(table_job *j, int c)
{
    lut_table *t = &j->w.t;
    tm_error err = {0};
    size_t word = strcspn(j->physics, " ");
    if (j->ck && (strlen(t->engine) != word || strncmp(t->engine, j->physics, word) != 0)) {
        tmcml_engine engine = strcmp(t->engine, "gpu") == 0 ? TMCML_ENGINE_GPU : TMCML_ENGINE_CPU;
        if (!physics_of(j, engine, &err))
            return api_fail(j->w.s, TMCML_ERR_ENGINE, &err); /* the call not kept */
    }
    t->done[c] = 1;
    t->done_count++;
    t->made++;
    double now = clock_now();
    if (j->ck && j->ck->every > 0 && now >= j->due) {
        char why[2048];
        if (!save(j, &err) && j->watch && j->watch->unsaved)
            j->watch->unsaved(j->watch->ctx, error_format(&err, why, sizeof why), j->ck->every);
        j->due = now + j->ck->every;
    }
    if (j->watch)
        tell(j, j->watch->ended);
    return TMCML_OK;
}

/* The session's stop flag ended the table: the calls done kept. */
static tmcml_status stopped(table_job *j)
{
    tmcml_session *s = j->w.s;
    const lut_table *t = &j->w.t;
    tm_error err = {0};
    if (!j->ck || t->done_count == 0)
        return api_failf(s, TMCML_ERR_CANCELLED,
                         "cancelled after %d of %d simulations of the table: nothing kept%s",
                         t->done_count, t->calls, j->ck ? "" : " (no checkpoint)");
    if (t->done_count > j->saved && !save(j, &err)) {
        char why[1536];
        return api_failf(s, TMCML_ERR_CANCELLED,
                         "cancelled after %d of %d simulations of the table, which could not be "
                         "kept: %s",
                         t->done_count, t->calls, error_format(&err, why, sizeof why));
    }
    return api_failf(s, TMCML_ERR_CANCELLED,
                     "cancelled after %d of %d simulations of the table (%lld of %lld points): "
                     "they are kept in %s (resume continues the table)",
                     t->done_count, t->calls, (long long)lut_table_points_done(t),
                     (long long)t->m * t->k, j->ck->path);
}

/* A call (or the caller's finish) failed: the calls done kept too, and
 * said when they could not be. */
static tmcml_status failed(table_job *j, tmcml_status status)
{
    tmcml_session *s = j->w.s;
    tm_error err = {0};
    if (j->ck && j->w.t.done_count > j->saved && !save(j, &err)) {
        char message[sizeof s->message], why[1024];
        snprintf(message, sizeof message, "%s", s->message);
        api_failf(s, status, "%s; the checkpoint could not be written: %s", message,
                  error_format(&err, why, sizeof why));
    }
    return status;
}

/* The caller's outs of the errors from the table's (the simulations done). */
static void give_errors(const table_job *j)
{
    tmcml_lut_errors *e = j->errors;
    const lut_table *t = &j->w.t;
    if (!e || !t->rd_stderr)
        return;
    size_t points = (size_t)t->m * (size_t)t->k;
    if (e->rd_stderr)
        memcpy(e->rd_stderr, t->rd_stderr, points * sizeof *e->rd_stderr);
    if (e->rd_r_stderr)
        memcpy(e->rd_r_stderr, t->rd_r_stderr, points * (size_t)t->nr * sizeof *e->rd_r_stderr);
    if (e->reached)
        memcpy(e->reached, t->reached, points * sizeof *e->reached);
    if (j->fx && j->fx->rd_fx_stderr)
        memcpy(j->fx->rd_fx_stderr, t->rd_fx_stderr,
               points * (size_t)t->nfx * sizeof *j->fx->rd_fx_stderr);
    for (size_t i = 0; e->photons && i < points; i++)
        e->photons[i] = (int64_t)t->photons[i];
    e->points_short = lut_table_points_short(t, j->w.spec.precision);
    e->photons_total = lut_table_photons_done(t);
}

/* Every call done: the caller's finish, then the file removed. */
static tmcml_status finished(table_job *j)
{
    tmcml_session *s = j->w.s;
    tm_error err = {0};
    give_errors(j); /* the caller's finish writes them */
    if (j->watch && j->watch->finish) {
        tmcml_lut_info info;
        fill_info(j, &info);
        if (!j->watch->finish(j->watch->ctx, &info, &err))
            return failed(j, api_fail(s, TMCML_ERR_FILE, &err));
    }
    if (!j->ck)
        return TMCML_OK;
    if (unlink(j->ck->path) != 0 && errno != ENOENT)
        return api_failf(s, TMCML_ERR_FILE, "%s: cannot remove the finished table's checkpoint: %s",
                         j->ck->path, strerror(errno));
    j->saved = 0;
    return TMCML_OK;
}

/* The calls not done yet, in order. */
static tmcml_status simulate(table_job *j)
{
    lut_work *w = &j->w;
    j->due = clock_now() + (j->ck ? j->ck->every : 0.0);
    for (int c = 0; c < w->t.calls; c++) {
        if (w->t.done[c])
            continue;
        if (w->s->stop)
            return stopped(j);
        tmcml_status status = lut_call(w, c);
        /* A call the stop cancelled is discarded: only whole calls are kept. */
        if (status == TMCML_ERR_CANCELLED)
            return stopped(j);
        if (status == TMCML_OK)
            status = call_ended(j, c);
        if (status != TMCML_OK)
            return failed(j, status);
    }
    return finished(j);
}

/* The strategy and the engine.  Every engine scores absorption sets
 * without absorption, so auto is sets, but with a precision runs (each
 * point stops on its own).  Spatial frequencies the GPU scores in a
 * point's own kernel alone: with them on the GPU auto is runs, each point
 * of a row a run of its own, and sets or more frequencies than its kernel
 * scores take the CPU (refused when the GPU is asked). */
static tmcml_status choose(table_job *j, tmcml_lut_strategy asked, lut_strategy *strategy)
{
    lut_work *w = &j->w;
    const lut_spec *sp = &w->spec;
    char why[128];
    j->expected = expected_engine(w->opt);
    /* The runs are given the caller's engine, which falls back to the CPU
     * as `tmcml run`'s does; the sets the engine found. */
    tmcml_engine runs = w->opt->engine;
    if (lut_fx_cpu_only(sp->fx_count, (lut_strategy)asked, why, sizeof why)) {
        if (runs == TMCML_ENGINE_GPU)
            return api_failf(w->s, TMCML_ERR_ARGUMENT,
                             "engine: spatial frequencies %s are scored by the CPU engine "
                             "alone: TMCML_ENGINE_CPU or AUTO%s",
                             why, asked == TMCML_LUT_SETS ? ", or strategy RUNS" : "");
        j->expected = runs = TMCML_ENGINE_CPU;
    }
    w->point_runs = sp->fx_count > 0 && j->expected == TMCML_ENGINE_GPU;
    *strategy =
        asked == TMCML_LUT_RUNS || sp->precision > 0.0 || w->point_runs ? LUT_RUNS : LUT_SETS;
    w->engine = *strategy == LUT_SETS ? j->expected : runs;
    return TMCML_OK;
}

/* Everything checked before anything runs; the strategy and the engine;
 * the table over rd, rd_r and rd_fx, resumed from the file when asked. */
static tmcml_status prepare(table_job *j, const tmcml_lut_spec *spec, double *rd, double *rd_r)
{
    lut_work *w = &j->w;
    tmcml_session *s = w->s;
    tmcml_status status = j->ck ? api_check_checkpoint(s, j->ck) : TMCML_OK;
    if (status == TMCML_OK)
        status = check_spec(s, spec, &w->spec);
    if (status == TMCML_OK)
        status = check_options(s, w->opt, &w->spec);
    if (status == TMCML_OK)
        status = check_errors(s, j->errors, spec->strategy, &w->spec);
    if (status == TMCML_OK)
        status = check_frequencies(s, j->fx, j->errors, &w->spec);
    if (status == TMCML_OK)
        status = check_points(w);
    lut_strategy strategy = LUT_AUTO;
    if (status == TMCML_OK)
        status = choose(j, spec->strategy, &strategy);
    if (status != TMCML_OK)
        return status;
    tm_error err = {0};
    if (!lut_table_init(&w->t, &w->spec, strategy, rd, rd_r, j->fx ? j->fx->rd_fx : NULL, &err))
        return api_fail(s, TMCML_ERR_MEMORY, &err);
    lut_work_count(w);
    return begin_checkpoint(j);
}

tmcml_status api_lut(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *opt,
                     const tmcml_checkpoint *ck, double *rd, double *rd_r, tmcml_lut_errors *errors,
                     const tmcml_lut_frequencies *fx, tmcml_lut_info *info,
                     const api_lut_watch *watch)
{
    if (info)
        memset(info, 0, sizeof *info);
    tmcml_status entered =
        api_begin(s, API_ARGS({spec, "spec"}, {opt, "opt"}, {rd, "rd"}, {rd_r, "rd_r"}));
    if (entered != TMCML_OK)
        return entered;
    table_job j = {.w = {.s = s, .opt = opt}, .errors = errors, .fx = fx, .ck = ck, .watch = watch};
    tmcml_status status = prepare(&j, spec, rd, rd_r);
    if (status == TMCML_OK) {
        if (watch)
            tell(&j, watch->began);
        status = simulate(&j);
    }
    give_errors(&j);
    if (info)
        fill_info(&j, info);
    lut_table_free(&j.w.t);
    return api_leave(s, status);
}

tmcml_status tmcml_lut(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *opt,
                       const tmcml_checkpoint *ck, double *rd, double *rd_r, tmcml_lut_info *info)
{
    return api_lut(s, spec, opt, ck, rd, rd_r, NULL, NULL, info, NULL);
}

void tmcml_lut_errors_init(tmcml_lut_errors *errors)
{
    if (errors)
        *errors = (tmcml_lut_errors){0};
}

/* A call whose struct (name) is NULL: refused as api_begin refuses a
 * NULL pointer ("errors: NULL"), info zeroed. */
static tmcml_status refused_null(tmcml_session *s, tmcml_lut_info *info, const char *name)
{
    if (info)
        memset(info, 0, sizeof *info);
    return s ? api_begin(s, API_ARGS({NULL, name})) : TMCML_ERR_ARGUMENT;
}

/* api_lut unwatched, the errors' outs (if any) zero first. */
static tmcml_status with_outs(tmcml_session *s, const tmcml_lut_spec *spec,
                              const tmcml_options *opt, const tmcml_checkpoint *ck, double *rd,
                              double *rd_r, tmcml_lut_errors *errors,
                              const tmcml_lut_frequencies *fx, tmcml_lut_info *info)
{
    if (errors) {
        errors->points_short = 0;
        errors->photons_total = 0;
    }
    return api_lut(s, spec, opt, ck, rd, rd_r, errors, fx, info, NULL);
}

tmcml_status tmcml_lut_with_errors(tmcml_session *s, const tmcml_lut_spec *spec,
                                   const tmcml_options *opt, const tmcml_checkpoint *ck, double *rd,
                                   double *rd_r, tmcml_lut_errors *errors, tmcml_lut_info *info)
{
    if (!errors)
        return refused_null(s, info, "errors");
    return with_outs(s, spec, opt, ck, rd, rd_r, errors, NULL, info);
}

tmcml_status tmcml_lut_with_frequencies(tmcml_session *s, const tmcml_lut_spec *spec,
                                        const tmcml_options *opt, const tmcml_checkpoint *ck,
                                        double *rd, double *rd_r, tmcml_lut_errors *errors,
                                        const tmcml_lut_frequencies *fx, tmcml_lut_info *info)
{
    if (!fx)
        return refused_null(s, info, "fx");
    return with_outs(s, spec, opt, ck, rd, rd_r, errors, fx, info);
}
