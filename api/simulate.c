/* tmcml_run: options checked, engine, variant, photons (watched by the
 * caller's progress callback), result (tmcml.h). */
#include "api.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "checkpointed.h"
#include "clock.h"
#include "cpu.h"
#include "gpu_runner.h"
#include "mua_sets.h"
#include "optics_sets.h"
#include "parallel.h"
#include "progress.h"
#include "resume.h"
#include "run_options.h"
#include "timed_wait.h"
#include "variant.h"

_Static_assert(TMCML_MUA_SETS_MAX == TM_MAX_ABSORPTION_SETS, "tmcml.h's limit is tm_limits.h's");

#define DEFAULT_PROGRESS_INTERVAL 0.1
#define MAX_THREADS               4096
#define MAX_GPU_INDEX             1023

void tmcml_options_init(tmcml_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->seed = 1;
    opt->engine = TMCML_ENGINE_AUTO;
    opt->absorption = 1;
    opt->policy = TMCML_POLICY_PROFILE;
    opt->progress_interval = DEFAULT_PROGRESS_INTERVAL;
}

tmcml_status api_check_options(tmcml_session *s, const tmcml_options *o, int64_t problem_photons,
                               int64_t *photons)
{
    if (o->photons < 0)
        return api_failf(s, TMCML_ERR_ARGUMENT, "photons: expected 1 to 2^63-1 (got %lld)",
                         (long long)o->photons);
    *photons = o->photons ? o->photons : problem_photons;
    if (*photons < 1)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "photons: none given (tmcml_options.photons, or the problem's)");
    if (o->engine < TMCML_ENGINE_AUTO || o->engine > TMCML_ENGINE_GPU)
        return api_failf(s, TMCML_ERR_ARGUMENT, "engine: expected auto, cpu or gpu (got %d)",
                         (int)o->engine);
    if (o->policy < TMCML_POLICY_PROFILE || o->policy > TMCML_POLICY_TUNE)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "policy: expected profile, heuristic, auto or tune (got %d)",
                         (int)o->policy);
    if (o->threads < 0 || o->threads > MAX_THREADS)
        return api_failf(s, TMCML_ERR_ARGUMENT, "threads: expected 0 (every core) to %d (got %d)",
                         MAX_THREADS, o->threads);
    if (o->gpu < 0 || o->gpu > MAX_GPU_INDEX)
        return api_failf(s, TMCML_ERR_ARGUMENT, "gpu: expected a GPU index (got %d)", o->gpu);
    if (!isfinite(o->progress_interval) || o->progress_interval < 0)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "progress_interval: expected seconds, 0 or more (got %g)",
                         o->progress_interval);
    return TMCML_OK;
}

static void plan_options_of(const tmcml_options *o, plan_options *plan)
{
    static const plan_tune_mode modes[] = {
        [TMCML_POLICY_PROFILE] = PLAN_TUNE_NEVER,
        [TMCML_POLICY_HEURISTIC] = PLAN_TUNE_NEVER,
        [TMCML_POLICY_AUTO] = PLAN_TUNE_AUTO,
        [TMCML_POLICY_TUNE] = PLAN_TUNE_ALWAYS,
    };
    memset(plan, 0, sizeof *plan);
    plan->seed = o->seed;
    plan->score_absorption = o->absorption != 0;
    plan->quiet = true; /* the library prints nothing */
    plan->cache_dir = o->cache_dir;
    plan->profile_dir = o->profile_dir;
    plan->no_profile = o->policy == TMCML_POLICY_HEURISTIC;
    plan->tune_mode = modes[o->policy];
    variant_options_init(&plan->variant);
}

/* ---- the photons, watched ------------------------------------------------------ */

/* The absorption sets of a call (tmcml_run_sets): count 0 for none.  Then
 * the call's results are the sets', of one problem, in one engine call. */
typedef struct call_sets {
    int count, layers;
    const double *mua;
    bool paths; /* the sets' problems score their path lengths */
    /* Optics sets (tmcml_run_optics_sets): each set's mus and g, tables as
     * mua; NULL for absorption sets. */
    const double *mus, *g;
} call_sets;

/* A problem with derivatives on the GPU: its own one absorption set, whose
 * kernel scores them (templates/sets.cu), as the command line's
 * (driver/run_steps.c); mua its layers'. */
typedef struct own_set {
    call_sets sets;
    double mua[TM_MAX_PATH_LAYERS];
} own_set;

/* *sets for a call on the GPU: a problem with derivatives and no sets is
 * its own one set (the call's problems are then one: jacobian_cpu_only). */
static void jacobian_own_set(const mci_run *run, const call_sets **sets, own_set *own)
{
    if ((*sets)->count > 0 || !run->jacobian)
        return;
    for (int i = 1; i <= run->num_layers; i++)
        own->mua[i - 1] = run->layers[i].mua;
    own->sets = (call_sets){.count = 1, .layers = run->num_layers, .mua = own->mua};
    *sets = &own->sets;
}

/* What one call simulates: its problems in engine calls (one run alone, or
 * batches of several), each into the results' tallies. */
typedef struct work {
    int calls;
    photon_batch *batches;    /* one per engine call */
    const kernel_spec *specs; /* per call: the GPUs' (NULL: the CPU engine) */
    tally_set *acc;           /* every result's tallies, lent (slot = result) */
    session_run_stats *stats; /* per call */
    /* The groups of each result's standard errors (slot = result), when
     * a problem asks for them; else NULL. */
    uncertainty *unc;
    int results;
    /* Each result's decisions when the call's problems stop at a
     * precision (api_precision_plan); else NULL. */
    precision_stop *prec;
    precision_stop_sets shared; /* prec as one decision: the sets of one history */
} work;

/* The engine calls, on a thread of its own while the caller's thread calls
 * the progress callback. */
typedef struct job {
    session *eng;
    const session_sim *sim;
    const work *w;
    /* Or one run kept in a checkpoint file (NULL: the work's calls). */
    const checkpointed_call *kept;
    checkpoint *ck;
    checkpointed_status kept_status;
    uint64_t count; /* photons of every call */
    tm_error *err;
    bool ok;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    bool done;
} job;

