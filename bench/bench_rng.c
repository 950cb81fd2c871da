/* Cost of the per-photon random streams on this CPU, one thread: ns per
 * number (raw, as a double uniform, as an exponential step -ln(xi)) and per
 * photon seeding.  A benchmark, not a test; docs/rng.md records results.
 * usage: bench_rng [MILLIONS]   (numbers per measurement, default 200) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"

#define REPEATS 5 /* the fastest of REPEATS runs is reported */

typedef double (*bench_fn)(long n, unsigned long long *sink);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void seed_one(mwc_state *s, unsigned long long photon)
{
    mwc_seed(s, 1, photon, rng_mwc_multipliers);
}

/* One stream: every number waits for the previous one (the latency a photon
 * loop sees on a CPU core). */
static double run_next(long n, unsigned long long *sink)
{
    mwc_state s;
    unsigned acc = 0;
    seed_one(&s, 12345);
    for (long i = 0; i < n; i++)
        acc ^= mwc_next(&s);
    *sink += acc;
    return (double)n;
}

/* Four photons' streams side by side: throughput when the core can
 * overlap independent multiplies (closer to what a GPU warp exploits). */
static double run_next_x4(long n, unsigned long long *sink)
{
    mwc_state s[4];
    unsigned acc = 0;
    for (int k = 0; k < 4; k++)
        seed_one(&s[k], 12345u + (unsigned)k);
    for (long i = 0; i < n / 4; i++)
        acc ^= mwc_next(&s[0]) ^ mwc_next(&s[1]) ^ mwc_next(&s[2]) ^ mwc_next(&s[3]);
    *sink += acc;
    return (double)(n / 4 * 4);
}

static double run_uniform(long n, unsigned long long *sink)
{
    mwc_state s;
    double acc = 0.0;
    seed_one(&s, 12345);
    for (long i = 0; i < n; i++)
        acc += mwc_uniform(&s);
    *sink += (unsigned long long)acc;
    return (double)n;
}

static double run_step(long n, unsigned long long *sink)
{
    mwc_state s;
    double acc = 0.0;
    seed_one(&s, 12345);
    for (long i = 0; i < n; i++)
        acc += -log(mwc_uniform_open0(&s));
    *sink += (unsigned long long)acc;
    return (double)n;
}

/* Seeding consecutive photons, as a thread taking photon after photon does. */
static double run_seed(long n, unsigned long long *sink)
{
    unsigned long long acc = 0;
    for (long i = 0; i < n; i++) {
        mwc_state s;
        seed_one(&s, (unsigned long long)i);
        acc ^= s.x;
    }
    *sink += acc;
    return (double)n;
}

static void measure(const char *what, bench_fn fn, long n, unsigned long long *sink)
{
    double best = 1e300, count = 0.0;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = now();
        count = fn(n, sink);
        double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    printf("| %-34s | %8.3f | %9.1f |\n", what, 1e9 * best / count, count / best / 1e6);
}

int main(int argc, char **argv)
{
    long millions = argc > 1 ? atol(argv[1]) : 200;
    unsigned long long sink = 0;
    if (millions <= 0) {
        fprintf(stderr, "usage: bench_rng [MILLIONS]\n");
        return 2;
    }
    long n = millions * 1000000L;
    printf("bench_rng: one thread, %ld numbers per run, best of %d\n\n", n, REPEATS);
    printf("| %-34s | %8s | %9s |\n", "operation", "ns", "M/s");
    printf("|%.36s|%.10s|%.11s|\n", "------------------------------------", "----------",
           "-----------");
    measure("mwc_next (one stream)", run_next, n, &sink);
    measure("mwc_next (4 streams interleaved)", run_next_x4, n, &sink);
    measure("mwc_uniform", run_uniform, n, &sink);
    measure("-log(mwc_uniform_open0)", run_step, n, &sink);
    measure("mwc_seed (per photon)", run_seed, n / 10, &sink);
    printf("\n(checksum %llu: printed so that no loop can be optimised away)\n", sink);
    return 0;
}
