/* Tests of the per-photon MWC streams (templates/rng_mwc.h, docs/rng.md):
 *   - the generated multiplier table, re-checked with Baillie-PSW, an
 *     independent primality test (strong base-2 test + strong Lucas test,
 *     plain 128-bit remainder arithmetic), not the generator's Montgomery
 *     Miller-Rabin, so one bug cannot hide in both;
 *   - the table's 3-D spectral figure nu3 >= 2^14, by an exhaustive search
 *     for short vectors of the 3-D dual lattice, not the generator's 2-D
 *     lattice reduction; the lattice itself is checked against the outputs
 *     of mwc_next;
 *   - determinism and distinctness of the streams, the seeding invariants,
 *     the ranges of the uniform conversions;
 *   - chi-square and correlation checks on interleaved streams, with
 *     thresholds taken from the chi-square / normal distributions at
 *     two-sided p = 1e-6 and fixed seeds (deterministic). */
#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "rng.h"

typedef unsigned __int128 u128;

#ifndef P_LIMIT
#define P_LIMIT 1e-6 /* two-sided significance of the statistical checks */
#endif

/* ---- Baillie-PSW ------------------------------------------------------------ */

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t n) { return (uint64_t)((u128)a * b % n); }
static uint64_t addmod(uint64_t a, uint64_t b, uint64_t n) { return (uint64_t)(((u128)a + b) % n); }
static uint64_t submod(uint64_t a, uint64_t b, uint64_t n)
{
    return a >= b ? a - b : (uint64_t)((u128)a + n - b);
}

/* x/2 mod odd n. */
static uint64_t halfmod(uint64_t x, uint64_t n)
{
    return x & 1u ? (uint64_t)(((u128)x + n) >> 1) : x >> 1;
}

static uint64_t powmod(uint64_t b, uint64_t e, uint64_t n)
{
    uint64_t r = 1 % n;
    for (b %= n; e; e >>= 1) {
        if (e & 1u)
            r = mulmod(r, b, n);
        b = mulmod(b, b, n);
    }
    return r;
}

static int strong_prp2(uint64_t n)
{
    uint64_t d = n - 1u;
    int s = 0;
    while (!(d & 1u)) {
        d >>= 1;
        s++;
    }
    uint64_t x = powmod(2, d, n);
    if (x == 1u || x == n - 1u)
        return 1;
    for (int i = 1; i < s; i++) {
        x = mulmod(x, x, n);
        if (x == n - 1u)
            return 1;
    }
    return 0;
}

/* Jacobi symbol (a/n), n odd. */
static int jacobi(uint64_t a, uint64_t n)
{
    int t = 1;
    a %= n;
    while (a) {
        while (!(a & 1u)) {
            a >>= 1;
            if ((n & 7u) == 3u || (n & 7u) == 5u)
                t = -t;
        }
        uint64_t tmp = a;
        a = n;
        n = tmp;
        if ((a & 3u) == 3u && (n & 3u) == 3u)
            t = -t;
        a %= n;
    }
    return n == 1u ? t : 0;
}

static int is_square(uint64_t n)
{
    uint64_t r = (uint64_t)sqrtl((long double)n);
    while ((u128)r * r > n)
        r--;
    while ((u128)(r + 1) * (r + 1) <= n)
        r++;
    return (u128)r * r == n;
}

static uint64_t signed_mod(int64_t v, uint64_t n)
{
    return v >= 0 ? (uint64_t)v % n : submod(0, (uint64_t)(-v) % n, n);
}

