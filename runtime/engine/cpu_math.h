/* The CPU engine's elementary functions, from 32-bit random integers: -ln
 * xi, the cos and sin of an azimuth, the Henyey-Greenstein cos theta.
 * Inlined into the step loop (cpu_photon.c) and the sources
 * (cpu_source.c). */
#ifndef TMCML_CPU_MATH_H
#define TMCML_CPU_MATH_H

#include <stdint.h>
#include <string.h>

/* The sectors of an azimuth table (cpu_azimuth). */
#define CPU_AZIMUTH_SECTORS 64

/* ---- The engine's two elementary functions, here so that tests can check
 * them.  Both use only +, -, *, / and integer operations, so their results
 * are the same on every CPU of one instruction set (no libm variant chosen
 * at run time), and both are inlined into the step loop. */

/* -ln(xi) for xi = (u + 1) 2^-32 in (0, 1], u a 32-bit random integer: the
 * random factor of a step length.
 *
 * v = u + 1 is an integer in [1, 2^32], exact as a double.  Write
 * v = 2^k m with m in [sqrt(1/2), sqrt(2)): subtracting the bit pattern of
 * sqrt(1/2) from v's leaves k in the exponent field, and m is v with k taken
 * off its exponent (exact).  Then -ln xi = (32 - k) ln 2 - ln m and, with
 * f = m - 1 and s = f / (2 + f) = f / (m + 1) (both exact: m has at most 33
 * significant bits), ln m = 2 atanh s = 2s + s R and 2s = f - s f:
 *   ln m = f - s (f - R),   R = 2 atanh(s)/s - 2 = sum_{j>=1} 2 s^2j / (2j + 1),
 * so that the exact f dominates and the rounding of the small correction
 * hardly matters.  R = z P(z), z = s^2 <= (3 - 2 sqrt 2)^2, with P our own
 * minimax fit of degree 6 (Remez, relative error 4.5e-16 on that interval;
 * bench/results.md has the fit), evaluated by Estrin's scheme, whose chain of
 * dependent operations is shorter than Horner's.  e ln 2 (e = k - 32) is
 * split so that e ln2_hi is exact.  Error, measured on all 2^32 arguments
 * against a long-double reference: at most 0.92 ulp (mean 0.26); glibc's log
 * gives a different double for 7 % of them, by 1 ulp. */
#define CPU_LN2_HI 0x1.62e42fefa2000p-1  /* ln 2 to 40 bits */
#define CPU_LN2_LO 0x1.9ef35793c7673p-41 /* ln 2 - CPU_LN2_HI */
#define CPU_LN2_ROW(e)                                                                             \
    {                                                                                              \
        (e) * CPU_LN2_HI, (e)*CPU_LN2_LO                                                           \
    }
/* e ln2_hi (exact) and e ln2_lo for e = k - 32 = 0, -1, ..., -32: loads
 * instead of a conversion and two multiplications. */
static const double cpu_ln2_multiples[33][2] = {
    CPU_LN2_ROW(0),   CPU_LN2_ROW(-1),  CPU_LN2_ROW(-2),  CPU_LN2_ROW(-3),  CPU_LN2_ROW(-4),
    CPU_LN2_ROW(-5),  CPU_LN2_ROW(-6),  CPU_LN2_ROW(-7),  CPU_LN2_ROW(-8),  CPU_LN2_ROW(-9),
    CPU_LN2_ROW(-10), CPU_LN2_ROW(-11), CPU_LN2_ROW(-12), CPU_LN2_ROW(-13), CPU_LN2_ROW(-14),
    CPU_LN2_ROW(-15), CPU_LN2_ROW(-16), CPU_LN2_ROW(-17), CPU_LN2_ROW(-18), CPU_LN2_ROW(-19),
    CPU_LN2_ROW(-20), CPU_LN2_ROW(-21), CPU_LN2_ROW(-22), CPU_LN2_ROW(-23), CPU_LN2_ROW(-24),
    CPU_LN2_ROW(-25), CPU_LN2_ROW(-26), CPU_LN2_ROW(-27), CPU_LN2_ROW(-28), CPU_LN2_ROW(-29),
    CPU_LN2_ROW(-30), CPU_LN2_ROW(-31), CPU_LN2_ROW(-32)};

