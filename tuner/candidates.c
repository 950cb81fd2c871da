/* The tuner's candidate space (tuner/candidates.h). */
#include "candidates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t candidates_shared_budget(const candidate_limits *lim, int residency)
{
    if (residency < 1)
        return 0;
    size_t per_block = lim->shared_per_sm / (size_t)residency;
    if (per_block <= CANDIDATE_RESERVED_SHARED)
        return 0;
    per_block -= CANDIDATE_RESERVED_SHARED;
    return per_block < lim->shared_per_block_optin ? per_block : lim->shared_per_block_optin;
}

bool fluence_map_init(fluence_map *m, int nr, int nz, const uint64_t *events)
{
    memset(m, 0, sizeof *m);
    m->prefix = calloc((size_t)(nr + 1) * (size_t)(nz + 1), sizeof *m->prefix);
    if (!m->prefix)
        return false;
    m->nr = nr;
    m->nz = nz;
    size_t stride = (size_t)nz + 1;
    for (int ir = 0; ir < nr; ir++) {
        uint64_t row = 0;
        for (int iz = 0; iz < nz; iz++) {
            uint64_t e = events[(size_t)ir * nz + iz];
            bool edge = ir == nr - 1 || iz == nz - 1;
            m->total += e;
            if (edge)
                m->edges += e;
            else
                row += e;
            m->prefix[(size_t)(ir + 1) * stride + iz + 1] =
                m->prefix[(size_t)ir * stride + iz + 1] + row;
        }
    }
    return true;
}

void fluence_map_free(fluence_map *m)
{
    free(m->prefix);
    memset(m, 0, sizeof *m);
}

uint64_t fluence_map_captured(const fluence_map *m, int tile_nr, int tile_nz)
{
    if (tile_nr <= 0 || tile_nz <= 0)
        return 0;
    if (tile_nr > m->nr)
        tile_nr = m->nr;
    if (tile_nz > m->nz)
        tile_nz = m->nz;
    return m->prefix[(size_t)tile_nr * ((size_t)m->nz + 1) + (size_t)tile_nz];
}

static int by_capture(const void *pa, const void *pb)
{
    const tile_shape *a = pa, *b = pb;
    if (a->captured != b->captured)
        return a->captured > b->captured ? -1 : 1;
    long sa = (long)a->nr * a->nz, sb = (long)b->nr * b->nz;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return a->nr - b->nr;
}

int candidates_tile_shapes(const fluence_map *m, size_t max_entries, int max_out, tile_shape *out)
{
    if (max_entries == 0 || max_out <= 0)
        return 0;
    tile_shape *all = malloc((size_t)m->nr * sizeof *all);
    if (!all)
        return 0;
    int n = 0;
    for (int nr = 1; nr <= m->nr && (size_t)nr <= max_entries; nr++) {
        size_t fit = max_entries / (size_t)nr;
        int nz = fit < (size_t)m->nz ? (int)fit : m->nz;
        all[n++] = (tile_shape){nr, nz, fluence_map_captured(m, nr, nz)};
    }
    qsort(all, (size_t)n, sizeof *all, by_capture);
    /* Keep a shape only when it captures more than every smaller shape kept
     * before it would: a bigger tile that captures no more only costs
     * shared memory (and residency). */
    int kept = 0;
    for (int i = 0; i < n && kept < max_out; i++) {
        bool dominated = false;
        for (int j = 0; j < kept && !dominated; j++)
            dominated = out[j].captured >= all[i].captured &&
                        (long)out[j].nr * out[j].nz <= (long)all[i].nr * all[i].nz;
        if (!dominated)
            out[kept++] = all[i];
    }
    free(all);
    return kept;
}

size_t candidates_tile_entries(size_t bytes, int entry_bits, int nr, int nz)
{
    size_t entries = bytes / (size_t)(entry_bits / 8);
    size_t edges = (size_t)nr + (size_t)nz - 1;
    return entries > edges ? entries - edges : 0;
}

int candidates_residencies(const candidate_limits *lim, int block_size, int max_out, int *out)
{
    int full = lim->max_threads_per_sm / block_size;
    int n = 0;
    /* Full occupancy, then 3/4, 1/2 and 1/4 of it: each step down doubles
     * (at most) the registers and shared memory a thread may have. */
    const int num[] = {4, 3, 2, 1};
    for (int k = 0; k < 4 && n < max_out; k++) {
        int r = full * num[k] / 4;
        if (r < 1 || (n > 0 && out[n - 1] == r))
            continue;
        out[n++] = r;
    }
    return n;
}
