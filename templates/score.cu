// ---- scoring: integer tallies in units of 2^-24 weight (fixed_point.h) ------
#define NR {{spec.nr}}
#define NZ {{spec.nz}}
#define NA {{spec.na}}
#define INV_DR {{f(1 / spec.dr)}}
#define INV_DZ {{f(1 / spec.dz)}}
#define INV_DA {{f(1 / spec.da)}}
% local cached = spec.score_absorption  -- shared memory holds A_rz bins
% local tiled = cached and spec.tile_nr > 0
% local edges = cached and spec.edge_cache
% if edges and spec.batch then
// The last row (ir = NR-1) and column (iz = NZ-1) of A_rz collect every
// deposit beyond the grid (MCML's clamping): few bins, hit by many photons,
// so each run keeps them in shared memory after its tile (EDGE_BINS
// entries) where the launch leaves room for them (0 otherwise:
// runtime/engine/launch_plan.c), instead of every block contending for a
// handful of global atomics.  Measured on an H100 (docs/batches.md): 8 runs of 1.25e7
// photons of lut100's first medium, whose light spreads past its 1 cm grid,
// took 4.50 s of kernel with them in global memory and 1.26 s with them
// here; lut100 0.22 s and 0.20 s.
#define EDGE_BINS ((int)batch_edge_bins())
% elseif edges then
// The last row (ir = NR-1) and column (iz = NZ-1) of A_rz collect every
// deposit beyond the grid (MCML's clamping): few bins, hit by many photons,
// so they are cached per block in shared memory too (EDGE_BINS entries after
// the tile), instead of contending for a handful of global atomics.
#define EDGE_BINS (NR + NZ - 1)
% elseif cached then
// The last row and column are not cached (edge_cache off): beyond-grid
// deposits go to global memory like any bin outside the tile.
#define EDGE_BINS 0
% end
% local clustered = tiled and spec.cluster_size > 1
% if tiled and spec.batch then
// Each run of the batch has its own tile, of the extents the host chose for
// the launch (batch.cu).
#define TILE_NR ((int)batch_tile_nr())
#define TILE_NZ ((int)batch_tile_nz())
% elseif tiled then
// A_rz[0..{{spec.tile_nr - 1}}][0..{{spec.tile_nz - 1}}] is cached in shared memory as well and
// added to the global tally when the block ends.
#define TILE_NR {{spec.tile_nr}}
#define TILE_NZ {{spec.tile_nz}}
% elseif cached then
#define TILE_NR 0
#define TILE_NZ 0
% end
% if clustered then
// The tile is held by the {{spec.cluster_size}} blocks of a thread-block cluster together, in
// distributed shared memory: tile bin t lives in block t % CLUSTER_SIZE, slot
// t / CLUSTER_SIZE (interleaved, so that the hot bins near r = 0 spread over
// the blocks), and a deposit into another block's share is an atomic on that
// block's shared memory.  The cluster holds a tile CLUSTER_SIZE times larger
// than one block could.
#define CLUSTER_SIZE {{spec.cluster_size}}
#define TILE_SLOTS ((TILE_NR * TILE_NZ + CLUSTER_SIZE - 1) / CLUSTER_SIZE)
% elseif cached then
#define CLUSTER_SIZE 1
#define TILE_SLOTS (TILE_NR * TILE_NZ)
% end
% if cached then
// Shared entries of {{spec.entry_bits}} bits.
%   if spec.entry_bits == 32 then
typedef unsigned int tile_entry_t;
%   else
typedef unsigned long long tile_entry_t;
%   end
% else
typedef unsigned long long tile_entry_t;  // -A: nothing cached, never used
% end

// counts[]: the run's scalar tallies (runtime/engine/gpu.c reads them).
#define COUNT_STEPS 0            // steps taken (for steps/s figures)
#define COUNT_TRAPPED_PHOTONS 1  // photons stopped by stop_trapped
#define COUNT_TRAPPED_UNITS 2    // their weight, in tally units

// tile_sh: the shared-memory address of the block's tile (tile[0] in
// kernel.cu), which the kernel computes once and hides from the compiler:
// rebuilt at each deposit, it cost four instructions.  Deposits reach the
// tile through it alone; only the kernel zeroes and flushes tile[].
#define TALLY_ARGS unsigned long long *a_rz, unsigned long long *rd_ra, \
                   unsigned long long *tt_ra, unsigned long long *counts, unsigned int tile_sh
