// tmcml kernel: MCML 1.2.2 photon transport, one photon per thread at a time.
//
// Persistent threads take photon indices from a global counter, a warp at a
// time; photon i always draws from random stream (seed, i), so the integer
// tallies do not depend on which thread, block or launch simulates it.
#include "rng_mwc.h"
#include "fixed_point.h"


% include("layers.cu")

% include("photon.cu")

% include("score.cu")

% include("boundary.cu")

% include("step.cu")

// ---- the kernel --------------------------------------------------------------
// Simulates photons [first, first + count) of the run; *next counts the indices
// handed out so far (zero before the launch).
% local clustered = spec.score_absorption and spec.tile_nr > 0 and spec.cluster_size > 1
% local cluster_dims = clustered and ("__cluster_dims__(" .. spec.cluster_size .. ", 1, 1) ") or ""
% if spec.min_blocks_per_sm > 0 then
extern "C" __global__ void {{cluster_dims}}__launch_bounds__({{spec.block_size}}, {{spec.min_blocks_per_sm}})
% else
extern "C" __global__ void {{cluster_dims}}__launch_bounds__({{spec.block_size}})
% end
tmcml_kernel(unsigned long long first, unsigned long long count, unsigned long long seed,
             float start_weight, int first_layer, unsigned int max_steps,
             const unsigned int *multipliers, unsigned long long *next,
             const unsigned int *stop,
             unsigned long long *a_rz, unsigned long long *rd_ra, unsigned long long *tt_ra,
             unsigned long long *counts)
{
    // Steps of the block's ended photons (one global atomic per block).
    __shared__ unsigned long long block_steps;
    if (threadIdx.x == 0)
        block_steps = 0ull;
% if spec.score_absorption then
    extern __shared__ tile_entry_t tile[];  // the block's A_rz tile slots, then the edge bins
    // tile[0]'s shared-memory address, opaque to the compiler (score.cu)
    unsigned int tile_sh = (unsigned int)__cvta_generic_to_shared(tile);
    asm volatile("" : "+r"(tile_sh));
    for (int t = threadIdx.x; t < TILE_SLOTS + EDGE_BINS; t += blockDim.x)
        tile[t] = 0;
% else
    unsigned int tile_sh = 0u;
% end
    LAYERS_SETUP();
% if clustered then
    cluster_sync();  // every share of the tile zeroed (and this block's layers set up)
% else
    __syncthreads();
% end

    photon_t p;
    p.layer_table = layers_base();
    p.w = 0.0f;  // no photon yet (and none trapped: count_if_trapped)
% if spec.last_bin_cache and spec.score_absorption then
    p.cached_bin = -1;
    p.cached_units = 0u;
% end
    // Steps of this thread's photon: the guard against photons that never end
    // (stop_trapped), then the block's count.  max_steps < 2^32.
    unsigned int photon_steps = 0u;
    const unsigned int lane = threadIdx.x & 31u;
    for (;;) {
        // One test a step for everything rare between steps: a weight below
        // MCML's threshold (roulette), the step limit, an ended photon.  (As
        // separate tests the compiler predicated the roulette into every
        // step.)
        if (!(p.w >= WEIGHT_THRESHOLD) || photon_steps >= max_steps) {
            end_of_step(p, photon_steps, max_steps);
            if (!photon_alive(p)) {
                // The lanes whose photon ended, together here, take consecutive
                // indices with one atomic.  The test costs the step loop one
                // predicate; a warp-wide ballot every step cost it six
                // instructions and a reconvergence.
                unsigned int group = __activemask();
                int leader = __ffs(group) - 1;
                // Once the host sets *stop (a checkpoint), no index is handed out
                // any more; every index handed out is simulated, so the photons
                // done are [0, *next) of the launch.
                unsigned long long base = 0;
                if ((int)lane == leader)
                    base = *(const volatile unsigned int *)stop
                               ? count
                               : atomicAdd(next, (unsigned long long)__popc(group));
                base = __shfl_sync(group, base, leader);
                unsigned long long i = base + __popc(group & ((1u << lane) - 1u));
                flush_cached_bin(p, TALLY_PASS);
                count_if_trapped(p, counts);
                if (photon_steps != 0u) {
                    atomicAdd(&block_steps, (unsigned long long)photon_steps);
                    photon_steps = 0u;
                }
                if (i >= count)
                    break;
                photon_launch(p, first + i, seed, start_weight, first_layer, multipliers);
            }
        }
        photon_step(p, TALLY_PASS);
        ++photon_steps;
    }

    // The block's cached bins and step count go into the global tallies.
% if clustered then
    cluster_sync();  // no deposit is still on its way to this block's share
% else
    __syncthreads();
% end
% if spec.score_absorption then
    const unsigned int rank = cluster_rank();
    for (int t = threadIdx.x; t < TILE_SLOTS + EDGE_BINS; t += blockDim.x) {
        long long bin = slot_bin(t, rank);
        if (tile[t] && bin >= 0)
            atomicAdd(&a_rz[bin], (unsigned long long)tile[t]);
    }
% end
    if (threadIdx.x == 0)
        atomicAdd(&counts[COUNT_STEPS], block_steps);
}