static void job_run(job *j)
{
    const work *w = j->w;
    if (j->kept) {
        j->kept_status = checkpointed_simulate(j->kept, j->ck, &w->stats[0], j->err);
        j->ok = j->kept_status != CHECKPOINTED_FAILED;
        return;
    }
    j->ok = true;
    for (int c = 0; j->ok && c < w->calls && !*j->sim->stop; c++) {
        const kernel_spec *specs = w->specs ? &w->specs[c] : NULL; /* the library's one GPU */
        j->ok = session_simulate_batch(j->eng, j->sim, &w->batches[c], specs, w->acc, &w->stats[c],
                                       j->err);
    }
}

static void *job_main(void *arg)
{
    job *j = arg;
    c_locale_enter(); /* a new thread starts in the process's locale */
    job_run(j);
    pthread_mutex_lock(&j->lock);
    j->done = true;
    pthread_cond_signal(&j->done_cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* Waits up to seconds for the job's end; true once it has ended. */
static bool job_wait(job *j, double seconds)
{
    struct timespec until = timed_wait_deadline(seconds);
    pthread_mutex_lock(&j->lock);
    int rc = 0;
    while (!j->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&j->done_cond, &j->lock, &until);
    bool done = j->done;
    pthread_mutex_unlock(&j->lock);
    return done;
}

static bool job_start(job *j)
{
    if (!timed_wait_cond_init(&j->done_cond))
        return false;
    if (pthread_mutex_init(&j->lock, NULL) != 0) {
        pthread_cond_destroy(&j->done_cond);
        return false;
    }
    if (pthread_create(&j->thread, NULL, job_main, j) == 0)
        return true;
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->done_cond);
    return false;
}

int api_host_progress(tmcml_session *s, const tmcml_options *o, uint64_t done, uint64_t total)
{
    c_locale_leave(s->caller_locale);
    int answer = o->progress(done, total, o->progress_user);
    c_locale_enter();
    return answer;
}

/* The job, with the callback called every interval on this thread; a
 * nonzero answer raises the session's stop flag. */
static void job_watch(tmcml_session *s, job *j, const tmcml_options *o, progress_meter *meter)
{
    if (!o->progress || !job_start(j)) {
        job_run(j);
    } else {
        double interval =
            o->progress_interval > 0 ? o->progress_interval : DEFAULT_PROGRESS_INTERVAL;
        while (!job_wait(j, interval))
            if (api_host_progress(s, o, atomic_load(&meter->done), j->count) != 0)
                s->stop = 1;
        pthread_join(j->thread, NULL);
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->done_cond);
    }
    if (o->progress && j->ok && !s->stop)
        api_host_progress(s, o, j->count, j->count);
}

/* ---- the run ----------------------------------------------------------------------- */

static char *copy_text(const char *text) { return strdup(text ? text : ""); }

/* The result's record of how the run went. */
static tmcml_status fill_info(tmcml_session *s, tmcml_result *r, uint64_t digest,
                              const tmcml_options *o, const kernel_spec *spec,
                              const session_run_stats *st)
{
    /* The library runs on one GPU: the session's first. */
    const gpu_engine *gpu = spec ? gpu_pool_engine(s->eng.pool, 0) : NULL;
    const char *source = spec ? s->eng.sources[0] : "";
    static const tmcml_kernel_origin origins[] = {
        [SESSION_KERNEL_NONE] = TMCML_KERNEL_NONE,
        [SESSION_KERNEL_COMPILED] = TMCML_KERNEL_COMPILED,
        [SESSION_KERNEL_CACHED] = TMCML_KERNEL_CACHED,
        [SESSION_KERNEL_WARM] = TMCML_KERNEL_WARM,
    };
    const tally_set *t = &r->tallies;
    snprintf(r->engine, sizeof r->engine, "%s", gpu ? "gpu" : "cpu");
    snprintf(r->device, sizeof r->device, "%s", gpu ? gpu_engine_device(gpu)->name : "");
    r->variant = copy_text(gpu ? source : "");
    r->kernel = gpu ? spec_key(spec) : copy_text("");
    r->comment = copy_text("");
    if (!r->variant || !r->kernel || !r->comment)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    int threads = o->threads > 0 ? o->threads : cpu_count();
    r->info = (tmcml_info){
        .photons = t->photons,
        .seed = o->seed,
        .absorption = o->absorption != 0,
        .has_tallies = 1,
        .engine = r->engine,
        .threads = gpu ? 0 : cpu_thread_count(threads, t->photons),
        .device = r->device,
        .variant = r->variant,
        .kernel = r->kernel,
        .kernel_origin = origins[st->kernel],
        .compile_seconds = st->compile_seconds,
        .kernel_seconds = st->kernel_seconds,
        .steps = tally_count(t->steps),
        .trapped_photons = t->trapped_photons,
        .trapped_weight = tally_weight(t->trapped_units) / (double)(t->photons ? t->photons : 1),
        .tallies_digest = digest,
        .comment = r->comment,
    };
    return TMCML_OK;
}

/* The engine and, on the GPU, the variant (with sets, the sets' kernel,
 * planned for their shape; with derivatives and no sets, that of the
 * problem's own set, which *sets then is): *specs NULL for the CPU. */
static tmcml_status choose(tmcml_session *s, const tmcml_options *o, tmcml_engine engine,
                           const call_sets **sets_io, own_set *own, const mci_run *run,
                           const kernel_spec **specs, double *plan_seconds)
{
    static const session_engine_choice engines[] = {
        [TMCML_ENGINE_AUTO] = SESSION_AUTO,
        [TMCML_ENGINE_CPU] = SESSION_CPU,
        [TMCML_ENGINE_GPU] = SESSION_GPU,
    };
    tm_error err = {0};
    gpu_pool *pool = NULL;
    *specs = NULL;
    if (!session_engine(&s->eng, engines[engine], &o->gpu, 1, &pool, NULL, &err))
        return api_fail(s, TMCML_ERR_NO_GPU, &err);
    if (!pool)
        return TMCML_OK;
    jacobian_own_set(run, sets_io, own);
    const call_sets *sets = *sets_io;
    plan_options plan;
    plan_options_of(o, &plan);
    plan.num_sets = sets->count;
    plan.sets_paths = sets->count > 0 && sets->paths;
    plan.sets_jacobian = sets->count > 0 && run->jacobian;
    plan.sets_optics = optics_sets_level(run, sets->count, sets->mus, sets->g);
    plan.set_mua = sets->mua;
    plan.set_mus = sets->mus;
    plan.set_g = sets->g;
    double t0 = clock_now();
    bool ok = session_plan(&s->eng, &plan, run, specs, &err);
    *plan_seconds = clock_now() - t0;
    return ok ? TMCML_OK : api_fail(s, TMCML_ERR_ENGINE, &err);
}

