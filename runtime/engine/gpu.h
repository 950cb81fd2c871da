/* The GPU engine: a generated kernel (gen/) run through the driver API
 * (runtime/engine/cuda_driver.c).  Tallies come back as integers into the same tally_set,
 * result and writers as the CPU engine's. */
#ifndef TMCML_GPU_H
#define TMCML_GPU_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "cuda_driver.h"
#include "error.h"
#include "mci.h"
#include "progress.h"
#include "spec.h"
#include "tally.h"

/* Photons of a slot that ended in one launch, their tallies added (gpu_options'
 * slot_ended): false (with *err) ends the simulation. */
typedef bool (*gpu_slot_ended_fn)(void *ctx, int slot, uint64_t photons, tm_error *err);

typedef struct gpu_options {
    uint64_t seed;
    const char *template_dir;    /* NULL: embedded templates */
    const char *cache_dir;       /* NULL: default cubin cache; "": none */
    bool verbose;                /* compile and launch details on stderr */
    uint64_t max_launch_photons; /* photons per launch (0: 2^32, the batch limit) */
    unsigned grid;               /* blocks per launch (0: resident blocks per SM x SMs) */
    progress_meter *progress;    /* may be NULL */
    bool measure_steady;         /* the tuner: steady-state rate of the (first) launch */
    uint32_t max_steps;          /* steps after which a photon is trapped (0: the default) */
    /* May be NULL.  Once *stop is not 0, the launch stops handing out
     * photons and the call returns when those handed out are done. */
    const volatile sig_atomic_t *stop;
    /* May be NULL.  Once *yield is not 0, the running launch stops handing
     * out photons and, when those handed out are done, the engine asks the
     * feed for more (the multi-GPU dispatcher taking photons back to share
     * them out again: gpu_pool.c). */
    const volatile int *yield;
    /* Absorption sets (docs/physics.md): 0 for none, or the spec's
     * num_sets, set_mua[k * num_layers + i - 1] set k's mua of layer i
     * (1-based) of the run simulated, whose own mua must be the sets'
     * reference (mua_sets_reference).  acc then holds num_sets tally sets a
     * slot: set k of slot s is acc[s * num_sets + k]. */
    int num_sets;
    const double *set_mua;
    /* Optics sets (spec sets_optics): each set's mus and g, indexed as
     * set_mua; the run's own mus and g are the reference's.  NULL for
     * absorption sets. */
    const double *set_mus, *set_g;
    /* May be NULL.  Every launch of a batch kernel with one tally set a
     * slot, of the whole batch or of a part, calls slot_ended(slot_ctx, s,
     * n, err) once its n photons of slot s have all ended and are added to
     * acc[s]: while the launch goes on (their tallies are then not added
     * again when it ends), or when it ends for the slots it did not take
     * so.  The pool (gpu_pool.c) counts them to tell when a slot has ended
     * on every launch and GPU, and its caller can write that run. */
    gpu_slot_ended_fn slot_ended;
    void *slot_ctx;
} gpu_options;

/* A batch kernel's run tiles in a launch (templates/batch_tiles.cu): nr x nz
 * bins of each run's A_rz, then its edge bins (0, or the grid's nr + nz - 1),
 * 32-bit entries in shared memory; all 0: none. */
typedef struct gpu_run_tiles {
    unsigned nr, nz, edge_bins;
} gpu_run_tiles;

typedef struct gpu_stats {
    double compile_seconds; /* 0 when the cubin came from a cache */
    bool cubin_cached;      /* from the disk cache or this engine's last module */
    double kernel_seconds;  /* sum of launch times */
    uint64_t launches;
    unsigned grid, block;
    int blocks_per_sm, registers;
    int spill_bytes;     /* local-memory spill stores + loads (ptxas) */
    gpu_run_tiles tiles; /* a batch's run tiles (launch_plan.h) */
    /* With measure_steady: photons handed out per second while the first
     * launch went from 20 % to 80 % of its photons - the rate of a long run,
     * without the launch's ramp-up and its tail of the longest photons
     * (0 when the launch was too short to tell). */
    double steady_photons_per_second;
} gpu_stats;

typedef struct gpu_engine gpu_engine;

bool gpu_engine_open(int device, gpu_engine **eng, tm_error *err);
/* The number of GPUs the driver sees (0 without a driver: *err says why). */
int gpu_device_count(tm_error *err);
void gpu_engine_close(gpu_engine *eng);
const cuda_device_info *gpu_engine_device(const gpu_engine *eng);
/* The number the engine's messages and device record give its GPU: the
 * user's, where the driver sees fewer GPUs than the node has (the command
 * line narrows CUDA_VISIBLE_DEVICES: driver/gpu_view.h). */
