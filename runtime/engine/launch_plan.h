/* How a kernel is launched: its grid, its block and its dynamic shared
 * memory, and for a batch kernel the run tiles that memory holds
 * (templates/batch_tiles.cu).  The GPU engine (gpu.c) plans each module's
 * launches here once it is loaded. */
#ifndef TMCML_LAUNCH_PLAN_H
#define TMCML_LAUNCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "batch.h"
#include "cuda_driver.h"
#include "error.h"
#include "gpu.h"
#include "spec.h"

typedef struct launch_plan {
    unsigned grid, block;
    size_t shared;
    gpu_run_tiles tiles; /* a batch's run tiles (plan_batch_tiles) */
} launch_plan;

/* The loaded kernel a plan is for: its device, module and name, and its
 * spec key (for messages). */
typedef struct launch_target {
    const cuda_device_info *dev;
    cuda_module *mod;
    const char *kernel, *key;
} launch_target;

/* The tiles that `entries` entries a run hold, for a batch spec with a tile
 * (its caps): the whole grid when the caps allow it and it fits (its edge
 * bins are in it); else, with edge_cache, the edge bins first (the hottest
 * bins outside a small tile, where every deposit beyond the grid lands),
 * then the largest tile of the rest within the caps, as square as they let
 * it, or none under 16 bins.  Measured on an H100 (docs/batches.md). */
void launch_tiles_fit(size_t entries, const kernel_spec *spec, gpu_run_tiles *tiles);

/* The launch of t's kernel (of spec) for batch b: blocks of spec's size, as
 * many as the SMs hold at once (or `grid`, when not 0, rounded up to whole
 * clusters), the dynamic shared memory its tiles or tables need, and a
 * batch's run tiles; the grid, block, residency and tiles also go to
 * *stats.  False with *err when no block fits on an SM. */
bool launch_plan_make(const launch_target *t, const kernel_spec *spec, const photon_batch *b,
                      unsigned grid, gpu_stats *stats, launch_plan *plan, tm_error *err);

#endif
