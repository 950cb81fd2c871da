// ---- each run's A_rz tile in the block's shared memory ----------------------
// Every slot of the launch has a tile of its own: A_rz[0..tile_nr)[0..tile_nz)
// of its run, then (edge_bins > 0) the last row and column of its A_rz
// (score.cu, EDGE_BINS), 32-bit entries, of extents the host fits to the
// shared memory the tables leave (runtime/engine/launch_plan.c, plan_batch_tiles:
// one kernel for any number of runs).  A photon deposits into its own run's
// tile, so no block ever holds a deposit of one run in another's.  Measured
// on an H100 (docs/batches.md): the kernel of 8 runs on a 50x50 grid took
// 0.058 s instead of 0.240 s, 16 runs of skin 0.200 s instead of 0.290 s;
// lut100's 100 runs get 18x18 of their 100x100 grids and their edge bins,
// 0.20 s instead of 0.22 s.
//
// A run written while the launch goes on (slot_done, gpu.c's early_slots)
// needs its deposits in global memory first, so a block flushes a run's
// tile once the run has no photon left in the block and none left to hand
// out, and counts that run's ended photons in slot_done only then:
//  - each photon ended adds 1 to its run's `pending` (after a fence: its
//    deposits before it);
//  - the flush takes `pending` first, then the tile: every photon it counts
//    has all its deposits in what it flushes;
//  - a photon ended while the flush runs stays pending, for the next flush
//    of that tile or the block's last (the kernel's end).
// After the parts: each slot's end (u64), live, pending and lock words (u32),
// then the tiles.  The words and the tiles are zero before the loop.
__shared__ unsigned int batch_part_seen;  // the highest part this block has launched

// Past the last part's index, each slot's end in the launch: every batch
// index before it handed out means no photon of the slot is left to hand out.
__device__ __forceinline__ unsigned long long *batch_slot_end(unsigned int num_slots,
                                                              unsigned int num_parts)
{
    return (unsigned long long *)(batch_parts(num_slots) + num_parts);
}

// Per slot: its photons live in this block, those ended but not yet counted
// in slot_done, and its flush lock (batch_word(S, P, w, s): word w of slot s).
#define BATCH_LIVE 0u
#define BATCH_PENDING 1u
#define BATCH_LOCK 2u
__device__ __forceinline__ unsigned int *batch_word(unsigned int num_slots, unsigned int num_parts,
                                                    unsigned int w, unsigned int s)
{
    return (unsigned int *)(batch_slot_end(num_slots, num_parts) + num_slots) + w * num_slots + s;
}

__device__ __forceinline__ unsigned int *batch_tiles(unsigned int num_slots, unsigned int num_parts)
{
    return batch_word(num_slots, num_parts, 3u, 0u);
}

// The entries of a slot's tile: its bins, then its edge bins.
__device__ __forceinline__ unsigned int batch_tile_entries()
{
    return batch_tile_nr() * batch_tile_nz() + batch_edge_bins();
}

// The shared-memory address of slot s's tile (the step's tile_sh).
__device__ __forceinline__ unsigned int batch_tile_of(unsigned int num_slots, unsigned int num_parts,
                                                      unsigned int s)
{
    unsigned int *tile = batch_tiles(num_slots, num_parts) + s * batch_tile_entries();
    return (unsigned int)__cvta_generic_to_shared(tile);
}

// The words, the tiles and the extents zeroed, by the block's threads
// (before a barrier).
__device__ __forceinline__ void batch_tiles_zero(unsigned int num_slots, unsigned int num_parts,
                                                 unsigned int tile_nr, unsigned int tile_nz,
                                                 unsigned int edge_bins)
{
    if (threadIdx.x == 0) {
        batch_tile_extent[0] = tile_nr;
        batch_tile_extent[1] = tile_nz;
        batch_tile_extent[2] = edge_bins;
        batch_part_seen = 0u;
    }
    unsigned long long *end = batch_slot_end(num_slots, num_parts);
    for (unsigned int s = threadIdx.x; s < num_slots; s += blockDim.x)
        end[s] = 0ull;
    unsigned int *words = batch_word(num_slots, num_parts, 0u, 0u);
    unsigned int n = num_slots * (3u + tile_nr * tile_nz + edge_bins);
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
        words[i] = 0u;
}

// Each slot's end in the launch [first, first + count) (after the zeroing
// and a barrier): the latest end of its parts there.
__device__ __forceinline__ void batch_slot_ends(unsigned int num_slots, unsigned int num_parts,
                                                unsigned long long first, unsigned long long count)
{
    const batch_part_t *parts = batch_parts(num_slots);
    unsigned long long *end = batch_slot_end(num_slots, num_parts);
    for (unsigned int k = threadIdx.x; k < num_parts; k += blockDim.x) {
        unsigned long long e = k + 1u < num_parts ? parts[k + 1u].offset : first + count;
        atomicMax(&end[parts[k].slot], min(e, first + count));
    }
}

