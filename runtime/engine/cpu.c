/* The CPU engine's work split: threads take chunks of consecutive indices of
 * a batch (runtime/engine/batch.h; one run is a batch of one part) from a
 * shared counter and score into private 64-bit tallies, which are added into
 * the 128-bit tallies of the chunk's run when a thread moves to another run
 * and at the end of each round.  Because photon i of a run always uses
 * stream i and integer addition is associative, the result is the same for
 * any thread count, chunking and batch.  A stop is obeyed between two
 * photons, not at the end of a chunk (a chunk of long photons took minutes:
 * a batch system's kill came first), so a stopped round leaves a hole in
 * each chunk it cut short, and says which ranges it did. */
#include "cpu.h"

#include <float.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_photon.h"
#include "cpu_problem_setup.h"
#include "run_options.h"

/* Photons a thread takes at a time: large enough that the shared counter is
 * not contended, small enough to balance the load at the end. */
#define CPU_CHUNK 1024

#define CPU_CACHE_LINE 64

typedef struct cpu_round {
    const photon_batch *batch;
    const cpu_problem *problems; /* one per slot */
    uint64_t first, end;         /* batch index range of this round */
    _Atomic uint64_t next;       /* next unclaimed index */
    progress_meter *progress;
    const volatile sig_atomic_t *stop; /* may be NULL */
    tally_set *acc;                    /* per slot, or per slot and set */
    int slot_sets;                     /* tally sets a slot: 1, or the absorption sets */
    pthread_mutex_t *acc_lock;         /* threads add into acc under it */
    bool (*done)(void *ctx, uint64_t first, uint64_t n, tm_error *err); /* may be NULL */
    void *done_ctx;
} cpu_round;

/* Batch indices [begin, end) a stop left undone. */
typedef struct photon_range_hole {
    uint64_t begin, end;
} photon_range_hole;

/* One cache line or more each (and allocated on a line boundary), so that
 * one thread's writes to its batch's step count never invalidate the line
 * holding another thread's tally pointers, which it reads at every step. */
typedef struct cpu_worker {
    _Alignas(CPU_CACHE_LINE) pthread_t thread;
    cpu_round *round;
    tally_batch batch;
    /* With absorption sets, or path lengths (one set of the run's own mua),
     * theirs: the runs whose problem has sets score there, the others into
     * batch. */
    tally_batch *sets;
    int slot;     /* the slot whose photons batch or sets hold (-1: none) */
    bool in_sets; /* they are in sets */
    /* The indices of the chunk a stop cut short that it left undone
     * (hole_begin == hole_end: none). */
    uint64_t hole_begin, hole_end;
} cpu_worker;

int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int cpu_thread_count(int threads, uint64_t count)
{
    if (threads < 1)
        threads = 1;
    if ((uint64_t)threads > count / CPU_CHUNK + 1)
        threads = (int)(count / CPU_CHUNK + 1);
    return threads;
}

/* The worker's tallies into its slot's (photons are counted per round). */
static void flush_worker(cpu_worker *w)
{
    if (w->slot < 0)
        return;
    cpu_round *r = w->round;
    pthread_mutex_lock(r->acc_lock);
    if (w->in_sets) {
        for (int k = 0; k < r->slot_sets; k++) {
            tally_set_add_batch(&r->acc[w->slot * r->slot_sets + k], &w->sets[k], 0);
            tally_batch_clear(&w->sets[k]);
        }
    } else {
        tally_set_add_batch(&r->acc[w->slot], &w->batch, 0);
        tally_batch_clear(&w->batch);
    }
    pthread_mutex_unlock(r->acc_lock);
    w->slot = -1;
}

static bool stopped(const cpu_round *r) { return r->stop && *r->stop; }

/* Batch indices [begin, end), part by part, until a stop: the index it
 * stopped at (end when it did them all). */
static uint64_t simulate_chunk(cpu_worker *w, uint64_t begin, uint64_t end)
{
    const cpu_round *r = w->round;
    const photon_batch *b = r->batch;
    for (int k = photon_batch_part_at(b, begin); begin < end; k++) {
        const batch_part *part = &b->parts[k];
        uint64_t stop = b->offsets[k + 1] < end ? b->offsets[k + 1] : end;
        const cpu_problem *problem = &r->problems[part->slot];
        if (part->slot != w->slot) {
            flush_worker(w);
            w->slot = part->slot;
            w->in_sets = problem->num_sets > 0;
        }
        uint64_t first = part->first - b->offsets[k];
        for (uint64_t i = begin; i < stop; i++) {
            if (stopped(r))
                return i;
            if (w->in_sets)
                cpu_photon_simulate_sets(problem, first + i, w->sets);
            else
                cpu_photon_simulate(problem, first + i, &w->batch);
        }
        begin = stop;
    }
    return end;
}

