// ---- a batch: the photons of several runs in one launch ---------------------
// Runs that share this kernel's shape (layer count, grid, -A) are simulated
// together, so that a lookup table of small runs pays one tail, not one per
// run.  The batch's photon indices span its parts - a range of photons of one
// run each - in the order the host chose (the longest-lived runs first, so
// that the launch ends with short photons).  A photon reads its own run's
// layer table and start weight and scores into its own run's tallies, and
// photon i of a run draws from stream (seed, i) exactly as when the run is
// simulated alone: every run's tallies are those of the run alone, bit for
// bit (runtime/engine/batch.h).
struct batch_part_t {
    unsigned long long offset;  // the part's first index in the batch
    unsigned long long base;    // its run's photon index less offset (mod 2^64): batch
                                // index g is photon base + g of its run
    float start_weight;         // 1 - Rsp of the run
    int first_layer;            // 2 under a glass layer 1, else 1
    unsigned int slot;          // the part's layer table and tallies
    unsigned int pad;
};
static_assert(sizeof(batch_part_t) == 32, "batch_part_t is runtime/engine/batch_table.h's");

// Per slot: A_rz, Rd_ra, Tt_ra and the counts, each run's arrays one after
// the other (gpu.c allocates them so).
#define SLOT_RZ ((unsigned long long)NR * NZ)
#define SLOT_RA ((unsigned long long)NR * NA)
#define SLOT_COUNTS 3ull

// The part that batch index g belongs to: the last whose offset is <= g
// (parts[0].offset is 0 and the offsets increase).  Once per photon.
__device__ __forceinline__ unsigned int batch_part_of(const batch_part_t *parts, unsigned int n,
                                                      unsigned long long g)
{
    unsigned int lo = 0u, hi = n;  // parts[lo].offset <= g < parts[hi].offset
    while (hi - lo > 1u) {
        unsigned int mid = (lo + hi) / 2u;
        if (parts[mid].offset <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The shared-memory address of a slot's layer table (the tables come first
// in the block's dynamic shared memory: kernel.cu).
extern __shared__ __align__(16) unsigned char batch_shared[];
#define SLOT_TABLE_BYTES ((unsigned int)((NUM_LAYERS + 2) * sizeof(layer_t)))

__device__ __forceinline__ unsigned int batch_table_of(unsigned int slot)
{
    return (unsigned int)__cvta_generic_to_shared(batch_shared) + slot * SLOT_TABLE_BYTES;
}

// The parts' records, after the slots' tables.  Found again where a photon
// is launched: kept in registers for the whole loop, the pointer spilled.
__device__ __forceinline__ batch_part_t *batch_parts(unsigned int num_slots)
{
    return (batch_part_t *)(batch_shared + num_slots * SLOT_TABLE_BYTES);
}

// The slot of a photon, from its layer table: for an escape, once a photon
// (the step keeps no register for it; the escape's address computed from a
// slot kept in one spilled in -A).
__device__ __forceinline__ unsigned int batch_slot_of(unsigned int layer_table)
{
    return (layer_table - batch_table_of(0u)) / SLOT_TABLE_BYTES;
}

% if spec.score_absorption then
// The slot of the thread's photon, in a register of its own: every step's
// deposit needs it.
#define RUN_SLOT slot
% else
#define RUN_SLOT batch_slot_of(p.layer_table)
% end

// The tallies of the run of the thread's photon, as the step's TALLY_ARGS:
// its slot's A_rz and counts, and the launch's Rd_ra and Tt_ra, which
// score_escape offsets to the slot's.  From the launch's arguments and at
// most one register: four pointers spilled at 32 registers.
#define RUN_TALLIES a_rz_all + RUN_SLOT * SLOT_RZ, rd_ra_all, tt_ra_all, RUN_COUNTS, tile_sh
#define RUN_COUNTS (counts_all + RUN_SLOT * SLOT_COUNTS)
% if spec.score_absorption and spec.tile_nr > 0 then

// The extents of every run's A_rz tile in this launch (batch_tiles.cu), for
// score.cu's TILE_NR and TILE_NZ, and its edge bins (EDGE_BINS: 0, or the
// last row and column of A_rz after each run's tile): set once by the
// block's first thread.
__shared__ unsigned int batch_tile_extent[3];  // tile_nr, tile_nz, edge_bins

__device__ __forceinline__ unsigned int batch_tile_nr() { return batch_tile_extent[0]; }
__device__ __forceinline__ unsigned int batch_tile_nz() { return batch_tile_extent[1]; }
__device__ __forceinline__ unsigned int batch_edge_bins() { return batch_tile_extent[2]; }
% end
