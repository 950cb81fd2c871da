/* Raw 32-bit output of the per-photon MWC streams, for statistical
 * batteries (dieharder -g 200 reads it from stdin; see
 * tests/rng_dieharder.sh, tools/rng_battery.sh, docs/rng.md).
 *
 *   rng_stream [-s SEED] [-k K] [-f FIRST] [-t STRIDE] [-1] [-n WORDS]
 *
 * By default the K streams of photons FIRST, FIRST+STRIDE, ...,
 * FIRST+(K-1)*STRIDE are drawn round-robin, one word each: consecutive
 * words come from different photons, which is where a weakness of the
 * per-photon seeding (correlated neighbouring start states) would show.
 * STRIDE = 131072 (MWC_MULTIPLIER_COUNT) interleaves photons that share one
 * multiplier.  -1 emits the single stream of photon FIRST instead.  Words
 * are written in host byte order, without end unless -n is given. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define BUFFER_WORDS 65536u
#define MAX_STREAMS  (1u << 24)

typedef struct options {
    uint64_t seed, first, stride, words;
    uint32_t k;
    int single;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rng_stream [-s SEED] [-k K] [-f FIRST] [-t STRIDE] [-1] [-n WORDS]\n"
            "  -s SEED    run seed (default 1)\n"
            "  -k K       streams interleaved round-robin (default 1024, at most %u)\n"
            "  -f FIRST   first photon index (default 0)\n"
            "  -t STRIDE  photon index step between the streams (default 1)\n"
            "  -1         only the stream of photon FIRST\n"
            "  -n WORDS   stop after WORDS 32-bit words (default: never)\n",
            MAX_STREAMS);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || *s == '\0' || *s == '-')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

static int parse_options(int argc, char **argv, options *o)
{
    uint64_t k = 1024;
    *o = (options){.seed = 1, .first = 0, .stride = 1, .words = 0, .single = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "-1")) {
            o->single = 1;
            continue;
        }
        if (!strcmp(a, "-s"))
            ok = parse_u64(v, &o->seed);
        else if (!strcmp(a, "-k"))
            ok = parse_u64(v, &k) && k >= 1 && k <= MAX_STREAMS;
        else if (!strcmp(a, "-f"))
            ok = parse_u64(v, &o->first);
        else if (!strcmp(a, "-t"))
            ok = parse_u64(v, &o->stride);
        else if (!strcmp(a, "-n"))
            ok = parse_u64(v, &o->words) && o->words > 0;
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr, "rng_stream: bad option %s%s%s\n", a, v ? " " : "", v ? v : "");
            return 0;
        }
        i++; /* the value */
    }
    o->k = o->single ? 1u : (uint32_t)k;
    return 1;
}

static int emit(const options *o, mwc_state *s)
{
    static uint32_t buf[BUFFER_WORDS];
    uint64_t left = o->words;
    uint32_t next = 0;
    for (;;) {
        size_t n = BUFFER_WORDS;
        if (o->words && left < n)
            n = (size_t)left;
        for (size_t i = 0; i < n; i++) {
            buf[i] = mwc_next(&s[next]);
            next = next + 1u == o->k ? 0u : next + 1u;
        }
        if (fwrite(buf, sizeof buf[0], n, stdout) != n)
            return errno == EPIPE ? 0 : 1; /* the reader has had enough */
        left -= n;
        if (o->words && left == 0)
            return fflush(stdout) != 0;
    }
}

int main(int argc, char **argv)
{
    options o;
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (!parse_options(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    mwc_state *s = malloc(sizeof *s * o.k);
    if (!s) {
        fprintf(stderr, "rng_stream: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < o.k; i++)
        mwc_seed(&s[i], o.seed, o.first + i * o.stride, rng_mwc_multipliers);
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is the normal end: see emit */
    int rc = emit(&o, s);
    if (rc)
        fprintf(stderr, "rng_stream: write error: %s\n", strerror(errno));
    free(s);
    return rc;
}