/* Strong Lucas probable prime test, Selfridge's parameters (P = 1). */
static int strong_lucas(uint64_t n)
{
    int64_t D = 5;
    for (;;) {
        int j = jacobi(signed_mod(D, n), n);
        if (j == -1)
            break;
        if (j == 0 && (uint64_t)(D < 0 ? -D : D) != n)
            return 0;
        D = D > 0 ? -(D + 2) : -D + 2;
    }
    uint64_t Dm = signed_mod(D, n), Q = signed_mod((1 - D) / 4, n);
    uint64_t d = n + 1u; /* n < 2^64 - 1 here: no wrap */
    int s = 0;
    while (!(d & 1u)) {
        d >>= 1;
        s++;
    }
    int top = 63;
    while (!((d >> top) & 1u))
        top--;
    uint64_t U = 1, V = 1, Qk = Q; /* k = 1, P = 1 */
    for (int bit = top - 1; bit >= 0; bit--) {
        U = mulmod(U, V, n);
        V = submod(mulmod(V, V, n), addmod(Qk, Qk, n), n);
        Qk = mulmod(Qk, Qk, n);
        if ((d >> bit) & 1u) {
            uint64_t u2 = halfmod(addmod(U, V, n), n);
            V = halfmod(addmod(mulmod(Dm, U, n), V, n), n);
            U = u2;
            Qk = mulmod(Qk, Q, n);
        }
    }
    if (U == 0 || V == 0)
        return 1;
    for (int r = 1; r < s; r++) {
        V = submod(mulmod(V, V, n), addmod(Qk, Qk, n), n);
        Qk = mulmod(Qk, Qk, n);
        if (V == 0)
            return 1;
    }
    return 0;
}

/* Exact for all n < 2^64 (no BPSW pseudoprime exists there). */
static int bpsw(uint64_t n)
{
    static const uint32_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47};
    if (n < 2u)
        return 0;
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        if (n % small[i] == 0)
            return n == small[i];
    return strong_prp2(n) && !is_square(n) && strong_lucas(n);
}

/* The checker checked: trial division agrees below 2^17, and the classic
 * pseudoprimes of each half are caught by the other half. */
static void test_bpsw_itself(void)
{
    int disagree = 0;
    for (uint64_t n = 0; n < 131072u; n++) {
        int prime = n >= 2;
        for (uint64_t f = 2; f * f <= n && prime; f++)
            prime = n % f != 0;
        disagree += prime != bpsw(n);
    }
    CHECK(disagree == 0);
    CHECK(strong_prp2(2047) && !bpsw(2047));               /* 23 * 89 */
    CHECK(strong_prp2(3215031751u) && !bpsw(3215031751u)); /* spsp(2,3,5,7) */
    CHECK(strong_lucas(5459) && !bpsw(5459));              /* strong Lucas psp */
    CHECK(strong_lucas(5777) && !bpsw(5777));
    CHECK(bpsw(2305843009213693951ull));   /* 2^61 - 1 */
    CHECK(bpsw(18446744073709551557ull));  /* largest prime < 2^64 */
    CHECK(!bpsw(18446744030759878681ull)); /* (2^32 - 5)^2 */
    CHECK(!bpsw(4294967291ull * 4294967279ull));
}

/* ---- 3-D lattice structure ---------------------------------------------------- */

/* tools/mwc_multipliers.c's NU3_MIN: the table keeps a only if nu3(a) >= this. */
#define NU3_BOUND 16384

typedef struct dual_vec {
    int64_t h[3];
    uint64_t norm2; /* 0: none found */
} dual_vec;

/* floor(n/d + 1/2), d > 0. */
static int64_t nearest_quotient(int64_t n, int64_t d)
{
    int64_t num = 2 * n + d, q = num / (2 * d);
    return q * 2 * d > num ? q - 1 : q;
}

/* The shortest nonzero h with all |h_i| < bound and
 *     h0 + h1*a + h2*a^2 == 0 (mod p),  p = a*2^32 - 1,
 * i.e. of the dual lattice of the LCG (modulus p, multiplier a) that the
 * MWC is (docs/rng.md).  nu3 < bound iff one is found with norm2 < bound^2
 * (a vector that short has all |h_i| < bound), and then nu3^2 = norm2.
 * Exhaustive in h2: h and -h are both in, so h2 > 0 suffices (h2 = 0 would
 * need h0 + h1*a == 0 with |h0 + h1*a| < p).  For each h2,
 * t = -h2*a^2 mod p, centred, must equal h0 + h1*a exactly (both lie in
 * (-p/2, p/2)), and since bound <= a/2 at most one (h0, h1) fits. */
