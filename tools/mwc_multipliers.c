/* Build-time generator of the safe-prime multipliers of the per-photon MWC
 * generator (templates/rng_mwc.h, docs/rng.md).
 *
 *   mwc_multipliers OUTPUT.c
 *
 * Writes the MWC_MULTIPLIER_COUNT largest a < 2^32 for which
 * p = a*2^32 - 1 and q = (p - 1)/2 = a*2^31 - 1 are both prime and the
 * 3-D spectral figure nu3(a) is at least NU3_MIN, in descending order.  For
 * such a the MWC x' = a*x + c (base 2^32) has period q, and triples of
 * successive outputs do not fall on a few planes.
 *
 * How: the candidates are walked down from 2^32 - 1 in chunks.  Each chunk is
 * first sieved by every odd prime below SIEVE_LIMIT (a kills p when
 * a == 2^-32 mod r, kills q when a == 2^-31 mod r), which removes ~99% of the
 * candidates for the price of a few memory writes each.  The survivors go
 * through Miller-Rabin with the 12 bases {2..37}, which is exact below
 * 3.3e24 > 2^64, using Montgomery multiplication (no 128-bit division in the
 * loop).  Last, nu3 is computed exactly (integer lattice reduction) for the
 * prime pairs.  Chunks are handed to one thread per core in rounds; the
 * results of a round are appended in chunk order, so the table does not
 * depend on the number of threads or on scheduling.
 *
 * The output is written to a temporary file and renamed, so an interrupted
 * build never leaves a half-written table behind. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rng_mwc.h"

#define SIEVE_LIMIT      65536u /* odd primes below this are sieved out */
#define CHUNK_SIZE       65536u /* candidates per chunk: the sieve stays in L2 */
#define CHUNKS_PER_ROUND 32u    /* ~90 multipliers per chunk, ~1500 chunks needed */
#define MAX_THREADS      64

/* Smallest accepted 3-D spectral figure nu3 (length of the shortest dual
 * vector of the lattice of output triples): triples of successive uniforms
 * lie on planes 1/nu3 apart.  a near 2^32 (d = 2^32 - a small) gives
 * nu3 ~ d; photon 0's old multiplier (d = 178) failed dieharder's operm5,
 * oqso and 3-D minimum-distance tests, single streams failed the latter up
 * to nu3 = 466, were WEAK at 1012 and passed from 4273 up.  2^14 keeps a
 * factor 4 over that and rejects only ~4% of the safe-prime multipliers
 * (no lag-1 MWC with base 2^32 has nu3 above 83750, by Hermite's bound). */
#define NU3_MIN 16384u

typedef unsigned __int128 u128;

/* ---- Montgomery arithmetic modulo an odd n < 2^64, R = 2^64 ---------------- */

typedef struct mont {
    uint64_t n;
    uint64_t ninv; /* n^-1 mod 2^64 */
    uint64_t one;  /* R mod n */
    uint64_t r2;   /* R^2 mod n */
} mont;

static void mont_init(mont *m, uint64_t n)
{
    uint64_t inv = n; /* correct to 3 bits for odd n; Newton doubles it */
    for (int i = 0; i < 5; i++)
        inv *= 2u - n * inv;
    m->n = n;
    m->ninv = inv;
    m->one = (0u - n) % n;
    m->r2 = (uint64_t)(((u128)m->one * m->one) % n);
}

/* a*b/R mod n for a, b < n.  The subtractive form (t - m*n)/R never
 * overflows, which matters because n is close to 2^64 here. */
static inline uint64_t mont_mul(const mont *m, uint64_t a, uint64_t b)
{
    u128 t = (u128)a * b;
    uint64_t k = (uint64_t)t * m->ninv;
    uint64_t hi_t = (uint64_t)(t >> 64);
    uint64_t hi_kn = (uint64_t)(((u128)k * m->n) >> 64);
    uint64_t r = hi_t - hi_kn;
    return hi_t < hi_kn ? r + m->n : r;
}

/* ---- Miller-Rabin, deterministic below 2^64 -------------------------------- */

static const uint64_t mr_bases[12] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

typedef struct mr_ctx {
    mont m;
    uint64_t d; /* n - 1 = d * 2^s, d odd */
    int s;
} mr_ctx;

static void mr_init(mr_ctx *c, uint64_t n)
{
    c->d = n - 1u;
    c->s = 0;
    while (!(c->d & 1u)) {
        c->d >>= 1;
        c->s++;
    }
    mont_init(&c->m, n);
}

