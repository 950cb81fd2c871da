#include "tally.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* Entries of tally array k on the grid of t (a tally_batch or tally_set).
 * Every loop over the tallies takes those t has: every run's, and the
 * optional ones added (the others are NULL). */
#define BINS(t, k)                                                                                 \
    ((size_t)output_tally_grid_bins(                                                               \
        (k), &(output_grid){(t)->nr, (t)->nz, (t)->na, (t)->num_layers, (t)->nt, (t)->detectors}))

bool tally_batch_init(tally_batch *b, int nr, int nz, int na)
{
    b->nr = nr;
    b->nz = nz;
    b->na = na;
    b->num_layers = b->nt = b->detectors = 0;
    for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)
        b->tally[k] = NULL;
    b->steps = 0;
    b->trapped_photons = b->trapped_units = 0;
    b->a_rz_exact = NULL;
    bool ok = true;
    for (int k = 0; k < OUTPUT_TALLIES; k++) {
        b->tally[k] = calloc(BINS(b, k), sizeof *b->tally[k]);
        ok = ok && b->tally[k];
    }
    if (ok)
        return true;
    tally_batch_free(b);
    return false;
}

void tally_batch_clear(tally_batch *b)
{
    b->steps = 0;
    b->trapped_photons = b->trapped_units = 0;
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (b->tally[k])
            memset(b->tally[k], 0, BINS(b, k) * sizeof *b->tally[k]);
}

void tally_set_clear(tally_set *t)
{
    t->photons = 0;
    t->steps = 0;
    t->trapped_photons = 0;
    t->trapped_units = 0;
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (t->tally[k])
            memset(t->tally[k], 0, BINS(t, k) * sizeof *t->tally[k]);
}

void tally_batch_free(tally_batch *b)
{
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++) {
        free(b->tally[k]);
        b->tally[k] = NULL;
    }
}

bool tally_set_init(tally_set *t, int nr, int nz, int na)
{
    t->nr = nr;
    t->nz = nz;
    t->na = na;
    t->num_layers = t->nt = t->detectors = 0;
    for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)
        t->tally[k] = NULL;
    t->photons = 0;
    t->steps = 0;
    t->trapped_photons = 0;
    t->trapped_units = 0;
    bool ok = true;
    for (int k = 0; k < OUTPUT_TALLIES; k++) {
        t->tally[k] = calloc(BINS(t, k), sizeof *t->tally[k]);
        ok = ok && t->tally[k];
    }
    if (ok)
        return true;
    tally_set_free(t);
    return false;
}

void tally_set_free(tally_set *t)
{
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++) {
        free(t->tally[k]);
        t->tally[k] = NULL;
    }
}

static void add_u64(tally_acc_t *dst, const uint64_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] += src[i];
}

static void add_acc(tally_acc_t *dst, const tally_acc_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] += src[i];
}

void tally_set_add_batch(tally_set *t, const tally_batch *b, uint64_t photons)
{
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (t->tally[k] && b->tally[k])
            add_u64(t->tally[k], b->tally[k], BINS(t, k));
    t->photons += photons;
    t->steps += b->steps;
    t->trapped_photons += b->trapped_photons;
    t->trapped_units += b->trapped_units;
}

void tally_set_add(tally_set *t, const tally_set *other)
{
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (t->tally[k] && other->tally[k])
            add_acc(t->tally[k], other->tally[k], BINS(t, k));
    t->photons += other->photons;
    t->steps += other->steps;
    t->trapped_photons += other->trapped_photons;
    t->trapped_units += other->trapped_units;
}

bool tally_set_runs_equal(const tally_set *a, const tally_set *b)
{
    if (a->nr != b->nr || a->nz != b->nz || a->na != b->na || a->photons != b->photons ||
        a->steps != b->steps || a->trapped_photons != b->trapped_photons ||
        a->trapped_units != b->trapped_units)
        return false;
    for (int k = 0; k < OUTPUT_TALLIES; k++)
        if (memcmp(a->tally[k], b->tally[k], BINS(a, k) * sizeof *a->tally[k]) != 0)
            return false;
    return true;
}