static dual_vec short_dual_vector(uint64_t a, int64_t bound)
{
    const uint64_t p = (a << 32) - 1u, a2 = mulmod(a, a, p);
    const uint64_t reach = (uint64_t)bound * (a + 1u); /* > |h0 + h1*a| */
    dual_vec best = {{0, 0, 0}, 0};
    uint64_t t = 0;
    for (int64_t h2 = 1; h2 < bound; h2++) {
        t = submod(t, a2, p);
        if (t >= reach && p - t >= reach)
            continue; /* nearly every h2: no small (h0, h1) */
        int64_t tc = t < reach ? (int64_t)t : -(int64_t)(p - t);
        int64_t h1 = nearest_quotient(tc, (int64_t)a), h0 = tc - h1 * (int64_t)a;
        if (h0 <= -bound || h0 >= bound || h1 <= -bound || h1 >= bound)
            continue;
        uint64_t n2 = (uint64_t)(h0 * h0 + h1 * h1 + h2 * h2);
        if (best.norm2 == 0 || n2 < best.norm2)
            best = (dual_vec){{h0, h1, h2}, n2};
    }
    return best;
}

static int low_nu3(uint64_t a)
{
    uint64_t n2 = short_dual_vector(a, NU3_BOUND).norm2;
    return n2 != 0 && n2 < (uint64_t)NU3_BOUND * NU3_BOUND;
}

/* Ties the lattice to the generator: Y = a*x + c follows Y' = a*Y mod p and
 * x' = floor(2^32*Y'/p), so h0*x[n] + h1*x[n+1] + h2*x[n+2] is within
 * |h0| + |h1| + |h2| of a multiple of 2^32 for every n.  For random words
 * (and bound <= 2^17) that happens with probability < 2^-12 per n; 2000 n
 * decide. */
static int outputs_obey(uint64_t a, const dual_vec *v)
{
    const int64_t slack = llabs(v->h[0]) + llabs(v->h[1]) + llabs(v->h[2]);
    uint64_t z = mwc_mix64(a);
    mwc_state s = {(((z >> 32) % a) << 32) | (z & 0xFFFFFFFFu), a};
    uint32_t x0 = mwc_next(&s), x1 = mwc_next(&s);
    int ok = 1;
    for (int n = 0; n < 2000; n++) {
        uint32_t x2 = mwc_next(&s);
        uint32_t sum =
            (uint32_t)((uint64_t)v->h[0] * x0 + (uint64_t)v->h[1] * x1 + (uint64_t)v->h[2] * x2);
        int64_t centred = sum < 0x80000000u ? (int64_t)sum : (int64_t)sum - 0x100000000ll;
        ok &= llabs(centred) <= slack;
        x0 = x1;
        x1 = x2;
    }
    return ok;
}

/* The multiplier GPU-MCML and the old table started with, a = 2^32 - 178:
 * nu3 = |(-1, 178, 1)| (a^2 + 178*a - 1 = a*2^32 - 1 = p), so its triples
 * lie on ~180 planes and dieharder failed it (docs/rng.md). */
static void test_nu3_known_bad(void)
{
    const uint64_t bad = 4294967118u;
    dual_vec v = short_dual_vector(bad, NU3_BOUND);
    CHECK_MSG(v.norm2 == 178u * 178u + 2u, "nu3^2(%llu) = %llu", (unsigned long long)bad,
              (unsigned long long)v.norm2);
    CHECK(v.h[2] == 1 && v.h[1] == 178 && v.h[0] == -1);
    CHECK(outputs_obey(bad, &v));
    v.h[1] = -178; /* the wrong sign must not fit: the check can fail */
    CHECK(!outputs_obey(bad, &v));
}

/* Every table entry has nu3 >= 2^14; the exact nu3 of a few (every lag-1
 * MWC base 2^32 has nu3 < 2^17, so bound 2^17 always finds it) also obeys
 * the output relation.  Sample: both ends and every 8th entry. */
static void test_table_nu3(void)
{
    const uint32_t *t = rng_mwc_multipliers;
    uint32_t low = 0, checked = 0;
    for (uint32_t i = 0; i < MWC_MULTIPLIER_COUNT; i++) {
        if (i % 8 != 0 && i >= 256 && i < MWC_MULTIPLIER_COUNT - 256)
            continue;
        checked++;
        if (low_nu3(t[i]) && low++ < 10)
            fprintf(stderr, "table[%u] = %u has nu3 < %d\n", i, t[i], NU3_BOUND);
    }
    CHECK_MSG(low == 0, "%u of %u entries have nu3 < %d", low, checked, NU3_BOUND);
    const uint32_t some[] = {0, 1, 2, 3, 1000, MWC_MULTIPLIER_COUNT - 1u};
    for (size_t k = 0; k < sizeof some / sizeof some[0]; k++) {
        dual_vec v = short_dual_vector(t[some[k]], 1 << 17);
        CHECK_MSG(v.norm2 >= (uint64_t)NU3_BOUND * NU3_BOUND && v.norm2 < 1ull << 34,
                  "table[%u]: nu3^2 = %llu", some[k], (unsigned long long)v.norm2);
        CHECK_MSG(outputs_obey(t[some[k]], &v), "table[%u]", some[k]);
        if (some[k] == 0)
            printf("nu3(table[0] = %u) = %.0f; %u entries checked >= %d\n", t[0],
                   sqrt((double)v.norm2), checked, NU3_BOUND);
    }
}

