/* The CPU engine's work split: threads take chunks of consecutive photon
 * indices from a shared counter and score into private 64-bit batches, which
 * are added into the 128-bit tallies at the end of each round.  Because
 * photon i always uses stream i and integer addition is associative, the
 * result is the same for any thread count and any chunking. */
#include "cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_photon.h"

/* Photons a thread takes at a time: large enough that the shared counter is
 * not contended, small enough to balance the load at the end. */
#define CPU_CHUNK 1024

#define CPU_CACHE_LINE 64

typedef struct cpu_round {
    const cpu_problem *problem;
    uint64_t first, end;   /* photon index range of this round */
    _Atomic uint64_t next; /* next unclaimed index */
    progress_meter *progress;
    const volatile sig_atomic_t *stop; /* may be NULL */
} cpu_round;

/* One cache line or more each (and allocated on a line boundary), so that
 * one thread's writes to its batch's step count never invalidate the line
 * holding another thread's tally pointers, which it reads at every step. */
typedef struct cpu_worker {
    _Alignas(CPU_CACHE_LINE) pthread_t thread;
    cpu_round *round;
    tally_batch batch;
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

static void *worker_main(void *arg)
{
    cpu_worker *w = arg;
    cpu_round *r = w->round;
    for (;;) {
        /* Tested before a chunk is taken, never after: every chunk taken is
         * finished, so the photons done are a prefix of the round. */
        if (r->stop && *r->stop)
            break;
        uint64_t begin = atomic_fetch_add(&r->next, CPU_CHUNK);
        if (begin >= r->end)
            break;
        uint64_t end = r->end - begin < CPU_CHUNK ? r->end : begin + CPU_CHUNK;
        for (uint64_t i = begin; i < end; i++)
            cpu_photon_simulate(r->problem, i, &w->batch);
        progress_add(r->progress, end - begin);
    }
    return NULL;
}

static void free_workers(cpu_worker *workers, int count)
{
    for (int t = 0; t < count; t++)
        tally_batch_free(&workers[t].batch);
    free(workers);
}

static bool start_workers(cpu_worker *workers, int count, cpu_round *round, tm_error *err)
{
    for (int t = 0; t < count; t++) {
        workers[t].round = round;
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

/* One round: at most TALLY_BATCH_MAX_PHOTONS photons, so no 64-bit batch
 * entry can overflow. */
static bool run_round(cpu_worker *workers, int count, cpu_round *round, tally_set *acc,
                      tm_error *err)
{
    for (int t = 0; t < count; t++)
        tally_batch_clear(&workers[t].batch);
    if (!start_workers(workers, count, round, err))
        return false;
    for (int t = 0; t < count; t++)
        if (workers[t].round)
            pthread_join(workers[t].thread, NULL);
    for (int t = 0; t < count; t++)
        tally_set_add_batch(acc, &workers[t].batch, 0);
    uint64_t next = atomic_load(&round->next);
    acc->photons += (next < round->end ? next : round->end) - round->first;
    return true;
}

bool cpu_simulate(const mci_run *run, const cpu_options *opt, uint64_t first, uint64_t count,
                  tally_set *acc, tm_error *err)
{
    cpu_problem problem;
    if (!cpu_problem_init(&problem, run, opt->seed, opt->score_absorption)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (opt->max_steps)
        problem.max_steps = opt->max_steps;
    int threads = cpu_thread_count(opt->threads, count);
    cpu_worker *workers = aligned_alloc(CPU_CACHE_LINE, (size_t)threads * sizeof *workers);
    bool ok = workers != NULL;
    if (ok)
        memset(workers, 0, (size_t)threads * sizeof *workers);
    for (int t = 0; ok && t < threads; t++)
        ok = tally_batch_init(&workers[t].batch, run->nr, run->nz, run->na);
    if (!ok)
        error_set(err, NULL, 0, "out of memory for %d thread tallies", threads);

    uint64_t done = 0;
    while (ok && done < count) {
        uint64_t n =
            count - done < TALLY_BATCH_MAX_PHOTONS ? count - done : TALLY_BATCH_MAX_PHOTONS;
        cpu_round round = {.problem = &problem,
                           .first = first + done,
                           .end = first + done + n,
                           .progress = opt->progress,
                           .stop = opt->stop};
        atomic_store(&round.next, round.first);
        uint64_t before = acc->photons;
        ok = run_round(workers, threads, &round, acc, err);
        if (acc->photons - before < n)
            break; /* stopped */
        done += n;
    }
    if (workers)
        free_workers(workers, threads);
    cpu_problem_free(&problem);
    return ok;
}
