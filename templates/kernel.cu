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
% if spec.min_blocks_per_sm > 0 then
extern "C" __global__ void __launch_bounds__({{spec.block_size}}, {{spec.min_blocks_per_sm}})
% else
extern "C" __global__ void __launch_bounds__({{spec.block_size}})
% end
tmcml_kernel(unsigned long long first, unsigned long long count, unsigned long long seed,
             float start_weight, int first_layer, const unsigned int *multipliers,
             unsigned long long *next, unsigned long long *a_rz, unsigned long long *rd_ra,
             unsigned long long *tt_ra, unsigned long long *steps)
{
% if spec.score_absorption then
    extern __shared__ tile_entry_t tile[];  // the A_rz tile, then the edge bins
    for (int t = threadIdx.x; t < TILE_NR * TILE_NZ + EDGE_BINS; t += blockDim.x)
        tile[t] = 0;
% else
    tile_entry_t *tile = 0;
% end
    LAYERS_SETUP();
    __syncthreads();

    photon_t p;
    p.alive = false;
% if spec.last_bin_cache and spec.score_absorption then
    p.cached_bin = -1;
    p.cached_units = 0ull;
% end
    // Steps of this thread's photons, for steps/s figures only: 32 bits keep
    // the loop at the 32-register launch bound; they go to the global count
    // whenever a photon ends with the top bit set (no photon takes 2^31 steps).
    unsigned int my_steps = 0u;
    const unsigned int lane = threadIdx.x & 31u;
    for (;;) {
        // Lanes whose photon ended take the next indices: one atomic per warp.
        unsigned int active = __activemask();
        unsigned int needy = __ballot_sync(active, !p.alive);
        if (needy) {
            int leader = __ffs(needy) - 1;
            unsigned long long base = 0;
            if ((int)lane == leader)
                base = atomicAdd(next, (unsigned long long)__popc(needy));
            base = __shfl_sync(active, base, leader);
            if (!p.alive) {
                flush_cached_bin(p, TALLY_PASS);
                if (my_steps >= 0x80000000u) {
                    atomicAdd(steps, (unsigned long long)my_steps);
                    my_steps = 0u;
                }
                unsigned long long i = base + __popc(needy & ((1u << lane) - 1u));
                if (i >= count)
                    break;
                photon_launch(p, first + i, seed, start_weight, first_layer, multipliers);
            }
        }
        photon_step(p, TALLY_PASS);
        my_steps++;
    }
% if spec.score_absorption then

    // The block's cached bins go into the global tally.
    __syncthreads();
    for (int t = threadIdx.x; t < TILE_NR * TILE_NZ + EDGE_BINS; t += blockDim.x)
        if (tile[t])
            atomicAdd(&a_rz[slot_bin(t)], (unsigned long long)tile[t]);
% end
    atomicAdd(steps, (unsigned long long)my_steps);
}
