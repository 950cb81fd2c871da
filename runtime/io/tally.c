#include "tally.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

static size_t count_rz(int nr, int nz) { return (size_t)nr * (size_t)nz; }

bool tally_batch_init(tally_batch *b, int nr, int nz, int na)
{
    b->nr = nr;
    b->nz = nz;
    b->na = na;
    b->steps = 0;
    b->trapped_photons = b->trapped_units = 0;
    b->a_rz_exact = NULL;
    b->a_rz = calloc(count_rz(nr, nz), sizeof *b->a_rz);
    b->rd_ra = calloc(count_rz(nr, na), sizeof *b->rd_ra);
    b->tt_ra = calloc(count_rz(nr, na), sizeof *b->tt_ra);
    if (b->a_rz && b->rd_ra && b->tt_ra)
        return true;
    tally_batch_free(b);
    return false;
}

void tally_batch_clear(tally_batch *b)
{
    b->steps = 0;
    b->trapped_photons = b->trapped_units = 0;
    memset(b->a_rz, 0, count_rz(b->nr, b->nz) * sizeof *b->a_rz);
    memset(b->rd_ra, 0, count_rz(b->nr, b->na) * sizeof *b->rd_ra);
    memset(b->tt_ra, 0, count_rz(b->nr, b->na) * sizeof *b->tt_ra);
}

void tally_set_clear(tally_set *t)
{
    t->photons = 0;
    t->steps = 0;
    t->trapped_photons = 0;
    t->trapped_units = 0;
    memset(t->a_rz, 0, count_rz(t->nr, t->nz) * sizeof *t->a_rz);
    memset(t->rd_ra, 0, count_rz(t->nr, t->na) * sizeof *t->rd_ra);
    memset(t->tt_ra, 0, count_rz(t->nr, t->na) * sizeof *t->tt_ra);
}

void tally_batch_free(tally_batch *b)
{
    free(b->a_rz);
    free(b->rd_ra);
    free(b->tt_ra);
    b->a_rz = b->rd_ra = b->tt_ra = NULL;
}

bool tally_set_init(tally_set *t, int nr, int nz, int na)
{
    t->nr = nr;
    t->nz = nz;
    t->na = na;
    t->photons = 0;
    t->steps = 0;
    t->trapped_photons = 0;
    t->trapped_units = 0;
    t->a_rz = calloc(count_rz(nr, nz), sizeof *t->a_rz);
    t->rd_ra = calloc(count_rz(nr, na), sizeof *t->rd_ra);
    t->tt_ra = calloc(count_rz(nr, na), sizeof *t->tt_ra);
    if (t->a_rz && t->rd_ra && t->tt_ra)
        return true;
    tally_set_free(t);
    return false;
}

void tally_set_free(tally_set *t)
{
    free(t->a_rz);
    free(t->rd_ra);
    free(t->tt_ra);
    t->a_rz = t->rd_ra = t->tt_ra = NULL;
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
    add_u64(t->a_rz, b->a_rz, count_rz(t->nr, t->nz));
    add_u64(t->rd_ra, b->rd_ra, count_rz(t->nr, t->na));
    add_u64(t->tt_ra, b->tt_ra, count_rz(t->nr, t->na));
    t->photons += photons;
    t->steps += b->steps;
    t->trapped_photons += b->trapped_photons;
    t->trapped_units += b->trapped_units;
}

void tally_set_add(tally_set *t, const tally_set *other)
{
    add_acc(t->a_rz, other->a_rz, count_rz(t->nr, t->nz));
    add_acc(t->rd_ra, other->rd_ra, count_rz(t->nr, t->na));
    add_acc(t->tt_ra, other->tt_ra, count_rz(t->nr, t->na));
    t->photons += other->photons;
    t->steps += other->steps;
    t->trapped_photons += other->trapped_photons;
    t->trapped_units += other->trapped_units;
}

bool tally_set_equal(const tally_set *a, const tally_set *b)
{
    if (a->nr != b->nr || a->nz != b->nz || a->na != b->na || a->photons != b->photons ||
        a->steps != b->steps || a->trapped_photons != b->trapped_photons ||
        a->trapped_units != b->trapped_units)
        return false;
    return memcmp(a->a_rz, b->a_rz, count_rz(a->nr, a->nz) * sizeof *a->a_rz) == 0 &&
           memcmp(a->rd_ra, b->rd_ra, count_rz(a->nr, a->na) * sizeof *a->rd_ra) == 0 &&
           memcmp(a->tt_ra, b->tt_ra, count_rz(a->nr, a->na) * sizeof *a->tt_ra) == 0;
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
    h = digest_counts(h, t->a_rz, count_rz(t->nr, t->nz));
    h = digest_counts(h, t->rd_ra, count_rz(t->nr, t->na));
    return digest_counts(h, t->tt_ra, count_rz(t->nr, t->na));
}

double tally_count(tally_acc_t v)
{
    /* Split so that the conversion is exact up to double's 53 bits. */
    return (double)(uint64_t)(v >> 64) * 18446744073709551616.0 + (double)(uint64_t)v;
}

double tally_weight(tally_acc_t units) { return tally_count(units) / TALLY_UNITS_PER_WEIGHT; }
