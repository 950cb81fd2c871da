#include "gpu_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c_locale.h"
#include "clock.h"

/* Shares are given back and shared out again only in pieces of at least
 * this many photons: about four for each thread resident on an H100 (132
 * SMs x 2048), so that even the last launches fill a GPU. */
#define MIN_PIECE     (UINT64_C(1) << 20)
/* A launch is asked to give back its photons only when it still has more
 * than this many seconds to run: every launch ends with a tail (gpu.c;
 * ~0.6 s on the intralipid slab), and taking photons back costs two. */
#define STEAL_SECONDS 2.0
/* How long an idle GPU's thread waits for photons given back. */
#define WAIT_SECONDS  0.05

struct gpu_pool {
    int count;
    int devices[GPU_POOL_MAX];
    gpu_engine *engines[GPU_POOL_MAX];
};

/* One engine's opening, in a thread of its own: creating a context takes
 * ~0.25 s, and the GPUs' contexts are created at once. */
typedef struct opener {
    int device;
    gpu_engine *eng;
    bool ok;
    tm_error err;
} opener;

/* Threads of the pool work in the C locale (base/c_locale.h): a new
 * thread starts in the process's, which a host program may have set. */
static void *open_one(void *arg)
{
    opener *o = arg;
    locale_t previous = c_locale_enter();
    o->ok = gpu_engine_open(o->device, &o->eng, &o->err);
    c_locale_leave(previous);
    return NULL;
}

bool gpu_pool_open(const int *devices, int count, gpu_pool **out, tm_error *err)
{
    if (count < 1 || count > GPU_POOL_MAX) {
        error_set(err, NULL, 0, "%d GPUs: one process drives 1 to %d", count, GPU_POOL_MAX);
        return false;
    }
    gpu_pool *pool = calloc(1, sizeof *pool);
    opener *open = calloc((size_t)count, sizeof *open);
    pthread_t *threads = calloc((size_t)count, sizeof *threads);
    bool *started = calloc((size_t)count, sizeof *started);
    bool ok = pool && open && threads && started;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int i = 0; ok && i < count; i++) {
        open[i].device = devices[i];
        started[i] = pthread_create(&threads[i], NULL, open_one, &open[i]) == 0;
        if (!started[i])
            open_one(&open[i]);
    }
    for (int i = 0; ok && i < count; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        pool->devices[i] = devices[i];
        pool->engines[i] = open[i].eng; /* closed with the pool on a failure */
        pool->count++;
    }
    for (int i = 0; ok && i < count; i++)
        if (!open[i].ok) {
            *err = open[i].err;
            ok = false;
        }
    free(started);
    free(threads);
    free(open);
    if (!ok) {
        gpu_pool_close(pool);
        return false;
    }
    *out = pool;
    return true;
}

void gpu_pool_close(gpu_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->count; i++)
        gpu_engine_close(pool->engines[i]);
    free(pool);
}

int gpu_pool_size(const gpu_pool *pool) { return pool->count; }

gpu_engine *gpu_pool_engine(const gpu_pool *pool, int i) { return pool->engines[i]; }

int gpu_pool_device(const gpu_pool *pool, int i) { return pool->devices[i]; }

uint64_t gpu_pool_threads(const gpu_pool *pool)
{
    uint64_t threads = 0;
    for (int i = 0; i < pool->count; i++) {
        const cuda_device_info *d = gpu_engine_device(pool->engines[i]);
        threads += (uint64_t)d->sm_count * (uint64_t)d->max_threads_per_sm;
    }
    return threads;
}

uint64_t gpu_pool_chunk(uint64_t left, uint64_t chunk, uint64_t max_chunk)
{
    uint64_t n = chunk < max_chunk ? chunk : max_chunk;
    return n < left ? n : left;
}

/* A range of photons [begin, end). */
typedef struct span {
    uint64_t begin, end;
} span;

typedef struct dispatcher dispatcher;

/* One GPU's thread, and what the dispatcher knows of it. */
typedef struct worker {
    dispatcher *d;
    gpu_engine *eng;
    const kernel_spec *spec;
    gpu_options opt; /* the job's, with yield */
    volatile int yield;
    tally_set *own_tallies; /* several GPUs: each its own, per slot, summed at the end */
    tally_set *tallies;     /* own_tallies, or (one GPU) the caller's */
    gpu_share share;
    bool ok;
    tm_error err;
    span own;        /* its share not yet launched */
    bool busy;       /* a launch is running */
    span launch;     /* its photons */
    uint64_t handed; /* of them, handed out (as last seen) */
    double started;  /* when it was taken */
    bool absent;     /* no thread of its own: its share is the others' */
} worker;

