/* The steps of `tmcml run` that a run alone (run.c) and a batch of runs
 * (run_batch.c) share: the engine of the file, a run's kernel variants,
 * its skip, resume, stop and finish. */
#ifndef TMCML_RUN_STEPS_H
#define TMCML_RUN_STEPS_H

#include <pthread.h>
#include <stdbool.h>

#include "checkpoint.h"
#include "driver_options.h"
#include "gpu_pool.h"
#include "mci.h"
#include "outputs.h"
#include "result.h"
#include "run_lock.h"
#include "session.h"
#include "stopper.h"
#include "summary.h"

/* The engine every run of the file uses (the session layer, as the library
 * uses it: driver/session.h): the GPUs when they were opened. */
typedef struct engine {
    session ses;
    gpu_pool *pool;           /* the session's GPUs; NULL: the CPU engine (or released) */
    gpu_engine *gpu;          /* the pool's first GPU (it names the run's device), or NULL */
    const kernel_spec *specs; /* each GPU's kernel variant for the current run (session_plan) */
    run_gpu *shares;          /* what each GPU did in the current run */
    int gpus;                 /* GPUs opened (they name themselves in the outputs) */
    int ordinals[DRIVER_MAX_GPUS]; /* their numbers as the user gave them (driver/gpu_view.h) */
    char (*device_names)[256];     /* the GPUs' models, kept for the outputs (shares[i].name) */
    const char *name;
    char *kernel;      /* spec key of the first GPU's kernel (malloc'd), or NULL */
    int threads;       /* CPU threads of the run being simulated (resources_check) */
    char physics[256]; /* resume_physics: what checkpoints and summaries record */
    /* The GPUs closed in a thread of their own once the last run needs them
     * no more (run_release_gpus): their teardown takes ~0.06 s, while the
     * last outputs are written. */
    pthread_t closer;
    bool closing;
    bool last_runs; /* the runs being simulated are the file's last: release after them */
    /* A run with derivatives on the GPUs is its own one absorption set
     * (run_plan_gpus): its mua, layer i's at [i - 1]. */
    double jacobian_mua[TM_MAX_PATH_LAYERS];
} engine;

/* The GPUs are needed no more: closed in a thread while what is left (the
 * outputs, which need nothing of them) is done; the engine keeps saying
 * which GPUs ran (gpus, device_names, kernel). */
void run_release_gpus(engine *eng);

/* Each GPU's kernel variant for a run (a profile, the heuristic or a
 * tuning; GPUs of different models each get their own), said on stderr.
 * A run with derivatives (mci_run.jacobian) gets the kernel of one
 * absorption set, its own, which scores them (templates/sets.cu). */
bool run_plan_gpus(const driver_options *opt, engine *eng, const mci_run *run, tm_error *err);

/* The same for the kernel of num_sets absorption sets of run (set k's mua
 * of layer i at set_mua[k * layers + i - 1]; optics sets' mus and g
 * indexed alike, else NULL), with --path-lengths their path lengths, and
 * their derivatives when the run has them: a shape of its own, with
 * profile entries of its own. */
bool run_plan_gpus_sets(const driver_options *opt, engine *eng, const mci_run *run, int num_sets,
                        const double *set_mua, const double *set_mus, const double *set_g,
                        tm_error *err);

/* A kernel derived from each GPU's variant: a batch's or a set's
 * (tuner/variant.h), with the explicit options v and the GPU's dev; arg is
 * the derivation's own (the sets' count). */
typedef bool (*run_spec_derive)(kernel_spec *spec, const variant_options *v, const tune_device *dev,
                                int arg, tm_error *err);

/* Each GPU's variant for run (run_plan_gpus) turned by derive: malloc'd,
 * NULL with *err.  eng->kernel then names the first GPU's. */
kernel_spec *run_derived_specs(const driver_options *opt, engine *eng, const mci_run *run,
                               run_spec_derive derive, int arg, tm_error *err);

/* The engine call's options of the command's (the engine's threads, the
 * pause flag of st, the photon ranges done to done(done_ctx)). */
session_sim run_session_sim(const driver_options *opt, const engine *eng, progress_meter *meter,
                            stopper *st, session_done_fn done, void *done_ctx);