#define TALLY_PASS a_rz, rd_ra, tt_ra, counts, tile_sh

// MCML's binning: floor(v / step), clamped into the last bin (the float to int
// conversion saturates, so huge distances land there too).
__device__ __forceinline__ int bin_of(float v, float inv_step, int count)
{
    return min(__float2int_rz(v * inv_step), count - 1);
}
% if cached then

// Shared-memory slot of a bin of the last row or column, or -1.
__device__ __forceinline__ int edge_slot(int ir, int iz)
{
%   if edges then
%     if spec.batch then
    if (EDGE_BINS == 0)  // no room for them in this launch
        return -1;
%     end
    if (ir == NR - 1)
        return TILE_SLOTS + iz;
    if (iz == NZ - 1)
        return TILE_SLOTS + NZ + ir;
%   else
    (void)ir; (void)iz;
%   end
    return -1;
}

// This block's rank in its cluster (0 without one).
__device__ __forceinline__ unsigned int cluster_rank()
{
%   if clustered then
    unsigned int rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
%   else
    return 0u;
%   end
}

// Global bin of this block's shared-memory slot t (its tile share, then the
// edges), or -1 for the padding slot of a tile not divisible by the cluster.
__device__ __forceinline__ long long slot_bin(int t, unsigned int rank)
{
    if (t < TILE_SLOTS) {
        int b = t * CLUSTER_SIZE + (int)rank;  // the tile bin of the slot
        if (b >= TILE_NR * TILE_NZ)
            return -1;
        return (long long)(b / TILE_NZ) * NZ + b % TILE_NZ;
    }
    t -= TILE_SLOTS;
    return t < NZ ? (long long)(NR - 1) * NZ + t : (long long)(t - NZ) * NZ + (NZ - 1);
}

// Global address of A_rz[ir][iz].
__device__ __forceinline__ unsigned long long *global_bin(unsigned long long *a_rz, int ir, int iz)
{
    return &a_rz[(size_t)ir * NZ + iz];
}

// A deposit of q units into a 32-bit entry that held `old` wrapped it past
// 2^32 units; each wrap is added to the global bin (settle_wrap), so the sum
// stays exact whatever the order of additions.
__device__ __forceinline__ bool wrapped(unsigned int old, unsigned int q)
{
    return old + q < old;
}

__device__ __forceinline__ void settle_wrap(unsigned long long *a_rz, int ir, int iz)
{
    atomicAdd(global_bin(a_rz, ir, iz), 1ull << 32);
}

// Adds q to slot t; returns the entry's value before (0 for 64-bit entries,
// which do not wrap).
__device__ __forceinline__ unsigned int tile_add(unsigned int tile_sh, int t, unsigned int q)
{
    unsigned int slot = tile_sh + (unsigned int)sizeof(tile_entry_t) * (unsigned int)t;
%   if spec.entry_bits == 32 then
    unsigned int old;
    asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(slot), "r"(q) : "memory");
    return old;
%   else
    asm volatile("red.shared.add.u64 [%0], %1;"
                 : : "r"(slot), "l"((unsigned long long)q) : "memory");
    return 0u;
%   end
}
%   if clustered then

// tile_add on slot t of the cluster's block `rank`: the slot's address in
// that block's shared memory (mapa), then an atomic there.
__device__ __forceinline__ unsigned int cluster_tile_add(unsigned int tile_sh, int t, unsigned int rank,
                                                         unsigned int q)
{
    unsigned int local = tile_sh + (unsigned int)sizeof(tile_entry_t) * (unsigned int)t;
    unsigned int remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
%     if spec.entry_bits == 32 then
    unsigned int old;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "r"(remote), "r"(q) : "memory");
    return old;
%     else
    asm volatile("red.shared::cluster.add.u64 [%0], %1;"
                 : : "r"(remote), "l"((unsigned long long)q) : "memory");
    return 0u;
%     end
}

// Every block of the cluster reaches this point before any goes on: at the
// start, no deposit lands in a share before it is zeroed; at the end, no
// share is flushed (or its block gone) while deposits may still arrive.
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" : : : "memory");
}
%   end
% end

