/* A batch's index space and its order (runtime/engine/batch.h). */
#include "batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optics.h"

static bool batch_fail(photon_batch *b, tm_error *err, const char *why)
{
    photon_batch_free(b);
    error_set(err, NULL, 0, "%s", why);
    return false;
}

/* Every slot belongs to one run, and every run has the first run's grid
 * (one kernel shape). */
static bool slots_consistent(const photon_batch *b)
{
    const mci_run *grid = b->parts[0].run;
    for (int k = 0; k < b->count; k++) {
        const batch_part *p = &b->parts[k];
        if (p->run->nr != grid->nr || p->run->nz != grid->nz || p->run->na != grid->na)
            return false;
        const mci_run *owner = photon_batch_slot_run(b, p->slot);
        if (owner != p->run)
            return false;
    }
    return true;
}

bool photon_batch_init(photon_batch *b, const batch_part *parts, int count, tm_error *err)
{
    memset(b, 0, sizeof *b);
    if (count < 1)
        return batch_fail(b, err, "a batch needs at least one part");
    b->parts = malloc((size_t)count * sizeof *b->parts);
    b->offsets = malloc(((size_t)count + 1) * sizeof *b->offsets);
    if (!b->parts || !b->offsets)
        return batch_fail(b, err, "out of memory");
    memcpy(b->parts, parts, (size_t)count * sizeof *parts);
    b->count = count;
    b->offsets[0] = 0;
    for (int k = 0; k < count; k++) {
        if (parts[k].count == 0 || parts[k].slot < 0 || !parts[k].run)
            return batch_fail(b, err, "a batch part needs a run, photons and a slot");
        if (parts[k].count > UINT64_MAX - b->offsets[k])
            return batch_fail(b, err, "a batch of more than 2^64 - 1 photons");
        b->offsets[k + 1] = b->offsets[k] + parts[k].count;
        if (parts[k].slot >= b->slots)
            b->slots = parts[k].slot + 1;
    }
    if (!slots_consistent(b))
        return batch_fail(b, err, "a batch's slots each belong to one run, of one grid");
    return true;
}

bool photon_batch_single(photon_batch *b, const mci_run *run, uint64_t first, uint64_t count,
                         tm_error *err)
{
    batch_part part = {.run = run, .first = first, .count = count, .slot = 0};
    return photon_batch_init(b, &part, 1, err);
}

void photon_batch_free(photon_batch *b)
{
    free(b->parts);
    free(b->offsets);
    memset(b, 0, sizeof *b);
}

uint64_t photon_batch_size(const photon_batch *b) { return b->offsets[b->count]; }

int photon_batch_part_at(const photon_batch *b, uint64_t i)
{
    int lo = 0, hi = b->count; /* offsets[lo] <= i < offsets[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (b->offsets[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const mci_run *photon_batch_slot_run(const photon_batch *b, int s)
{
    for (int k = 0; k < b->count; k++)
        if (b->parts[k].slot == s)
            return b->parts[k].run;
    return NULL;
}

bool photon_batch_ranges(const photon_batch *b, uint64_t first, uint64_t n,
                         photon_batch_range_fn fn, void *ctx, tm_error *err)
{
    uint64_t end = first + n;
    for (int k = n ? photon_batch_part_at(b, first) : b->count; k < b->count; k++) {
        uint64_t lo = b->offsets[k] > first ? b->offsets[k] : first;
        uint64_t hi = b->offsets[k + 1] < end ? b->offsets[k + 1] : end;
        if (lo >= hi)
            break;
        if (!fn(ctx, k, b->parts[k].first + (lo - b->offsets[k]), hi - lo, err))
            return false;
    }
    return true;
}

typedef struct slot_count {
    const photon_batch *b;
    uint64_t *photons;
} slot_count;

static bool count_slot(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)first;
    (void)err;
    slot_count *c = ctx;
    c->photons[c->b->parts[part].slot] += n;
    return true;
}

void photon_batch_slot_photons(const photon_batch *b, uint64_t first, uint64_t n, uint64_t *photons)
{
    slot_count c = {b, photons};
    photon_batch_ranges(b, first, n, count_slot, &c, NULL);
}

/* ---- the order ------------------------------------------------------------- */

/* Steps of a photon in one layer as deep as it likes: the diffusion
 * estimate of its path before absorption, sqrt(mut / mua) steps of
 * 1/mut, each worth mut / mus' of a transport step; 4.6 times it matches the
 * CPU engine's mean steps per photon within 10 % over lut100 and luthi100
 * (mua 0.01-10, mus 50-200, g 0.9; docs/batches.md). */
#define STEPS_PER_DIFFUSION      4.6
/* A layer without absorption ends only by escape: its estimate is capped. */
#define STEPS_NO_ABSORPTION      1e7
/* A layer counts with at most this many transport lengths of thickness. */
#define WEIGHT_TRANSPORT_LENGTHS 10.0

static double layer_steps(const mci_layer *l, double *transport_per_step)
{
    double mut = l->mua + l->mus, reduced = l->mua + l->mus * (1.0 - l->g);
    if (mut <= 0 || reduced <= 0) {
        *transport_per_step = 1.0;
        return 0.0;
    }
    *transport_per_step = reduced / mut;
    if (l->mua <= 0)
        return STEPS_NO_ABSORPTION;
    double steps = STEPS_PER_DIFFUSION * (mut / reduced) * sqrt(mut / l->mua);
    return steps < STEPS_NO_ABSORPTION ? steps : STEPS_NO_ABSORPTION;
}

double batch_steps_estimate(const mci_run *run)
{
    double weighted = 0, weights = 0, thickness = 0, per_step = 0;
    for (int i = 1; i <= run->num_layers; i++) {
        const mci_layer *l = &run->layers[i];
        double t, steps = layer_steps(l, &t);
        double transport = (l->mua + l->mus * (1.0 - l->g)) * l->d;
        double w = transport < WEIGHT_TRANSPORT_LENGTHS ? transport : WEIGHT_TRANSPORT_LENGTHS;
        weighted += w * steps;
        per_step += w * t;
        weights += w;
        thickness += transport;
    }
    if (weights <= 0)
        return 1.0; /* glass only: one step */
    double steps = weighted / weights;
    /* A slab of tau transport lengths is crossed or left in ~tau^2 of them. */
    double cap = STEPS_PER_DIFFUSION * (1.0 + thickness) * (1.0 + thickness) / (per_step / weights);
    return steps < cap ? steps : cap;
}

typedef struct ranked {
    batch_part part;
    double steps;
    int index;
} ranked;

static int longest_first(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->steps != y->steps)
        return x->steps > y->steps ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

void batch_order_longest_first(batch_part *parts, int count)
{
    ranked *r = malloc((size_t)count * sizeof *r);
    if (!r)
        return; /* the order is only a speed-up: keep the given one */
    for (int k = 0; k < count; k++)
        r[k] = (ranked){parts[k], batch_steps_estimate(parts[k].run), k};
    qsort(r, (size_t)count, sizeof *r, longest_first);
    for (int k = 0; k < count; k++)
        parts[k] = r[k].part;
    free(r);
}

uint64_t batch_alone_photons(uint64_t threads) { return threads * BATCH_ALONE_PHOTONS_PER_THREAD; }

bool batch_run_alone(const mci_run *run, uint64_t alone_photons)
{
    return alone_photons > 0 && (uint64_t)run->photons >= alone_photons;
}

bool batch_run_glass_only(const mci_run *run) { return optics_first_layer(run) > run->num_layers; }