/* What the GPUs' threads share. */
struct dispatcher {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* photons given back, or a failure */
    const gpu_pool_job *job;
    int gpus;
    worker *workers;
    uint64_t max_chunk;
    uint64_t next;            /* fixed chunks: the counter */
    span given[GPU_POOL_MAX]; /* photons given back, for anyone */
    int given_count;
    double steal_seconds; /* STEAL_SECONDS, or the tests' TMCML_TEST_STEAL_SECONDS */
    uint64_t min_piece;   /* MIN_PIECE (the tests: 1024) */
    bool lopsided;        /* the tests: GPU 0's share is an eighth of the others' */
    bool gpu0_started;    /* the tests: GPU 0's first launch seen running or ended */
    bool failed;
    tm_error err; /* the first failure's */
    /* Runs written early (the job's slot_done): each slot's photons not yet
     * ended on every GPU, and where its tallies go once they all have. */
    uint64_t *slot_left;
    uint64_t *slot_launches; /* per slot: the launches that reported its photons */
    tally_set *acc;
};

static uint64_t span_size(span s) { return s.end - s.begin; }

static bool stopped(const dispatcher *d)
{
    return d->failed || (d->job->opt->stop && *d->job->opt->stop);
}

/* Hands w the next launch from its own share (at most max_chunk). */
static void launch_own(dispatcher *d, worker *w, uint64_t *first, uint64_t *count)
{
    *first = w->own.begin;
    *count = gpu_pool_chunk(span_size(w->own), d->max_chunk, d->max_chunk);
    w->own.begin += *count;
    w->busy = true;
    w->launch = (span){*first, *first + *count};
    w->handed = 0;
    w->started = clock_now();
    w->share.chunks++;
}

/* Whether w's share may be split while it has not launched: not in the
 * tests' lopsided shares, where the others wait for GPU 0 (wait_for_gpu0)
 * and GPU 0, quicker than their first look on fast GPUs, would take it
 * all instead of taking photons back from their launches. */
static bool splittable(const dispatcher *d, const worker *w)
{
    return !d->lopsided || w->share.chunks > 0 || w->absent;
}

/* The upper half of the largest share not yet launched, when one is worth
 * splitting: into w's own share. */
static bool split_unlaunched(dispatcher *d, worker *w)
{
    worker *big = NULL;
    for (int i = 0; i < d->gpus; i++)
        if (splittable(d, &d->workers[i]) &&
            (!big || span_size(d->workers[i].own) > span_size(big->own)))
            big = &d->workers[i];
    uint64_t left = big ? span_size(big->own) : 0;
    if (left == 0)
        return false;
    uint64_t half = left >= 2 * d->min_piece ? left / 2 : left;
    w->own = (span){big->own.end - half, big->own.end};
    big->own.end -= half;
    return true;
}

/* Seconds the running launch of v still needs, at its rate so far. */
static double seconds_left(const worker *v, double now)
{
    if (!v->busy || v->handed == 0 || now <= v->started)
        return 0;
    double rate = (double)v->handed / (now - v->started);
    return (double)(span_size(v->launch) - v->handed) / rate;
}

/* Asks the launch with the most time left to give its photons back, when it
 * is worth it (steal_seconds); whether some launch is giving them back, or
 * has run too briefly to tell (its photon counter not seen yet). */
static bool ask_back(dispatcher *d)
{
    double now = clock_now(), most = d->steal_seconds;
    worker *slow = NULL;
    bool unknown = false;
    for (int i = 0; i < d->gpus; i++) {
        worker *v = &d->workers[i];
        if (v->yield && v->busy)
            return true; /* already asked */
        bool big = span_size(v->launch) - v->handed >= 2 * d->min_piece;
        unknown = unknown || (v->busy && v->handed == 0 && big) ||
                  (!splittable(d, v) && span_size(v->own) > 0); /* yet to launch */
        double t = seconds_left(v, now);
        if (t > most && big) {
            most = t;
            slow = v;
        }
    }
    if (slow)
        slow->yield = 1;
    return slow != NULL || unknown;
}

static void wait_a_little(dispatcher *d)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(WAIT_SECONDS * 1e9);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&d->changed, &d->lock, &until);
}