% if spec.score_absorption then
// Adds q units to A_rz[ir][iz]: the shared tile, the shared edge bins, or
// global memory.  Returns the shared entry's value before (0 for a global
// bin), for the caller to settle a wrap: as late as it can, so that the
// atomic's round trip overlaps other work (score_absorption).
__device__ __forceinline__ unsigned int deposit_units(int ir, int iz, unsigned int q, TALLY_ARGS)
{
%   if tiled then
    if (ir < TILE_NR && iz < TILE_NZ) {
%   if clustered then
        int t = ir * TILE_NZ + iz;
        return cluster_tile_add(tile_sh, t / CLUSTER_SIZE, (unsigned int)(t % CLUSTER_SIZE), q);
%   else
        return tile_add(tile_sh, ir * TILE_NZ + iz, q);
%   end
    }
%   end
    int slot = edge_slot(ir, iz);
    if (slot >= 0)
        return tile_add(tile_sh, slot, q);
    atomicAdd(global_bin(a_rz, ir, iz), (unsigned long long)q);
    return 0u;
}

// deposit_units with its wrap settled at once.
__device__ __forceinline__ void deposit_units_now(int ir, int iz, unsigned int q, TALLY_ARGS)
{
    if (wrapped(deposit_units(ir, iz, q, TALLY_PASS), q))
        settle_wrap(a_rz, ir, iz);
}
% end
% if spec.last_bin_cache and spec.score_absorption then

// The register cache of the last bin: units are integers, so summing them
// before the atomic changes no bit of the tally, only how often it is touched.
__device__ __forceinline__ void flush_cached_bin(photon_t &p, TALLY_ARGS)
{
    if (p.cached_units != 0u)
        deposit_units_now(p.cached_bin / NZ, p.cached_bin % NZ, p.cached_units, TALLY_PASS);
    p.cached_units = 0u;
    p.cached_bin = -1;
}
% else

__device__ __forceinline__ void flush_cached_bin(photon_t &p, TALLY_ARGS)
{
    (void)p; (void)a_rz; (void)tile_sh;  // nothing cached in this variant
}
% end

// A deposit in flight: the shared entry's value before it and the units
// added.  The step settles a wrap after the spin (settle_deposit), so that
// the shared atomic's round trip overlaps the spin instead of stalling the
// warp.
struct deposit_t {
    unsigned int old, q;
};

// The A_rz bin of the photon's position (MCML's r and z binning).
__device__ __forceinline__ void absorption_bin(const photon_t &p, int *ir, int *iz)
{
    *iz = bin_of(p.z, INV_DZ, NZ);
    *ir = bin_of(sqrtf(__fmaf_rn(p.x, p.x, __fmul_rn(p.y, p.y))), INV_DR, NR);
}
% if spec.time_bins or spec.fiber or spec.mod > 0 then

% include("timed.cu")
% end
% if spec.num_sets > 0 then

% include("sets.cu")
% end
% if spec.fx > 0 then

% include("fx.cu")
% end
% if spec.xy > 0 then

% include("xy.cu")
% end

__device__ __forceinline__ deposit_t score_absorption(photon_t &p, float dw, TALLY_ARGS)
{
    deposit_t d = {0u, 0u};
% if spec.score_absorption and spec.count_deposits then
    // The tuner's pilot: one count per drop, wherever the weight goes.
    unsigned int q = 1u;
    (void)dw;
% elseif spec.score_absorption then
    // A deposit under one unit adds 0 (its weight stays in the residue).
    // A 32-bit entry takes that no-op atomic: testing for it cost the step a
    // branch and its reconvergence (~7 instructions; 2-3 % on skin and the
    // slab).  A 64-bit entry adds through a compare-and-swap loop, which
    // costs more than the test (and without it spills at 32 registers).
    unsigned int q = fixed_point_deposit_f(dw, &p.residue);
%   if spec.entry_bits == 64 then
    if (q == 0u)
        return d;
%   end
% end
% if spec.score_absorption then
    int ir, iz;
    absorption_bin(p, &ir, &iz);
%   if spec.xy > 0 and not spec.count_deposits then
    xy_deposit(p, iz, q);  // the same units in its x-z cell
%   end
%   if spec.last_bin_cache then
    int b = ir * NZ + iz;
    if (b != p.cached_bin || p.cached_units + q < p.cached_units) {  // a new bin, or a full sum
        flush_cached_bin(p, TALLY_PASS);
        p.cached_bin = b;
    }
    p.cached_units += q;
%   else
    d.old = deposit_units(ir, iz, q, TALLY_PASS);
    d.q = q;
%   end
% else
    // -A: absorption is not scored (the weight still decreases).
    (void)p; (void)dw; (void)a_rz; (void)tile_sh;
% end
    return d;
}

