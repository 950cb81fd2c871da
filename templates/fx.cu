// ---- spatial frequencies (docs/physics.md, "Spatial frequencies") -----------
// Each escape adds w J0(2 pi fx rho) at the run's {{spec.fx}} frequencies,
// rho its distance from the axis, rounded by its magnitude into the tally
// units of its sign (the host takes the positive part less the negative on
// the integers): the escapes of every block add into its own sums in
// shared memory, one word a side, sign and frequency, which go into the
// global tallies once, at the block's end.  Every frequency's sums are
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

// The kernel's start: no escape yet (the barrier after the layers' setup
// orders the zeros and the frequencies before any photon).
__device__ __forceinline__ void fx_setup(const float *fx_omega)
{
    for (int t = threadIdx.x; t < 4 * FX_COUNT; t += blockDim.x)
        fx_sums[t] = 0ull;
    for (int t = threadIdx.x; t < FX_COUNT; t += blockDim.x)
        fx_omega_sh[t] = fx_omega[t];
}

// An escape of weight w at radius r through the top (top true) or the
// bottom.  J0(0) is 1 exactly, so at fx = 0 the escape adds the units it
// adds to Rd_ra or Tt_ra, and Rd_fx[0] is Rd bit for bit.
__device__ __forceinline__ void fx_escape(float w, float r, bool top)
{
    unsigned long long *sums = fx_sums + (top ? 0 : 2 * FX_COUNT);
    for (int f = 0; f < FX_COUNT; f++) {
        float score = __fmul_rn(w, j0f(__fmul_rn(fx_omega_sh[f], r)));
        unsigned long long units = fixed_point_from_weight_f(fabsf(score));
        if (units != 0ull)
            atomicAdd(&sums[(score < 0.0f ? FX_COUNT : 0) + f], units);
    }
}

// The block's end (after its barrier): its sums into the run's tallies,
// Rd_fx's and Tt_fx's [sign][frequency].
__device__ __forceinline__ void fx_flush(unsigned long long *rd_fx, unsigned long long *tt_fx)
{
    for (int t = threadIdx.x; t < 4 * FX_COUNT; t += blockDim.x)
        if (fx_sums[t] != 0ull)
            atomicAdd(t < 2 * FX_COUNT ? &rd_fx[t] : &tt_fx[t - 2 * FX_COUNT], fx_sums[t]);
}