/* The tests' lopsided shares (several engines often on one GPU): the other
 * engines launch once GPU 0's launch is seen running, so that it holds the
 * SMs first and finishes first.  Launched together, a launch that fills the
 * SMs (one block of 1024 threads per SM) could run wholly before GPU 0's,
 * leaving nothing to give back. */
static void wait_for_gpu0(dispatcher *d, const worker *w)
{
    if (!d->lopsided || w == &d->workers[0] || w->share.chunks > 0)
        return;
    while (!stopped(d) && !d->gpu0_started)
        wait_a_little(d);
}

/* Shares: w's own photons first, then photons given back, then the upper
 * half of a share not yet launched, then (waiting) a running launch's
 * photons given back; none left when no launch would gain by it. */
static bool take_shared(dispatcher *d, worker *w, uint64_t *first, uint64_t *count)
{
    wait_for_gpu0(d, w);
    for (;;) {
        if (stopped(d))
            return false;
        if (span_size(w->own) == 0 && d->given_count > 0)
            w->own = d->given[--d->given_count];
        if (span_size(w->own) > 0 || split_unlaunched(d, w)) {
            launch_own(d, w, first, count);
            return true;
        }
        if (!ask_back(d))
            return false;
        wait_a_little(d);
    }
}

static bool take_fixed(dispatcher *d, worker *w, uint64_t *first, uint64_t *count)
{
    uint64_t end = d->job->first + d->job->count;
    if (stopped(d) || d->next >= end)
        return false;
    *first = d->next;
    *count = gpu_pool_chunk(end - d->next, d->job->chunk, d->max_chunk);
    d->next += *count;
    w->share.chunks++;
    return true;
}

static bool take(void *ctx, uint64_t *first, uint64_t *count)
{
    worker *w = ctx;
    dispatcher *d = w->d;
    pthread_mutex_lock(&d->lock);
    w->busy = false;
    bool taken = d->job->chunk ? take_fixed(d, w, first, count) : take_shared(d, w, first, count);
    pthread_mutex_unlock(&d->lock);
    return taken;
}

/* A launch that gave photons back: the lower half of what it did not
 * simulate stays its own, the upper half is for anyone. */
static void give_back(dispatcher *d, worker *w, uint64_t from)
{
    span rest = {from, w->launch.end};
    w->yield = 0;
    if (span_size(rest) == 0)
        return;
    uint64_t half = d->given_count < GPU_POOL_MAX ? span_size(rest) / 2 : 0;
    w->own = (span){rest.begin, rest.end - half};
    if (half > 0)
        d->given[d->given_count++] = (span){rest.end - half, rest.end};
}

static bool done(void *ctx, uint64_t first, uint64_t n, tm_error *err)
{
    worker *w = ctx;
    dispatcher *d = w->d;
    pthread_mutex_lock(&d->lock);
    w->share.photons += n;
    w->busy = false;
    if (w == &d->workers[0])
        d->gpu0_started = true;
    bool ok = !d->job->done || d->job->done(d->job->done_ctx, first, n, err);
    if (!d->job->chunk && w->yield)
        give_back(d, w, first + n);
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
    return ok;
}

static void running(void *ctx, uint64_t handed)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->d->lock);
    w->handed = handed;
    if (w == &w->d->workers[0] && handed > 0)
        w->d->gpu0_started = true;
    pthread_mutex_unlock(&w->d->lock);
}

/* w's tally set s added to acc[s] and freed (a freed one adds nothing:
 * a slot summed early is skipped at the end). */
static void own_slot_sum(worker *w, int s, tally_set *acc)
{
    if (!w->own_tallies)
        return;
    /* A GPU's time and detector tallies (gpu.c's timed_prepare gave them to
     * its own sets) into acc too.  Out of memory for them leaves acc without
     * them (the result then has no such arrays), never wrong. */
    if (w->own_tallies[s].a_rz) {
        (void)tally_set_add_options_of(&acc[s], &w->own_tallies[s]);
        tally_set_add(&acc[s], &w->own_tallies[s]);
    }
    tally_set_free(&w->own_tallies[s]);
}

/* A GPU's n photons of slot s have ended and are in its tallies (its own,
 * or the caller's for one GPU: gpu.h, slot_ended).  Once none of the slot's
 * is left on any GPU, no GPU adds to its tallies again: they are summed
 * into the caller's, and the caller told (the job's slot_done), under the
 * lock, one slot at a time. */
