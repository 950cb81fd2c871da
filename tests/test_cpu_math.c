/* The CPU engine's own -ln(xi) and azimuth (runtime/engine/cpu_photon.h) against
 * long-double references, on a fixed sample of the 2^32 possible inputs plus
 * the edges.  Bounds: the documented ones (docs/physics.md): -ln within 1 ulp,
 * cos/sin within 2 * 2^-53, cos^2 + sin^2 - 1 within 4.3 * 2^-53. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "cpu_photon.h"

static double ulp_error(double got, long double want)
{
    double w = (double)want;
    double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
    return (double)fabsl((long double)got - want) / ulp;
}

int main(void)
{
    cpu_problem p = {0};
    cpu_azimuth_table_init(&p);
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
        cpu_azimuth(&p, u, &c, &s);
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