bool tally_set_equal(const tally_set *a, const tally_set *b)
{
    if (!tally_set_runs_equal(a, b) || a->num_layers != b->num_layers || a->nt != b->nt ||
        a->detectors != b->detectors)
        return false;
    for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)
        if (!a->tally[k] != !b->tally[k] ||
            (a->tally[k] &&
             memcmp(a->tally[k], b->tally[k], BINS(a, k) * sizeof *a->tally[k]) != 0))
            return false;
    return true;
}

/* Each count as 16 little-endian bytes, so the digest is the same on every
 * host that produces the same numbers. */
static uint64_t digest_counts(uint64_t h, const tally_acc_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char le[16];
        for (int k = 0; k < 16; k++)
            le[k] = (unsigned char)(v[i] >> (8 * k));
        h = hash_fnv1a(h, le, sizeof le);
    }
    return h;
}

uint64_t tally_set_digest(const tally_set *t)
{
    tally_acc_t head[] = {(tally_acc_t)t->nr, (tally_acc_t)t->nz,
                          (tally_acc_t)t->na, (tally_acc_t)t->photons,
                          t->steps,           (tally_acc_t)t->trapped_photons,
                          t->trapped_units};
    uint64_t h = digest_counts(HASH_FNV1A_START, head, sizeof head / sizeof head[0]);
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (t->tally[k])
            h = digest_counts(h, t->tally[k], BINS(t, k));
    return h;
}

/* The optional tallies of option's rows into t (a tally_batch or
 * tally_set), zeroed, those it has already kept. */
#define ADD_OPTION(t, group)                                                                       \
    do {                                                                                           \
        for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)                                  \
            if (output_tally(k)->option == (group) && !(t)->tally[k] &&                            \
                !((t)->tally[k] = calloc(BINS((t), k), sizeof *(t)->tally[k])))                    \
                return false;                                                                      \
        return true;                                                                               \
    } while (0)

bool tally_batch_add_paths(tally_batch *b, int num_layers)
{
    b->num_layers = num_layers;
    ADD_OPTION(b, OUTPUT_OPTION_PATHS);
}

bool tally_set_add_paths(tally_set *t, int num_layers)
{
    t->num_layers = num_layers;
    ADD_OPTION(t, OUTPUT_OPTION_PATHS);
}

bool tally_batch_add_time(tally_batch *b, int nt)
{
    b->nt = nt;
    ADD_OPTION(b, OUTPUT_OPTION_TIME);
}

bool tally_set_add_time(tally_set *t, int nt)
{
    t->nt = nt;
    ADD_OPTION(t, OUTPUT_OPTION_TIME);
}

bool tally_batch_add_detectors(tally_batch *b, int detectors)
{
    b->detectors = detectors;
    ADD_OPTION(b, OUTPUT_OPTION_FIBER);
}

bool tally_set_add_detectors(tally_set *t, int detectors)
{
    t->detectors = detectors;
    ADD_OPTION(t, OUTPUT_OPTION_FIBER);
}

bool tally_set_add_options_of(tally_set *t, const tally_set *like)
{
    return (!like->rd_path || tally_set_add_paths(t, like->num_layers)) &&
           (!like->rd_rt || tally_set_add_time(t, like->nt)) &&
           (!like->rd_fiber || tally_set_add_detectors(t, like->detectors));
}

bool tally_set_has(const tally_set *t, int k)
{
    return k >= 0 && k < OUTPUT_TALLIES_ALL && (k < OUTPUT_TALLIES || t->tally[k]);
}

uint64_t tally_set_bins(const tally_set *t, int k) { return tally_set_has(t, k) ? BINS(t, k) : 0; }

double tally_count(tally_acc_t v)
{
    /* Split so that the conversion is exact up to double's 53 bits. */
    return (double)(uint64_t)(v >> 64) * 18446744073709551616.0 + (double)(uint64_t)v;
}

double tally_weight(tally_acc_t units) { return tally_count(units) / TALLY_UNITS_PER_WEIGHT; }
