/* tmcml_run: options checked, engine, variant, photons (watched by the
 * caller's progress callback), result (tmcml.h). */
#include "api.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "progress.h"
#include "timed_wait.h"
#include "variant.h"

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

static tmcml_status check_options(tmcml_session *s, const tmcml_problem *p, const tmcml_options *o,
                                  int64_t *photons)
{
    if (o->photons < 0)
        return api_failf(s, TMCML_ERR_ARGUMENT, "photons: expected 1 to 2^63-1 (got %lld)",
                         (long long)o->photons);
    *photons = o->photons ? o->photons : p->run.photons;
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

/* One engine call, on a thread of its own while the caller's thread calls
 * the progress callback. */
typedef struct job {
    session *eng;
    const session_sim *sim;
    const mci_run *run;
    const kernel_spec *specs; /* NULL: the CPU engine */
    uint64_t count;
    tally_set *acc;
    session_run_stats *stats;
    tm_error *err;
    bool ok;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    bool done;
} job;

static void job_run(job *j)
{
    j->ok =
        session_simulate(j->eng, j->sim, j->run, j->specs, 0, j->count, j->acc, j->stats, j->err);
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

/* The host's callback, in the host's locale (the call runs in C's). */
static int host_progress(tmcml_session *s, const tmcml_options *o, uint64_t done, uint64_t total)
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
            if (host_progress(s, o, atomic_load(&meter->done), j->count) != 0)
                s->stop = 1;
        pthread_join(j->thread, NULL);
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->done_cond);
    }
    if (o->progress && j->ok && j->acc->photons == j->count)
        host_progress(s, o, j->count, j->count);
}

/* ---- the run ----------------------------------------------------------------------- */

static char *copy_text(const char *text) { return strdup(text ? text : ""); }

/* The result's record of how the run went. */
static tmcml_status fill_info(tmcml_session *s, tmcml_result *r, const tmcml_options *o,
                              const kernel_spec *specs, const session_run_stats *st)
{
    /* The library runs on one GPU: the session's first. */
    const gpu_engine *gpu = specs ? gpu_pool_engine(s->eng.pool, 0) : NULL;
    const char *source = specs ? s->eng.sources[0] : "";
    const kernel_spec *spec = specs;
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
        .tallies_digest = tally_set_digest(t),
        .comment = r->comment,
    };
    return TMCML_OK;
}

/* The engine and, on the GPU, the variant: *specs NULL for the CPU. */
static tmcml_status choose(tmcml_session *s, const tmcml_options *o, const mci_run *run,
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
    if (!session_engine(&s->eng, engines[o->engine], &o->gpu, 1, &pool, NULL, &err))
        return api_fail(s, TMCML_ERR_NO_GPU, &err);
    if (!pool)
        return TMCML_OK;
    plan_options plan;
    plan_options_of(o, &plan);
    double t0 = progress_now();
    bool ok = session_plan(&s->eng, &plan, run, specs, &err);
    *plan_seconds = progress_now() - t0;
    return ok ? TMCML_OK : api_fail(s, TMCML_ERR_ENGINE, &err);
}

static tmcml_status run_problem(tmcml_session *s, const tmcml_problem *p, const tmcml_options *o,
                                tmcml_result **out)
{
    double start = progress_now();
    int64_t photons = 0;
    tmcml_status status = check_options(s, p, o, &photons);
    if (status != TMCML_OK)
        return status;
    tmcml_result *r = calloc(1, sizeof *r);
    if (!r || !mci_run_copy(&r->problem.run, &p->run) ||
        !tally_set_init(&r->tallies, p->run.nr, p->run.nz, p->run.na)) {
        tmcml_result_delete(r);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    mci_run *run = &r->problem.run;
    run->photons = photons;
    r->has_tallies = true;
    const kernel_spec *specs = NULL;
    double plan_seconds = 0;
    status = choose(s, o, run, &specs, &plan_seconds);
    progress_meter meter;
    progress_start(&meter, false, (uint64_t)photons, NULL);
    session_sim sim = {.seed = o->seed,
                       .score_absorption = o->absorption != 0,
                       .threads = o->threads,
                       .max_steps = o->max_steps,
                       .cache_dir = o->cache_dir,
                       .progress = &meter,
                       .stop = &s->stop};
    session_run_stats st;
    tm_error err = {0};
    job j = {.eng = &s->eng,
             .sim = &sim,
             .run = run,
             .specs = specs,
             .count = (uint64_t)photons,
             .acc = &r->tallies,
             .stats = &st,
             .err = &err};
    if (status == TMCML_OK) {
        job_watch(s, &j, o, &meter);
        if (!j.ok)
            status = api_fail(s, TMCML_ERR_ENGINE, &err);
        else if (r->tallies.photons < (uint64_t)photons)
            status = api_failf(s, TMCML_ERR_CANCELLED, "cancelled after %llu of %lld photons",
                               (unsigned long long)r->tallies.photons, (long long)photons);
    }
    if (status == TMCML_OK && !result_from_tallies(run, &r->tallies, &r->res, &err))
        status = api_fail(s, TMCML_ERR_MEMORY, &err);
    if (status == TMCML_OK)
        status = fill_info(s, r, o, specs, &st);
    if (status != TMCML_OK) {
        tmcml_result_delete(r);
        return status;
    }
    r->info.plan_seconds = plan_seconds;
    r->info.wall_seconds = progress_now() - start;
    r->info.overhead_seconds =
        r->info.wall_seconds - r->info.compile_seconds - r->info.kernel_seconds;
    *out = r;
    return TMCML_OK;
}

tmcml_status tmcml_run(tmcml_session *s, const tmcml_problem *p, const tmcml_options *opt,
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
    tmcml_options defaults;
    tmcml_options_init(&defaults);
    return api_leave(s, run_problem(s, p, opt ? opt : &defaults, out));
}
