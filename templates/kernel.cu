// tmcml kernel: MCML 1.2.2 photon transport, one photon per thread at a time.
//
// Persistent threads take photon indices from a global counter, a warp at a
// time; photon i always draws from random stream (seed, i), so the integer
// tallies do not depend on which thread, block or launch simulates it.
#include "rng_mwc.h"
#include "fixed_point.h"


% include("layers.cu")
% if spec.batch then

% include("batch.cu")
% end

% include("photon.cu")

% include("score.cu")
% if spec.batch and spec.score_absorption and spec.tile_nr > 0 then

% include("batch_tiles.cu")
% end

% include("boundary.cu")

% include("step.cu")

// ---- the kernel --------------------------------------------------------------
% if spec.batch then
// Simulates indices [first, first + count) of the batch; *next counts the
// indices handed out so far, slot_done[s] the photons of slot s ended with
// their deposits in global memory (all zero before the launch).  With run
// tiles, tile_nr x tile_nz is each run's tile in this launch and edge_bins
// its edge bins (batch_tiles.cu).
% else
// Simulates photons [first, first + count) of the run; *next counts the indices
// handed out so far (zero before the launch).
% end
% local clustered = spec.score_absorption and spec.tile_nr > 0 and spec.cluster_size > 1
% local run_tiles = spec.batch and spec.score_absorption and spec.tile_nr > 0  -- batch_tiles.cu
% local cluster_dims = clustered and ("__cluster_dims__(" .. spec.cluster_size .. ", 1, 1) ") or ""
% if spec.min_blocks_per_sm > 0 then
extern "C" __global__ void {{cluster_dims}}__launch_bounds__({{spec.block_size}}, {{spec.min_blocks_per_sm}})
% else
extern "C" __global__ void {{cluster_dims}}__launch_bounds__({{spec.block_size}})
% end
% -- The parameters: the rows of gen/kernel_param.c that this kernel takes,
% -- in their order (the GPU engine passes the same rows' values).
% local params = {}
% for i = 1, #spec.params do
%   local p = spec.params[i]
%   local gap = i == 1 and "" or p.new_line and ",\n             " or ", "
%   params[i] = gap .. p.type .. (p.type:sub(-1) == "*" and "" or " ") .. p.name
% end
tmcml_kernel({{table.concat(params)}})
% if spec.batch then
{
    // The batch's tables in the block's shared memory (batch_shared): every
    // slot's layer table, then the parts.
    layer_t *tables = (layer_t *)batch_shared;
    for (unsigned int i = threadIdx.x; i < num_slots * (NUM_LAYERS + 2); i += blockDim.x)
        tables[i] = batch_layers[i];
    for (unsigned int i = threadIdx.x; i < num_parts; i += blockDim.x)
        batch_parts(num_slots)[i] = parts_in[i];
%   if spec.score_absorption then
    unsigned int slot = 0u;     // the run of this thread's photon (RUN_SLOT)
%   end
%   if run_tiles then
    batch_tiles_zero(num_slots, num_parts, tile_nr, tile_nz, edge_bins);
    __syncthreads();
    batch_slot_ends(num_slots, num_parts, first, count);
    unsigned int tile_sh = 0u;  // the tile of the photon's run (batch_tile_of)
%   else
    unsigned int tile_sh = 0u;  // no tile
%   end
    __syncthreads();
% else
{
    // Steps of the block's ended photons (one global atomic per block).
    __shared__ unsigned long long block_steps;
    if (threadIdx.x == 0)
        block_steps = 0ull;
%   if spec.score_absorption then
    extern __shared__ tile_entry_t tile[];  // the block's A_rz tile slots, then the edge bins
    // tile[0]'s shared-memory address, opaque to the compiler (score.cu)
    unsigned int tile_sh = (unsigned int)__cvta_generic_to_shared(tile);
    asm volatile("" : "+r"(tile_sh));
    for (int t = threadIdx.x; t < TILE_SLOTS + EDGE_BINS; t += blockDim.x)
        tile[t] = 0;
%   else
    unsigned int tile_sh = 0u;
%   end
%   if spec.num_sets > 0 then
    sets_setup(set_extra);
%   end
%   if spec.time_bins or spec.fiber or spec.mod > 0 then
    timed_setup(rd_rt, tt_rt, rd_fiber, time_n, inv_c_dt, nt, fiber_sep, fiber_radius,
                fiber_cos_accept);
%   end
%   if spec.fx > 0 then
    fx_setup(fx_omega);
%   end
%   if spec.mod > 0 then
    mod_setup(rd_mod);
%   end
%   if spec.xy > 0 then
    xy_setup(rd_xy, tt_xy, a_xz, xy_inv_dx);
%   end
    LAYERS_SETUP();
%   if clustered then
    cluster_sync();  // every share of the tile zeroed (and this block's layers set up)
%   else
    __syncthreads();
%   end
% end

% -- where the loop scores: the kernel's tallies, or those of the photon's run
% local tallies = spec.batch and "RUN_TALLIES" or "TALLY_PASS"
% local counts = spec.batch and "RUN_COUNTS" or "counts"
    photon_t p;
% if spec.batch then
    p.layer_table = batch_table_of(0u);  // each photon's run's table, from its launch on
% else
    p.layer_table = layers_base();
% end
    p.w = 0.0f;  // no photon yet (and none trapped: count_if_trapped)
% if spec.last_bin_cache and spec.score_absorption then
    p.cached_bin = -1;
    p.cached_units = 0u;
% end
    // Steps of this thread's photon: the guard against photons that never end
    // (stop_trapped), then the block's count.  max_steps < 2^32.
    unsigned int photon_steps = 0u;
    const unsigned int lane = threadIdx.x & 31u;
% if spec.num_sets > 0 then
    unsigned int sets_clock = 0u;  // loop iterations, for the sets' scoring
% end
% local fx = spec.fx > 0 and spec.num_sets == 0 and not spec.batch  -- fx.cu
% if fx then
    unsigned int fx_clock = 0u;  // loop iterations, for the spatial frequencies' scoring
% end
% -- the sets' tallies besides Rd_ra and Tt_ra (sets.cu, sets_score_waiting)
% local sets_tallies = (spec.sets_paths and ", rd_path, tt_path" or "") ..
%     (spec.sets_jacobian and ", rd_jr, rd_ja, tt_jr, tt_ja" or "") ..
%     (spec.sets_optics > 0 and ", set_w" or "") ..
%     (spec.sets_jacobian and spec.time_bins and ", rd_jt, tt_jt" or "") ..
%     (spec.sets_jacobian and spec.fiber and ", rd_jf" or "")
    for (;;) {
% if spec.num_sets > 0 then
        if ((++sets_clock & (SETS_SCORE_PERIOD - 1u)) == 0u)
            sets_score_waiting(rd_ra, tt_ra{{sets_tallies}});
% end
% if fx then
        if ((++fx_clock & (FX_SCORE_PERIOD - 1u)) == 0u)
            fx_score_waiting();
% end
        // One test a step for everything rare between steps: a weight below
        // MCML's threshold (roulette), the step limit, an ended photon.  (As
        // separate tests the compiler predicated the roulette into every
        // step.)
        if (!(p.w >= WEIGHT_THRESHOLD) || photon_steps >= max_steps) {
            end_of_step(p, photon_steps, max_steps);
            if (!photon_alive(p)) {
% if spec.num_sets > 0 then
                if (sets_waiting())
                    continue;  // its escape is scored first (sets_score_waiting)
% end
% if fx then
                if (fx_is_waiting())
                    continue;  // its escape is scored first (fx_score_waiting)
% end
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
                flush_cached_bin(p, {{tallies}});
                count_if_trapped(p, {{counts}});
                if (photon_steps != 0u) {
% if run_tiles then
                    atomicAdd(&RUN_COUNTS[COUNT_STEPS], (unsigned long long)photon_steps);  // its run's
                    // Its deposits may be in its run's tile: counted in
                    // slot_done when the tile is flushed (batch_tiles.cu).
                    batch_tile_photon_ended(num_slots, num_parts, slot, first, next, a_rz_all,
                                            slot_done);
% elseif spec.batch then
                    atomicAdd(&RUN_COUNTS[COUNT_STEPS], (unsigned long long)photon_steps);  // its run's
                    // Every deposit of the photon is in global memory (no run
                    // tiles in shared memory): one more photon of
                    // its run done, for the host to take a finished run's
                    // tallies while the launch goes on (gpu.c, early_slots).
                    __threadfence();
                    atomicAdd(&slot_done[RUN_SLOT], 1ull);
% else
                    atomicAdd(&block_steps, (unsigned long long)photon_steps);
% end
                    photon_steps = 0u;
                }
                if (i >= count)
                    break;
% if spec.batch then
                // The photon's part of the batch: its run's tallies, table,
                // start weight, and its index in the run (its random stream).
                unsigned long long g = first + i;
                const batch_part_t *parts = batch_parts(num_slots);
                unsigned int k = batch_part_of(parts, num_parts, g);
                batch_part_t part = parts[k];
%   if spec.score_absorption then
                slot = part.slot;
%   end
%   if run_tiles then
                tile_sh = batch_tile_of(num_slots, num_parts, slot);
                batch_tile_launch(num_slots, num_parts, k, g, a_rz_all, slot_done);
%   end
                p.layer_table = batch_table_of(part.slot);
                photon_launch(p, part.base + g, seed, part.start_weight, part.first_layer,
                              multipliers);
% else
                photon_launch(p, first + i, seed, start_weight, first_layer, multipliers);
%   if spec.num_sets > 0 and spec.source_name == "fiber" then
                sets_launch(first_layer, p);
%   elseif spec.num_sets > 0 then
                sets_launch(first_layer);
%   end
%   if spec.sets_absorb then
                sets_launch_residues();
%   end
%   if spec.sets_jacobian or spec.sets_optics > 0 then
                sets_launch_counts();
%   end
%   if spec.time_bins or spec.mod > 0 then
                p.flight = time_start;  // the glass layers above first_layer, crossed straight down
%   end
% end
            }
        }
        photon_step(p, {{tallies}});
        ++photon_steps;
    }
% if run_tiles then

    // The runs' tiles into the global tallies, then their photons counted.
    __syncthreads();
    batch_tiles_end(num_slots, num_parts, a_rz_all, slot_done);
% end
% if not spec.batch then

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
% if spec.fx > 0 then
    fx_flush(rd_fx, tt_fx);  // the block's sums at the spatial frequencies
% end
% end
}
