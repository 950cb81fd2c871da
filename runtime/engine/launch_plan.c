/* A kernel's launch: grid, block, shared memory and a batch's run tiles
 * (launch_plan.h). */
#include "launch_plan.h"

#include <math.h>
#include <stdint.h>

/* Room for the batch kernel's few static words (templates/batch_tiles.cu). */
#define BATCH_STATIC_SHARED 256
/* Fewer bins a run than this: no tiles (their bookkeeping would cost more
 * than they keep from global memory). */
#define BATCH_TILE_MIN_BINS 16

/* The largest tile of `bins` bins within the caps, as square as they let it. */
static void batch_tile_fit(size_t bins, unsigned cap_nr, unsigned cap_nz, unsigned *nr,
                           unsigned *nz)
{
    unsigned r = (unsigned)sqrt((double)bins);
    r = r < 1 ? 1 : r > cap_nr ? cap_nr : r;
    size_t z = bins / r;
    *nz = z > cap_nz ? cap_nz : (unsigned)z;
    size_t rows = *nz ? bins / *nz : 0;
    *nr = rows > cap_nr ? cap_nr : (unsigned)rows;
}

void launch_tiles_fit(size_t entries, const kernel_spec *spec, gpu_run_tiles *tiles)
{
    *tiles = (gpu_run_tiles){0};
    unsigned cap_nr = (unsigned)spec->knobs.tile_nr, cap_nz = (unsigned)spec->knobs.tile_nz;
    size_t grid = (size_t)spec->nr * (size_t)spec->nz;
    if (cap_nr >= (unsigned)spec->nr && cap_nz >= (unsigned)spec->nz && entries >= grid) {
        tiles->nr = (unsigned)spec->nr; /* the whole grid, its edge bins in it */
        tiles->nz = (unsigned)spec->nz;
        return;
    }
    size_t edges = spec->knobs.edge_cache ? (size_t)spec->nr + (size_t)spec->nz - 1 : 0;
    if (entries < edges)
        edges = 0;
    batch_tile_fit(entries - edges, cap_nr, cap_nz, &tiles->nr, &tiles->nz);
    if ((size_t)tiles->nr * tiles->nz < BATCH_TILE_MIN_BINS)
        tiles->nr = tiles->nz = 0;
    tiles->edge_bins = (unsigned)edges;
}

/* A batch kernel's run tiles (templates/batch_tiles.cu): each slot's A_rz
 * tile and edge bins (launch_tiles_fit) in the shared memory the SM's
 * resident blocks leave after the tables, without costing a resident
 * block.  One kernel serves any number of runs: the extents are
 * arguments. */
static bool plan_batch_tiles(const launch_target *t, const kernel_spec *spec, const photon_batch *b,
                             int per_sm, launch_plan *plan, tm_error *err)
{
    plan->tiles = (gpu_run_tiles){0};
    if (!spec->batch || !spec_batch_tiled(spec))
        return true;
    size_t per_block = t->dev->shared_per_sm / (size_t)per_sm;
    size_t used = plan->shared + SPEC_RESERVED_SHARED_PER_BLOCK + BATCH_STATIC_SHARED;
    if (per_block > t->dev->shared_per_block_optin + SPEC_RESERVED_SHARED_PER_BLOCK)
        per_block = t->dev->shared_per_block_optin + SPEC_RESERVED_SHARED_PER_BLOCK;
    if (per_block <= used)
        return true;
    gpu_run_tiles tiles;
    launch_tiles_fit((per_block - used) / sizeof(uint32_t) / (size_t)b->slots, spec, &tiles);
    size_t entries = (size_t)tiles.nr * tiles.nz + tiles.edge_bins;
    if (entries == 0)
        return true;
    size_t shared = plan->shared + (size_t)b->slots * entries * sizeof(uint32_t);
    int with_tiles = 0;
    if (!cuda_occupancy(t->mod, t->kernel, plan->block, shared, &with_tiles, err))
        return false;
    if (with_tiles < per_sm) /* the tiles would cost a resident block: none */
        return true;
    plan->shared = shared;
    plan->tiles = tiles;
    return true;
}

bool launch_plan_make(const launch_target *t, const kernel_spec *spec, const photon_batch *b,
                      unsigned grid, gpu_stats *stats, launch_plan *plan, tm_error *err)
{
    plan->block = (unsigned)spec->knobs.block_size;
    /* Dynamic shared memory: the tile and the edge bins (the shared layer
     * table is static), or a batch's tables. */
    plan->shared =
        spec->batch ? spec_batch_bytes(spec, b->slots, b->count) : spec_dynamic_shared_bytes(spec);
    int per_sm = 0;
    if (!cuda_occupancy(t->mod, t->kernel, plan->block, plan->shared, &per_sm, err))
        return false;
    if (per_sm < 1) {
        error_set(err, NULL, 0,
                  "kernel %s cannot run on %s: no block of %u threads with %zu bytes "
                  "of shared memory fits on an SM",
                  t->key, t->dev->name, plan->block, plan->shared);
        return false;
    }
    /* The blocks launched per SM (knob launch_blocks_per_sm): at most those
     * that fit.  A batch kernel launches all (spec_for_batch). */
    int launched = spec->knobs.launch_blocks_per_sm;
    if (launched > 0 && launched < per_sm)
        per_sm = launched;
    if (!plan_batch_tiles(t, spec, b, per_sm, plan, err))
        return false;
    /* A clustered kernel (__cluster_dims__) runs whole clusters: the grid is
     * a multiple of the cluster size. */
    unsigned cluster = (unsigned)spec_cluster_blocks(spec);
    if (grid)
        plan->grid = (grid + cluster - 1) / cluster * cluster;
    else
        plan->grid = (unsigned)(per_sm * t->dev->sm_count) / cluster * cluster;
    if (plan->grid < cluster)
        plan->grid = cluster;
    stats->grid = plan->grid;
    stats->block = plan->block;
    stats->blocks_per_sm = per_sm;
    stats->tiles = plan->tiles;
    return true;
}