/* The engine of a call with path lengths: a GPU kernel scores them with
 * absorption sets (templates/sets.cu), the CPU engine always, so AUTO takes
 * it for the others. */
static bool any_paths(const tmcml_problem *const *p, int count)
{
    for (int i = 0; i < count; i++)
        if (p[i]->run.path_lengths)
            return true;
    return false;
}

/* Derivatives the GPU does not score: of several problems in a call (a
 * batch; a call's sets are one problem's), or of path lengths without sets
 * (the GPU's kernel of the sets scores those of the escapes by ring, angle,
 * time bin and fiber detector). */
static bool jacobian_cpu_only(const tmcml_problem *const *p, int count, const call_sets *sets)
{
    bool batch = count > 1 && sets->count == 0;
    for (int i = 0; i < count; i++) {
        const mci_run *run = &p[i]->run;
        if (run->jacobian && (batch || (run->path_lengths && sets->count == 0)))
            return true;
    }
    return false;
}

/* Time bins and fiber detectors: a run's own GPU kernel scores them, or
 * the sets' kernel, not a batch's (gen/spec.c, validate_timed), so a call
 * of several problems takes the CPU. */
static bool any_timed_cpu_only(const tmcml_problem *const *p, int count)
{
    for (int i = 0; i < count; i++)
        if (run_options_tracks_time(&p[i]->run) && count > 1)
            return true;
    return false;
}

/* Whether run's group of `values` (its spatial or modulation frequencies)
 * is one the GPU does not score: a run's own kernel scores up to gpu_max
 * (templates/fx.cu, timed.cu), a batch's and the sets' (so with
 * derivatives too) none. */
static bool own_kernel_group_cpu_only(const mci_run *run, int values, int gpu_max, int count,
                                      const call_sets *sets)
{
    return values > 0 && (count > 1 || sets->count > 0 || run->jacobian || values > gpu_max);
}

/* Spatial frequencies the GPU does not score (own_kernel_group_cpu_only). */
static bool any_fx(const tmcml_problem *const *p, int count, const call_sets *sets)
{
    for (int i = 0; i < count; i++)
        if (own_kernel_group_cpu_only(&p[i]->run, p[i]->run.fx_count,
                                      TM_MAX_GPU_SPATIAL_FREQUENCIES, count, sets))
            return true;
    return false;
}

/* Modulation frequencies the GPU does not score (own_kernel_group_cpu_only). */
static bool any_mod(const tmcml_problem *const *p, int count, const call_sets *sets)
{
    for (int i = 0; i < count; i++)
        if (own_kernel_group_cpu_only(&p[i]->run, p[i]->run.mod_count, TM_MAX_GPU_MODULATIONS,
                                      count, sets))
            return true;
    return false;
}

static tmcml_engine paths_engine(tmcml_engine engine, const call_sets *sets,
                                 const tmcml_problem *const *p, int count)
{
    bool cpu_only = api_xy_cpu_only(p, count) || any_mod(p, count, sets) ||
                    any_fx(p, count, sets) || (any_paths(p, count) && sets->count == 0) ||
                    jacobian_cpu_only(p, count, sets) || any_timed_cpu_only(p, count);
    return cpu_only ? TMCML_ENGINE_CPU : engine;
}

/* ---- one call's problems ------------------------------------------------------ */

/* The problems of one batch share a kernel shape (the run command's
 * batches: layer count and grid). */
static tmcml_status check_shapes(tmcml_session *s, const tmcml_problem *const *p, int count)
{
    const mci_run *a = &p[0]->run;
    for (int i = 1; i < count; i++) {
        if (!p[i])
            return api_failf(s, TMCML_ERR_ARGUMENT, "problems[%d]: NULL", i);
        const mci_run *b = &p[i]->run;
        if (a->num_layers != b->num_layers || a->nr != b->nr || a->nz != b->nz || a->na != b->na ||
            a->dr != b->dr || a->dz != b->dz)
            return api_failf(s, TMCML_ERR_ARGUMENT,
                             "problems[%d]: its layer count and grid (%d layers, %dx%dx%d, dr %g, "
                             "dz %g) are not problems[0]'s (%d layers, %dx%dx%d, dr %g, dz %g): "
                             "a batch has one kernel shape",
                             i, b->num_layers, b->nr, b->nz, b->na, b->dr, b->dz, a->num_layers,
                             a->nr, a->nz, a->na, a->dr, a->dz);
        if (a->source.kind != b->source.kind) /* baked into the kernel; the parameters are data */
            return api_failf(s, TMCML_ERR_ARGUMENT,
                             "problems[%d]: its source is a %s, problems[0]'s a %s: a batch has "
                             "one kernel shape, one source kind",
                             i, source_kind_name(b->source.kind), source_kind_name(a->source.kind));
    }
    return TMCML_OK;
}

/* Each problem's result, its tallies empty (photons: the options', else the
 * problem's), with the optional tallies its run asks for from the start, as
 * the run command's are (driver/resume.c): the groups of the standard
 * errors add each round's tallies into them, and an addition skips a tally
 * the sum lacks (tally_set_add). */
