/* Standard errors by batch means (uncertainty.h). */
#include "uncertainty.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void uncertainty_init(uncertainty *u) { memset(u, 0, sizeof *u); }

void uncertainty_drop_kept(uncertainty *u)
{
    for (int i = 0; i < u->kept_count; i++)
        tally_set_free(&u->kept[i].tallies);
    free(u->kept);
    u->kept = NULL;
    u->kept_count = u->kept_cap = 0;
}

void uncertainty_free(uncertainty *u)
{
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        free(u->array_mean[i]);
        free(u->array_m2[i]);
    }
    uncertainty_drop_kept(u);
    uncertainty_init(u);
}

static double *total_of(mcml_result *res, int k)
{
    return k == 0 ? &res->rd : k == 1 ? &res->a : &res->tt;
}

bool uncertainty_alloc(uncertainty *u, const output_grid *grid, uint64_t arrays, tm_error *err)
{
    u->grid = *grid;
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!(arrays & (UINT64_C(1) << i)))
            continue;
        uint64_t n = output_stored(&output_table[i], grid);
        u->array_mean[i] = calloc(n, sizeof(double));
        u->array_m2[i] = calloc(n, sizeof(double));
        if (!u->array_mean[i] || !u->array_m2[i]) {
            uncertainty_free(u);
            error_set(err, NULL, 0, "out of memory for the standard errors");
            return false;
        }
    }
    return true;
}

uint64_t uncertainty_arrays(const uncertainty *u)
{
    uint64_t arrays = 0;
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (u->array_mean[i])
            arrays |= UINT64_C(1) << i;
    return arrays;
}

/* The arrays of the first group: those its result has. */
static bool take_shape(uncertainty *u, const mcml_result *g, tm_error *err)
{
    uint64_t arrays = 0;
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (g->array[i])
            arrays |= UINT64_C(1) << i;
    output_grid grid = result_grid(g);
    return uncertainty_alloc(u, &grid, arrays, err);
}

static bool same_shape(const uncertainty *u, const output_grid *grid, double *const *arrays,
                       tm_error *err)
{
    bool same = !memcmp(&u->grid, grid, sizeof *grid);
    for (int i = 0; same && i < OUTPUT_ARRAYS; i++)
        same = (u->array_mean[i] != NULL) == (arrays[i] != NULL);
    if (!same)
        error_set(err, NULL, 0, "a group of photons with other arrays than the run's groups");
    return same;
}

/* The weighted Welford update of one value by a group of weight n (of
 * total weight total after it). */
static inline void welford(double *mean, double *m2, double x, double n, double total)
{
    double delta = x - *mean;
    *mean += delta * (n / total);
    *m2 += n * delta * (x - *mean);
}

bool uncertainty_add_group(uncertainty *u, const mci_run *run, const tally_set *group,
                           tm_error *err)
{
    mcml_result g;
    if (!result_from_tallies(run, group, &g, err))
        return false;
    output_grid grid = result_grid(&g);
    bool ok = u->groups == 0 ? take_shape(u, &g, err) : same_shape(u, &grid, g.array, err);
    if (ok) {
        double n = (double)group->photons, total = (double)(u->photons + group->photons);
        for (int k = 0; k < 3; k++)
            welford(&u->mean[k], &u->m2[k], *total_of(&g, k), n, total);
        for (int i = 0; i < OUTPUT_ARRAYS; i++) {
            if (!g.array[i])
                continue;
            uint64_t bins = output_stored(&output_table[i], &grid);
            double *mean = u->array_mean[i], *m2 = u->array_m2[i];
            const double *x = g.array[i];
            for (uint64_t b = 0; b < bins; b++)
                welford(&mean[b], &m2[b], x[b], n, total);
        }
        u->groups++;
        u->photons += group->photons;
    }
    result_free(&g);
    return ok;
}

/* ---- the groups kept ---- */

/* Where group g is kept, or where it would go (kept[at] the first of a
 * larger index); *found says which. */