/* ---- the multiplier table ----------------------------------------------------- */

static int safe_prime_multiplier(uint64_t a)
{
    return bpsw((a << 31) - 1u) && bpsw((a << 32) - 1u);
}

static uint64_t splitmix_next(uint64_t *s) { return mwc_mix64(*s += 0x9E3779B97F4A7C15ull); }

static void check_entry(uint32_t i)
{
    CHECK_MSG(safe_prime_multiplier(rng_mwc_multipliers[i]), "table[%u] = %u", i,
              rng_mwc_multipliers[i]);
}

/* Every a strictly between hi and lo must fail: not a safe-prime
 * multiplier, or nu3 < 2^14.  Returns how many failed only the latter. */
static unsigned check_gap(uint64_t hi, uint64_t lo)
{
    unsigned low = 0;
    for (uint64_t a = hi - 1u; a > lo; a--) {
        if (!safe_prime_multiplier(a))
            continue;
        int skipped = low_nu3(a);
        CHECK_MSG(skipped, "%llu missing from the table", (unsigned long long)a);
        low += (unsigned)skipped;
    }
    return low;
}

static void test_table_shape(void)
{
    const uint32_t *t = rng_mwc_multipliers;
    int descending = 1;
    CHECK(sizeof rng_mwc_multipliers / sizeof t[0] == MWC_MULTIPLIER_COUNT);
    CHECK((MWC_MULTIPLIER_COUNT & (MWC_MULTIPLIER_COUNT - 1u)) == 0); /* mwc_seed masks */
    for (uint32_t i = 1; i < MWC_MULTIPLIER_COUNT; i++)
        descending &= t[i] < t[i - 1]; /* strictly: so also all distinct */
    CHECK(descending);
    CHECK(t[MWC_MULTIPLIER_COUNT - 1] > 0x80000000u); /* sanity: ~4.2e9 */
    /* Known answers: the largest safe-prime multiplier below 2^32 with
     * nu3 >= 2^14 (d = 2^32 - a = 16582; test_table_primes shows that
     * nothing above it qualifies), and the last one. */
    CHECK(t[0] == 4294950714u);
    CHECK(t[MWC_MULTIPLIER_COUNT - 1] == 4194768249u);
}

static void test_table_primes(void)
{
    uint64_t rs = 20240601;
    for (uint32_t i = 0; i < 100; i++) {
        check_entry(i);
        check_entry(MWC_MULTIPLIER_COUNT - 1u - i);
    }
    for (int k = 0; k < 1000; k++)
        check_entry((uint32_t)(splitmix_next(&rs) % MWC_MULTIPLIER_COUNT));
    /* Completeness: nothing above the first entry, nothing skipped in a
     * sample of gaps at both ends and in the middle.  Above the first
     * entry lie 30 safe-prime multipliers (4294967118 ... 4294951008, the
     * old table's start), all with d = 2^32 - a < 2^14 - 1, so
     * |(-1, d, 1)| < 2^14. */
    unsigned low = check_gap(1ull << 32, rng_mwc_multipliers[0]);
    CHECK_MSG(low == 30, "%u safe-prime multipliers above table[0]", low);
    for (uint32_t i = 0; i < 20; i++) {
        check_gap(rng_mwc_multipliers[i], rng_mwc_multipliers[i + 1]);
        uint32_t j = MWC_MULTIPLIER_COUNT - 2u - i;
        check_gap(rng_mwc_multipliers[j], rng_mwc_multipliers[j + 1]);
    }
    for (int k = 0; k < 60; k++) {
        uint32_t j = (uint32_t)(splitmix_next(&rs) % (MWC_MULTIPLIER_COUNT - 1u));
        check_gap(rng_mwc_multipliers[j], rng_mwc_multipliers[j + 1]);
    }
}

