/* The engine side of a session: what stays alive across the runs of one
 * process - the GPUs' engines (contexts, streams, the last kernel module:
 * gpu_pool.h) and the kernel variants chosen for each problem shape - and
 * a run's three steps: the engine, the variants, the photons.
 *
 *     session s;  session_init(&s);
 *     session_engine(&s, SESSION_AUTO, devices, n, &pool, &err);     each run
 *     session_plan(&s, &plan, run, &specs, &err);                     GPU runs
 *     session_simulate(&s, &sim, run, specs, first, count, &tallies, &st, &err);
 *     session_simulate_batch(&s, &sim, &batch, specs, tallies, &st, &err);  a batch
 *     ...
 *     session_close(&s);
 *
 * The library (tmcml.h) and the run command (driver/run.c) are built
 * on it. */
#ifndef TMCML_SESSION_H
#define TMCML_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "error.h"
#include "gpu_pool.h"
#include "mci.h"
#include "plan.h"
#include "progress.h"
#include "spec.h"
#include "tally.h"
#include "session_groups.h"
#include "uncertainty.h"

typedef enum session_engine_choice { SESSION_AUTO, SESSION_CPU, SESSION_GPU } session_engine_choice;

/* Where a GPU run's kernel came from (the CPU engine: SESSION_KERNEL_NONE). */
typedef enum session_kernel {
    SESSION_KERNEL_NONE,
    SESSION_KERNEL_COMPILED, /* NVRTC ran */
    SESSION_KERNEL_CACHED,   /* the cubin cache on disk */
    SESSION_KERNEL_WARM      /* the engine's loaded module */
} session_kernel;

typedef struct session_counts {
    uint64_t runs, gpu_runs, compiles, module_loads, plans;
    uint64_t batches; /* engine calls (session_simulate_batch: one per batch) */
} session_counts;

/* Where each GPU's variant came from ("profile X.json, exact entry ...",
 * "heuristic"), as plan_choose says it. */
typedef char session_source[4096];

typedef struct session {
    gpu_pool *pool; /* NULL until a GPU run opens it */
    int devices[GPU_POOL_MAX], gpu_count;
    /* auto: the GPUs that could not be opened, not tried again */
    bool refused;
    int refused_devices[GPU_POOL_MAX], refused_count;
    tm_error refused_why;
    /* The variants of the last shape planned (session_plan), one per GPU
     * (gpu_count of each, allocated with the pool). */
    char *plan_shape;
    kernel_spec *plan_specs;
    session_source *sources;
    char *kernel; /* spec key of the module the first GPU last used, or NULL */
    session_counts counts;
} session;

void session_init(session *s);
void session_close(session *s);

/* The engine of a run: *pool gets the GPUs' engines (opened at the first
 * GPU run on devices[0..count-1] and kept while they are asked for) or NULL
 * for the CPU engine.  SESSION_AUTO falls back to the CPU when the GPUs
 * cannot be opened (*fell_back, may be NULL, then says why, once);
 * SESSION_GPU fails, saying why. */
bool session_engine(session *s, session_engine_choice choice, const int *devices, int count,
                    gpu_pool **pool, tm_error *fell_back, tm_error *err);

/* The kernel variant of run for each GPU (plan_choose: profile, heuristic,
 * tuning; GPUs of one model share theirs), chosen once per problem shape
 * (layer count, grid, -A) and planner options, and kept while they stay the
 * same: optical properties are kernel data, so a loop over them keeps one
 * variant and one module.  *specs: one per GPU (owned by s); s->sources
 * say where they came from. */
bool session_plan(session *s, const plan_options *opt, const mci_run *run,
                  const kernel_spec **specs, tm_error *err);

/* The photon ranges simulated, as they end: photons [first, first + n) of
 * part `part` of the batch (part 0, session_simulate's run). */
typedef bool (*session_done_fn)(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err);

typedef struct session_sim {
    uint64_t seed;
    bool score_absorption;
    int threads;        /* CPU engine */
    uint32_t max_steps; /* 0: the default */
    const char *cache_dir;
    const char *template_dir;          /* NULL: the embedded templates */
    bool verbose;                      /* GPU compile details on stderr */
    uint64_t launch_photons;           /* GPU: photons per launch (0: the limit) */
    uint64_t gpu_chunk;                /* several GPUs: gpu_pool_job's chunk */
    progress_meter *progress;          /* may be NULL */
    const volatile sig_atomic_t *stop; /* may be NULL: the engines' pause flag */
    /* May be NULL: the photon ranges simulated, as they end (stopped, both
     * engines may leave holes). */
    session_done_fn done;
    void *done_ctx;
    /* May be NULL: on the GPUs, each slot of a batch as soon as its photons
     * have all ended, its tallies then whole in acc[slot] (gpu_pool_job's
     * slot_done: the run command writes that run's outputs while the
     * others simulate); from one of the GPUs' threads, one slot at a
     * time.  The CPU engine never calls it. */
    gpu_pool_slot_done_fn slot_done;
    void *slot_ctx;
    /* Absorption sets (cpu_options): 0, or num_sets sets of set_layers mua
     * each; acc then holds num_sets tally sets a slot.  The CPU engine's
     * only, for now: a GPU call with sets fails, saying so. */
    int num_sets, set_layers;
    const double *set_mua;
    /* Optics sets (cpu_options): each set's mus and g, or NULL. */
    const double *set_mus, *set_g;
    /* May be NULL: standard errors (runtime/io/uncertainty.h), one per
     * tally set of acc (a slot's, or a slot's sets); the photons are then
     * simulated in groups (driver/session_groups.h), the tallies bit for
     * bit the same. */
    uncertainty *uncertainty;
    /* With it, a run that stops at a precision: groups growing from
     * group_chunk photons (0: equal groups, every photon simulated), and
     * enough(enough_ctx, slot, its sets' uncertainties) asked at each
     * decision point (session_groups.h): true ends the slot's run there,
     * its tallies then of the photons of its groups. */
    uint64_t group_chunk;
    groups_enough enough;
    void *enough_ctx;
} session_sim;

typedef struct session_run_stats {
    session_kernel kernel; /* the first GPU's */
    double compile_seconds, kernel_seconds;
    gpu_share shares[GPU_POOL_MAX]; /* what each GPU did (gpu_count of them) */
} session_run_stats;

/* Photons [first, first + count) of run into *acc: on the session's GPUs
 * with the kernels of specs (session_plan), or on the CPU when specs is
 * NULL.  A raised stop flag cuts it short (acc->photons tells how many were
 * done, sim->done which). */
bool session_simulate(session *s, const session_sim *sim, const mci_run *run,
                      const kernel_spec *specs, uint64_t first, uint64_t count, tally_set *acc,
                      session_run_stats *stats, tm_error *err);

/* Every index of batch (runtime/engine/batch.h) into acc[slot] of each
 * part's slot: on the GPUs with the kernels of specs (batch kernels,
 * spec_for_batch, unless the batch has one part), or on the CPU when specs
 * is NULL.  A raised stop flag cuts it short (sim->done says which photons
 * were done). */
bool session_simulate_batch(session *s, const session_sim *sim, const photon_batch *batch,
                            const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                            tm_error *err);

#endif