static tmcml_status new_results(tmcml_session *s, const tmcml_problem *const *p, int count,
                                const tmcml_options *o, tmcml_result **r)
{
    for (int i = 0; i < count; i++) {
        /* A precision run's photons are the most it may take: its
         * max_photons when given. */
        int64_t most = p[i]->precision > 0.0 ? p[i]->max_photons : 0, photons = 0;
        tmcml_status status = api_check_options(s, o, most ? most : p[i]->run.photons, &photons);
        if (status != TMCML_OK)
            return status;
        r[i] = calloc(1, sizeof *r[i]);
        if (!r[i] || !mci_run_copy(&r[i]->problem.run, &p[i]->run) ||
            !tally_set_init(&r[i]->tallies, p[i]->run.nr, p[i]->run.nz, p[i]->run.na) ||
            !run_options_add_tallies(&p[i]->run, &r[i]->tallies))
            return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
        r[i]->problem.run.photons = most ? most : photons;
        /* A precision is decided from the groups of the standard errors. */
        r[i]->problem.stderr_groups = p[i]->stderr_groups || p[i]->precision > 0.0;
        r[i]->problem.precision = p[i]->precision;
        r[i]->problem.max_photons = p[i]->max_photons;
        memcpy(r[i]->problem.precision_of, p[i]->precision_of, sizeof p[i]->precision_of);
        r[i]->has_tallies = true;
    }
    return TMCML_OK;
}

/* Appends the engine call of one part (a run alone, or a batch of one). */
static bool add_single(work *w, tmcml_result *r, int slot, tm_error *err)
{
    batch_part part = {&r->problem.run, 0, (uint64_t)r->problem.run.photons, slot};
    return photon_batch_init(&w->batches[w->calls++], &part, 1, err);
}

/* Whether result r is simulated by a call of its own on the GPU: a stack
 * of glass alone, which no batch kernel runs, or a problem big enough to
 * fill the GPUs by itself (batch_run_alone) without a precision. */
static bool simulated_alone(const tmcml_result *r, uint64_t alone_photons)
{
    /* A precision run's photons are its most, but it starts with 64000 and
     * stops where its groups say: batched, its groups share launches. */
    return batch_run_glass_only(&r->problem.run) ||
           (r->problem.precision <= 0.0 && batch_run_alone(&r->problem.run, alone_photons));
}

/* The engine calls of the results: on the GPU, the batch kernel's
 * (bspec, NULL for a single problem) in as few calls as its shared memory
 * allows, the longest-lived problems first, and the problems simulated
 * alone each by itself.  On the CPU, one batch of every problem. */
static bool plan_work(session *eng, tmcml_result **r, int count, const kernel_spec *specs,
                      const kernel_spec *bspec, work *w, tm_error *err)
{
    batch_part *parts = malloc((size_t)count * sizeof *parts);
    w->batches = calloc((size_t)count, sizeof *w->batches);
    w->specs = NULL;
    kernel_spec *call_specs = specs ? calloc((size_t)count, sizeof *call_specs) : NULL;
    bool ok = parts && w->batches && (!specs || call_specs);
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    int n = 0;
    uint64_t alone_photons = specs ? batch_alone_photons(gpu_pool_threads(eng->pool)) : 0;
    for (int i = 0; ok && i < count; i++) {
        if (specs && (!bspec || simulated_alone(r[i], alone_photons))) {
            call_specs[w->calls] = specs[0];
            ok = add_single(w, r[i], i, err);
        } else {
            parts[n++] =
                (batch_part){&r[i]->problem.run, 0, (uint64_t)r[i]->problem.run.photons, i};
        }
    }
    if (ok && n > 0)
        batch_order_longest_first(parts, n);
    const gpu_engine *gpu = specs ? gpu_pool_engine(eng->pool, 0) : NULL;
    for (int first = 0; ok && first < n;) {
        int size = n - first;
        while (gpu && size > 1 && !gpu_batch_fits(gpu, bspec, size, size))
            size /= 2;
        if (specs)
            call_specs[w->calls] = size > 1 ? *bspec : specs[0];
        ok = photon_batch_init(&w->batches[w->calls++], &parts[first], size, err);
        first += size;
    }
    free(parts);
    w->specs = call_specs;
    return ok;
}

static void free_work(work *w)
{
    for (int i = 0; w->unc && i < w->results; i++)
        uncertainty_free(&w->unc[i]);
    free(w->unc);
    free(w->prec);
    for (int c = 0; w->batches && c < w->calls; c++)
        photon_batch_free(&w->batches[c]);
    free(w->batches);
    free((void *)w->specs);
    free(w->acc);
    free(w->stats);
}

/* The batch kernel of the session's variant for the problems' shape, with
 * every problem's layers checked for the GPU (session_plan). */
static tmcml_status batch_spec(tmcml_session *s, const tmcml_options *o, tmcml_result **r,
                               int count, const kernel_spec *specs, kernel_spec *bspec)
{
    plan_options plan;
    plan_options_of(o, &plan);
    tm_error err = {0};
    const kernel_spec *again;
    for (int i = 1; i < count; i++)
        if (!session_plan(&s->eng, &plan, &r[i]->problem.run, &again, &err))
            return api_fail(s, TMCML_ERR_ENGINE, &err);
    *bspec = specs[0];
    tune_device dev;
    gpu_runner_device(gpu_engine_device(gpu_pool_engine(s->eng.pool, 0)), &dev);
    if (!variant_batch_spec(bspec, &plan.variant, &dev, &err))
        return api_fail(s, TMCML_ERR_ENGINE, &err);
    return TMCML_OK;
}

/* Simulates every result's photons, watched by the caller's callback. */
/* The engine calls: plan_work's, or with sets the one call of the sets'
 * problem (set 0's run: the engine takes the sets' mua, not the run's). */