/* One strong-probable-prime round, base b < n. */
static int mr_round(const mr_ctx *c, uint64_t b)
{
    const mont *m = &c->m;
    uint64_t minus_one = m->n - m->one;
    uint64_t base = mont_mul(m, b, m->r2);
    uint64_t x = m->one;
    for (uint64_t e = c->d; e; e >>= 1) {
        if (e & 1u)
            x = mont_mul(m, x, base);
        base = mont_mul(m, base, base);
    }
    if (x == m->one || x == minus_one)
        return 1;
    for (int i = 1; i < c->s; i++) {
        x = mont_mul(m, x, x);
        if (x == minus_one)
            return 1;
    }
    return 0;
}

/* The rounds with bases mr_bases[first..11]. */
static int mr_rounds_from(const mr_ctx *c, int first)
{
    for (int i = first; i < 12; i++)
        if (!mr_round(c, mr_bases[i]))
            return 0;
    return 1;
}

/* p = a*2^32 - 1 and q = a*2^31 - 1 both prime (exact: p, q < 2^64, all 12
 * bases).  Base 2 goes first on both: most survivors of the sieve have one
 * of them composite, and base 2 alone nearly always shows it, so the other
 * 11 rounds run almost only on the pairs that will be kept. */
static int safe_prime_multiplier(uint64_t a)
{
    mr_ctx p, q;
    mr_init(&q, (a << 31) - 1u);
    if (!mr_round(&q, 2))
        return 0;
    mr_init(&p, (a << 32) - 1u);
    if (!mr_round(&p, 2))
        return 0;
    return mr_rounds_from(&q, 1) && mr_rounds_from(&p, 1);
}

/* ---- 3-D lattice structure ------------------------------------------------------ */

/* With p = a*b - 1 (b = 2^32), Y = a*x + c follows Y' = a*Y mod p and the
 * output is x' = floor(b*Y'/p): the MWC is the LCG (modulus p, multiplier
 * a = b^-1 mod p), and each output x/b lies within 2^-32 below Y/p, so
 * output triples show that LCG's lattice.  Its dual lattice is
 * {h : h0 + h1*a + h2*a^2 == 0 (mod p)}; times b^2 (a*b == 1) this reads
 * h0*b^2 + h1*b + h2 == 0, solved by h = (-r, r*b - s*a + j*p, s) for all
 * integers r, s, j.  If |h| < 2^30 then |r*b - s*a| < 2^63 < p (a > 2^31),
 * so j = 0: the short dual vectors are exactly (r, s, s*a - r*b) up to
 * order and sign, a rank-2 lattice whose minimum, nu3, Lagrange-Gauss
 * reduction finds exactly.  (Hermite's bound puts that minimum below 2^17,
 * so it is indeed shorter than 2^30.)  See docs/rng.md. */

typedef __int128 i128;

typedef struct vec3 {
    i128 c[3];
} vec3;

static i128 dot3(const vec3 *u, const vec3 *v)
{
    return u->c[0] * v->c[0] + u->c[1] * v->c[1] + u->c[2] * v->c[2];
}

/* floor(n/d + 1/2) for d > 0. */
static i128 div_nearest(i128 n, i128 d)
{
    i128 q = (2 * n + d) / (2 * d);
    return q * 2 * d > 2 * n + d ? q - 1 : q; /* C truncates toward 0 */
}

/* nu3^2 of the multiplier a: the squared length of the shortest nonzero
 * (r, s, s*a - r*2^32).  Gauss reduction keeps |u| <= |v| and subtracts
 * the nearest multiple of u from v until that multiple is 0; then
 * |<u,v>| <= |u|^2/2 and u is a shortest vector.  Coordinates never grow
 * beyond the start (|v - mu*u| <= |v|), so int128 cannot overflow. */
static i128 nu3_squared(uint64_t a)
{
    vec3 u = {{1, 1, (i128)a - ((i128)1 << 32)}}; /* r = s = 1: (1, 1, -d) */
    vec3 v = {{0, 1, (i128)a}};                   /* r = 0, s = 1 */
    i128 uu = dot3(&u, &u), vv = dot3(&v, &v);
    for (;;) {
        if (vv < uu) {
            vec3 t = u;
            u = v;
            v = t;
            i128 tt = uu;
            uu = vv;
            vv = tt;
        }
        i128 mu = div_nearest(dot3(&u, &v), uu);
        if (mu == 0)
            return uu;
        for (int k = 0; k < 3; k++)
            v.c[k] -= mu * u.c[k];
        vv = dot3(&v, &v);
    }
}

static int good_lattice(uint64_t a) { return nu3_squared(a) >= (i128)NU3_MIN * NU3_MIN; }

/* ---- the sieve --------------------------------------------------------------- */

