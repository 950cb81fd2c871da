/* The engine side of a session: what stays alive across the runs of one
 * process - the GPU engine (context, streams, the last kernel module) and
 * the kernel variant chosen for each problem shape - and a run's three
 * steps: the engine, the variant, the photons.
 *
 *     session s;  session_init(&s);
 *     session_engine(&s, SESSION_AUTO, 0, &gpu, &err);       once per run
 *     session_plan(&s, &plan, run, &spec, &source, &err);    GPU runs
 *     session_simulate(&s, &sim, run, gpu ? &spec : NULL, first, count, &tallies, &st, &err);
 *     ...
 *     session_close(&s);
 *
 * The library (tmcml.h) is built on it; the run command can be too. */
#ifndef TMCML_SESSION_H
#define TMCML_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "gpu.h"
#include "mci.h"
#include "plan.h"
#include "progress.h"
#include "spec.h"
#include "tally.h"

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
} session_counts;

typedef struct session {
    gpu_engine *gpu; /* NULL until a GPU run opens it */
    int gpu_index;
    /* auto: the GPU that could not be opened, not tried again (-1: none) */
    int refused_index;
    tm_error refused_why;
    /* The variant of the last shape planned (session_plan). */
    char *plan_shape;
    kernel_spec plan_spec;
    char plan_source[1024];
    char *kernel; /* spec key of the module the last GPU run used, or NULL */
    session_counts counts;
} session;

void session_init(session *s);
void session_close(session *s);

/* The engine of a run: *gpu gets the GPU engine (opened at the first GPU
 * run on gpu_index and kept) or NULL for the CPU engine.  SESSION_AUTO falls
 * back to the CPU when no GPU can be opened; SESSION_GPU fails, saying why. */
bool session_engine(session *s, session_engine_choice choice, int gpu_index, gpu_engine **gpu,
                    tm_error *err);

/* The kernel variant of run (plan_choose: profile, heuristic, tuning), chosen
 * once per problem shape (layer count, grid, -A) and planner options, and
 * kept while they stay the same: optical properties are kernel data, so a
 * loop over them keeps one variant and one module.  *source: where the
 * variant came from (owned by s). */
bool session_plan(session *s, const plan_options *opt, const mci_run *run, kernel_spec *spec,
                  const char **source, tm_error *err);

typedef struct session_sim {
    uint64_t seed;
    bool score_absorption;
    int threads;        /* CPU engine */
    uint32_t max_steps; /* 0: the default */
    const char *cache_dir;
    progress_meter *progress;          /* may be NULL */
    const volatile sig_atomic_t *stop; /* may be NULL: the engines' pause flag */
} session_sim;

typedef struct session_run_stats {
    session_kernel kernel;
    double compile_seconds, kernel_seconds;
} session_run_stats;

/* Photons [first, first + count) of run into *acc: on the session's GPU with
 * the kernel of spec, or on the CPU when spec is NULL.  A raised stop flag
 * cuts it short (acc->photons tells how many were done). */
bool session_simulate(session *s, const session_sim *sim, const mci_run *run,
                      const kernel_spec *spec, uint64_t first, uint64_t count, tally_set *acc,
                      session_run_stats *stats, tm_error *err);

#endif