void gpu_engine_number(gpu_engine *eng, int number);
/* False once a kernel fault (a sticky error) has made the GPU unusable. */
bool gpu_engine_usable(const gpu_engine *eng);

/* Loads the kernel of spec (rendered, compiled or found in the cubin cache)
 * unless it is the module already loaded; gpu_simulate_feed does it too.
 * Several engines prepare theirs one after the other (gpu_pool.c), so a
 * cold cache compiles each variant once and its files are written from one
 * thread. */
bool gpu_prepare(gpu_engine *eng, const kernel_spec *spec, const gpu_options *opt, gpu_stats *stats,
                 tm_error *err);

/* Where an engine's photons come from, one launch at a time, and where the
 * ranges it simulated are reported (a dispatcher shared by several GPUs:
 * gpu_pool.h).  Both are called from the thread running the engine.  The
 * ranges are indices of the batch simulated (runtime/engine/batch.h). */
typedef struct photon_feed {
    /* The next indices to launch, [*first, *first + *count): false when
     * there are none left. */
    bool (*take)(void *ctx, uint64_t *first, uint64_t *count);
    /* Photons [first, first + n) are simulated and in the tallies: n is the
     * count taken, or fewer (a prefix) when opt->stop or opt->yield stopped
     * the launch.  May be NULL; false (with *err) ends the simulation. */
    bool (*done)(void *ctx, uint64_t first, uint64_t n, tm_error *err);
    /* While a launch runs, every 0.1 s: the photons of the range handed out
     * so far.  May be NULL. */
    void (*running)(void *ctx, uint64_t handed);
    void *ctx;
} photon_feed;

/* Simulates the batch indices feed hands out, a launch per range taken,
 * with the kernel of spec, and adds their tallies to acc[slot] of each
 * part's slot (initialised for the batch's grid).  A batch of one part runs
 * the run's own kernel (spec->batch false); a batch kernel (spec->batch:
 * spec_for_batch) runs any number of parts, whose tables must fit its
 * shared memory (gpu_batch_fits).  Each launch ends with a tail (gpu.c), so
 * a feed hands out few, long ranges.  Once opt->stop is set, the running
 * launch stops handing out photons and no more are taken.  The module of
 * the last spec is kept, so runs that differ only in optical properties do
 * not recompile. */
bool gpu_simulate_feed(gpu_engine *eng, const photon_batch *batch, const kernel_spec *spec,
                       const gpu_options *opt, const photon_feed *feed, tally_set *acc,
                       gpu_stats *stats, tm_error *err);

/* Whether a batch kernel of spec runs `slots` runs and `parts` parts in
 * one launch on this GPU: their tables in a block's shared memory, at the
 * occupancy the variant is tuned for (its launch bounds). */
bool gpu_batch_fits(const gpu_engine *eng, const kernel_spec *spec, int slots, int parts);

/* The optional tallies a kernel of spec scores for run besides the time
 * bins' and the fiber's: the path lengths' layers (sets_paths), the
 * derivatives' (sets_jacobian) and the optics sets' weight sums
 * (sets_optics), 0 where it scores none. */
output_grid gpu_spec_options(const kernel_spec *spec, const mci_run *run);

/* Gives each tally set of acc (slots x sets) the tallies of
 * gpu_spec_options, if it has none yet, as the CPU engine does for a run
 * with path lengths or derivatives; gpu_simulate_feed calls it. */
bool gpu_acc_add_options(const photon_batch *b, const kernel_spec *spec, const gpu_options *opt,
                         tally_set *acc, tm_error *err);

/* Photons [first, first + count) of run in launches of at most
 * opt->max_launch_photons: gpu_simulate_feed of a one-part batch.  Stopped,
 * it has simulated [first, first + k) (acc->photons grows by k). */
bool gpu_simulate(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                  const gpu_options *opt, uint64_t first, uint64_t count, tally_set *acc,
                  gpu_stats *stats, tm_error *err);

/* Photons per launch for opt: max_launch_photons, at most the tally batch
 * limit of spec's tallies (TALLY_BATCH_MAX_PHOTONS, or
 * TALLY_PATH_BATCH_MAX_PHOTONS when it scores path lengths). */
uint64_t gpu_launch_photons(const gpu_options *opt, const kernel_spec *spec);

#endif
