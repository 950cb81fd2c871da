/* The multiplier file GPU-MCML reads beside its binary (safeprimes_base32.txt),
 * which the stored copy of GPU-MCML lacks: one line per multiplier,
 * "a a*2^32-1 (a*2^32-2)/2", for the safe-prime multipliers a (a*2^32-1 and
 * (a*2^32-2)/2 both prime) descending from 4294967118.  For bench/gpumcml.sh
 * only: tmcml's own table is tools/mwc_multipliers.c.
 *   gpumcml_multipliers COUNT > safeprimes_base32.txt */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

static uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((u128)a * b % m); }

static uint64_t pow_mod(uint64_t b, uint64_t e, uint64_t m)
{
    uint64_t r = 1;
    for (b %= m; e; e >>= 1, b = mul_mod(b, b, m))
        if (e & 1)
            r = mul_mod(r, b, m);
    return r;
}

/* Miller-Rabin with the 12 prime bases that decide every n < 2^64. */
static int is_prime(uint64_t n)
{
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (n < 2)
        return 0;
    for (int i = 0; i < 12; i++)
        if (n % bases[i] == 0)
            return n == bases[i];
    uint64_t d = n - 1;
    int s = 0;
    while (!(d & 1)) {
        d >>= 1;
        s++;
    }
    for (int i = 0; i < 12; i++) {
        uint64_t x = pow_mod(bases[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int composite = 1;
        for (int r = 1; r < s && composite; r++) {
            x = mul_mod(x, x, n);
            composite = x != n - 1;
        }
        if (composite)
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 0;
    if (count <= 0) {
        fprintf(stderr, "usage: %s COUNT\n", argv[0]);
        return 2;
    }
    for (uint64_t a = 4294967118u; count > 0 && a > 0; a--) {
        uint64_t p = (a << 32) - 1, q = ((a << 32) - 2) / 2;
        if (is_prime(p) && is_prime(q)) {
            printf("%llu %llu %llu\n", (unsigned long long)a, (unsigned long long)p,
                   (unsigned long long)q);
            count--;
        }
    }
    return count == 0 ? 0 : 1;
}
