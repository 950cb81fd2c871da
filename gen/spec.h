/* KernelSpec: everything baked into a generated kernel (docs/design.md,
 * "What a kernel bakes in").
 *
 * FFTW's terms: the problem is a run (layers, grid), the spec is one way of
 * computing it; two specs with equal keys generate the same source.  Optical
 * properties and thicknesses are kernel *data* (constant or shared memory)
 * unless layer_placement is SPEC_LAYERS_IMMEDIATE, so a loop of runs that
 * varies them reuses one cubin. */
#ifndef TMCML_SPEC_H
#define TMCML_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "tm_limits.h"
#include "knob.h"
#include "shape.h"

typedef enum spec_layer_placement {
    SPEC_LAYERS_CONSTANT, /* __constant__ table, filled per run (default) */
    SPEC_LAYERS_SHARED,   /* copied to shared memory at block start */
    SPEC_LAYERS_IMMEDIATE /* values baked into the source: one cubin per optics */
} spec_layer_placement;

/* One layer as kernels see it (single precision on the GPU). */
typedef struct spec_layer {
    double n, mua, mus, g, z0, z1, cos_crit0, cos_crit1;
} spec_layer;

typedef struct kernel_spec {
    /* the problem's shape (gen/shape.h), baked: its members by name
     * (spec->nr) or all at once (spec->shape) */
    union {
        problem_shape shape;
        struct {
            PROBLEM_SHAPE_MEMBERS
        };
    };
    double dr, dz, da; /* grid steps, baked */
    /* a batch kernel: the photons of several runs of this shape in one launch,
     * each with its run's layer table and tallies (templates/batch.cu); its
     * layer tables are in shared memory, and with a tile (knobs.tile_nr and
     * tile_nz: at most these extents) each run has an A_rz tile there, fitted
     * per launch (templates/batch_tiles.cu, spec_for_batch) */
    bool batch;
    /* variant knobs (gen/knob.h: one table declares them) */
    kernel_knobs knobs;
    /* only with SPEC_LAYERS_IMMEDIATE: the values baked in */
    spec_layer layers[SPEC_MAX_LAYERS + 2];
    /* target */
    int arch; /* compute capability * 10, e.g. 90 for sm_90 */
    /* the tuner's pilot: A_rz counts deposit events (1 per drop) instead of
     * weight, to find the high-fluence region */
    bool count_deposits;
    /* test-only: index A_rz out of bounds on purpose (error-path tests) */
    bool debug_out_of_bounds;
    /* test-only: one extra unit in every escape, a wrong kernel that the
     * tuner's bit-identity gate must reject */
    bool debug_bias;
} kernel_spec;

/* Neutral defaults of the variant knobs: no tile (0x0), 64-bit entries,
 * block 256, no min_blocks_per_sm, layers in constant memory, sm_90, A_rz
 * scored.  The problem fields (num_layers, grid) are zero: the caller sets
 * them.  (Choosing good knobs for a problem, when no profile applies, is the
 * tuner's documented heuristic, not this function's.) */
void spec_init(kernel_spec *spec);

/* The batch kernel of spec's variant: batch set, the layer tables in shared
 * memory, no clusters; spec's tile (when absorption is scored) becomes the
 * largest tile each run may have, within the grid, of 32-bit entries, and
 * tile 0x0 none.  With a tile, edge_cache gives each run's tile its edge
 * bins where the launch has room (without a tile it is off).  Block size,
 * launch bounds and the register cache of the last bin are spec's. */
void spec_for_batch(kernel_spec *spec);

/* The kernel of spec's variant that scores num_sets absorption sets (0:
 * none): their escapes, Rd_ra and Tt_ra each (sets_2d), and with paths
 * their escapes' partial path lengths (Rd_path, Tt_path), in a run's own
 * kernel without absorption (spec_validate says so otherwise). */
void spec_for_sets(kernel_spec *spec, sets_scoring sets);

/* Checks ranges and consistency (tile within grid and shared-memory budget
 * given, block size multiple of 32, ...).  shared_bytes_max: the device's
 * opt-in shared memory per block (0: unknown, not checked).  The message
 * names the field and its value ("block_size 100: must be a multiple of 32
 * in 32..1024"). */