/* ---- streams ----------------------------------------------------------------------- */

#define SEQ_LEN 1000

static void draw(uint64_t seed, uint64_t photon, uint32_t *out)
{
    mwc_state s;
    mwc_seed(&s, seed, photon, rng_mwc_multipliers);
    for (int i = 0; i < SEQ_LEN; i++)
        out[i] = mwc_next(&s);
}

static int equal_positions(const uint32_t *x, const uint32_t *y)
{
    int n = 0;
    for (int i = 0; i < SEQ_LEN; i++)
        n += x[i] == y[i];
    return n;
}

static void test_determinism(void)
{
    static uint32_t ref[SEQ_LEN], again[SEQ_LEN], other[SEQ_LEN];
    const uint64_t seed = 1234567;
    const uint64_t photons[] = {0, 1, 99, MWC_MULTIPLIER_COUNT, 1ull << 40, UINT64_MAX};
    for (size_t p = 0; p < sizeof photons / sizeof photons[0]; p++) {
        draw(seed, photons[p], ref);
        draw(seed + 1, 5, other); /* something in between must not matter */
        draw(seed, photons[p], again);
        CHECK(memcmp(ref, again, sizeof ref) == 0);
        /* 1000 equal positions by chance: expected 2.3e-7 */
        draw(seed, photons[p] + 1u, other);
        CHECK(equal_positions(ref, other) <= 1);
        draw(seed, photons[p] + MWC_MULTIPLIER_COUNT, other); /* same multiplier */
        CHECK(equal_positions(ref, other) <= 1);
        draw(seed + 1, photons[p], other);
        CHECK(equal_positions(ref, other) <= 1);
        draw(seed ^ (1ull << 63), photons[p], other);
        CHECK(equal_positions(ref, other) <= 1);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Seeding: right multiplier, carry < a, never a fixed point, and distinct
 * photons start in distinct states. */
static void test_seeding(void)
{
    const uint64_t seeds[] = {0, 1, 0x5eed, UINT64_MAX};
    const uint32_t n = 2u * MWC_MULTIPLIER_COUNT + 1000u;
    uint64_t *x = malloc(sizeof *x * n);
    CHECK(x != NULL);
    if (!x)
        return;
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        int ok = 1;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t photon = i < n - 8u ? i : UINT64_MAX - (n - 1u - i);
            mwc_state s;
            mwc_seed(&s, seeds[k], photon, rng_mwc_multipliers);
            uint64_t carry = s.x >> 32, value = s.x & 0xFFFFFFFFu;
            ok &= s.a == rng_mwc_multipliers[photon % MWC_MULTIPLIER_COUNT];
            ok &= carry < s.a;
            ok &= !(carry == 0 && value == 0) && !(carry == s.a - 1u && value == 0xFFFFFFFFu);
            x[i] = s.x;
        }
        CHECK(ok);
        qsort(x, n, sizeof *x, cmp_u64);
        int distinct = 1;
        for (uint32_t i = 1; i < n; i++)
            distinct &= x[i] != x[i - 1];
        CHECK(distinct);
    }
    free(x);
}

/* The two fixed points are why seeding avoids them: the generator stays put. */
static void test_fixed_points(void)
{
    uint64_t a = rng_mwc_multipliers[7];
    mwc_state s = {0, a};
    CHECK(mwc_next(&s) == 0 && s.x == 0);
    s.x = ((a - 1u) << 32) | 0xFFFFFFFFu;
    CHECK(mwc_next(&s) == 0xFFFFFFFFu && s.x == (((a - 1u) << 32) | 0xFFFFFFFFu));
}

/* The extreme outputs 0 and 2^32-1 come from the fixed points (a state can
 * be set directly), so the ends of every conversion are tested exactly. */
static void test_uniform_ends(void)
{
    uint64_t a = rng_mwc_multipliers[0];
    mwc_state lo = {0, a}, hi = {((a - 1u) << 32) | 0xFFFFFFFFu, a};
    CHECK(mwc_uniform(&lo) == 0.0);
    CHECK(mwc_uniform_open0(&lo) == 1.0 / 4294967296.0);
    CHECK(mwc_uniform(&hi) == 1.0 - 1.0 / 4294967296.0);
    CHECK(mwc_uniform_open0(&hi) == 1.0);
    CHECK(-log(mwc_uniform_open0(&lo)) < 23.0); /* finite step: -ln(2^-32) = 22.2 */
}