static void *worker_main(void *arg)
{
    cpu_worker *w = arg;
    cpu_round *r = w->round;
    w->hole_begin = w->hole_end = 0;
    while (!stopped(r)) {
        uint64_t begin = atomic_fetch_add(&r->next, CPU_CHUNK);
        if (begin >= r->end)
            break;
        uint64_t end = r->end - begin < CPU_CHUNK ? r->end : begin + CPU_CHUNK;
        uint64_t done = simulate_chunk(w, begin, end);
        progress_add(r->progress, done - begin);
        if (done < end) {
            w->hole_begin = done;
            w->hole_end = end;
            break;
        }
    }
    flush_worker(w);
    return NULL;
}

static void free_sets(tally_batch *sets, int count)
{
    for (int k = 0; sets && k < count; k++)
        tally_batch_free(&sets[k]);
    free(sets);
}

static void free_workers(cpu_worker *workers, int count, int num_sets)
{
    for (int t = 0; t < count; t++) {
        tally_batch_free(&workers[t].batch);
        free_sets(workers[t].sets, num_sets);
    }
    free(workers);
}

static bool start_workers(cpu_worker *workers, int count, cpu_round *round, tm_error *err)
{
    for (int t = 0; t < count; t++) {
        workers[t].round = round;
        workers[t].slot = -1;
        if (pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]) != 0) {
            /* Run what could not be started in the threads that did start. */
            if (t == 0) {
                error_set(err, NULL, 0, "cannot start a CPU thread");
                return false;
            }
            for (int u = t; u < count; u++)
                workers[u].round = NULL;
            return true;
        }
    }
    return true;
}

/* The chunks a stop cut short, as holes sorted by their start, into holes;
 * their count. */
static int round_holes(const cpu_worker *workers, int count, photon_range_hole *holes)
{
    int n = 0;
    for (int t = 0; t < count; t++) {
        const cpu_worker *w = &workers[t];
        if (!w->round || w->hole_begin == w->hole_end)
            continue;
        int at = n++;
        for (; at > 0 && holes[at - 1].begin > w->hole_begin; at--)
            holes[at] = holes[at - 1];
        holes[at] = (photon_range_hole){w->hole_begin, w->hole_end};
    }
    return n;
}

/* Batch indices [first, first + n) done: counted to their slots' tallies,
 * and told to the caller. */
static bool round_range_done(const cpu_round *round, uint64_t first, uint64_t n, uint64_t *photons,
                             tm_error *err)
{
    if (n == 0)
        return true;
    photon_batch_slot_photons(round->batch, first, n, photons);
    return !round->done || round->done(round->done_ctx, first, n, err);
}

/* One round: at most TALLY_BATCH_MAX_PHOTONS photons, so no 64-bit batch
 * entry can overflow.  Stopped, it did [first, next) but for the holes of
 * the chunks the stop cut short; *done counts what it did. */
static bool run_round(cpu_worker *workers, int count, cpu_round *round, uint64_t *done,
                      tm_error *err)
{
    if (!start_workers(workers, count, round, err))
        return false;
    for (int t = 0; t < count; t++)
        if (workers[t].round)
            pthread_join(workers[t].thread, NULL);
    uint64_t next = atomic_load(&round->next), end = next < round->end ? next : round->end;
    uint64_t *photons = calloc((size_t)round->batch->slots, sizeof *photons);
    photon_range_hole *holes = malloc((size_t)count * sizeof *holes);
    bool ok = photons && holes;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    int n = ok ? round_holes(workers, count, holes) : 0;
    uint64_t at = round->first;
    *done = 0;
    for (int h = 0; ok && h <= n; h++) {
        uint64_t stop = h < n ? holes[h].begin : end;
        ok = round_range_done(round, at, stop - at, photons, err);
        *done += stop - at;
        at = h < n ? holes[h].end : end;
    }
    for (int s = 0; ok && s < round->batch->slots; s++)
        for (int k = 0; k < round->slot_sets; k++)
            round->acc[s * round->slot_sets + k].photons += photons[s];
    free(photons);
    free(holes);
    return ok;
}

/* A run with path lengths and no sets: the sets' step loop, which tracks
 * the path, with one set of the run's own mua (its factor is exactly 1, so
 * its tallies are the plain loop's: tests/test_paths.c). */