bool spec_validate(const kernel_spec *spec, size_t shared_bytes_max, tm_error *err);

/* Shared memory a kernel of this spec needs, in bytes: the dynamic part
 * below and the static part (for SPEC_LAYERS_SHARED, the layer table:
 * num_layers + 2 entries of layer_t, 48 bytes each, layer_record.h).  A
 * batch kernel's tables are dynamic, sized per launch (spec_batch_bytes). */
size_t spec_shared_bytes(const kernel_spec *spec);
size_t spec_static_shared_bytes(const kernel_spec *spec);

/* The largest block, a multiple of 32 threads and at most spec's, at which
 * spec's kernel needs at most shared_bytes_max bytes of shared memory
 * (spec_shared_bytes); 0 when not even a block of 32 does.  Only the
 * absorption sets' kernel grows with its block: a row of 4-byte words per
 * thread for each layer's path, its waiting escape and, with sets_absorb,
 * each set's deposit residue (templates/sets.cu). */
int spec_largest_fitting_block(const kernel_spec *spec, size_t shared_bytes_max);

/* The dynamic part (the launch's argument), when absorption is scored: the
 * block's tile slots (spec_tile_slots, entries of entry_bits) and the last
 * row and column of A_rz, nr + nz - 1 entries (templates/score.cu); with
 * absorption sets, the sets' extra mua and each thread's path per layer
 * (templates/sets.cu). */
size_t spec_dynamic_shared_bytes(const kernel_spec *spec);

/* With optics sets that change g, the word of the sets' table where each
 * layer's sets' pairs (-2 g_k, 1 + g_k^2) start (templates/sets.cu, one
 * 8-byte load a set a deflection): after the extra mut, sets_absorb's table
 * and the interactions' logarithms, padded to an even word. */
size_t spec_sets_g_pairs_at(const kernel_spec *spec);
/* A batch launch's dynamic shared memory: the layer tables of its slots
 * runs and the records of its parts (templates/batch.cu). */
size_t spec_batch_bytes(const kernel_spec *spec, int slots, int parts);
#define SPEC_BATCH_PART_BYTES      32
/* With run tiles: each slot's end (8 bytes) and its live, pending and lock
 * words (4 each), before the tiles themselves (templates/batch_tiles.cu). */
#define SPEC_BATCH_SLOT_WORD_BYTES 20
/* Whether a batch kernel of spec keeps a tile a run (absorption scored, a
 * tile of both extents). */
bool spec_batch_tiled(const kernel_spec *spec);
/* The most a batch launch's tables may take of a block's shared memory: the
 * block's share of an SM (shared_per_sm) at full thread occupancy
 * (max_threads_per_sm), less what the system reserves for each block, so
 * that the tables never cost the variant its resident blocks. */
size_t spec_batch_budget(const kernel_spec *spec, size_t shared_per_sm, int max_threads_per_sm);
/* Shared memory the driver reserves for each resident block (1 KB on sm_80
 * and later: CUDA C++ Programming Guide, "Shared Memory" of the compute
 * capabilities). */
#define SPEC_RESERVED_SHARED_PER_BLOCK 1024

/* Shared-memory entries of the A_rz tile in each block: the whole tile, or
 * a 1/cluster_size share of it when a cluster holds it (rounded up). */
size_t spec_tile_slots(const kernel_spec *spec);
/* Blocks per cluster of the kernel's launches: cluster_size when a cluster
 * holds the tile, else 1 (the grid must be a multiple of it). */
int spec_cluster_blocks(const kernel_spec *spec);

/* Canonical text key: every field that changes the generated source, in a
 * fixed order ("L7 grid=500x200x30 dr=0.01 dz=0.002 da=... A=1 tile=48x128
 * entry_bits=64 block_size=256 min_blocks_per_sm=0 layer_placement=constant
 * last_bin_cache=off edge_cache=on sm_90 oob=0", the knobs in table order, then the values
 * of immediate layers); equal keys <=> equal sources.  Doubles are written
 * exactly: %.17g, or %.15g / %.16g when that reads back as the same double
 * ("0.01").  Whole, whatever its length: malloc'd, the caller frees it;
 * NULL only when out of memory. */
char *spec_key(const kernel_spec *spec);

#endif
