/* The CPU engine's J0 (runtime/engine/cpu_bessel.c) of the spatial
 * frequencies: J0(0) is 1 exactly (so that R(0) is Rd bit for bit), values
 * against 20-digit references (mpmath's besselj(0, x), on both sides of the
 * switch from the series to the asymptotic expansion at 12, and far out),
 * and against the C library's j0 over a fine grid to 2000 and at scattered
 * points to 10^7, within 1e-11 absolute; even in x. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "cpu_bessel.h"

#define TOLERANCE 1e-11

static const double reference[][2] = {
    {0.5, 0.93846980724081290423},
    {1, 0.76519768655796655145},
    {2.404825557695773, -6.1087652597367303971e-17}, /* J0's first zero */
    {5, -0.17759677131433830435},
    {10, -0.2459357644513483352},
    {11.99, 0.045451560352858603816},
    {12, 0.047689310796833536624},
    {12.01, 0.049920430319825354247},
    {20, 0.16702466434058315473},
    {50, 0.055812327669251815005},
    {100, 0.019985850304223122424},
    {1000, 0.024786686152420174561},
    {12345.678, 0.000030586713322758247441},
    {1000000.0, 0.00033104301373987374099},
};

int main(void)
{
    CHECK(cpu_bessel_j0(0.0) == 1.0);
    for (size_t i = 0; i < sizeof reference / sizeof reference[0]; i++) {
        double x = reference[i][0], want = reference[i][1], got = cpu_bessel_j0(x);
        CHECK_MSG(fabs(got - want) <= TOLERANCE, "J0(%.17g) = %.17g, want %.17g", x, got, want);
        CHECK_MSG(cpu_bessel_j0(-x) == got, "J0(-%g) differs from J0(%g)", x, x);
    }
    double worst = 0, at = 0;
    for (int i = 0; i <= 2000000; i++) {
        double x = i * 1e-3, d = fabs(cpu_bessel_j0(x) - j0(x));
        if (d > worst) {
            worst = d;
            at = x;
        }
    }
    for (double x = 2000; x < 1e7; x *= 1.0007) {
        double d = fabs(cpu_bessel_j0(x) - j0(x));
        if (d > worst) {
            worst = d;
            at = x;
        }
    }
    printf("J0 against the C library's j0: worst %.3g at x = %.9g\n", worst, at);
    CHECK_MSG(worst <= TOLERANCE, "worst difference %g at %g", worst, at);
    return check_summary("bessel");
}
