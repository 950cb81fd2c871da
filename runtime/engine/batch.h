/* A batch: photon ranges of runs that share one kernel shape, simulated as
 * one index space (docs/batches.md).
 *
 * Part k of a batch holds photons [first, first + count) of its run, and the
 * batch's indices [offset(k), offset(k) + count), the parts one after the
 * other in the order given.  Batch index offset(k) + j is photon first + j
 * of part k's run, and that photon draws from stream (seed, first + j)
 * whichever batch, position or engine simulates it; deposits are integers.
 * So each run's tallies are bit-identical to those of the run simulated
 * alone, in any batch, any order and any split of the index space between
 * launches, threads, GPUs and ranks.
 *
 * A part scores into a slot: the tallies of its run.  Parts of one run (the
 * gaps a checkpoint left, say) share its slot. */
#ifndef TMCML_BATCH_H
#define TMCML_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"

typedef struct batch_part {
    const mci_run *run;
    uint64_t first, count; /* photons [first, first + count) of run, count > 0 */
    int slot;              /* 0 .. slots - 1: the tallies it scores into */
} batch_part;

typedef struct photon_batch {
    int count;         /* parts */
    batch_part *parts; /* in the batch's order (owned) */
    uint64_t *offsets; /* count + 1: part k holds indices [offsets[k], offsets[k + 1]) */
    int slots;         /* the largest slot + 1 */
} photon_batch;

/* A batch of parts[0 .. count-1] in that order (copied).  Slots must be used
 * by parts of one run only, and the runs share a grid; the sum of the counts
 * must not exceed 2^64 - 1. */
bool photon_batch_init(photon_batch *b, const batch_part *parts, int count, tm_error *err);
/* A batch of one part: photons [first, first + count) of run, slot 0. */
bool photon_batch_single(photon_batch *b, const mci_run *run, uint64_t first, uint64_t count,
                         tm_error *err);
void photon_batch_free(photon_batch *b);

/* Indices in the batch: the sum of its parts' counts. */
uint64_t photon_batch_size(const photon_batch *b);
/* The part holding batch index i (< photon_batch_size). */
int photon_batch_part_at(const photon_batch *b, uint64_t i);
/* The run of slot s (the run of its parts), or NULL when no part of the
 * batch scores into it (the slots of runs already done, say). */
const mci_run *photon_batch_slot_run(const photon_batch *b, int s);

/* Batch indices [first, first + n) as the photon ranges of the parts they
 * span, in order: fn(ctx, part, photon_first, photon_count, err) for each;
 * false from fn stops and is returned. */
typedef bool (*photon_batch_range_fn)(void *ctx, int part, uint64_t first, uint64_t count,
                                      tm_error *err);
bool photon_batch_ranges(const photon_batch *b, uint64_t first, uint64_t n,
                         photon_batch_range_fn fn, void *ctx, tm_error *err);

/* The photons of each slot among batch indices [first, first + n), added to
 * photons[slot] (b->slots entries). */
void photon_batch_slot_photons(const photon_batch *b, uint64_t first, uint64_t n,
                               uint64_t *photons);

/* What a run's photon is expected to cost, in steps, from its optical
 * properties alone: the order of a batch (the longest-lived runs first, so
 * that a launch ends with short photons).  A ranking, not a prediction of
 * the count (docs/batches.md). */
double batch_steps_estimate(const mci_run *run);

/* parts[0 .. count-1] sorted by batch_steps_estimate, longest first (stable:
 * equal estimates keep their order). */
void batch_order_longest_first(batch_part *parts, int count);

/* A run of this many photons per thread the GPUs hold at once, or more,
 * is simulated alone, out of its shape's batch: its own launch keeps the
 * GPUs full long enough that its tail costs less than the batch kernel
 * gives up (partial run tiles, blocks of one run table).  Measured on an
 * H100, docs/batches.md ("Few big runs"). */
#define BATCH_ALONE_PHOTONS_PER_THREAD 20

/* The photons from which a run is simulated alone on GPUs that hold
 * `threads` threads at once, or 0 for none (0 threads: the CPU engine,
 * which batches every run). */
uint64_t batch_alone_photons(uint64_t threads);
/* Whether run is simulated alone for its photons (batch_alone_photons). */
bool batch_run_alone(const mci_run *run, uint64_t alone_photons);
/* Whether run is a stack of glass alone, which no batch kernel runs: every
 * photon crosses it straight, and the GPU engine scores that crossing on
 * the host (gpu.c), a call of its own. */
bool batch_run_glass_only(const mci_run *run);

#endif