/* The GPU's float draws (rng_mwc.h, device only) convert the 32-bit output
 * rounding toward zero and scale by 2^-32; mwc_uniform_open0_f adds 2^-33.
 * Emulated here with the host's rounding modes: the ends are [0, 1 - 2^-24]
 * and [2^-33, 1 - 2^-24], and a comparison with any float threshold t is
 * exact: rz(v) * 2^-32 < t exactly when v < t * 2^32. */
static float uint_to_float_rz(uint32_t v)
{
    /* Both volatile: converted at run time, between the two mode changes. */
    volatile uint32_t in = v;
    fesetround(FE_TOWARDZERO);
    volatile float f = (float)in;
    fesetround(FE_TONEAREST);
    return f;
}

static void test_float_draws(void)
{
    const float scale = 2.3283064365386962890625e-10f, half = 1.16415321826934814453125e-10f;
    CHECK(uint_to_float_rz(0u) * scale == 0.0f);
    CHECK(uint_to_float_rz(0xFFFFFFFFu) * scale == 1.0f - 1.0f / 16777216.0f);
    CHECK(fmaf(uint_to_float_rz(0u), scale, half) == half);
    CHECK(fmaf(uint_to_float_rz(0xFFFFFFFFu), scale, half) == 1.0f - 1.0f / 16777216.0f);
    const float thresholds[] = {0.1f, 1e-4f, 0.5f, 0.7f, 0.9999f, 3e-9f};
    mwc_state s;
    mwc_seed(&s, 5, 0, rng_mwc_multipliers);
    for (int i = 0; i < 200000; i++) {
        uint32_t v = mwc_next(&s);
        v >>= (i % 32); /* every magnitude, down to the smallest */
        for (size_t k = 0; k < sizeof thresholds / sizeof *thresholds; k++) {
            float t = thresholds[k];
            bool below = (double)v < (double)t * 4294967296.0;
            CHECK_MSG((uint_to_float_rz(v) * scale < t) == below, "v %u t %g", v, (double)t);
        }
    }
}

static void test_uniform_ranges(void)
{
    mwc_state s;
    int ok = 1;
    mwc_seed(&s, 42, 3, rng_mwc_multipliers);
    for (int i = 0; i < 4000000; i++) {
        double u = mwc_uniform(&s), v = mwc_uniform_open0(&s);
        ok &= u >= 0.0 && u < 1.0 && v > 0.0 && v <= 1.0;
    }
    CHECK(ok);
}

/* ---- statistics ------------------------------------------------------------------- */

/* Regularized upper incomplete gamma Q(a, x) (series / continued fraction). */
static double gamma_q(double a, double x)
{
    double lg = lgamma(a);
    if (x < a + 1.0) {
        double term = 1.0 / a, sum = term;
        for (int n = 1; n < 100000 && fabs(term) > fabs(sum) * 1e-17; n++) {
            term *= x / (a + n);
            sum += term;
        }
        return 1.0 - sum * exp(-x + a * log(x) - lg);
    }
    double b = x + 1.0 - a, c = 1e300, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        d = fabs(d) < 1e-300 ? 1e-300 : d;
        c = b + an / c;
        c = fabs(c) < 1e-300 ? 1e-300 : c;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-16)
            break;
    }
    return exp(-x + a * log(x) - lg) * h;
}

/* Chi-square of counts against a flat expectation; fails outside the
 * central 1 - P_LIMIT of the distribution (too good is suspicious too). */
static void check_flat(const char *what, const uint64_t *count, size_t bins, uint64_t total)
{
    double expected = (double)total / (double)bins, chi2 = 0.0;
    for (size_t i = 0; i < bins; i++) {
        double d = (double)count[i] - expected;
        chi2 += d * d / expected;
    }
    double p = gamma_q(0.5 * (double)(bins - 1u), 0.5 * chi2);
    CHECK_MSG(p > 0.5 * P_LIMIT && p < 1.0 - 0.5 * P_LIMIT, "%s: chi2 = %.1f, df = %zu, p = %.3g",
              what, chi2, bins - 1u, p);
}

