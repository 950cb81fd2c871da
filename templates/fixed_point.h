/* The one fixed-point scale of every tally, in every engine and variant.
 *
 * Included unchanged by the C engines and by the generated CUDA kernels.
 * Photon weight is converted to integer units by rounding to nearest and the
 * units are added as integers, so sums do not depend on the order in which
 * threads, blocks or GPUs add them.
 *
 * 2^24 units per unit weight (GPU-MCML's scale): a 32-bit shared-memory entry
 * then holds 256 unit weights before it must be flushed, and the rounding
 * error of one deposit (at most 2^-25 weight) is far below the statistical
 * error of any bin (docs/fixed-point.md). */
#ifndef TMCML_FIXED_POINT_H
#define TMCML_FIXED_POINT_H

#define TALLY_UNITS_PER_WEIGHT_LOG2 24
#define TALLY_UNITS_PER_WEIGHT 16777216.0 /* 2^24 */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define FIXED_POINT_FN __host__ __device__ __forceinline__ static
#else
#define FIXED_POINT_FN static inline
#endif

/* Weight -> integer units, rounded to nearest.  w is in [0, 1] in practice
 * (at most a few times 1 after roulette gains); negative input never occurs. */
FIXED_POINT_FN unsigned long long fixed_point_from_weight(double w)
{
    return (unsigned long long)(w * TALLY_UNITS_PER_WEIGHT + 0.5);
}

/* Absorption deposits go through a per-photon running remainder (error
 * feedback): each deposit adds w * units + residue, scores the integer part
 * and keeps the fraction for the photon's next deposit.  The units a photon
 * scores then equal its exact total absorbed weight to within one unit.
 * Rounding each deposit on its own would drop every deposit under half a unit:
 * on the intralipid slab (mua/mut ~ 2e-5) that loses 2e-4 of the absorbed
 * weight, 0.6 sigma of a 10^8-photon run (docs/fixed-point.md).  A photon
 * starts with residue 0.5, which makes the whole rounding to nearest. */
#define FIXED_POINT_START_RESIDUE 0.5

FIXED_POINT_FN unsigned long long fixed_point_deposit(double w, double *residue)
{
    double u = w * TALLY_UNITS_PER_WEIGHT + *residue;
    unsigned long long q = (unsigned long long)u;
    *residue = u - (double)q;
    return q;
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/* The same two conversions for the float32 GPU kernels.  floor(u) of a float
 * is itself a float, so the residue stays exactly in [0, 1). */
__device__ __forceinline__ static unsigned long long fixed_point_from_weight_f(float w)
{
    return __float2ull_rn(w * 16777216.0f);
}

/* 32 bits: a deposit is at most the photon's weight, at most 1 (roulette
 * raises only weights below 10^-4), so its units are at most 2^24.  w * 2^24 is exact, so the fused multiply-add rounds
 * exactly as the product and the sum would. */
__device__ __forceinline__ static unsigned int fixed_point_deposit_f(float w, float *residue)
{
    float u = __fmaf_rn(w, 16777216.0f, *residue);
    float whole = floorf(u);
    *residue = u - whole;
    return (unsigned int)whole;
}
#endif

#endif