// A deposit that wrapped its 32-bit entry owes the global bin 2^32 units; the
// bin is found again from the position, which the spin does not change.
__device__ __forceinline__ void settle_deposit(const photon_t &p, deposit_t d, TALLY_ARGS)
{
% if spec.score_absorption and not spec.last_bin_cache then
    if (wrapped(d.old, d.q)) {
        int ir, iz;
        absorption_bin(p, &ir, &iz);
        settle_wrap(a_rz, ir, iz);
    }
% else
    (void)p; (void)d; (void)a_rz;
% end
}

// A photon that would never end - still alive after max_steps steps (a
// non-absorbing medium it cannot leave, or steps too short to move it), or
// moving parallel to a glass layer - is stopped; its weight is counted as
// trapped, so the run ends in bounded time and no weight goes unaccounted.
// Stopping only marks it (a negative weight: a live photon's is > 0); its
// weight is counted where ended photons are replaced (count_if_trapped), so
// that the atomics stay out of the step loop, which they made spill.
__device__ __forceinline__ void stop_trapped(photon_t &p)
{
    p.w = -p.w;
}

__device__ __forceinline__ void count_if_trapped(const photon_t &p, unsigned long long *counts)
{
    if (p.w < 0.0f) {
% if spec.num_sets > 0 then
        sets_trapped(-p.w, counts);
% else
        atomicAdd(&counts[COUNT_TRAPPED_PHOTONS], 1ull);
        atomicAdd(&counts[COUNT_TRAPPED_UNITS], fixed_point_from_weight_f(-p.w));
% end
    }
}

// Escape through the top (Rd) or bottom (Tt): the whole weight, at the exit
// angle outside the tissue.
__device__ __forceinline__ void score_escape(photon_t &p, unsigned long long *ra, float exit_cos)
{
% if spec.batch then
    ra += batch_slot_of(p.layer_table) * SLOT_RA;  // the photon's run's (batch.cu)
% end
% if spec.time_bins or spec.fiber or spec.fx > 0 then
    float r = sqrtf(__fmaf_rn(p.x, p.x, __fmul_rn(p.y, p.y)));
    int ir = bin_of(r, INV_DR, NR);
% else
    int ir = bin_of(sqrtf(__fmaf_rn(p.x, p.x, __fmul_rn(p.y, p.y))), INV_DR, NR);
% end
    int ia = bin_of(acosf(exit_cos), INV_DA, NA);
    size_t bin = (size_t)ir * NA + ia;
% if spec.debug_out_of_bounds then
    bin += 1ull << 40;  // test-only variant: an illegal address on purpose
% end
% if spec.num_sets > 0 then
    (void)ra;
    sets_escape(p.w, bin, p.uz > 0.0f);  // every set's, by the warp; the reference's not scored
%   if spec.time_bins or spec.fiber then
    sets_escape_timed(p, r, exit_cos);  // with its time bin and detectors' shares
%   end
% elseif spec.debug_bias then
    atomicAdd(&ra[bin], fixed_point_from_weight_f(p.w) + 1ull);  // test-only: a wrong kernel
% elseif spec.time_bins or spec.fiber or spec.xy > 0 then
    unsigned long long units = fixed_point_from_weight_f(p.w);
    atomicAdd(&ra[bin], units);
%   if spec.time_bins or spec.fiber then
    timed_escape(p, r, ir, exit_cos, units);  // the same units in its time bin
%   end
%   if spec.xy > 0 then
    xy_escape(p, units);  // and in its cell of the Cartesian grid
%   end
% else
    atomicAdd(&ra[bin], fixed_point_from_weight_f(p.w));
% end
% if spec.fx > 0 and spec.num_sets == 0 and not spec.batch then
    fx_escape(p.w, r, p.uz < 0.0f);  // its Hankel transforms' terms (fx.cu)
% end
% if spec.mod > 0 then
    mod_escape(p, ir);  // its frequency-domain terms (timed.cu)
% end
    p.w = 0.0f;  // ended
}
