// ---- spatial frequencies (docs/physics.md, "Spatial frequencies") -----------
// Each escape adds w J0(2 pi fx rho) at the run's {{spec.fx}} frequencies,
// rho its distance from the axis, rounded by its magnitude into the tally
// units of its sign (the host takes the positive part less the negative on
// the integers): the escapes of every block add into its own sums in
// shared memory, one word a side, sign and frequency, which go into the
// global tallies once, at the block's end; the lanes of a warp score its
// escapes together (fx_score_waiting).  Every frequency's sums are
// integers, so the order of the additions changes nothing; one global
// atomic a word a block instead of one a frequency an escape, which all
// went to the same few words.
#define FX_COUNT {{spec.fx}}
// [side][sign][frequency]: side 0 the top (Rd_fx), 1 the bottom (Tt_fx);
// sign 0 the positive part, 1 the negative (output_fx_part's order).
__shared__ unsigned long long fx_sums[2 * 2 * FX_COUNT];
// 2 pi fx_f (1/cm): the host's float of the double product, the kernel's
// argument fx_omega copied once a block.
__shared__ float fx_omega_sh[FX_COUNT];

// An escape waits in its lane's word until the lanes of its warp score it
// together (fx_score_waiting), each taking some of the frequencies: one
// lane working through every frequency with the other 31 idle made 32
// frequencies of skin cost 1.48 times the plain run on an H200.  Its lane
// takes no new photon meanwhile, at most FX_SCORE_PERIOD loop iterations (a
// power of 2).  (w signed by the side, + the top and - the bottom, 0 for
// none; r.)
#define FX_SCORE_PERIOD 16u
__shared__ float2 fx_waiting[{{spec.block_size}}];

// The kernel's start: no escape yet (the barrier after the layers' setup
// orders the zeros and the frequencies before any photon).
__device__ __forceinline__ void fx_setup(const float *fx_omega)
{
    for (int t = threadIdx.x; t < 4 * FX_COUNT; t += blockDim.x)
        fx_sums[t] = 0ull;
    for (int t = threadIdx.x; t < FX_COUNT; t += blockDim.x)
        fx_omega_sh[t] = fx_omega[t];
    fx_waiting[threadIdx.x] = make_float2(0.0f, 0.0f);
}

__device__ __forceinline__ void fx_escape(float w, float r, bool top)
{
    fx_waiting[threadIdx.x] = make_float2(top ? w : -w, r);
}

// Whether this thread's escape still waits to be scored.
__device__ __forceinline__ bool fx_is_waiting() { return fx_waiting[threadIdx.x].x != 0.0f; }

// Escape t's term at frequency f, by whichever lane: |J0| <= 1, and CUDA's
// j0f(0) is 1 + 2^-23, so the clamp makes J0(0) exactly 1 and frequency 0
// add the units the escape added to Rd_ra or Tt_ra (Rd_fx[0] is Rd bit for
// bit).
__device__ __forceinline__ void fx_score_one(float2 e, int f)
{
    float w = fabsf(e.x);
    float score = __fmul_rn(w, fminf(j0f(__fmul_rn(fx_omega_sh[f], e.y)), 1.0f));
    unsigned long long units = fixed_point_from_weight_f(fabsf(score));
    if (units != 0ull)
        atomicAdd(&fx_sums[(e.x > 0.0f ? 0 : 2 * FX_COUNT) + (score < 0.0f ? FX_COUNT : 0) + f],
                  units);
}

// The waiting escapes of the lanes here together, lane r of n taking
// frequencies r, r + n, ...: every escape's units are the same whoever
// adds them.
__device__ __forceinline__ void fx_score_waiting()
{
    unsigned int group = __activemask();
    unsigned int lane = threadIdx.x & 31u, warp_first = threadIdx.x & ~31u;
    __syncwarp(group);  // each waiting lane's escape, written before, seen by all
    unsigned int waiting = __ballot_sync(group, fx_is_waiting());
    if (waiting == 0u)
        return;
    int n = __popc(group), rank = __popc(group & ((1u << lane) - 1u));
    for (unsigned int left = waiting; left != 0u; left &= left - 1u) {
        float2 e = fx_waiting[warp_first + (unsigned int)(__ffs(left) - 1)];
        for (int f = rank; f < FX_COUNT; f += n)
            fx_score_one(e, f);
    }
    __syncwarp(group);  // every waiting escape read before its lane goes on
    if (waiting & (1u << lane))
        fx_waiting[threadIdx.x].x = 0.0f;
}

// The block's end (after its barrier): its sums into the run's tallies,
// Rd_fx's and Tt_fx's [sign][frequency].
__device__ __forceinline__ void fx_flush(unsigned long long *rd_fx, unsigned long long *tt_fx)
{
    for (int t = threadIdx.x; t < 4 * FX_COUNT; t += blockDim.x)
        if (fx_sums[t] != 0ull)
            atomicAdd(t < 2 * FX_COUNT ? &rd_fx[t] : &tt_fx[t - 2 * FX_COUNT], fx_sums[t]);
}