// Global bin of entry j of slot s's tile (score.cu's slot_bin: the tile's
// bins, then the edge bins).
__device__ __forceinline__ unsigned long long *batch_tile_bin(unsigned long long *a_rz_all,
                                                              unsigned int s, unsigned int j)
{
    return a_rz_all + s * SLOT_RZ + slot_bin((int)j, 0u);
}

// Slot s's tile into global memory and its pending photons into slot_done,
// by one thread; another thread flushing it already leaves it to that one.
__device__ __noinline__ void batch_tile_flush(unsigned int num_slots, unsigned int num_parts,
                                              unsigned int s, unsigned long long *a_rz_all,
                                              unsigned long long *slot_done)
{
    unsigned int *lock = batch_word(num_slots, num_parts, BATCH_LOCK, s);
    if (atomicExch(lock, 1u) != 0u)
        return;
    unsigned int done = atomicExch(batch_word(num_slots, num_parts, BATCH_PENDING, s), 0u);
    __threadfence_block();  // the tile read after the photons counted (their deposits in it)
    unsigned int n = batch_tile_entries();
    unsigned int *tile = batch_tiles(num_slots, num_parts) + s * n;
    for (unsigned int j = 0; j < n; j++)
        if (((volatile unsigned int *)tile)[j] != 0u)
            atomicAdd(batch_tile_bin(a_rz_all, s, j), (unsigned long long)atomicExch(&tile[j], 0u));
    __threadfence();  // the deposits visible before the photons are counted
    if (done != 0u)
        atomicAdd(&slot_done[s], (unsigned long long)done);
    atomicExch(lock, 0u);
}

// Flushes slot s's tile if the slot has photons pending, none live in the
// block, and none left to hand out (every batch index below `handed` has
// been handed out).
__device__ __forceinline__ void batch_tile_settle(unsigned int num_slots, unsigned int num_parts,
                                                  unsigned int s, unsigned long long handed,
                                                  unsigned long long *a_rz_all,
                                                  unsigned long long *slot_done)
{
    if (*(volatile unsigned int *)batch_word(num_slots, num_parts, BATCH_LIVE, s) == 0u &&
        *(volatile unsigned int *)batch_word(num_slots, num_parts, BATCH_PENDING, s) != 0u &&
        batch_slot_end(num_slots, num_parts)[s] <= handed)
        batch_tile_flush(num_slots, num_parts, s, a_rz_all, slot_done);
}

// A photon of part k (batch index g) starts: counted live in its slot, and
// the first photon of a later part than any this block launched settles the
// parts before it, which are all handed out (their runs' last photons in
// the block may have ended before that).
__device__ __forceinline__ void batch_tile_launch(unsigned int num_slots, unsigned int num_parts,
                                                  unsigned int k, unsigned long long g,
                                                  unsigned long long *a_rz_all,
                                                  unsigned long long *slot_done)
{
    const batch_part_t *parts = batch_parts(num_slots);
    atomicAdd(batch_word(num_slots, num_parts, BATCH_LIVE, parts[k].slot), 1u);
    if (k <= *(volatile unsigned int *)&batch_part_seen)
        return;
    for (unsigned int j = atomicMax(&batch_part_seen, k); j < k; j++)
        batch_tile_settle(num_slots, num_parts, parts[j].slot, g, a_rz_all, slot_done);
}

// A photon of slot s has ended, its deposits made: pending, no longer live,
// and the slot settled if it was the block's last (`next`: the launch's
// counter, `first` its first batch index).
__device__ __forceinline__ void batch_tile_photon_ended(unsigned int num_slots, unsigned int num_parts,
                                                        unsigned int s, unsigned long long first,
                                                        const unsigned long long *next,
                                                        unsigned long long *a_rz_all,
                                                        unsigned long long *slot_done)
{
    __threadfence();  // its deposits (shared and global) before it is counted
    atomicAdd(batch_word(num_slots, num_parts, BATCH_PENDING, s), 1u);
    if (atomicSub(batch_word(num_slots, num_parts, BATCH_LIVE, s), 1u) == 1u)
        batch_tile_settle(num_slots, num_parts, s, first + *(const volatile unsigned long long *)next,
                          a_rz_all, slot_done);
}

// The block's end (after a barrier): every tile into global memory, then,
// after a barrier, every pending photon into slot_done.
__device__ __forceinline__ void batch_tiles_end(unsigned int num_slots, unsigned int num_parts,
                                                unsigned long long *a_rz_all,
                                                unsigned long long *slot_done)
{
    unsigned int n = batch_tile_entries();
    unsigned int *tiles = batch_tiles(num_slots, num_parts);
    for (unsigned int i = threadIdx.x; i < num_slots * n; i += blockDim.x)
        if (tiles[i] != 0u)
            atomicAdd(batch_tile_bin(a_rz_all, i / n, i % n), (unsigned long long)tiles[i]);
    __threadfence();
    __syncthreads();
    for (unsigned int s = threadIdx.x; s < num_slots; s += blockDim.x) {
        unsigned int done = *batch_word(num_slots, num_parts, BATCH_PENDING, s);
        if (done != 0u)
            atomicAdd(&slot_done[s], (unsigned long long)done);
    }
}