static bool problem_init_own_set(cpu_problem *p, const mci_run *run, const cpu_options *opt)
{
    double *mua = malloc((size_t)run->num_layers * sizeof *mua);
    if (!mua)
        return false;
    for (int i = 1; i <= run->num_layers; i++)
        mua[i - 1] = run->layers[i].mua;
    bool ok = cpu_problem_init_sets(p, run, opt->seed, opt->score_absorption, 1, mua);
    free(mua);
    return ok;
}

/* One problem per slot (the run of its parts). */
static cpu_problem *problems_init(const photon_batch *b, const cpu_options *opt)
{
    cpu_problem *problems = calloc((size_t)b->slots, sizeof *problems);
    for (int s = 0; problems && s < b->slots; s++) {
        const mci_run *run = photon_batch_slot_run(b, s);
        if (!run)
            continue; /* a slot no part of this batch scores into */
        bool ok = opt->num_sets > 0
                      ? cpu_problem_init_sets(&problems[s], run, opt->seed, opt->score_absorption,
                                              opt->num_sets, opt->set_mua)
                  : run->path_lengths || run->jacobian || run_options_tracks_time(run) ||
                          run->fx_count > 0 || run->mod_count > 0 || run->xy_nx > 0
                      ? problem_init_own_set(&problems[s], run, opt)
                      : cpu_problem_init(&problems[s], run, opt->seed, opt->score_absorption);
        if (ok && opt->num_sets > 0 && (opt->set_mus || opt->set_g))
            ok = cpu_problem_set_scattering(&problems[s], opt->set_mus, opt->set_g);
        if (ok) {
            problems[s].paths = run->path_lengths;
            cpu_problem_set_options(&problems[s], run);
        }
        if (!ok) {
            for (int t = 0; t < s; t++)
                cpu_problem_free(&problems[t]);
            free(problems);
            return NULL;
        }
        if (opt->max_steps)
            problems[s].max_steps = opt->max_steps;
    }
    return problems;
}

static void problems_free(cpu_problem *problems, int count)
{
    for (int s = 0; problems && s < count; s++)
        if (problems[s].layers)
            cpu_problem_free(&problems[s]);
    free(problems);
}

/* num_sets batches on grid's grid, with the optional tallies of extra
 * (path tallies of extra->num_layers layers, time tallies of extra->nt
 * bins, detector tallies of extra->detectors; 0 for none), or NULL when out
 * of memory. */
static tally_batch *sets_init(const mci_run *grid, int num_sets, const output_grid *extra)
{
    tally_batch *sets = calloc((size_t)num_sets, sizeof *sets);
    for (int k = 0; sets && k < num_sets; k++) {
        bool ok = tally_batch_init(&sets[k], grid->nr, grid->nz, grid->na);
        if (ok && !tally_batch_add_options(&sets[k], extra)) {
            tally_batch_free(&sets[k]);
            ok = false;
        }
        if (!ok) {
            free_sets(sets, k);
            return NULL;
        }
    }
    return sets;
}

static cpu_worker *workers_init(const mci_run *grid, int threads, int num_sets,
                                const output_grid *extra, tm_error *err)
{
    cpu_worker *workers = aligned_alloc(CPU_CACHE_LINE, (size_t)threads * sizeof *workers);
    bool ok = workers != NULL;
    if (ok)
        memset(workers, 0, (size_t)threads * sizeof *workers);
    for (int t = 0; ok && t < threads; t++) {
        ok = tally_batch_init(&workers[t].batch, grid->nr, grid->nz, grid->na);
        if (ok && num_sets > 0)
            ok = (workers[t].sets = sets_init(grid, num_sets, extra)) != NULL;
    }
    if (!ok) {
        if (workers)
            free_workers(workers, threads, num_sets);
        error_set(err, NULL, 0, "out of memory for %d thread tallies", threads);
        return NULL;
    }
    return workers;
}

/* Absorption sets the engine can take: a count in range, every run with the
 * table's layer count, every mua finite and >= 0 (the library and the
 * command line check what users give; this guards the engine's own
 * callers). */