static bool slot_ended(void *ctx, int s, uint64_t n, tm_error *err)
{
    worker *w = ctx;
    dispatcher *d = w->d;
    pthread_mutex_lock(&d->lock);
    d->slot_left[s] -= n < d->slot_left[s] ? n : d->slot_left[s];
    d->slot_launches[s]++;
    bool ok = true;
    if (d->slot_left[s] == 0) {
        for (int i = 0; i < d->gpus; i++)
            own_slot_sum(&d->workers[i], s, d->acc);
        ok = d->job->slot_done(d->job->slot_ctx, s, d->slot_launches[s], err);
    }
    pthread_mutex_unlock(&d->lock);
    return ok;
}

/* The first failure stops the other GPUs taking photons. */
static void fail(dispatcher *d, const tm_error *err)
{
    pthread_mutex_lock(&d->lock);
    if (!d->failed)
        d->err = *err;
    d->failed = true;
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
}

static void *work(void *arg)
{
    worker *w = arg;
    photon_feed feed = {.take = take, .done = done, .running = running, .ctx = w};
    gpu_stats stats;
    locale_t previous = c_locale_enter();
    w->ok = gpu_simulate_feed(w->eng, w->d->job->batch, w->spec, &w->opt, &feed, w->tallies, &stats,
                              &w->err);
    c_locale_leave(previous);
    /* The preparation's compile figures, the simulation's launch figures. */
    w->share.stats.kernel_seconds = stats.kernel_seconds;
    w->share.stats.launches = stats.launches;
    w->share.stats.grid = stats.grid;
    w->share.stats.block = stats.block;
    w->share.stats.blocks_per_sm = stats.blocks_per_sm;
    w->share.stats.tiles = stats.tiles;
    if (!w->ok)
        fail(w->d, &w->err);
    return NULL;
}

/* Every GPU's module, one after the other (gpu_prepare says why). */
static bool prepare_all(gpu_pool *pool, const gpu_pool_job *job, worker *workers, tm_error *err)
{
    for (int i = 0; i < pool->count; i++)
        if (!gpu_prepare(pool->engines[i], &job->specs[i], job->opt, &workers[i].share.stats, err))
            return false;
    return true;
}

/* Where GPU i's share begins: equal shares, or (the tests) GPU 0's an
 * eighth of each other GPU's, so that it finishes first and takes photons
 * back from a running launch. */
static uint64_t share_begin(const dispatcher *d, int i)
{
    const gpu_pool_job *job = d->job;
    uint64_t parts = (uint64_t)d->gpus, before = (uint64_t)i;
    if (d->lopsided && d->gpus > 1) {
        parts = 8 * parts - 7;
        before = i == 0 ? 0 : 8 * before - 7;
    }
    /* count / parts * before, without overflow for any count */
    return job->first + job->count / parts * before + job->count % parts * before / parts;
}

/* The tally sets of a batch: one a slot, or with absorption sets one a
 * set of each slot (gpu_options). */
static int tally_sets(const photon_batch *b, const gpu_options *opt)
{
    return b->slots * (opt->num_sets > 0 ? opt->num_sets : 1);
}

/* Several GPUs: a GPU's own tallies, as the caller's (with the path and
 * derivative tallies when its kernel scores them). */
static bool own_tallies_init(worker *w, const photon_batch *b)
{
    const mci_run *run = b->parts[0].run;
    int n = tally_sets(b, &w->opt);
    w->own_tallies = calloc((size_t)n, sizeof *w->own_tallies);
    output_grid options = gpu_spec_options(w->spec, run);
    bool more = options.num_layers > 0 || options.jacobian_layers > 0 || options.set_weights > 0;
    for (int s = 0; w->own_tallies && s < n; s++)
        if (!tally_set_init(&w->own_tallies[s], run->nr, run->nz, run->na) ||
            (more && !tally_set_add_options(&w->own_tallies[s], &options)))
            return false;
    w->tallies = w->own_tallies;
    return w->own_tallies != NULL;
}

/* Adds w's own tallies to acc and frees them. */
static void own_tallies_sum(worker *w, const photon_batch *b, tally_set *acc)
{
    if (!w->own_tallies)
        return;
    for (int s = 0; s < tally_sets(b, &w->opt); s++)
        own_slot_sum(w, s, acc);
    free(w->own_tallies);
    w->own_tallies = NULL;
}

/* A caller who writes runs as they end (the job's slot_done): each slot's
 * photons, counted down as the GPUs' launches end them.  Only for a job of
 * the whole batch (a slot's photons in it are all its photons, as
 * slot_done promises) with one tally set a slot (absorption sets are not
 * written early). */