static inline double cpu_neg_log_uniform(uint32_t u)
{
    const uint64_t sqrt_half_bits = UINT64_C(0x3FE6A09E667F3BCD);
    const double p0 = 0x1.5555555555558p-1, p1 = 0x1.99999999952a7p-2, p2 = 0x1.2492492df70acp-2,
                 p3 = 0x1.c71c62def8bc0p-3, p4 = 0x1.7462b6575651fp-3, p5 = 0x1.39fe2dda31b75p-3,
                 p6 = 0x1.2b5a87634cc20p-3;
    double v = (double)u + 1.0;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t k = (bits - sqrt_half_bits) >> 52;
    uint64_t m_bits = bits - (k << 52);
    double m;
    memcpy(&m, &m_bits, sizeof m);
    double f = m - 1.0;
    double s = f / (m + 1.0);
    double z = s * s;
    double z2 = z * z, z4 = z2 * z2;
    double r = z * ((p0 + p1 * z) + z2 * (p2 + p3 * z) + z4 * ((p4 + p5 * z) + z2 * p6));
    const double *e_ln2 = cpu_ln2_multiples[32 - k]; /* e ln 2, e = k - 32 */
    return ((s * (f - r) - e_ln2[1]) - f) - e_ln2[0];
}

/* cos and sin of psi = 2 pi u 2^-32, u a 32-bit integer, to 1.4 2^-53.
 * u + 2^29 = q 2^30 + (r + 2^29) splits psi into q quarter turns plus
 * pi t, t = r 2^-31 in [-1/4, 1/4) (exact).  sin(pi t) = t S(t^2) and
 * cos(pi t) = C(t^2) with our own minimax polynomials (Remez, relative
 * error 3.3e-18 and 3.6e-20 on [0, 1/16]; bench/results.md), then rotated by
 * q quarter turns, which only swaps and negates (multiplications by 0 and
 * +-1 are exact).  Used to fill an azimuth table (cpu_azimuth_table_init). */
static inline void cpu_sincos_turn(uint32_t u, double *cos_psi, double *sin_psi)
{
    static const double quarter_cos[4] = {1.0, 0.0, -1.0, 0.0};
    static const double quarter_sin[4] = {0.0, 1.0, 0.0, -1.0};
    const double s0 = 0x1.921fb54442d18p+1, s1 = -0x1.4abbce625be41p+2, s2 = 0x1.466bc67758700p+1,
                 s3 = -0x1.32d2cce2d535ap-1, s4 = 0x1.50782fca38671p-4, s5 = -0x1.e300639fe8df4p-8,
                 s6 = 0x1.e3eed5bb00c98p-12;
    const double c1 = -0x1.3bd3cc9be45dep+2, c2 = 0x1.03c1f081b5aaap+2, c3 = -0x1.55d3c7e3c8d5cp+0,
                 c4 = 0x1.e1f5068303f17p-3, c5 = -0x1.a6d1ec3d4795ap-6, c6 = 0x1.f9cc15d4ddc90p-10,
                 c7 = -0x1.b2586b8f4320ep-14;
    uint32_t w = u + (UINT32_C(1) << 29);
    unsigned q = w >> 30;
    double t = (double)((int32_t)(w & 0x3FFFFFFFu) - (INT32_C(1) << 29)) * 0x1p-31;
    double x = t * t;
    double sb = t * (s0 + x * (s1 + x * (s2 + x * (s3 + x * (s4 + x * (s5 + x * s6))))));
    double cb = 1.0 + x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * (c5 + x * (c6 + x * c7))))));
    *cos_psi = quarter_cos[q] * cb - quarter_sin[q] * sb;
    *sin_psi = quarter_sin[q] * cb + quarter_cos[q] * sb;
}