static bool sets_check(const photon_batch *batch, const cpu_options *opt, tm_error *err)
{
    if (opt->num_sets == 0)
        return true;
    if (opt->num_sets < 0 || opt->num_sets > TM_MAX_ABSORPTION_SETS || !opt->set_mua) {
        error_set(err, NULL, 0, "%d absorption sets: 1 to %d are possible", opt->num_sets,
                  TM_MAX_ABSORPTION_SETS);
        return false;
    }
    for (int s = 0; s < batch->slots; s++) {
        const mci_run *run = photon_batch_slot_run(batch, s);
        if (run && run->num_layers != opt->set_layers) {
            error_set(err, NULL, 0, "absorption sets of %d layers for a run of %d layers",
                      opt->set_layers, run->num_layers);
            return false;
        }
    }
    for (size_t j = 0; j < (size_t)opt->num_sets * (size_t)opt->set_layers; j++) {
        const char *bad = !(opt->set_mua[j] >= 0.0 && opt->set_mua[j] <= DBL_MAX) ? "mua"
                          : opt->set_mus && !(opt->set_mus[j] >= 0.0 && opt->set_mus[j] <= DBL_MAX)
                              ? "mus"
                          : opt->set_g && !(opt->set_g[j] >= -1.0 && opt->set_g[j] <= 1.0) ? "g"
                                                                                           : NULL;
        if (bad) {
            error_set(err, NULL, 0,
                      "absorption set %zu, layer %zu: %s is not finite and in range (mua, mus "
                      ">= 0; |g| <= 1)",
                      j / (size_t)opt->set_layers + 1, j % (size_t)opt->set_layers + 1, bad);
            return false;
        }
    }
    return true;
}

/* A batch's count of a group's values (*have, 0 until a run has some)
 * and a run's (count): false, with *err, for a count beyond most or one
 * that differs from the batch's, whose workers' tallies have one length. */
static bool same_count(int *have, int count, int most, const char *what, tm_error *err)
{
    if (count > most || (count > 0 && *have > 0 && *have != count)) {
        error_set(err, NULL, 0,
                  "runs of one batch with %d and %d %s (at most %d): simulate them apart (or "
                  "with one count)",
                  *have, count, what, most);
        return false;
    }
    if (count > 0)
        *have = count;
    return true;
}

/* A run's time, detector, derivative, spatial-frequency, modulation and
 * Cartesian tallies into its tally sets (those they have not yet), their
 * dimensions into *extra; false, with *err, for a batch whose runs differ
 * in time bins, in the layers of their derivatives, in their count of
 * spatial or modulation frequencies or of the grid's cells, or out of
 * memory. */
static bool options_prepare(const mci_run *run, int slot_sets, tally_set *acc, output_grid *extra,
                            tm_error *err)
{
    if (run->time_nt > 0 && extra->nt > 0 && extra->nt != run->time_nt) {
        error_set(err, NULL, 0,
                  "runs of one batch with %d and %d time bins: simulate them apart (or with one "
                  "bin count)",
                  extra->nt, run->time_nt);
        return false;
    }
    if (run->time_nt > 0)
        extra->nt = run->time_nt;
    if (!same_count(&extra->frequencies, run->fx_count, TM_MAX_SPATIAL_FREQUENCIES,
                    "spatial frequencies", err) ||
        !same_count(&extra->modulations, run->mod_count, TM_MAX_MODULATIONS,
                    "modulation frequencies", err) ||
        !same_count(&extra->xy, run->xy_nx, TM_MAX_XY_CELLS, "cells along x of the Cartesian grid",
                    err))
        return false;
    /* The workers' detector tallies hold the most a run of the batch has:
     * a run of fewer scores the first of them (their leading axis), which
     * its own tally sets take (tally_set_add_batch adds theirs). */
    if (run->fiber_count > extra->detectors)
        extra->detectors = run->fiber_count;
    if (run->jacobian) {
        if (run->num_layers > TM_MAX_PATH_LAYERS ||
            (extra->jacobian_layers > 0 && extra->jacobian_layers != run->num_layers)) {
            error_set(err, NULL, 0,
                      "derivatives of %d layers in a batch of %d-layer runs, or more than %d "
                      "layers: simulate them apart",
                      run->num_layers, extra->jacobian_layers, TM_MAX_PATH_LAYERS);
            return false;
        }
        extra->jacobian_layers = run->num_layers;
    }
    /* An optics set's weight sums: its tally sets have them (the sets'
     * runs ask, not the run the engine simulates). */
    for (int k = 0; k < slot_sets; k++)
        if (acc[k].set_weights > 0)
            extra->set_weights = acc[k].set_weights;
    output_grid timed = run_options_lengths(run);
    timed.num_layers = 0; /* the path tallies: paths_prepare */
    for (int k = 0; k < slot_sets; k++)
        if (!tally_set_add_options(&acc[k], &timed)) {
            error_set(err, NULL, 0,
                      "out of memory for the time, detector, derivative, frequency or Cartesian "
                      "grid's tallies");
            return false;
        }
    return true;
}