static bool early_slots_init(dispatcher *d, tally_set *acc, tm_error *err)
{
    const gpu_pool_job *job = d->job;
    bool whole = job->first == 0 && job->count == photon_batch_size(job->batch);
    if (!job->slot_done || !whole || tally_sets(job->batch, job->opt) != job->batch->slots)
        return true;
    d->slot_left = calloc((size_t)job->batch->slots, sizeof *d->slot_left);
    d->slot_launches = calloc((size_t)job->batch->slots, sizeof *d->slot_launches);
    if (!d->slot_left || !d->slot_launches) {
        free(d->slot_left);
        free(d->slot_launches);
        d->slot_left = d->slot_launches = NULL;
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    photon_batch_slot_photons(job->batch, job->first, job->count, d->slot_left);
    d->acc = acc;
    return true;
}

/* Each GPU's thread state, with its share of the photons (or none: fixed
 * chunks come from the counter).  One GPU adds to acc itself. */
static bool workers_init(gpu_pool *pool, dispatcher *d, tally_set *acc, tm_error *err)
{
    const gpu_pool_job *job = d->job;
    for (int i = 0; i < pool->count; i++) {
        worker *w = &d->workers[i];
        w->d = d;
        w->eng = pool->engines[i];
        w->spec = &job->specs[i];
        w->opt = *job->opt;
        w->opt.yield = &w->yield;
        w->opt.slot_ended = d->slot_left ? slot_ended : NULL;
        w->opt.slot_ctx = w;
        if (!job->chunk)
            w->own = (span){share_begin(d, i),
                            i + 1 < pool->count ? share_begin(d, i + 1) : job->first + job->count};
        w->tallies = pool->count == 1 ? acc : NULL;
        if (pool->count > 1 && !own_tallies_init(w, job->batch)) {
            error_set(err, NULL, 0, "out of memory");
            return false;
        }
    }
    return true;
}

/* Runs a thread per GPU (one GPU: the caller's); false (with *err) when
 * none could start. */
static bool run_workers(gpu_pool *pool, worker *workers, tm_error *err)
{
    if (pool->count == 1) {
        work(&workers[0]);
        return true;
    }
    pthread_t threads[GPU_POOL_MAX];
    int started = 0;
    for (; started < pool->count; started++)
        if (pthread_create(&threads[started], NULL, work, &workers[started]) != 0)
            break;
    if (started == 0) {
        error_set(err, NULL, 0, "cannot start a thread for the GPUs");
        return false;
    }
    /* A GPU without a thread of its own leaves its share to the others
     * (split_unlaunched). */
    dispatcher *d = workers[0].d;
    pthread_mutex_lock(&d->lock);
    for (int i = started; i < pool->count; i++)
        workers[i].absent = true;
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return true;
}

bool gpu_pool_simulate(gpu_pool *pool, const gpu_pool_job *job, tally_set *acc, gpu_share *shares,
                       tm_error *err)
{
    dispatcher d = {.job = job,
                    .gpus = pool->count,
                    .next = job->first,
                    .max_chunk = gpu_launch_photons(job->opt, &job->specs[0])};
    /* Tests make GPUs take photons back often, to check the result does
     * not change. */
    const char *steal = getenv("TMCML_TEST_STEAL_SECONDS");
    d.steal_seconds = steal ? atof(steal) : STEAL_SECONDS;
    d.min_piece = steal ? 1024 : MIN_PIECE;
    d.lopsided = steal != NULL;
    d.workers = calloc((size_t)pool->count, sizeof *d.workers);
    if (!d.workers) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.changed, NULL);
    bool ok = gpu_acc_add_options(job->batch, &job->specs[0], job->opt, acc, err) &&
              early_slots_init(&d, acc, err) && workers_init(pool, &d, acc, err) &&
              prepare_all(pool, job, d.workers, err) && run_workers(pool, d.workers, err);
    if (ok && d.failed) {
        *err = d.err;
        ok = false;
    }
    /* Even after a failure each GPU's tallies are exactly the ranges its
     * done calls reported, so they are kept with them. */
    for (int i = 0; i < pool->count; i++) {
        own_tallies_sum(&d.workers[i], job->batch, acc);
        if (shares)
            shares[i] = d.workers[i].share;
    }
    pthread_cond_destroy(&d.changed);
    pthread_mutex_destroy(&d.lock);
    free(d.slot_left);
    free(d.slot_launches);
    free(d.workers);
    return ok;
}