typedef struct sieve_prime {
    uint32_t r;
    uint32_t kill_p; /* a == kill_p (mod r)  =>  r | a*2^32 - 1 */
    uint32_t kill_q; /* a == kill_q (mod r)  =>  r | a*2^31 - 1 */
} sieve_prime;

static uint32_t pow2_mod(unsigned e, uint32_t r)
{
    uint64_t x = 1;
    for (unsigned i = 0; i < e; i++)
        x = (x * 2u) % r;
    return (uint32_t)x;
}

/* x^-1 mod r for prime r, by Fermat. */
static uint32_t inv_mod(uint32_t x, uint32_t r)
{
    uint64_t result = 1, base = x % r;
    for (uint32_t e = r - 2u; e; e >>= 1) {
        if (e & 1u)
            result = result * base % r;
        base = base * base % r;
    }
    return (uint32_t)result;
}

/* The odd primes below SIEVE_LIMIT with their two killing residues. */
static sieve_prime *make_sieve_primes(size_t *count)
{
    unsigned char *composite = calloc(SIEVE_LIMIT, 1);
    sieve_prime *primes = malloc(sizeof *primes * (SIEVE_LIMIT / 2));
    size_t n = 0;
    if (!composite || !primes) {
        free(composite);
        free(primes);
        return NULL;
    }
    for (uint32_t i = 3; i < SIEVE_LIMIT; i += 2) {
        if (composite[i])
            continue;
        for (uint32_t j = i * i; j < SIEVE_LIMIT; j += 2 * i)
            composite[j] = 1;
        primes[n].r = i;
        primes[n].kill_p = inv_mod(pow2_mod(32, i), i);
        primes[n].kill_q = inv_mod(pow2_mod(31, i), i);
        n++;
    }
    free(composite);
    *count = n;
    return primes;
}

/* Marks offsets j (candidate a = top - j) with a == root (mod r). */
static void sieve_out(unsigned char *dead, uint32_t top, uint32_t r, uint32_t root)
{
    uint32_t j = (uint32_t)(((uint64_t)top + r - root) % r);
    for (; j < CHUNK_SIZE; j += r)
        dead[j] = 1;
}

/* ---- chunks and threads -------------------------------------------------------- */

typedef struct chunk {
    uint32_t top;                    /* largest candidate of the chunk */
    uint32_t count;                  /* multipliers found */
    uint32_t found[CHUNK_SIZE / 64]; /* far above the ~90 expected */
    uint32_t nrejected;              /* safe-prime multipliers with nu3 < NU3_MIN */
    uint32_t rejected[CHUNK_SIZE / 64];
    int overflow;
} chunk;

typedef struct round_work {
    const sieve_prime *primes;
    size_t nprimes;
    chunk *chunks;
    unsigned nchunks;
    unsigned next; /* next chunk to take, under lock */
    pthread_mutex_t lock;
} round_work;

static void append(uint32_t *list, uint32_t *n, uint32_t a, int *overflow)
{
    if (*n == CHUNK_SIZE / 64)
        *overflow = 1;
    else
        list[(*n)++] = a;
}

static void search_chunk(chunk *c, const sieve_prime *primes, size_t nprimes)
{
    unsigned char dead[CHUNK_SIZE];
    memset(dead, 0, sizeof dead);
    for (size_t i = 0; i < nprimes; i++) {
        sieve_out(dead, c->top, primes[i].r, primes[i].kill_p);
        sieve_out(dead, c->top, primes[i].r, primes[i].kill_q);
    }
    c->count = c->nrejected = 0;
    c->overflow = 0;
    for (uint32_t j = 0; j < CHUNK_SIZE && !c->overflow; j++) {
        uint64_t a = (uint64_t)c->top - j;
        if (dead[j] || !safe_prime_multiplier(a))
            continue;
        /* nu3 last: only ~1 candidate in 730 gets this far. */
        if (good_lattice(a))
            append(c->found, &c->count, (uint32_t)a, &c->overflow);
        else
            append(c->rejected, &c->nrejected, (uint32_t)a, &c->overflow);
    }
}

static void *worker(void *arg)
{
    round_work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        unsigned i = w->next++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->nchunks)
            return NULL;
        search_chunk(&w->chunks[i], w->primes, w->nprimes);
    }
}

/* Runs one round of chunks on nthreads threads (the caller is one of them). */
static void run_round(round_work *w, unsigned nthreads)
{
    pthread_t tid[MAX_THREADS];
    unsigned started = 0;
    w->next = 0;
    for (; started + 1 < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, w) != 0)
            break; /* fewer threads is slower, not wrong */
    worker(w);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

