/* The CPU engine: MCML 1.2.2 physics in double precision, on all cores.
 *
 * Photon i of a run (0-based) draws only from random stream i, whichever
 * thread simulates it, and deposits are added as integers, so the tallies
 * are bit-identical for any thread count and any split of the photon range. */
#ifndef TMCML_CPU_H
#define TMCML_CPU_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "error.h"
#include "mci.h"
#include "progress.h"
#include "tally.h"

typedef struct cpu_options {
    uint64_t seed;
    int threads;              /* >= 1 */
    bool score_absorption;    /* false: -A, A_rz stays zero */
    progress_meter *progress; /* may be NULL */
    uint32_t max_steps;       /* steps after which a photon is trapped (0: the default) */
    /* May be NULL.  Once *stop is not 0, each thread ends the photon it is
     * on and starts no other: the call returns having simulated k <= count
     * of the photons (acc->photons grows by k), not always a prefix (each
     * thread leaves the rest of its chunk). */
    const volatile sig_atomic_t *stop;
    /* May be NULL: the batch indices [first, first + n) simulated, told as
     * each round of the call ends (in order, and only those done), from
     * the calling thread; false (with *err) fails the call. */
    bool (*done)(void *ctx, uint64_t first, uint64_t n, tm_error *err);
    void *done_ctx;
    /* Absorption sets (docs/physics.md, "Absorption sets"): 0 for none, or
     * 1 .. TM_MAX_ABSORPTION_SETS sets of per-layer mua scored from each
     * history, set_mua[k * num_layers + i - 1] set k's mua of layer i
     * (1-based) for every run (the runs of a batch then have set_layers
     * layers).  The runs' own mua are not used, and acc holds num_sets tally
     * sets a slot: set k of slot s is acc[s * num_sets + k]. */
    int num_sets;
    int set_layers;
    const double *set_mua;
    /* Optics sets (docs/physics.md, "Optics sets"): each NULL (the runs'
     * own), or every set's mus (> 0 where the run's is, 0 where it is 0)
     * and g (|g| < 1; a layer of |g| = 1 keeps it), indexed as set_mua. */
    const double *set_mus;
    const double *set_g;
} cpu_options;

/* Simulates photons [first, first + count) of run (or, stopped, some of
 * them: opt->done says which) and adds their tallies to *acc (initialised for the run's grid; with
 * absorption sets, opt->num_sets tally sets).  A run with path lengths
 * (run->path_lengths, at most TM_MAX_PATH_LAYERS layers) scores them too,
 * in the sets' step loop (without sets, as one set of its own mua): its
 * tally sets get the path tallies here when they have none. */
bool cpu_simulate(const mci_run *run, const cpu_options *opt, uint64_t first, uint64_t count,
                  tally_set *acc, tm_error *err);

/* Simulates the batch's indices [0, photon_batch_size) (or, stopped, some
 * of them: opt->done says which, and acc's photons grow by the parts'
 * shares of them) and adds
 * each slot's tallies to acc[slot].  The threads take chunks of indices
 * across the parts: the tails of small runs overlap. */
bool cpu_simulate_batch(const photon_batch *batch, const cpu_options *opt, tally_set *acc,
                        tm_error *err);

/* The identity of this build's CPU physics: a hash of its sources
 * (tools/physics_hash.cmake), recorded in checkpoints. */
extern const char cpu_physics_hash[];

/* Number of online CPUs (at least 1). */
int cpu_count(void);

/* The threads cpu_simulate starts for count photons when asked for threads:
 * at most one per chunk of photons, at least 1 (each has its own tally_batch:
 * runtime/engine/footprint.h). */
int cpu_thread_count(int threads, uint64_t count);

#endif
