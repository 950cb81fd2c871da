/* "%12.4E" without printf (runtime/io/number_text.h).
 *
 * Why the fast path is exact.  For 10^-17 <= |v| < 10^22 the decimal
 * exponent e puts s = |v| * 10^(4-e) in [10^4, 10^5); 10^k is exact in a
 * double for 0 <= k <= 22, so s is one multiplication or one division by an
 * exact power: a single rounding, |s - exact| <= 10^5 * 2^-53 < 1.2e-11.
 * printf rounds the exact value to 5 significant digits, to nearest (ties
 * to even).  Whenever the fraction of s lies farther than 1e-6 from one
 * half, the exact value's fraction lies on the same side of the half, so
 * rounding s half up gives printf's digits.  Nearer a half (ties included)
 * the number goes to snprintf, as does anything outside that range, zero's
 * negative twin, infinities and NaNs.  A rounding up to 10^5 carries into
 * the exponent, as printf's does: 9.99996 prints as 1.0000E+01. */
#include "number_text.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The nearest of a half at which the fast path still decides the digits. */
#define NEAR_HALF 1e-6

static atomic_ulong fallbacks;

unsigned long number_e12_4_fallbacks(void) { return atomic_load(&fallbacks); }

static int by_printf(double v, char *out)
{
    atomic_fetch_add_explicit(&fallbacks, 1, memory_order_relaxed);
    return snprintf(out, NUMBER_TEXT_SIZE, "%12.4E", v);
}

/* a * 10^(4 - e), one rounding; NaN where 10^(4 - e) is not exact. */
static double scaled(double a, int e)
{
    int k = 4 - e;
    if (k > 22 || k < -22)
        return NAN;
    return k >= 0 ? a * exact_pow10[k] : a / exact_pow10[-k];
}

/* The five significant digits of a (as the integer m in [10^4, 10^5)) and
 * its decimal exponent; false where the digits are not certain. */
static bool digits_of(double a, unsigned *m, int *e)
{
    /* the decimal exponent from the binary one (log10(2) = 0.30103),
     * off by one at most, which the checks on s put right */
    int exp2;
    frexp(a, &exp2);
    int exp10 = (int)floor((exp2 - 1) * 0.30102999566398120);
    double s = scaled(a, exp10);
    if (s < 1e4)
        s = scaled(a, --exp10);
    else if (s >= 1e5)
        s = scaled(a, ++exp10);
    if (!(s >= 1e4 && s < 1e5))
        return false;
    double whole = (double)(unsigned)s, fraction = s - whole;
    if (fabs(fraction - 0.5) < NEAR_HALF)
        return false;
    unsigned digits = (unsigned)whole + (fraction > 0.5);
    if (digits == 100000) {
        digits = 10000;
        exp10++;
    }
    *m = digits;
    *e = exp10;
    return true;
}

int number_e12_4(double v, char out[NUMBER_TEXT_SIZE])
{
    if (v == 0 && !signbit(v)) {
        memcpy(out, "  0.0000E+00", 13);
        return 12;
    }
    bool negative = v < 0;
    double a = negative ? -v : v;
    unsigned m;
    int e;
    if (!(a >= 1e-17 && a < 1e22) || !digits_of(a, &m, &e))
        return by_printf(v, out);
    char text[16];
    int n = 0;
    if (negative)
        text[n++] = '-';
    text[n++] = (char)('0' + m / 10000);
    text[n++] = '.';
    for (unsigned d = 1000; d > 0; d /= 10)
        text[n++] = (char)('0' + m / d % 10);
    text[n++] = 'E';
    text[n++] = e < 0 ? '-' : '+';
    unsigned magnitude = (unsigned)(e < 0 ? -e : e);
    text[n++] = (char)('0' + magnitude / 10);
    text[n++] = (char)('0' + magnitude % 10);
    int pad = 12 - n;
    memset(out, ' ', (size_t)pad);
    memcpy(out + pad, text, (size_t)n);
    out[pad + n] = '\0';
    return pad + n;
}
