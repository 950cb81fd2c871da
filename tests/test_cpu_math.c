/* The CPU engine's own -ln(xi) and azimuth (runtime/engine/cpu_math.h) against
 * long-double references, on a fixed sample of the 2^32 possible inputs plus
 * the edges.  Bounds: the documented ones (docs/physics.md): -ln within 1 ulp,
 * cos/sin within 2 * 2^-53, cos^2 + sin^2 - 1 within 4.3 * 2^-53.
 * The Henyey-Greenstein cosine against MCML's own formula evaluated in
 * binary128 (where its cancellation still leaves more than double's digits)
 * and, for |g| < 1e-9, against its expansion s + 3/2 g (1 - s^2) + O(g^2). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "cpu_math.h"

static double ulp_error(double got, long double want)
{
    double w = (double)want;
    double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
    return (double)fabsl((long double)got - want) / ulp;
}

/* MCML's cos theta = (1 + g^2 - t^2) / 2g, t = (1 - g^2) / (1 - g + 2g xi), in
 * binary128: |g| >= 1e-9 loses at most 18 of its 34 digits. */
static double mcml_hg_reference(double g, uint32_t u)
{
    __float128 G = g, xi = (__float128)u / 4294967296.0;
    __float128 t = (1 - G * G) / (1 - G + 2 * G * xi);
    return (double)((1 + G * G - t * t) / (2 * G));
}

/* MCML's formula in double, as MCML evaluates it. */
static double mcml_hg_double(double g, uint32_t u)
{
    double xi = (double)u * 0x1p-32;
    double t = (1 - g * g) / (1 - g + 2 * g * xi);
    double c = (1 + g * g - t * t) / (2 * g);
    return c < -1 ? -1 : (c > 1 ? 1 : c);
}

/* The largest |error| of cpu_hg_cos_theta over a sample of u, for one g;
 * *mcml_worst: that of MCML's formula in double on the same sample. */
static double hg_worst_error(double g, int samples, double *mcml_worst)
{
    double worst = 0, h = 2.0 * g * (1.0 - g * g);
    *mcml_worst = 0;
    uint64_t state = 777;
    for (int i = 0; i < samples; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t u =
            i < 4 ? (uint32_t[]){0u, 1u, 0x80000000u, 0xFFFFFFFFu}[i] : (uint32_t)(state >> 32);
        double s = (double)u * 0x1p-31 - 1.0, want;
        if (fabs(g) >= 1e-9) {
            want = mcml_hg_reference(g, u);
            want = want < -1 ? -1 : (want > 1 ? 1 : want);
        } else {
            want = s + 1.5 * g * (1.0 - s * s);
        }
        double e = fabs(cpu_hg_cos_theta(g, h, u) - want);
        worst = e > worst ? e : worst;
        double m = fabs(mcml_hg_double(g, u) - want);
        *mcml_worst = m > *mcml_worst ? m : *mcml_worst;
    }
    return worst;
}

static void check_henyey_greenstein(void)
{
    const double gs[] = {1e-300, -1e-30, 1e-12, 1e-9, -1e-6, 1e-4,
                         0.01,   0.5,    -0.7,  0.9,  0.99,  -0.999};
    /* 1 + g s, the denominator, is rounded to an error of 2^-53 while it
     * can be as small as 1 - |g|: the sampling itself (MCML's formula too) is
     * conditioned by 1 / (1 - |g|), hence the bound. */
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++) {
        double mcml, e = hg_worst_error(gs[i], 200000, &mcml);
        double bound = 8 * DBL_EPSILON / (1 - fabs(gs[i]));
        printf("HG g = %-7g: max |cos theta error| %.2g (MCML's formula in double: %.2g)\n", gs[i],
               e, mcml);
        CHECK_MSG(e <= bound, "g = %g: error %.3g > %.3g", gs[i], e, bound);
    }
    /* g = 0 is the isotropic cosine, bit for bit; xi = 0 and the top xi map
     * to the ends of [-1, 1]. */
    for (uint32_t u = 0; u < 4000000000u; u += 99991u)
        CHECK(cpu_hg_cos_theta(0.0, 0.0, u) == (double)u * 0x1p-31 - 1.0);
    CHECK(cpu_hg_cos_theta(0.9, 2 * 0.9 * (1 - 0.81), 0) == -1.0);
}

int main(void)
{
    check_henyey_greenstein();
    double table[CPU_AZIMUTH_SECTORS][2];
    cpu_azimuth_table_init(table);
    uint64_t state = 12345;
    double worst_log = 0, worst_trig = 0, worst_norm = 0;
    for (int i = 0; i < 2000000; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t u =
            i < 4 ? (uint32_t[]){0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu}[i] : (uint32_t)(state >> 32);
        long double xi = ((long double)u + 1.0L) / 4294967296.0L;
        double e = ulp_error(cpu_neg_log_uniform(u), -logl(xi));
        worst_log = e > worst_log ? e : worst_log;
        double c, s;
        cpu_azimuth((const double(*)[2])table, u, &c, &s);
        long double psi =
            2.0L * 3.14159265358979323846264338327950288L * (long double)u / 4294967296.0L;
        double t =
            (double)fmaxl(fabsl((long double)c - cosl(psi)), fabsl((long double)s - sinl(psi)));
        worst_trig = t > worst_trig ? t : worst_trig;
        double n = (double)fabsl((long double)c * c + (long double)s * s - 1.0L);
        worst_norm = n > worst_norm ? n : worst_norm;
    }
    double eps = DBL_EPSILON / 2; /* 2^-53 */
    printf(
        "-ln(xi): max %.3f ulp; azimuth: max |error| %.2f * 2^-53, max |c^2+s^2-1| %.2f * 2^-53\n",
        worst_log, worst_trig / eps, worst_norm / eps);
    /* -ln xi = 0 exactly at u = 2^32 - 1 (ulp_error of 0 is 0/ulp(0)). */
    CHECK(cpu_neg_log_uniform(0xFFFFFFFFu) == 0.0);
    CHECK(worst_log <= 1.0);
    CHECK(worst_trig <= 2.0 * eps);
    CHECK(worst_norm <= 4.3 * eps);
    return check_summary("cpu_math");
}
