/* A batch's photons in groups, for batch means (session_groups.h). */
#include "session_groups.h"

#include <stdlib.h>
#include <string.h>

/* The first photon of group g of a run of n photons. */
static uint64_t group_bound(uint64_t g, uint64_t n)
{
    return (uint64_t)((unsigned __int128)g * n / UNCERTAINTY_GROUPS);
}

/* The group holding photon x (< n): the last g whose bound is <= x. */
static uint64_t group_of(uint64_t x, uint64_t n)
{
    unsigned __int128 above = ((unsigned __int128)x + 1) * UNCERTAINTY_GROUPS;
    return (uint64_t)((above + n - 1) / n) - 1;
}

/* The piece of part p in round r (its r-th group, empty ones skipped):
 * false when it has no more. */
static bool piece_of(const batch_part *p, int r, batch_part *piece)
{
    uint64_t n = (uint64_t)p->run->photons, end = p->first + p->count;
    for (uint64_t g = group_of(p->first, n); g < UNCERTAINTY_GROUPS; g++) {
        uint64_t lo = group_bound(g, n), hi = group_bound(g + 1, n);
        lo = lo > p->first ? lo : p->first;
        hi = hi < end ? hi : end;
        if (lo >= hi)
            continue;
        if (r-- == 0) {
            *piece = *p;
            piece->first = lo;
            piece->count = hi - lo;
            return true;
        }
    }
    return false;
}

/* Round r's pieces of every part as a batch, origin[k] the part its part
 * k is a piece of; false when there are none (*any false) or out of
 * memory. */
static bool round_batch(const photon_batch *batch, int r, batch_part *parts, int *origin,
                        photon_batch *out, bool *any, tm_error *err)
{
    int count = 0;
    for (int k = 0; k < batch->count; k++)
        if (piece_of(&batch->parts[k], r, &parts[count]))
            origin[count++] = k;
    *any = count > 0;
    return count > 0 && photon_batch_init(out, parts, count, err);
}

/* Whether slot s has a piece in round r + 1 (else round r was its last). */
static bool slot_goes_on(const photon_batch *batch, int s, int r)
{
    batch_part piece;
    for (int k = 0; k < batch->count; k++)
        if (batch->parts[k].slot == s && piece_of(&batch->parts[k], r + 1, &piece))
            return true;
    return false;
}

/* Scratch tallies of the shape of acc's, for every slot that has a run. */
static tally_set *scratch_like(const photon_batch *batch, int sets, const tally_set *acc,
                               tm_error *err)
{
    int n = batch->slots * sets;
    tally_set *s = calloc((size_t)n, sizeof *s);
    bool ok = s != NULL;
    for (int i = 0; ok && i < n; i++)
        if (photon_batch_slot_run(batch, i / sets))
            ok = tally_set_init(&s[i], acc[i].nr, acc[i].nz, acc[i].na) &&
                 tally_set_add_options_of(&s[i], &acc[i]);
    if (ok)
        return s;
    for (int i = 0; s && i < n; i++)
        tally_set_free(&s[i]);
    free(s);
    error_set(err, NULL, 0, "out of memory for a group's tallies");
    return NULL;
}

/* Each slot's scratch tallies of the round: a group of its uncertainty
 * (unless the call failed: grouped false), then added to its tallies, and
 * the slot told once its last round is in.  The tallies are added first:
 * the ranges the call reported done must be in them whatever follows. */
static bool fold_round(const groups_call *g, const photon_batch *batch, const photon_batch *round,
                       int r, tally_set *scratch, tally_set *acc, bool grouped, bool stopped,
                       tm_error *err)
{
    bool ok = true;
    for (int s = 0; s < batch->slots; s++) {
        const mci_run *run = photon_batch_slot_run(round, s);
        if (!run)
            continue;
        for (int k = 0; k < g->sets; k++) {
            int i = s * g->sets + k;
            tally_set_add(&acc[i], &scratch[i]);
            if (ok && grouped && scratch[i].photons > 0)
                ok = uncertainty_add_group(&g->unc[i], run, &scratch[i], err);
            tally_set_clear(&scratch[i]);
        }
        if (ok && grouped && g->slot_done && !stopped && !slot_goes_on(batch, s, r))
            ok = g->slot_done(g->slot_ctx, s, (uint64_t)r + 1, err);
    }
    return ok;
}

bool groups_simulate(const groups_call *g, const photon_batch *batch, tally_set *acc, tm_error *err)
{
    tally_set *scratch = scratch_like(batch, g->sets, acc, err);
    batch_part *parts = malloc((size_t)batch->count * sizeof *parts);
    int *origin = malloc((size_t)batch->count * sizeof *origin);
    bool ok = scratch && parts && origin, any = true;
    if (scratch && !ok)
        error_set(err, NULL, 0, "out of memory");
    for (int r = 0; ok && any && !(g->stop && *g->stop); r++) {
        photon_batch round;
        if (!round_batch(batch, r, parts, origin, &round, &any, err)) {
            ok = !any;
            break;
        }
        bool called = g->call(g->ctx, &round, origin, scratch, g->round_stats, err);
        if (called)
            g->add_stats(g->stats, g->round_stats, r == 0);
        /* A stopped call's photons are a group of their own. */
        bool stopped = g->stop && *g->stop;
        ok = fold_round(g, batch, &round, r, scratch, acc, called, stopped, err) && called;
        photon_batch_free(&round);
    }
    for (int i = 0; scratch && i < batch->slots * g->sets; i++)
        tally_set_free(&scratch[i]);
    free(scratch);
    free(parts);
    free(origin);
    return ok;
}