static unsigned thread_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

/* Appends chunk c's multipliers to table[*have..] until it is full, and
 * counts in *rejected the nu3 rejections among the candidates used. */
static void take_chunk(const chunk *c, uint32_t *table, size_t *have, size_t *rejected)
{
    for (uint32_t k = 0; k < c->count && *have < MWC_MULTIPLIER_COUNT; k++)
        table[(*have)++] = c->found[k];
    uint32_t lowest = *have == MWC_MULTIPLIER_COUNT ? table[*have - 1] : 0;
    for (uint32_t k = 0; k < c->nrejected; k++)
        *rejected += c->rejected[k] > lowest;
}

/* Fills table[0..MWC_MULTIPLIER_COUNT) in descending order; 0 on success. */
static int find_multipliers(uint32_t *table, size_t *rejected)
{
    size_t nprimes = 0, have = 0;
    round_work w;
    uint64_t top = 0xFFFFFFFFu;
    unsigned nthreads = thread_count();
    int rc = 0;

    w.primes = make_sieve_primes(&nprimes);
    w.nprimes = nprimes;
    w.chunks = malloc(sizeof *w.chunks * CHUNKS_PER_ROUND);
    if (!w.primes || !w.chunks || pthread_mutex_init(&w.lock, NULL) != 0) {
        fprintf(stderr, "mwc_multipliers: out of memory\n");
        free((void *)w.primes);
        free(w.chunks);
        return 1;
    }
    while (have < MWC_MULTIPLIER_COUNT && rc == 0) {
        w.nchunks = 0;
        for (; w.nchunks < CHUNKS_PER_ROUND && top >= CHUNK_SIZE; top -= CHUNK_SIZE)
            w.chunks[w.nchunks++].top = (uint32_t)top;
        if (w.nchunks == 0) {
            fprintf(stderr, "mwc_multipliers: ran out of candidates at a = %llu\n",
                    (unsigned long long)top);
            rc = 1;
            break;
        }
        run_round(&w, nthreads);
        for (unsigned c = 0; c < w.nchunks && have < MWC_MULTIPLIER_COUNT; c++) {
            if (w.chunks[c].overflow) {
                fprintf(stderr, "mwc_multipliers: chunk below %u has too many hits\n",
                        w.chunks[c].top);
                rc = 1;
                break;
            }
            take_chunk(&w.chunks[c], table, &have, rejected);
        }
    }
    pthread_mutex_destroy(&w.lock);
    free((void *)w.primes);
    free(w.chunks);
    return rc;
}

/* ---- output ---------------------------------------------------------------------- */

static int write_table(FILE *f, const uint32_t *table, size_t rejected)
{
    fprintf(f,
            "/* GENERATED by tools/mwc_multipliers.c at build time: do not edit.\n"
            " * The %u largest a < 2^32 with a*2^32-1 and a*2^31-1 both prime\n"
            " * (sieve by odd primes < %u, then Miller-Rabin with the 12 bases\n"
            " * 2..37, exact below 2^64) and 3-D spectral figure nu3 >= %u\n"
            " * (%zu such primes skipped for a lower nu3), in descending order.\n"
            " * See docs/rng.md. */\n"
            "#include <stdint.h>\n#include \"rng.h\"\n"
            "const uint32_t rng_mwc_multipliers[MWC_MULTIPLIER_COUNT] = {\n",
            MWC_MULTIPLIER_COUNT, SIEVE_LIMIT, NU3_MIN, rejected);
    for (uint32_t i = 0; i < MWC_MULTIPLIER_COUNT; i++)
        fprintf(f, "%s%10uu,%s", i % 8 == 0 ? "    " : " ", table[i], i % 8 == 7 ? "\n" : "");
    fprintf(f, "};\n");
    return ferror(f) ? -1 : 0;
}

/* Writes path.tmp.PID and renames it over path. */
static int write_atomically(const char *path, const uint32_t *table, size_t rejected)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "mwc_multipliers: out of memory\n");
        return 1;
    }
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "mwc_multipliers: cannot create %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return 1;
    }
    int bad = write_table(f, table, rejected) != 0;
    bad |= fclose(f) != 0;
    if (!bad && rename(tmp, path) != 0)
        bad = 1;
    if (bad) {
        fprintf(stderr, "mwc_multipliers: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return bad;
}

int main(int argc, char **argv)
{
    static uint32_t table[MWC_MULTIPLIER_COUNT];
    size_t rejected = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.c\n", argv[0]);
        return 2;
    }
    if (find_multipliers(table, &rejected) != 0)
        return 1;
    return write_atomically(argv[1], table, rejected);
}
