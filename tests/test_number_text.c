/* number_e12_4 against snprintf("%12.4E"), text for text: random doubles
 * over the whole range the fast path takes and beyond, numbers next to
 * every kind of rounding boundary (halves of the fifth digit, powers of
 * ten, 9.99995), and the special values; and a check that the fast path,
 * not snprintf, printed nearly all of the random ones. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "number_text.h"

static int mismatches;

static void expect_printf(double v)
{
    char want[NUMBER_TEXT_SIZE], got[NUMBER_TEXT_SIZE];
    int n = snprintf(want, sizeof want, "%12.4E", v);
    int m = number_e12_4(v, got);
    if ((n != m || strcmp(want, got) != 0) && mismatches++ < 20)
        fprintf(stderr, "%.17g (%a): printf \"%s\", number_e12_4 \"%s\"\n", v, v, want, got);
}

/* xorshift64*: a fixed sequence, the same on every machine */
static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

static double uniform(void) { return (double)(next_random() >> 11) * 0x1p-53; }

/* Doubles of every exponent from 10^lo to 10^hi, either sign. */
static void random_doubles(int count, int lo, int hi)
{
    for (int i = 0; i < count; i++) {
        double v = pow(10.0, lo + (hi - lo) * uniform()) * (1 + uniform());
        expect_printf(next_random() & 1 ? -v : v);
    }
}

/* Random bit patterns: every double, subnormals, infinities and NaNs too. */
static void random_bits(int count)
{
    for (int i = 0; i < count; i++) {
        uint64_t bits = next_random();
        double v;
        memcpy(&v, &bits, sizeof v);
        expect_printf(v);
    }
}

/* (m + 1/2) * 10^(e-4) for random five-digit m: as near a tie of the fifth
 * digit as doubles get, and the doubles a few steps either side. */
static void near_halves(int count)
{
    for (int i = 0; i < count; i++) {
        double m = 10000 + floor(90000 * uniform());
        int e = -17 + (int)(38 * uniform());
        double v = (m + 0.5) * pow(10.0, e - 4);
        for (int step = -3; step <= 3; step++) {
            double w = v;
            for (int s = 0; s < (step < 0 ? -step : step); s++)
                w = nextafter(w, step < 0 ? 0 : INFINITY);
            expect_printf(w);
        }
    }
}

/* Powers of ten, and 9.99995 * 10^e (which rounds into the next power),
 * with their neighbours. */
static void near_powers(void)
{
    for (int e = -25; e <= 25; e++) {
        double edges[] = {pow(10.0, e), 9.99995 * pow(10.0, e), 9.99994999 * pow(10.0, e),
                          9.9999500001 * pow(10.0, e)};
        for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
            double w = edges[k];
            for (int s = 0; s < 4; s++) {
                expect_printf(w);
                expect_printf(-w);
                w = nextafter(w, 0);
            }
            w = edges[k];
            for (int s = 0; s < 4; s++, w = nextafter(w, INFINITY))
                expect_printf(w);
        }
    }
}

/* Exact ties of doubles (halves of integers) and small integers. */
static void exact_values(void)
{
    for (int i = 0; i <= 300000; i++) {
        expect_printf(i);
        expect_printf(i + 0.5);
        expect_printf(i / 8.0);
    }
}

static void special_values(void)
{
    const double v[] = {0.0,       -0.0,      INFINITY, -INFINITY,    NAN,   -NAN,
                        DBL_MIN,   DBL_MAX,   -DBL_MAX, DBL_TRUE_MIN, 1e-17, 1e22,
                        9.9999e21, 1e-17 / 2, 1.0,      1.23455,      0.5,   99999.5};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        expect_printf(v[i]);
}

int main(void)
{
    /* in the fast path's range (10^-17 to 10^22) all but about 2 in 10^6
     * (a fifth digit within 10^-6 of a half) are its own */
    unsigned long before = number_e12_4_fallbacks();
    random_doubles(2000000, -17, 21);
    unsigned long random_fallbacks = number_e12_4_fallbacks() - before;
    CHECK_MSG(random_fallbacks < 100, "%lu of 2000000 numbers went to snprintf", random_fallbacks);
    random_doubles(1000000, -25, 30);
    random_bits(2000000);
    near_halves(200000);
    near_powers();
    exact_values();
    special_values();
    CHECK_MSG(mismatches == 0, "%d numbers printed unlike printf", mismatches);
    return check_summary("number_text");
}
