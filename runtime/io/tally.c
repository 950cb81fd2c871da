#include "tally.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* The grid of t (a tally_batch or tally_set: their grid members are
 * named alike), and the entries of its tally array k.  Every loop over the
 * tallies takes those t has: every run's, and the optional ones added (the
 * others are NULL). */
#define GRID(t)                                                                                    \
    (&(output_grid){.nr = (t)->nr,                                                                 \
                    .nz = (t)->nz,                                                                 \
                    .na = (t)->na,                                                                 \
                    .num_layers = (t)->num_layers,                                                 \
                    .nt = (t)->nt,                                                                 \
                    .detectors = (t)->detectors,                                                   \
                    .jacobian_layers = (t)->jacobian_layers,                                       \
                    .set_weights = (t)->set_weights,                                               \
                    .frequencies = (t)->frequencies,                                               \
                    .modulations = (t)->modulations,                                               \
                    .xy = (t)->xy})
#define BINS(t, k) ((size_t)output_tally_grid_bins((k), GRID(t)))

/* Whether t (a batch or set), of grid g (its optional axes' lengths
 * included), is to have tally k: every axis of k has entries there.  So
 * every run's tallies always, an optional group's once its axis has a
 * length, and a tally of two groups (the derivatives of the time bins)
 * once both have, whichever came first. */
static bool wanted(int k, const output_grid *g) { return output_has_axes(output_tally(k), g); }

/* The optional axes' lengths that lengths gives (those above 0), into t, a
 * batch's or a set's grid (their members are named alike). */
#define TAKE_LENGTH(t, lengths, axis)                                                              \
    do {                                                                                           \
        if ((lengths)->axis > 0)                                                                   \
            (t)->axis = (lengths)->axis;                                                           \
    } while (0)
#define TAKE_LENGTHS(t, lengths)                                                                   \
    do {                                                                                           \
        TAKE_LENGTH(t, lengths, num_layers);                                                       \
        TAKE_LENGTH(t, lengths, nt);                                                               \
        TAKE_LENGTH(t, lengths, detectors);                                                        \
        TAKE_LENGTH(t, lengths, jacobian_layers);                                                  \
        TAKE_LENGTH(t, lengths, set_weights);                                                      \
        TAKE_LENGTH(t, lengths, frequencies);                                                      \
        TAKE_LENGTH(t, lengths, modulations);                                                      \
        TAKE_LENGTH(t, lengths, xy);                                                               \
    } while (0)

bool tally_batch_add_options(tally_batch *b, const output_grid *lengths)
{
    TAKE_LENGTHS(b, lengths);
    bool ok = true;
    for (int k = 0; ok && k < OUTPUT_TALLIES_ALL; k++)
        if (!b->tally[k] && wanted(k, GRID(b)))
            ok = (b->tally[k] = calloc(BINS(b, k), sizeof *b->tally[k])) != NULL;
    return ok;
}

bool tally_set_add_options(tally_set *t, const output_grid *lengths)
{
    TAKE_LENGTHS(t, lengths);
    bool ok = true;
    for (int k = 0; ok && k < OUTPUT_TALLIES_ALL; k++)
        if (!t->tally[k] && wanted(k, GRID(t)))
            ok = (t->tally[k] = calloc(BINS(t, k), sizeof *t->tally[k])) != NULL;
    return ok;
}

bool tally_batch_init(tally_batch *b, int nr, int nz, int na)
{
    *b = (tally_batch){.nr = nr, .nz = nz, .na = na};
    if (tally_batch_add_options(b, &(output_grid){0}))
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
    *t = (tally_set){.nr = nr, .nz = nz, .na = na};
    if (tally_set_add_options(t, &(output_grid){0}))
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
        a->detectors != b->detectors || a->jacobian_layers != b->jacobian_layers ||
        a->set_weights != b->set_weights || a->frequencies != b->frequencies ||
        a->modulations != b->modulations || a->xy != b->xy)
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

bool tally_set_add_options_of(tally_set *t, const tally_set *like)
{
    return tally_set_add_options(t, GRID(like));
}

int tally_set_option_length(const tally_set *t, output_option group)
{
    return (int)output_axis_length(output_option_axis(group), GRID(t));
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
