/* Per-photon random streams: multiply-with-carry, one stream per photon.
 *
 * Included unchanged by the C engines and by the generated CUDA kernels
 * (which is why it uses only built-in types).  Photon i of a run draws only
 * from the stream keyed by (seed, i):
 *   - multiplier a = table[i mod MWC_MULTIPLIER_COUNT], a safe-prime
 *     multiplier (a*2^32-1 and (a*2^32-2)/2 both prime), so the generator has
 *     period (a*2^32-2)/2 ~ 2^63;
 *   - start state from splitmix64 of (seed, i), so photons sharing a
 *     multiplier start at unrelated points of that long cycle.
 * Why MWC: it is the cheapest generator measured on the target GPU
 * (docs/rng.md, "Why MWC per photon"): one 32x32->64 multiply-add per number. */
#ifndef TMCML_RNG_MWC_H
#define TMCML_RNG_MWC_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MWC_FN __host__ __device__ __forceinline__ static
#else
#define MWC_FN static inline
#endif

/* 2^17 multipliers: two photons share one only when their indices differ by
 * a multiple of 2^17, and then start at independent points of a cycle of
 * length ~2^63.  docs/rng.md estimates how often two such photons' streams
 * overlap (rarely, and harmlessly) and how the count was chosen.  A power
 * of two: mwc_seed masks the photon index. */
#define MWC_MULTIPLIER_COUNT 131072u

/* The multiplier is kept in 32 bits: a * value + carry is then one 32x32->64
 * multiply-add (IMAD.WIDE.U32 on the GPU, one register less per photon);
 * held in 64 bits, the compiler multiplied its unknown high half too. */
typedef struct mwc_state {
    unsigned long long x; /* carry in the high 32 bits, value in the low 32 */
    unsigned int a;       /* multiplier, < 2^32 */
} mwc_state;

/* splitmix64's output function applied to z (Steele, Lea, Flood 2014). */
MWC_FN unsigned long long mwc_mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The i-th output of splitmix64 started from a key derived from seed: a
 * bijection of i for a fixed seed, so distinct photons get distinct states. */
MWC_FN unsigned long long mwc_start_value(unsigned long long seed, unsigned long long photon)
{
    const unsigned long long golden = 0x9E3779B97F4A7C15ull;
    unsigned long long key = mwc_mix64(seed + golden);
    return mwc_mix64(key + (photon + 1ull) * golden);
}

MWC_FN void mwc_seed(mwc_state *s, unsigned long long seed, unsigned long long photon,
                     const unsigned int *multipliers)
{
    unsigned int a = multipliers[photon & (MWC_MULTIPLIER_COUNT - 1u)];
    unsigned long long z = mwc_start_value(seed, photon);
    /* Both operands fit in 32 bits: a 32-bit modulo (a 64-bit one is a long
     * software routine on the GPU), the same value. */
    unsigned int carry = (unsigned int)(z >> 32) % a;
    unsigned int value = (unsigned int)z;
    /* (0, 0) and (a-1, 2^32-1) are the generator's fixed points. */
    if (carry == 0u && value == 0u)
        value = 1u;
    if (carry == a - 1u && value == 0xFFFFFFFFu)
        value = 0xFFFFFFFEu;
    s->x = ((unsigned long long)carry << 32) | value;
    s->a = a;
}

MWC_FN unsigned int mwc_next(mwc_state *s)
{
#if defined(__CUDA_ARCH__)
    /* The same value, written for the GPU: from the plain expression the
     * compiler kept x as two loose registers and rebuilt the 64-bit addend
     * at every draw (six instructions); from a 32-bit multiply-add with
     * carry out and in, it issues one IMAD.WIDE.U32 on a register pair and
     * one move. */
    unsigned int value, carry;
    asm("mov.b64 {%0, %1}, %2;" : "=r"(value), "=r"(carry) : "l"(s->x));
    asm("{\n\t"
        ".reg .u32 lo;\n\t"
        "mad.lo.cc.u32 lo, %2, %3, %4;\n\t" /* low half of a * value + carry, carry out */
        "madc.hi.u32 %1, %2, %3, 0;\n\t"    /* high half of a * value, plus that carry */
        "mov.u32 %0, lo;\n\t"
        "}"
        : "=r"(value), "=r"(carry)
        : "r"(s->a), "r"(value), "r"(carry));
    asm("mov.b64 %0, {%1, %2};" : "=l"(s->x) : "r"(value), "r"(carry));
    return value;
#else
    s->x = (unsigned long long)s->a * (unsigned int)s->x + (s->x >> 32);
    return (unsigned int)s->x;
#endif
}

/* Uniform in [0, 1), 2^-32 resolution (double engines). */
MWC_FN double mwc_uniform(mwc_state *s)
{
    return (double)mwc_next(s) * (1.0 / 4294967296.0);
}

/* Uniform in (0, 1]: for -ln(xi), which must never see 0. */
MWC_FN double mwc_uniform_open0(mwc_state *s)
{
    return ((double)mwc_next(s) + 1.0) * (1.0 / 4294967296.0);
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/* float draws for the GPU kernels.  The 32-bit output is converted rounding
 * toward zero (one I2F, no shift): every result is a float below 1, and for
 * any float threshold t, P(xi < t) = t exactly, because rz(v) < T exactly
 * when v < T for a float T = t * 2^32.  Small values keep more bits than a
 * 24-bit grid would. */
#define MWC_TWO_POW_M32 2.3283064365386962890625e-10f /* 2^-32 */
#define MWC_TWO_POW_M33 1.16415321826934814453125e-10f /* 2^-33 */

/* Uniform in [0, 1). */
__device__ __forceinline__ static float mwc_uniform_f(mwc_state *s)
{
    return __uint2float_rz(mwc_next(s)) * MWC_TWO_POW_M32;
}

/* Uniform in [0, 2 pi): the same floats as 2 pi * mwc_uniform_f (scaling by
 * 2^-32 is exact), one multiplication fewer. */
__device__ __forceinline__ static float mwc_angle_f(mwc_state *s)
{
    return __uint2float_rz(mwc_next(s)) * (6.28318530717958648f * MWC_TWO_POW_M32);
}

/* Uniform in (0, 1), for log(xi): shifted by half the finest spacing, so
 * never 0 (and never 1: the largest value rounds to 1 - 2^-24). */
__device__ __forceinline__ static float mwc_uniform_open0_f(mwc_state *s)
{
    return __fmaf_rn(__uint2float_rz(mwc_next(s)), MWC_TWO_POW_M32, MWC_TWO_POW_M33);
}
#endif

#endif
