/* J0 by its power series below J0_SERIES_END and by Hankel's asymptotic
 * expansion above (cpu_bessel.h; DLMF 10.2.2 and 10.17.3).  Each is
 * accurate to about 1e-12 absolute on its side of 12: the series loses
 * digits to the cancellation of its terms (the largest about 4000 at 12),
 * the asymptotic expansion is cut at its smallest term (about e^-2x). */
#include "cpu_bessel.h"

#include <math.h>

#define J0_SERIES_END  12.0
/* The series' terms stop counting below this (J0 is of order 1). */
#define J0_SERIES_TINY 1e-18
/* The asymptotic expansion's terms: it stops at its smallest (before
 * they grow again) or below this; at x >= 12 at most 25 terms. */
#define J0_HANKEL_TINY 1e-17
#define J0_HANKEL_MAX  40

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* sum_k (-1)^k (x^2/4)^k / (k!)^2: each term from the last, until they
 * no longer count. */
static double j0_series(double x)
{
    double q = 0.25 * x * x, term = 1.0, sum = 1.0;
    for (int k = 1; fabs(term) >= J0_SERIES_TINY; k++) {
        term *= -q / ((double)k * (double)k);
        sum += term;
    }
    return sum;
}

/* sqrt(2 / (pi x)) (P cos w - Q sin w), w = x - pi/4, P and Q the even and
 * odd terms a_k / x^k of the expansion with alternating signs, a_k =
 * a_(k-1) (-(2k - 1)^2) / (8k).  cos w and sin w are (cos x + sin x) /
 * sqrt 2 and (sin x - cos x) / sqrt 2, so that x - pi/4 is never rounded. */
static double j0_hankel(double x)
{
    double a = 1.0, p = 1.0, q = 0.0, last = INFINITY;
    for (int k = 1; k < J0_HANKEL_MAX; k++) {
        a *= -((2.0 * k - 1.0) * (2.0 * k - 1.0)) / (8.0 * k * x);
        double t = fabs(a);
        if (t >= last || t < J0_HANKEL_TINY)
            break;
        last = t;
        double signed_term = (k / 2) % 2 == 0 ? a : -a;
        if (k % 2 == 0)
            p += signed_term;
        else
            q += signed_term;
    }
    double c = cos(x), s = sin(x);
    return sqrt(1.0 / (M_PI * x)) * (p * (c + s) - q * (s - c));
}

double cpu_bessel_j0(double x)
{
    x = fabs(x);
    return x < J0_SERIES_END ? j0_series(x) : j0_hankel(x);
}