static bool plan_calls(session *eng, tmcml_result **r, int count, const kernel_spec *specs,
                       const kernel_spec *bspec, const call_sets *sets, work *w, tm_error *err)
{
    if (sets->count == 0)
        return plan_work(eng, r, count, specs, bspec, w, err);
    w->batches = calloc(1, sizeof *w->batches);
    kernel_spec *call_spec = specs ? malloc(sizeof *call_spec) : NULL;
    if (!w->batches || (specs && !call_spec)) {
        free(call_spec);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (specs)
        *call_spec = specs[0]; /* the session makes it the sets' kernel */
    w->specs = call_spec;
    return add_single(w, r[0], 0, err);
}

/* The engine's options of a call's photons, watched by meter, stopped by
 * the session's flag. */
static session_sim sim_of(tmcml_session *s, const tmcml_options *o, const call_sets *sets,
                          progress_meter *meter)
{
    return (session_sim){.seed = o->seed,
                         .score_absorption = o->absorption != 0,
                         .threads = o->threads,
                         .max_steps = o->max_steps,
                         .cache_dir = o->cache_dir,
                         .progress = meter,
                         .stop = &s->stop,
                         .num_sets = sets->count,
                         .set_layers = sets->layers,
                         .set_mua = sets->mua,
                         .set_mus = sets->mus,
                         .set_g = sets->g};
}

/* Whether a result's problem asks for standard errors. */
static bool any_stderr(tmcml_result *const *r, int count)
{
    for (int i = 0; i < count; i++)
        if (r[i]->problem.stderr_groups)
            return true;
    return false;
}

/* w->unc: the groups of each result's standard errors, zeroed (as
 * uncertainty_init leaves them), when any problem asks; else NULL.  Then
 * every result of the call is grouped: the rounds of group pieces are the
 * engine call's, every part's at once (driver/session_groups.h), so the
 * GPU's launches are the same whoever asked, and a result that did not ask
 * costs only its groups' normalisation on the host; only those that asked
 * are given errors (fill_stderr).  False when out of memory. */
static bool plan_groups(work *w, tmcml_result *const *r, int count)
{
    w->results = count;
    if (!any_stderr(r, count))
        return true;
    w->unc = calloc((size_t)count, sizeof *w->unc);
    return w->unc != NULL;
}

/* Result r's checkpoint (driver/checkpointed.h): fresh, or the file's. */
static tmcml_status kept_begin(tmcml_session *s, const tmcml_options *o, const tmcml_result *r,
                               const kernel_spec *specs, const tmcml_checkpoint *kc, checkpoint *ck)
{
    tm_error err = {0};
    char physics[256];
    if (!resume_physics(specs ? gpu_pool_engine(s->eng.pool, 0) : NULL, physics, sizeof physics,
                        &err))
        return api_fail(s, TMCML_ERR_ENGINE, &err);
    driver_options d;
    driver_options_init(&d);
    d.seed = o->seed;
    d.score_absorption = o->absorption != 0;
    d.max_steps = o->max_steps;
    d.resume = kc->resume != 0;
    d.stderr_groups = r->problem.stderr_groups; /* a resumed run keeps its groups */
    d.precision = r->problem.precision;         /* its groups' plan (resume_begin) */
    bool resumed;
    if (!checkpointed_begin(ck, &d, &r->problem.run, physics, kc->path, &resumed, &err))
        return api_fail(s, TMCML_ERR_FILE, &err);
    return TMCML_OK;
}

/* One result's photons kept in kc's file: the checkpoint's tallies become
 * the result's, the file goes once they are all done; sets: none, or on the
 * GPU a problem's own with its derivatives (jacobian_own_set). */
static tmcml_status simulate_kept(tmcml_session *s, const tmcml_options *o, tmcml_result *r,
                                  const kernel_spec *specs, const call_sets *sets,
                                  const tmcml_checkpoint *kc, work *w)
{
    checkpoint ck;
    w->stats = calloc(1, sizeof *w->stats);
    kernel_spec *call_spec = specs ? malloc(sizeof *call_spec) : NULL;
    if (!w->stats || (specs && !call_spec) || !plan_groups(w, &r, 1)) {
        free(call_spec);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    if (specs)
        *call_spec = specs[0];
    w->specs = call_spec;
    tmcml_status status = kept_begin(s, o, r, specs, kc, &ck);
    if (status != TMCML_OK)
        return status;
    uint64_t total = (uint64_t)r->problem.run.photons;
    progress_meter meter;
    progress_start(&meter, false, total, NULL);
    progress_add(&meter, checkpoint_done(&ck));
    checkpointed_call c = {.ses = &s->eng,
                           .sim = sim_of(s, o, sets, &meter),
                           .run = &r->problem.run,
                           .specs = specs,
                           .path = kc->path,
                           .every = kc->every,
                           .cancel = &s->stop};
    /* The groups go with the checkpoint's tallies (and its file keeps
     * them: a resumed run's errors are the unbroken run's). */
    c.sim.uncertainty = w->unc ? &ck.unc : NULL;
    if (w->prec) /* met, the checkpoint's photons become those taken */
        w->prec[0].ck = &ck;
    precision_stop_sim(&c.sim, w->prec);
    tm_error err = {0};
    job j = {.eng = &s->eng, .w = w, .kept = &c, .ck = &ck, .count = total, .err = &err};
    job_watch(s, &j, o, &meter);
    uint64_t done = checkpoint_done(&ck);
    if (w->prec)
        w->prec[0].ck = NULL;
    tally_set_free(&r->tallies);
    r->tallies = ck.tallies; /* the result's now, and the groups the work's */
    memset(&ck.tallies, 0, sizeof ck.tallies);
    if (w->unc) {
        w->unc[0] = ck.unc;
        memset(&ck.unc, 0, sizeof ck.unc);
    }
    checkpoint_free(&ck);
    if (j.kept_status == CHECKPOINTED_FAILED)
        return api_fail(s, TMCML_ERR_ENGINE, &err);
    if (j.kept_status == CHECKPOINTED_CANCELLED)
        return api_failf(s, TMCML_ERR_CANCELLED,
                         "cancelled after %llu of %llu photons: they are kept in %s (resume "
                         "continues the run)",
                         (unsigned long long)done, (unsigned long long)total, kc->path);
    if (unlink(kc->path) != 0 && errno != ENOENT)
        return api_failf(s, TMCML_ERR_FILE, "%s: cannot remove the finished run's checkpoint: %s",
                         kc->path, strerror(errno));
    return TMCML_OK;
}

static tmcml_status simulate_all(tmcml_session *s, const tmcml_options *o, tmcml_result **r,
                                 int count, const kernel_spec *specs, const kernel_spec *bspec,
                                 const call_sets *sets, work *w)
{
    tm_error err = {0};
    uint64_t total = 0;
    w->acc = calloc((size_t)count, sizeof *w->acc);
    w->stats = calloc((size_t)count, sizeof *w->stats);
    if (!w->acc || !w->stats || !plan_groups(w, r, count) ||
        !plan_calls(&s->eng, r, count, specs, bspec, sets, w, &err))
        return err.message[0] ? api_fail(s, TMCML_ERR_MEMORY, &err)
                              : api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    for (int i = 0; i < count; i++) {
        w->acc[i] = r[i]->tallies; /* lent: the counts come back below */
        total += (uint64_t)r[i]->problem.run.photons;
    }
    int per_history = sets->count > 0 ? count : 1; /* results one photon scores into */
    total /= (uint64_t)per_history;
    progress_meter meter;
    progress_start(&meter, false, total, NULL);
    session_sim sim = sim_of(s, o, sets, &meter);
    sim.uncertainty = w->unc; /* one per result: the slots', or the sets' */
    if (sets->count > 0) {    /* the sets share their photons: they stop together */
        w->shared = (precision_stop_sets){w->prec, count, 0};
        precision_stop_sets_sim(&sim, w->prec ? &w->shared : NULL);
    } else {
        precision_stop_sim(&sim, w->prec);
    }
    job j = {.eng = &s->eng, .sim = &sim, .w = w, .count = total, .err = &err};
    job_watch(s, &j, o, &meter);
    uint64_t done = 0;
    for (int i = 0; i < count; i++) {
        r[i]->tallies = w->acc[i];
        done += r[i]->tallies.photons;
    }
    done /= (uint64_t)per_history;
    if (!j.ok)
        return api_fail(s, TMCML_ERR_ENGINE, &err);
    /* A precision run met ends early: only fewer photons than that is a
     * cancel (sets: each result counts the history's photons). */
    if (w->prec)
        total = api_precision_expected(r, count, w->prec) / (uint64_t)per_history;
    if (done < total)
        return api_failf(s, TMCML_ERR_CANCELLED, "cancelled after %llu of %llu photons",
                         (unsigned long long)done, (unsigned long long)total);
    return TMCML_OK;
}

/* The call of each result, for its record. */
static int call_of(const work *w, int slot)
{
    for (int c = 0; c < w->calls; c++)
        for (int k = 0; k < w->batches[c].count; k++)
            if (w->batches[c].parts[k].slot == slot)
                return c;
    return 0;
}

/* The host's share of a call, each result's normalised quantities and
 * tallies digest, on several threads for a batch: a 100 x 100 grid's digest
 * hashes 480 kB (~0.7 ms) and its normalisation takes as long, so the 100
 * results of a lookup table one after the other held each call ~0.05 s. */
#define FINISH_THREADS 8

typedef struct finishing {
    tmcml_result **r;
    const uncertainty *unc; /* the work's: NULL when no problem asked */
    uint64_t *digests;
    bool *ok;
    tm_error *errs;
} finishing;

/* Result r's standard errors from its groups u, when its problem asked and
 * every photon of its tallies is in them (a checkpointed run continued
 * from a file has no groups of its earlier photons: then none). */
static bool fill_stderr(tmcml_result *r, const uncertainty *u, tm_error *err)
{
    if (!u || !r->problem.stderr_groups || u->groups == 0 || u->photons != r->tallies.photons)
        return true;
    return uncertainty_fill(u, &r->res, err);
}

static void finish_one(void *ctx, int i)
{
    finishing *f = ctx;
    tmcml_result *r = f->r[i];
    f->ok[i] = result_from_tallies(&r->problem.run, &r->tallies, &r->res, &f->errs[i]) &&
               fill_stderr(r, f->unc ? &f->unc[i] : NULL, &f->errs[i]);
    f->digests[i] = tally_set_digest(&r->tallies);
}

/* finish_one over r[0 .. count-1]: false (with *err) when a result could
 * not be normalised. */
static bool finish_parallel(tmcml_result **r, const uncertainty *unc, int count, uint64_t *digests,
                            tm_error *err)
{
    bool *ok = calloc((size_t)count, sizeof *ok);
    tm_error *errs = calloc((size_t)count, sizeof *errs);
    if (!ok || !errs) {
        free(ok);
        free(errs);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    finishing f = {r, unc, digests, ok, errs};
    int cores = cpu_count();
    parallel_for(count, cores < FINISH_THREADS ? cores : FINISH_THREADS, finish_one, &f);
    bool all = true;
    for (int i = 0; all && i < count; i++)
        if (!ok[i]) {
            *err = errs[i];
            all = false;
        }
    free(ok);
    free(errs);
    return all;
}

static tmcml_status finish_results(tmcml_session *s, const tmcml_options *o, tmcml_result **r,
                                   int count, const work *w, double plan_seconds, double start)
{
    tm_error err = {0};
    uint64_t *digests = calloc((size_t)count, sizeof *digests);
    if (!digests)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    if (!finish_parallel(r, w->unc, count, digests, &err)) {
        free(digests);
        return api_fail(s, TMCML_ERR_MEMORY, &err);
    }
    for (int i = 0; i < count; i++) {
        int c = call_of(w, i);
        tmcml_status status =
            fill_info(s, r[i], digests[i], o, w->specs ? &w->specs[c] : NULL, &w->stats[c]);
        if (status != TMCML_OK) {
            free(digests);
            return status;
        }
        r[i]->info.plan_seconds = plan_seconds;
    }
    free(digests);
    double wall = clock_now() - start;
    for (int i = 0; i < count; i++) {
        r[i]->info.wall_seconds = wall;
        r[i]->info.overhead_seconds = wall - r[i]->info.compile_seconds - r[i]->info.kernel_seconds;
    }
    return TMCML_OK;
}

/* One call's problems: p[0 .. count-1] of one shape into out[0 .. count-1]
 * (all or none). */
static tmcml_status run_problems(tmcml_session *s, const tmcml_problem *const *p, int count,
                                 const tmcml_options *o, const call_sets *sets,
                                 const tmcml_checkpoint *kc, tmcml_result **out)
{
    double start = clock_now();
    tmcml_result **r = calloc((size_t)count, sizeof *r);
    work w = {0};
    const kernel_spec *specs = NULL;
    kernel_spec bspec;
    own_set own; /* a problem's own set, with derivatives on the GPU (choose) */
    double plan_seconds = 0;
    tmcml_status status =
        r ? check_shapes(s, p, count) : api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    if (status == TMCML_OK)
        status = new_results(s, p, count, o, r);
    if (status == TMCML_OK)
        status = api_check_xy(s, p, count, sets->count > 0, o->engine);
    if (status == TMCML_OK)
        status = api_precision_plan(s, r, count, o, &w.prec);
    if (status == TMCML_OK && o->engine == TMCML_ENGINE_GPU && any_paths(p, count) &&
        sets->count == 0)
        status = api_failf(s, TMCML_ERR_ARGUMENT,
                           "engine: on the GPU, path lengths are scored with absorption sets "
                           "(tmcml_run_sets): else TMCML_ENGINE_CPU or AUTO");
    if (status == TMCML_OK && o->engine == TMCML_ENGINE_GPU && any_mod(p, count, sets))
        status = api_failf(s, TMCML_ERR_ARGUMENT,
                           "engine: modulation frequencies (tmcml_problem_set_modulation) of "
                           "several problems in one call, with sets or derivatives, or more than "
                           "%d are scored by the CPU engine alone: TMCML_ENGINE_CPU or AUTO",
                           TM_MAX_GPU_MODULATIONS);
    if (status == TMCML_OK && o->engine == TMCML_ENGINE_GPU && any_fx(p, count, sets))
        status = api_failf(s, TMCML_ERR_ARGUMENT,
                           "engine: spatial frequencies (tmcml_problem_set_spatial_frequencies) "
                           "of several problems in one call, with sets or derivatives, or more "
                           "than %d are scored by the CPU engine alone: TMCML_ENGINE_CPU or AUTO",
                           TM_MAX_GPU_SPATIAL_FREQUENCIES);
    if (status == TMCML_OK && o->engine == TMCML_ENGINE_GPU && jacobian_cpu_only(p, count, sets))
        status = api_failf(s, TMCML_ERR_ARGUMENT,
                           "engine: the derivatives (tmcml_problem_set_jacobian) of several "
                           "problems in a call, or of path lengths without sets, are scored by "
                           "the CPU engine: TMCML_ENGINE_CPU or AUTO (on the GPU, one problem a "
                           "call)");
    if (status == TMCML_OK && o->engine == TMCML_ENGINE_GPU && any_timed_cpu_only(p, count))
        status = api_failf(s, TMCML_ERR_ARGUMENT,
                           "engine: time bins and fiber detectors are scored on the GPU by a "
                           "run's own kernel, not in a batch of several problems: "
                           "TMCML_ENGINE_CPU or AUTO (or one problem a call)");
    if (status == TMCML_OK)
        status = choose(s, o, paths_engine(o->engine, sets, p, count), &sets, &own,
                        &r[0]->problem.run, &specs, &plan_seconds);
    /* bspec: the batch kernel of several problems (the sets' problems are one
     * history, simulated by the sets' kernel that choose planned) */
    bool batched = specs && count > 1 && sets->count == 0;
    if (status == TMCML_OK && batched)
        status = batch_spec(s, o, r, count, specs, &bspec);
    if (status == TMCML_OK && kc)
        status = simulate_kept(s, o, r[0], specs, sets, kc, &w);
    else if (status == TMCML_OK)
        status = simulate_all(s, o, r, count, specs, batched ? &bspec : NULL, sets, &w);
    for (int i = 0; status == TMCML_OK && w.prec && i < count; i++)
        api_precision_finish(r[i], &w.prec[i], &w.unc[i]);
    if (status == TMCML_OK)
        status = finish_results(s, o, r, count, &w, plan_seconds, start);
    free_work(&w);
    for (int i = 0; r && i < count; i++) {
        if (status != TMCML_OK)
            tmcml_result_delete(r[i]);
        out[i] = status == TMCML_OK ? r[i] : NULL;
    }
    free(r);
    return status;
}

tmcml_status tmcml_run(tmcml_session *s, const tmcml_problem *p, const tmcml_options *opt,
                       tmcml_result **out)
{
    if (out)
        *out = NULL;
    tmcml_status entered = api_begin(s, API_ARGS({out, "out"}, {p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    call_sets none = {0};
    return api_leave(s, run_problems(s, &p, 1, opt ? opt : &defaults, &none, NULL, out));
}

void tmcml_checkpoint_init(tmcml_checkpoint *ck)
{
    if (ck)
        *ck = (tmcml_checkpoint){
            .path = NULL, .every = DRIVER_DEFAULT_CHECKPOINT_SECONDS, .resume = 0};
}

tmcml_status api_check_checkpoint(tmcml_session *s, const tmcml_checkpoint *ck)
{
    if (!ck)
        return api_failf(s, TMCML_ERR_ARGUMENT, "checkpoint: NULL");
    if (!ck->path || !ck->path[0])
        return api_failf(s, TMCML_ERR_ARGUMENT, "checkpoint path: expected a file name");
    if (!isfinite(ck->every) || ck->every < 0)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "checkpoint every: expected seconds, 0 or more (got %g)", ck->every);
    if (ck->resume != 0 && ck->resume != 1)
        return api_failf(s, TMCML_ERR_ARGUMENT, "checkpoint resume: expected 0 or 1 (got %d)",
                         ck->resume);
    return TMCML_OK;
}

tmcml_status tmcml_run_checkpointed(tmcml_session *s, const tmcml_problem *p,
                                    const tmcml_options *opt, const tmcml_checkpoint *ck,
                                    tmcml_result **out)
{
    if (out)
        *out = NULL;
    if (!s)
        return TMCML_ERR_ARGUMENT;
    if (!api_enter(s))
        return TMCML_ERR_CANCELLED;
    if (!out)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "out: NULL"));
    if (!p)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "problem: NULL"));
    tmcml_status status = api_check_checkpoint(s, ck);
    if (status != TMCML_OK)
        return api_leave(s, status);
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    call_sets none = {0};
    return api_leave(s, run_problems(s, &p, 1, opt ? opt : &defaults, &none, ck, out));
}

tmcml_status tmcml_run_batch(tmcml_session *s, const tmcml_problem *const *problems, int count,
                             const tmcml_options *opt, tmcml_result **out)
{
    for (int i = 0; out && i < count; i++)
        out[i] = NULL;
    tmcml_status entered = api_begin(s, API_ARGS({out, "out"}, {problems, "problems"}));
    if (entered != TMCML_OK)
        return entered;
    if (count < 1 || count > TMCML_BATCH_MAX)
        return api_arg_error(s, "count: expected 1 to %d (got %d)", TMCML_BATCH_MAX, count);
    if (!problems[0])
        return api_arg_error(s, "problems[0]: NULL");
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    return api_leave(s, api_run_batch(s, problems, count, opt ? opt : &defaults, out));
}

tmcml_status api_run_batch(tmcml_session *s, const tmcml_problem *const *problems, int count,
                           const tmcml_options *o, tmcml_result **out)
{
    call_sets none = {0};
    return run_problems(s, problems, count, o, &none, NULL, out);
}

/* Why sets's table cannot be scored from p's histories (TMCML_ERR_ARGUMENT,
 * naming the set, layer and parameter), or TMCML_OK. */
static tmcml_status check_sets(tmcml_session *s, const tmcml_problem *p, const call_sets *sets)
{
    tm_error err = {0};
    bool ok = sets->mus
                  ? optics_sets_check(&p->run, sets->mua, sets->mus, sets->g, sets->count, &err)
                  : mua_sets_check("mua_sets", sets->mua, sets->count, p->run.num_layers, &err);
    if (!ok)
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    for (size_t e = 0; sets->g && p->run.jacobian && e < (size_t)sets->count * (size_t)sets->layers;
         e++)
        if (sets->g[e] != p->run.layers[e % (size_t)sets->layers + 1].g)
            return api_failf(s, TMCML_ERR_ARGUMENT,
                             "optics_sets: set %zu changes layer %zu's g: the derivatives "
                             "(tmcml_problem_set_jacobian) take sets of the problem's g",
                             e / (size_t)sets->layers + 1, e % (size_t)sets->layers + 1);
    return TMCML_OK;
}

/* The sets' problems (*list, sets->count of them): p with each set's mua,
 * and with optics sets its mus and g (marked optics sets: their results
 * have an effective sample size). */
static tmcml_status set_problems(tmcml_session *s, const tmcml_problem *p, const call_sets *sets,
                                 tmcml_problem ***list)
{
    tmcml_status status = check_sets(s, p, sets);
    if (status != TMCML_OK)
        return status;
    *list = calloc((size_t)sets->count, sizeof **list);
    for (int k = 0; *list && k < sets->count; k++) {
        tmcml_problem *q = (*list)[k] = calloc(1, sizeof *(*list)[k]);
        bool copied =
            q && (sets->mus ? optics_sets_run(&p->run, sets->mua, sets->mus, sets->g, k, &q->run)
                            : mua_sets_run(&p->run, sets->mua, k, &q->run));
        if (!copied)
            return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
        q->stderr_groups = p->stderr_groups;
        q->precision = p->precision;
        q->max_photons = p->max_photons;
        memcpy(q->precision_of, p->precision_of, sizeof p->precision_of);
    }
    return *list ? TMCML_OK : api_failf(s, TMCML_ERR_MEMORY, "out of memory");
}

/* Every set of sets, from one simulation of p. */
static tmcml_status run_sets(tmcml_session *s, const tmcml_problem *p, const call_sets *sets,
                             const tmcml_options *o, tmcml_result **out)
{
    tmcml_problem **list = NULL;
    tmcml_status status = set_problems(s, p, sets, &list);
    if (status == TMCML_OK)
        status =
            run_problems(s, (const tmcml_problem *const *)list, sets->count, o, sets, NULL, out);
    for (int k = 0; list && k < sets->count; k++)
        tmcml_problem_delete(list[k]);
    free(list);
    return status;
}

/* The checks both sets' calls begin with: out cleared, the arguments, the
 * count; TMCML_OK when the call may go on (inside the session). */
static tmcml_status sets_begin(tmcml_session *s, const tmcml_problem *p, const double *table,
                               const char *table_name, int num_sets, tmcml_result **out)
{
    for (int k = 0; out && k < num_sets && k < TM_MAX_ABSORPTION_SETS; k++)
        out[k] = NULL;
    tmcml_status entered =
        api_begin(s, API_ARGS({out, "out"}, {p, "problem"}, {table, table_name}));
    if (entered != TMCML_OK)
        return entered;
    if (num_sets < 1 || num_sets > TM_MAX_ABSORPTION_SETS)
        return api_arg_error(s, "num_sets: expected 1 to %d (got %d)", TM_MAX_ABSORPTION_SETS,
                             num_sets);
    return TMCML_OK;
}

tmcml_status tmcml_run_sets(tmcml_session *s, const tmcml_problem *p, const double *mua_sets,
                            int num_sets, const tmcml_options *opt, tmcml_result **out)
{
    tmcml_status begun = sets_begin(s, p, mua_sets, "mua_sets", num_sets, out);
    if (begun != TMCML_OK)
        return begun;
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    return api_leave(s, api_run_sets(s, p, mua_sets, num_sets, opt ? opt : &defaults, out));
}

tmcml_status api_run_sets(tmcml_session *s, const tmcml_problem *p, const double *mua_sets,
                          int num_sets, const tmcml_options *o, tmcml_result **out)
{
    call_sets sets = {num_sets, p->run.num_layers, mua_sets, p->run.path_lengths, NULL, NULL};
    return run_sets(s, p, &sets, o, out);
}

/* ---- optics sets ---------------------------------------------------------------- */

tmcml_status tmcml_run_optics_sets(tmcml_session *s, const tmcml_problem *p, const double *optics,
                                   int num_sets, const tmcml_options *opt, tmcml_result **out)
{
    tmcml_status begun = sets_begin(s, p, optics, "optics_sets", num_sets, out);
    if (begun != TMCML_OK)
        return begun;
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    size_t n = (size_t)num_sets * (size_t)p->run.num_layers;
    double *mua = malloc(3 * n * sizeof *mua);
    if (!mua)
        return api_leave(s, api_failf(s, TMCML_ERR_MEMORY, "out of memory"));
    optics_sets_split(optics, num_sets, p->run.num_layers, mua, mua + n, mua + 2 * n);
    call_sets sets = {num_sets, p->run.num_layers, mua, p->run.path_lengths, mua + n, mua + 2 * n};
    tmcml_status status = run_sets(s, p, &sets, opt ? opt : &defaults, out);
    free(mua);
    return api_leave(s, status);
}