/* Pearson correlation of n pairs; sqrt(n)*r is ~N(0,1) for independent uniforms. */
static void check_uncorrelated(const char *what, double sxy, double sx, double sy, double sxx,
                               double syy, double n)
{
    double cov = sxy / n - (sx / n) * (sy / n);
    double r = cov / sqrt((sxx / n - (sx / n) * (sx / n)) * (syy / n - (sy / n) * (sy / n)));
    double p = erfc(fabs(r) * sqrt(n) / sqrt(2.0));
    CHECK_MSG(p > P_LIMIT, "%s: r = %.3g over %.0f pairs, p = %.3g", what, r, n, p);
}

#define NPHOTONS 4096u
#define NDRAWS   256u
#define BINS1    1024u
#define BINS2    64u

typedef struct pair_stats {
    uint64_t cells[BINS2 * BINS2];
    double sx, sy, sxx, syy, sxy, n;
} pair_stats;

static void pair_add(pair_stats *ps, uint32_t x, uint32_t y)
{
    double u = x * (1.0 / 4294967296.0), v = y * (1.0 / 4294967296.0);
    ps->cells[(x >> 26) * BINS2 + (y >> 26)]++;
    ps->sx += u;
    ps->sy += v;
    ps->sxx += u * u;
    ps->syy += v * v;
    ps->sxy += u * v;
    ps->n += 1.0;
}

static void pair_check(const char *what, const pair_stats *ps)
{
    check_flat(what, ps->cells, BINS2 * BINS2, (uint64_t)ps->n);
    check_uncorrelated(what, ps->sxy, ps->sx, ps->sy, ps->sxx, ps->syy, ps->n);
}

typedef struct interleaved_stats {
    uint64_t top[BINS1], low[BINS1];
    pair_stats across;  /* photon i, i+1 at the same draw */
    pair_stats within;  /* draws k, k+1 of one photon */
    pair_stats sharing; /* photons i and i + 2^17: one multiplier */
} interleaved_stats;

/* NPHOTONS streams from first, drawn round-robin as a kernel would. */
static void interleaved_run(uint64_t seed, uint64_t first, interleaved_stats *st)
{
    static mwc_state s[NPHOTONS], twin[NPHOTONS];
    static uint32_t prev[NPHOTONS];
    for (uint32_t i = 0; i < NPHOTONS; i++) {
        mwc_seed(&s[i], seed, first + i, rng_mwc_multipliers);
        mwc_seed(&twin[i], seed, first + i + MWC_MULTIPLIER_COUNT, rng_mwc_multipliers);
    }
    for (uint32_t k = 0; k < NDRAWS; k++) {
        uint32_t last = 0;
        for (uint32_t i = 0; i < NPHOTONS; i++) {
            uint32_t x = mwc_next(&s[i]);
            st->top[x >> 22]++;
            st->low[x & (BINS1 - 1u)]++;
            if (i > 0)
                pair_add(&st->across, last, x);
            if (k > 0)
                pair_add(&st->within, prev[i], x);
            pair_add(&st->sharing, x, mwc_next(&twin[i]));
            prev[i] = last = x;
        }
    }
}

static void test_interleaved(uint64_t seed, uint64_t first)
{
    interleaved_stats *st = calloc(1, sizeof *st);
    CHECK(st != NULL);
    if (!st)
        return;
    interleaved_run(seed, first, st);
    printf("interleaved streams: seed %llu, photons %llu..+%u, %u draws each\n",
           (unsigned long long)seed, (unsigned long long)first, NPHOTONS, NDRAWS);
    check_flat("top 10 bits", st->top, BINS1, (uint64_t)NPHOTONS * NDRAWS);
    check_flat("low 10 bits", st->low, BINS1, (uint64_t)NPHOTONS * NDRAWS);
    pair_check("neighbouring photons", &st->across);
    pair_check("successive draws", &st->within);
    pair_check("photons sharing a multiplier", &st->sharing);
    free(st);
}

int main(void)
{
    test_bpsw_itself();
    test_table_shape();
    test_table_primes();
    test_nu3_known_bad();
    test_table_nu3();
    test_determinism();
    test_seeding();
    test_fixed_points();
    test_uniform_ends();
    test_float_draws();
    test_uniform_ranges();
    test_interleaved(1, 0);
    test_interleaved(0xC0FFEE, MWC_MULTIPLIER_COUNT - NPHOTONS / 2u); /* across the wrap */
    test_interleaved(7, 1ull << 40);
    return check_summary("test_rng");
}