/* The optional tallies of a batch: the layers of the path tallies (its runs
 * with path lengths share a layer count), the time bins and detectors, 0
 * for none, in *extra; each run's tally sets get those it asks for
 * (tally_set_add_options) if they have none yet.  False, with
 * *err, for too many layers or out of memory. */
static bool paths_prepare(const photon_batch *batch, const cpu_options *opt, tally_set *acc,
                          output_grid *extra, tm_error *err)
{
    int slot_sets = opt->num_sets > 0 ? opt->num_sets : 1;
    *extra = (output_grid){0};
    for (int s = 0; s < batch->slots; s++) {
        const mci_run *run = photon_batch_slot_run(batch, s);
        if (run && !options_prepare(run, slot_sets, &acc[s * slot_sets], extra, err))
            return false;
        if (!run || !run->path_lengths)
            continue;
        if (run->num_layers > TM_MAX_PATH_LAYERS) {
            error_set(err, NULL, 0, "path lengths of %d layers: at most %d are possible",
                      run->num_layers, TM_MAX_PATH_LAYERS);
            return false;
        }
        extra->num_layers = run->num_layers;
        for (int k = 0; k < slot_sets; k++)
            if (!tally_set_add_options(&acc[s * slot_sets + k],
                                       &(output_grid){.num_layers = run->num_layers})) {
                error_set(err, NULL, 0, "out of memory for the path tallies");
                return false;
            }
    }
    return true;
}

bool cpu_simulate_batch(const photon_batch *batch, const cpu_options *opt, tally_set *acc,
                        tm_error *err)
{
    uint64_t count = photon_batch_size(batch);
    output_grid extra = {0};
    if (!sets_check(batch, opt, err) || !paths_prepare(batch, opt, acc, &extra, err))
        return false;
    int path_layers = extra.num_layers;
    cpu_problem *problems = problems_init(batch, opt);
    if (!problems) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    int threads = cpu_thread_count(opt->threads, count);
    /* Path lengths, derivatives, time bins, a detector, spatial or
     * modulation frequencies or the Cartesian grid without sets score as
     * one set (problem_init_own_set). */
    bool own_set = path_layers > 0 || extra.jacobian_layers > 0 || extra.nt > 0 ||
                   extra.detectors > 0 || extra.frequencies > 0 || extra.modulations > 0 ||
                   extra.xy > 0;
    for (int s = 0; s < batch->slots; s++)
        problems[s].set_weights = extra.set_weights > 0 && problems[s].layers;
    int worker_sets = opt->num_sets > 0 ? opt->num_sets : own_set ? 1 : 0;
    cpu_worker *workers = workers_init(batch->parts[0].run, threads, worker_sets, &extra, err);
    bool ok = workers != NULL;
    pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
    uint64_t done = 0;
    /* Path and derivative tallies add weight x cm (or x count): smaller
     * rounds keep 64 bits enough. */
    uint64_t round_max = path_layers > 0 || extra.jacobian_layers > 0 ? TALLY_PATH_BATCH_MAX_PHOTONS
                                                                      : TALLY_BATCH_MAX_PHOTONS;
    while (ok && done < count) {
        uint64_t n = count - done < round_max ? count - done : round_max;
        cpu_round round = {.batch = batch,
                           .problems = problems,
                           .first = done,
                           .end = done + n,
                           .progress = opt->progress,
                           .stop = opt->stop,
                           .acc = acc,
                           .slot_sets = opt->num_sets > 0 ? opt->num_sets : 1,
                           .acc_lock = &acc_lock,
                           .done = opt->done,
                           .done_ctx = opt->done_ctx};
        atomic_store(&round.next, round.first);
        uint64_t did = 0;
        ok = run_round(workers, threads, &round, &did, err);
        if (did < n)
            break; /* stopped */
        done += n;
    }
    if (workers)
        free_workers(workers, threads, worker_sets);
    problems_free(problems, batch->slots);
    return ok;
}

bool cpu_simulate(const mci_run *run, const cpu_options *opt, uint64_t first, uint64_t count,
                  tally_set *acc, tm_error *err)
{
    if (count == 0)
        return true;
    photon_batch batch;
    if (!photon_batch_single(&batch, run, first, count, err))
        return false;
    bool ok = cpu_simulate_batch(&batch, opt, acc, err);
    photon_batch_free(&batch);
    return ok;
}
