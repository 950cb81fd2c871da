/* Several GPUs sharing one run or batch (`tmcml run -G N`, `--gpus LIST`).
 *
 * One host thread per GPU runs that GPU's engine (gpu.h) on a feed from
 * one dispatcher.  Each GPU starts with an equal share of the photons, one
 * launch for it all (every launch ends with a tail: gpu.c).  A GPU that has
 * finished takes half of a share not yet launched, or, when another GPU's
 * launch still needs more than a couple of seconds, asks that launch to
 * give its photons back (it stops handing them out) and takes half of
 * them: so a faster GPU, or one less shared with other work, simulates
 * more, and all finish together.  With a fixed chunk size (--gpu-chunk)
 * the GPUs take chunks from one counter instead.  Photon i draws only from
 * stream i and deposits are integers, so the summed tallies are
 * bit-identical to one GPU's for any number of GPUs and any split
 * (docs/scale.md). */
#ifndef TMCML_GPU_POOL_H
#define TMCML_GPU_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "batch.h"
#include "gpu.h"
#include "spec.h"
#include "tally.h"

/* The most GPUs one process drives. */
#define GPU_POOL_MAX 64

typedef struct gpu_pool gpu_pool;

/* Opens an engine on each of devices[0..count-1] (a device may appear more
 * than once: two engines then share it, as the tests do on one GPU). */
bool gpu_pool_open(const int *devices, int count, gpu_pool **pool, tm_error *err);
void gpu_pool_close(gpu_pool *pool);
int gpu_pool_size(const gpu_pool *pool);
gpu_engine *gpu_pool_engine(const gpu_pool *pool, int i);
/* The device index engine i was opened on. */
int gpu_pool_device(const gpu_pool *pool, int i);
/* The threads the pool's GPUs hold at once (SMs times threads an SM). */
uint64_t gpu_pool_threads(const gpu_pool *pool);

/* What one GPU did in a gpu_pool_simulate call. */
typedef struct gpu_share {
    uint64_t photons; /* photons it simulated */
    uint64_t chunks;  /* launches (chunks of photons) it took */
    gpu_stats stats;  /* its engine's (compile figures from its preparation) */
} gpu_share;

/* The batch index ranges simulated, as they end (one call at a time, from
 * any of the pool's threads): false (with *err) stops every GPU. */
typedef bool (*gpu_pool_done_fn)(void *ctx, uint64_t first, uint64_t n, tm_error *err);

/* A slot of a batch whose photons have all ended on every GPU, in
 * `launches` launches, its tallies whole in acc[slot] (gpu_pool_job's
 * slot_done): false (with *err) stops every GPU. */
typedef bool (*gpu_pool_slot_done_fn)(void *ctx, int slot, uint64_t launches, tm_error *err);

typedef struct gpu_pool_job {
    const photon_batch *batch; /* one run is a batch of one part */
    const kernel_spec *specs;  /* one per GPU of the pool: each its own variant */
    const gpu_options *opt;    /* opt->stop stops them all */
    uint64_t first, count;     /* batch indices [first, first + count) */
    uint64_t chunk;            /* indices per chunk; 0: shares (above) */
    gpu_pool_done_fn done;     /* may be NULL */
    void *done_ctx;
    /* May be NULL.  For a job of the whole batch with one tally set a slot
     * (no absorption sets): slot_done(slot_ctx, s, launches, err) as soon
     * as every photon of slot s has ended, on every launch and GPU, while
     * the others simulate (the batch kernel's launches report them as they
     * end: gpu.h, slot_ended), from one of the GPUs' threads, one slot at a
     * time; `launches` counts the launches that took its photons.  acc[s]
     * then holds the slot's tallies in full and no GPU adds to it again, so
     * the caller can write that run's outputs.  Every slot of the batch is
     * told so once, whether it ended early in a launch or with it; not a
     * slot left unfinished by a stop or a failure. */
    gpu_pool_slot_done_fn slot_done;
    void *slot_ctx;
} gpu_pool_job;

/* Simulates the job's photons on every GPU of the pool and adds their
 * tallies, summed exactly, to acc[slot] of each slot of the batch;
 * shares[i] (may be NULL) gets GPU i's part.  Stopped (job->opt->stop), the
 * photons simulated are those the done calls reported. */
bool gpu_pool_simulate(gpu_pool *pool, const gpu_pool_job *job, tally_set *acc, gpu_share *shares,
                       tm_error *err);

/* The photons a GPU launches when `left` are left: chunk, at most max_chunk
 * (the launch limit) and at most left. */
uint64_t gpu_pool_chunk(uint64_t left, uint64_t chunk, uint64_t max_chunk);

#endif