static int kept_place(const uncertainty *u, uint64_t g, bool *found)
{
    int lo = 0, hi = u->kept_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (u->kept[mid].group < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < u->kept_count && u->kept[lo].group == g;
    return lo;
}

uncertainty_kept *uncertainty_keep(uncertainty *u, uint64_t g, uint64_t first, uint64_t size,
                                   const tally_set *like, tm_error *err)
{
    bool found;
    int at = kept_place(u, g, &found);
    if (found) {
        error_set(err, NULL, 0, "group %llu of the standard errors kept twice",
                  (unsigned long long)g);
        return NULL;
    }
    if (u->kept_count == u->kept_cap) {
        int cap = u->kept_cap ? 2 * u->kept_cap : 4;
        uncertainty_kept *more = realloc(u->kept, (size_t)cap * sizeof *more);
        if (!more) {
            error_set(err, NULL, 0, "out of memory for a group's tallies");
            return NULL;
        }
        u->kept = more;
        u->kept_cap = cap;
    }
    uncertainty_kept k = {.group = g, .first = first, .size = size};
    if (!tally_set_init(&k.tallies, like->nr, like->nz, like->na) ||
        !tally_set_add_options_of(&k.tallies, like)) {
        tally_set_free(&k.tallies);
        error_set(err, NULL, 0, "out of memory for a group's tallies");
        return NULL;
    }
    memmove(&u->kept[at + 1], &u->kept[at], (size_t)(u->kept_count - at) * sizeof *u->kept);
    u->kept[at] = k;
    u->kept_count++;
    return &u->kept[at];
}

uint64_t uncertainty_kept_photons(const uncertainty *u)
{
    uint64_t photons = 0;
    for (int i = 0; i < u->kept_count; i++)
        photons += u->kept[i].tallies.photons;
    return photons;
}

/* Group kept i folded as a group and no longer kept. */
static bool fold_kept(uncertainty *u, const mci_run *run, int i, tm_error *err)
{
    if (!uncertainty_add_group(u, run, &u->kept[i].tallies, err))
        return false;
    tally_set_free(&u->kept[i].tallies);
    u->kept_count--;
    memmove(&u->kept[i], &u->kept[i + 1], (size_t)(u->kept_count - i) * sizeof *u->kept);
    return true;
}

/* Whether the first group kept is whole and the next to fold (its first
 * photon where the groups folded end). */
static bool first_kept_ready(const uncertainty *u)
{
    if (u->kept_count == 0)
        return false;
    const uncertainty_kept *k = &u->kept[0];
    return k->first == u->photons && k->size > 0 && k->tallies.photons == k->size;
}

/* Folds the groups kept that are whole and next, in order (none while u
 * holds them). */
static bool fold_ready(uncertainty *u, const mci_run *run, bool *added, tm_error *err)
{
    while (!u->hold && first_kept_ready(u)) {
        if (!fold_kept(u, run, 0, err))
            return false;
        *added = true;
    }
    return true;
}

bool uncertainty_loosen(uncertainty *u, const mci_run *run, tm_error *err)
{
    u->loose = true;
    while (u->kept_count > 0)
        if (!fold_kept(u, run, 0, err))
            return false;
    return true;
}

bool uncertainty_add_piece(uncertainty *u, const mci_run *run, uint64_t g, uint64_t first,
                           uint64_t size, const tally_set *part, bool *added, tm_error *err)
{
    *added = false;
    if (u->loose && !u->hold) { /* any set of whole photons is a valid group */
        *added = true;
        return uncertainty_add_group(u, run, part, err);
    }
    bool found;
    int at = kept_place(u, g, &found);
    if (!found && !u->hold && part->photons == size && first == u->photons) {
        /* The common case: the next group, whole at once. */
        *added = true;
        return uncertainty_add_group(u, run, part, err) && fold_ready(u, run, added, err);
    }
    uncertainty_kept *k = found ? &u->kept[at] : uncertainty_keep(u, g, first, size, part, err);
    if (!k)
        return false;
    k->first = first;
    if (size > 0)
        k->size = size;
    tally_set_add(&k->tallies, part);
    return fold_ready(u, run, added, err);
}

bool uncertainty_with_kept(const uncertainty *u, const mci_run *run, uncertainty *copy,
                           tm_error *err)
{
    bool ok = uncertainty_merge(copy, u, err);
    for (int i = 0; ok && i < u->kept_count; i++)
        ok = uncertainty_add_group(copy, run, &u->kept[i].tallies, err);
    return ok;
}

/* Chan's pairwise update of one value: a (of weight na) and b (nb). */
static inline void chan(double *mean, double *m2, double mean_b, double m2_b, double na, double nb)
{
    double delta = mean_b - *mean, total = na + nb;
    *mean += delta * (nb / total);
    *m2 += m2_b + delta * delta * (na * nb / total);
}

bool uncertainty_merge(uncertainty *a, const uncertainty *b, tm_error *err)
{
    if (b->groups == 0)
        return true;
    if (a->groups == 0) {
        if (!uncertainty_alloc(a, &b->grid, uncertainty_arrays(b), err))
            return false;
    } else if (!same_shape(a, &b->grid, b->array_mean, err)) {
        return false;
    }
    double na = (double)a->photons, nb = (double)b->photons;
    for (int k = 0; k < 3; k++)
        chan(&a->mean[k], &a->m2[k], b->mean[k], b->m2[k], na, nb);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!b->array_mean[i])
            continue;
        uint64_t bins = output_stored(&output_table[i], &a->grid);
        for (uint64_t e = 0; e < bins; e++)
            chan(&a->array_mean[i][e], &a->array_m2[i][e], b->array_mean[i][e], b->array_m2[i][e],
                 na, nb);
    }
    a->groups += b->groups;
    a->photons += b->photons;
    return true;
}

/* sqrt(m2 / ((G - 1) N)): NaN with fewer than two groups. */
static double stderr_of(double m2, double scale) { return scale > 0 ? sqrt(m2 * scale) : NAN; }

bool uncertainty_fill(const uncertainty *u, mcml_result *res, tm_error *err)
{
    output_grid grid = result_grid(res);
    if (u->photons != res->photons) {
        error_set(err, NULL, 0, "standard errors of %llu photons for a result of %llu",
                  (unsigned long long)u->photons, (unsigned long long)res->photons);
        return false;
    }
    if (!same_shape(u, &grid, res->array, err))
        return false;
    double scale = u->groups > 1 ? 1.0 / ((double)(u->groups - 1) * (double)u->photons) : 0.0;
    res->rd_stderr = stderr_of(u->m2[0], scale);
    res->a_stderr = stderr_of(u->m2[1], scale);
    res->tt_stderr = stderr_of(u->m2[2], scale);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!u->array_m2[i])
            continue;
        uint64_t bins = output_stored(&output_table[i], &grid);
        double *se = malloc(bins * sizeof *se);
        if (!se) {
            error_set(err, NULL, 0, "out of memory for the standard errors");
            return false;
        }
        for (uint64_t e = 0; e < bins; e++)
            se[e] = stderr_of(u->array_m2[i][e], scale);
        free(res->stderr_array[i]);
        res->stderr_array[i] = se;
    }
    res->stderr_groups = u->groups;
    return true;
}