/* What each GPU did in an engine call: into the run's report, and with
 * --verbose on stderr. */
void run_note_shares(const driver_options *opt, engine *eng, const session_run_stats *st);

/* How a run's photons went: all done, stopped by a signal (what was done
 * is kept), or failed. */
typedef enum sim_status { SIM_DONE, SIM_STOPPED, SIM_FAILED } sim_status;

/* What run_gaps does with each gap of a run's photon ranges. */
typedef struct run_gap_calls {
    /* Simulates photons [begin, end), cut short when st's flag rises; the
     * photons done go into the checkpoint run_gaps reads the gaps of. */
    bool (*simulate)(void *ctx, progress_meter *meter, stopper *st, uint64_t begin, uint64_t end,
                     tm_error *err);
    /* Writes the checkpoint(s) of what is done (--checkpoint-every). */
    void (*save)(void *ctx);
    void *ctx;
} run_gap_calls;

/* The photons left of a run (the gaps of ranges, which calls->simulate
 * fills), in order, with a progress line labelled `label` over `photons`
 * and calls->save whenever --checkpoint-every says so; SIM_STOPPED when a
 * signal stopped it (the ranges then hold exactly what was done). */
sim_status run_gaps(const driver_options *opt, const checkpoint *ranges, uint64_t photons,
                    const char *label, const run_gap_calls *calls, tm_error *err);

/* A periodic checkpoint: one that cannot be written (a disk full for a
 * moment) is said and tried again a period later; the run goes on, and the
 * previous checkpoint, if any, stays as it was. */
void run_periodic_checkpoint(const driver_options *opt, const char *path, const checkpoint *ck);

/* --resume without a checkpoint: *done when the run's finished outputs are
 * there and are this run's; false when they are another run's (finished.h). */
bool run_already_finished(const driver_options *opt, const engine *eng, const mci_run *run,
                          const run_paths *paths, bool *done, tm_error *err);
void run_say_skipped(const driver_options *opt, int index, const run_paths *paths);
/* A run resumed from ck; with --stderr, a warning (even with -q) when ck
 * holds photons done without it, for which no error can be given. */
void run_say_resumed(const driver_options *opt, int index, const run_paths *paths,
                     const checkpoint *ck);

/* A run stopped by a signal: its checkpoint and partial outputs; *kept says
 * what the exit message should. */
void run_save_stopped(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                      const run_paths *paths, const checkpoint *ck, double seconds, char *kept,
                      size_t size);

/* The final outputs of a run done; its checkpoint and partial outputs go. */
bool run_finish(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                const run_paths *paths, const checkpoint *ck, double seconds, tm_error *err);

/* Threads that write the outputs of runs finished together (a batch's, a
 * run's absorption sets'): each output's fsync waits for the disk (two per
 * run), so runs finished one by one spent most of their time there (100
 * runs of luthi100: 0.6 s of 1.0 s on an H100 host); writers in parallel
 * share the file system's journal commits.  At most 8, as fs_write_atomic
 * keeps 32 temp files for a signal to remove, and two batches may write at
 * once (driver/run_batch.c). */
#define RUN_FINISH_THREADS 8

/* run_finish in two steps, for runs finished together: the outputs written
 * (from any thread: nothing shared is written), then the run's line on
 * stdout and its warnings (in the runs' order), which frees f. */
typedef struct run_final {
    bool ok;
    tm_error err;
    mcml_result res;
} run_final;
bool run_finish_write(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                      const run_paths *paths, const checkpoint *ck, double seconds, run_final *f);
void run_finish_report(const driver_options *opt, const run_paths *paths, const checkpoint *ck,
                       double seconds, run_final *f);

/* run_finish_write of n runs finished together (a run's absorption sets';
 * a batch's writers are driver/run_batch.c's), on at most `threads` threads
 * (RUN_FINISH_THREADS, or fewer where descriptors are short: fd_room.h):
 * run index[k] of file from cks[k] into final[k]; the caller then says each
 * in order (run_finish_report). */
void run_finish_write_all(const driver_options *opt, const engine *eng, const mci_file *file,
                          const run_paths *paths, const int *index, const checkpoint *const *cks,
                          int n, int threads, double seconds, run_final *final);

#endif
