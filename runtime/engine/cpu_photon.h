/* One photon's life in the CPU engine, MCML 1.2.2 physics in double
 * precision: launch, then hop - drop - spin, cross or not, roulette. */
#ifndef TMCML_CPU_PHOTON_H
#define TMCML_CPU_PHOTON_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mci.h"
#include "tally.h"

/* How a layer deflects: Henyey-Greenstein (g = 0, isotropic, included), or
 * the one value of g the HG sampling formula cannot take (|g| = 1: a fixed
 * deflection, 0/0 at one xi). */
typedef enum cpu_phase { CPU_PHASE_HG, CPU_PHASE_FIXED } cpu_phase;

/* A layer as the stepping code wants it, with the divisions by constants
 * and the g-only terms of the HG formula done once.  What every step reads
 * comes first (one cache line). */
typedef struct cpu_layer {
    double z0, z1;
    double inv_mut, mut, absorbed_fraction; /* 1/mut, mut, mua/mut */
    /* HG: cos theta = (s + g) q + hg_h xi (1 - xi) q^2, s = 2 xi - 1,
     * q = 1 / (1 + g s), hg_h = 2g (1 - g^2) (cpu_hg_cos_theta). */
    double hg_h;
    cpu_phase phase;
    bool glass;
    double g, n, mua, mus;
    double cos_crit0, cos_crit1;
} cpu_layer;

#define CPU_AZIMUTH_SECTORS 64

/* Everything constant over a run. */
typedef struct cpu_problem {
    int num_layers;
    cpu_layer *layers; /* num_layers + 2, as mci_run.layers */
    int nr, nz, na;
    double dr, dz, da;
    double inv_dr, inv_dz, inv_da;
    double last_ir, last_iz, last_ia;             /* nr - 1, nz - 1, na - 1 */
    double azimuth_table[CPU_AZIMUTH_SECTORS][2]; /* cpu_azimuth */
    double start_weight;                          /* 1 - Rsp */
    int first_layer;
    /* Where photons start (runtime/io/source.h; cpu_source.c): MCML's
     * pencil beam draws nothing; another source draws its position and
     * direction first from the photon's stream. */
    source_desc source;
    double source_z;      /* depth of the start: layers[first_layer].z0, a point's z0 */
    double fiber_cos_max; /* fiber: the cone's cos theta_max in the medium above */
    double fiber_glass_d; /* fiber: the glass layer 1's thickness crossed, or 0 */
    bool score_absorption;
    uint64_t max_steps; /* a photon alive after this many steps is trapped */
    uint64_t seed;
    const uint32_t *multipliers;
    /* Absorption sets (docs/physics.md, "Absorption sets"): 0, or the number
     * of sets of per-layer mua scored from each history, which the layers
     * above sample with the reference mua (the per-layer minimum).  Per set k
     * and layer i (as layers[], num_layers + 2 a set): */
    int num_sets;
    double *set_extra_mua; /* mua_k,i - mua_ref,i >= 0 (1/cm) */
    double *set_fraction;  /* mua_k,i / mut_ref,i: a set's share of an interaction */
    /* Score each set's partial path lengths (Rd_path, Tt_path of its
     * tally_batch; at most TM_MAX_PATH_LAYERS layers): only with sets, so
     * a run that asks for them without sets is one set of its own mua. */
    bool paths;
    /* Time-resolved escapes (time_bins.h) and the fiber detector
     * (detector.h), scored like the path lengths in the sets' loop, whose
     * path per layer gives the time of flight (sum of L_i n_i / c): time_nt
     * bins (0: none) of 1 / time_inv_dt ns; a detector when fiber. */
    int time_nt;
    double time_inv_dt;
    bool fiber;
    double fiber_sep, fiber_radius, fiber_cos_accept;
} cpu_problem;

bool cpu_problem_init(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption);
/* The same for num_sets (1 .. TM_MAX_ABSORPTION_SETS) absorption sets:
 * set_mua[k * run->num_layers + i - 1] is set k's mua of layer i (1-based,
 * as run->layers), finite and >= 0; run's own mua are not used.  False when
 * out of memory. */
bool cpu_problem_init_sets(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption,
                           int num_sets, const double *set_mua);
void cpu_problem_free(cpu_problem *p);
/* Takes run's time bins and fiber detector (none when it asks for neither). */
void cpu_problem_set_options(cpu_problem *p, const mci_run *run);

/* Simulates photon `index` (its random stream is (seed, index)) and scores
 * into b. */
void cpu_photon_simulate(const cpu_problem *p, uint64_t index, tally_batch *b);

/* The same history for a problem with absorption sets, set k scored into
 * sets[k] (p->num_sets batches, with path tallies when p->paths). */
void cpu_photon_simulate_sets(const cpu_problem *p, uint64_t index, tally_batch *sets);

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
 * +-1 are exact).  Used to fill cpu_problem.azimuth_table. */
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
static inline void cpu_azimuth(const cpu_problem *p, uint32_t u, double *cos_psi, double *sin_psi)
{
    /* The polynomials in t = r 2^-31 are evaluated in r itself, with the
     * powers of 2^-31 folded into the coefficients: the same roundings
     * (scaling by a power of two is exact), two multiplications fewer. */
    const double s0 = 0x1.921fb54442d18p+1 * 0x1p-31, s1 = -0x1.4abbce625bd02p+2 * 0x1p-93,
                 s2 = 0x1.466bc66a35ed0p+1 * 0x1p-155, s3 = -0x1.32cd8b078fbfbp-1 * 0x1p-217;
    const double c1 = -0x1.3bd3cc9be421ap+2 * 0x1p-62, c2 = 0x1.03c1f06ee17bap+2 * 0x1p-124,
                 c3 = -0x1.55cc3ffd8f1e3p+0 * 0x1p-186;
    uint32_t w = u + (UINT32_C(1) << 25);
    const double *sector = p->azimuth_table[w >> 26];
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

/* Fills p->azimuth_table. */
static inline void cpu_azimuth_table_init(cpu_problem *p)
{
    for (uint32_t k = 0; k < CPU_AZIMUTH_SECTORS; k++)
        cpu_sincos_turn(k << 26, &p->azimuth_table[k][0], &p->azimuth_table[k][1]);
}

#endif