/* The azimuth of a spin, psi = 2 pi u 2^-32 uniform in [0, 2 pi), as cos and
 * sin from one random number, without rejection.  The same idea as
 * cpu_sincos_turn with 64 sectors instead of 4: u + 2^25 = k 2^26 +
 * (r + 2^25) gives psi = 2 pi k / 64 + pi t, t = r 2^-31 in [-1/64, 1/64)
 * (exact), the sector's cos and sin come from the table and pi t's from
 * degree-7 and degree-6 minimax polynomials (relative error 7.3e-19 and
 * 6.5e-18; bench/results.md).  Error at most 2.0 2^-53 in cos and sin and
 * 4.3 2^-53 in cos^2 + sin^2 - 1 (every 7th of the 2^32 arguments against a
 * long-double reference). */
static inline void cpu_azimuth(const double (*table)[2], uint32_t u, double *cos_psi,
                               double *sin_psi)
{
    /* The polynomials in t = r 2^-31 are evaluated in r itself, with the
     * powers of 2^-31 folded into the coefficients: the same roundings
     * (scaling by a power of two is exact), two multiplications fewer. */
    const double s0 = 0x1.921fb54442d18p+1 * 0x1p-31, s1 = -0x1.4abbce625bd02p+2 * 0x1p-93,
                 s2 = 0x1.466bc66a35ed0p+1 * 0x1p-155, s3 = -0x1.32cd8b078fbfbp-1 * 0x1p-217;
    const double c1 = -0x1.3bd3cc9be421ap+2 * 0x1p-62, c2 = 0x1.03c1f06ee17bap+2 * 0x1p-124,
                 c3 = -0x1.55cc3ffd8f1e3p+0 * 0x1p-186;
    uint32_t w = u + (UINT32_C(1) << 25);
    const double *sector = table[w >> 26];
    double r = (double)((int32_t)(w & 0x3FFFFFFu) - (INT32_C(1) << 25));
    double r2 = r * r; /* exact: |r| <= 2^25 */
    double st = r * (s0 + r2 * (s1 + r2 * (s2 + r2 * s3)));
    double ct = 1.0 + r2 * (c1 + r2 * (c2 + r2 * c3));
    *cos_psi = sector[0] * ct - sector[1] * st;
    *sin_psi = sector[1] * ct + sector[0] * st;
}

/* The Henyey-Greenstein deflection cosine for xi = u 2^-32 in [0, 1).
 *
 * MCML samples cos theta = (1 + g^2 - t^2) / 2g, t = (1 - g^2) / (1 - g + 2g xi):
 * for small |g| the numerator is a difference of two numbers close to 1,
 * divided by a small 2g, and every digit is lost (g = 1e-30 gave cos theta =
 * 0 for every xi in double, +-1 in float).  The same function, rearranged
 * with s = 2 xi - 1 (so that 1 - g + 2g xi = 1 + g s) and 1 - s^2 = 4 xi (1 - xi):
 *   cos theta = (s + g) / (1 + g s) + 2g (1 - g^2) xi (1 - xi) / (1 + g s)^2,
 * which has no cancellation and no division by g: at g = 0 it is s, the
 * isotropic cosine, exactly; at s = +-1 it is +-1 exactly.  hg_h = 2g (1 - g^2)
 * is the layer's constant.  |g| = 1 (0/0 at one xi) is the caller's case.
 * s and xi (1 - xi) are exact in double for a 32-bit u. */
static inline double cpu_hg_cos_theta(double g, double hg_h, uint32_t u)
{
    double xi = (double)u * 0x1p-32;
    double s = (double)u * 0x1p-31 - 1.0;
    double q = 1.0 / (1.0 + g * s);
    double cost = (s + g) * q + hg_h * (xi - xi * xi) * (q * q);
    return cost < -1.0 ? -1.0 : (cost > 1.0 ? 1.0 : cost);
}

/* Fills an azimuth table of CPU_AZIMUTH_SECTORS sectors (cpu_azimuth). */
static inline void cpu_azimuth_table_init(double (*table)[2])
{
    for (uint32_t k = 0; k < CPU_AZIMUTH_SECTORS; k++)
        cpu_sincos_turn(k << 26, &table[k][0], &table[k][1]);
}

#endif
