/* A batch's photons in groups, for batch means (session_groups.h). */
#include "session_groups.h"

#include <stdlib.h>
#include <string.h>

/* ---- where a run's groups are ---- */

/* Group g's first photon in a growing plan: 64 groups of chunk photons,
 * then 64 of twice that, and so on; saturated at UINT64_MAX. */
static uint64_t growing_start(uint64_t g, uint64_t chunk)
{
    uint64_t q = g / UNCERTAINTY_GROUPS, i = g % UNCERTAINTY_GROUPS;
    if (q >= 63)
        return UINT64_MAX;
    unsigned __int128 before = ((unsigned __int128)1 << q) - 1, size = (unsigned __int128)1 << q;
    unsigned __int128 start = chunk * (UNCERTAINTY_GROUPS * before + i * size);
    return start > UINT64_MAX ? UINT64_MAX : (uint64_t)start;
}

uint64_t groups_bound(const groups_plan *p, uint64_t g)
{
    if (p->chunk == 0) {
        if (g >= UNCERTAINTY_GROUPS)
            return p->photons;
        return (uint64_t)((unsigned __int128)g * p->photons / UNCERTAINTY_GROUPS);
    }
    uint64_t start = growing_start(g, p->chunk);
    return start < p->photons ? start : p->photons;
}

uint64_t groups_of(const groups_plan *p, uint64_t x)
{
    if (p->chunk == 0) {
        unsigned __int128 above = ((unsigned __int128)x + 1) * UNCERTAINTY_GROUPS;
        return (uint64_t)((above + p->photons - 1) / p->photons) - 1;
    }
    uint64_t q = 0;
    while (q < 62 && growing_start((q + 1) * UNCERTAINTY_GROUPS, p->chunk) <= x)
        q++;
    uint64_t size = p->chunk << q;
    return q * UNCERTAINTY_GROUPS + (x - growing_start(q * UNCERTAINTY_GROUPS, p->chunk)) / size;
}

static groups_plan plan_of(const groups_call *g, const mci_run *run)
{
    return (groups_plan){.photons = (uint64_t)run->photons, .chunk = g->chunk};
}

/* ---- rounds ---- */

/* What the rounds know of a slot: its run and parts (order[first ..
 * first + parts - 1], indices into the batch's parts), the next group it
 * simulates, whether the round has a piece of it, and whether its run is
 * over (every group done, or precise enough). */
typedef struct slot_state {
    const mci_run *run;
    int first, parts;
    uint64_t next;
    bool in_round, over;
} slot_state;

/* The first group >= from that a part of slot st touches, or UINT64_MAX. */
static uint64_t next_group(const photon_batch *batch, const int *order, const slot_state *st,
                           const groups_plan *plan, uint64_t from)
{
    uint64_t best = UINT64_MAX;
    for (int j = st->first; j < st->first + st->parts; j++) {
        const batch_part *p = &batch->parts[order[j]];
        uint64_t first = groups_of(plan, p->first), last = groups_of(plan, p->first + p->count - 1);
        uint64_t g = first > from ? first : from;
        while (g <= last && groups_bound(plan, g) == groups_bound(plan, g + 1))
            g++; /* an empty group: a run of fewer photons than groups */
        if (g <= last && g < best)
            best = g;
    }
    return best;
}

/* The round's batch: each part's photons in its slot's group of the round
 * (states[s].next), origin[k] the part its part k is a piece of; false
 * when there are none (*any false) or out of memory. */
static bool round_batch(const groups_call *g, const photon_batch *batch, slot_state *states,
                        batch_part *parts, int *origin, photon_batch *out, bool *any, tm_error *err)
{
    int count = 0;
    for (int s = 0; s < batch->slots; s++)
        states[s].in_round = false;
    for (int k = 0; k < batch->count; k++) {
        const batch_part *p = &batch->parts[k];
        slot_state *st = &states[p->slot];
        if (st->over)
            continue;
        groups_plan plan = plan_of(g, st->run);
        uint64_t lo = groups_bound(&plan, st->next), hi = groups_bound(&plan, st->next + 1);
        uint64_t end = p->first + p->count;
        lo = lo > p->first ? lo : p->first;
        hi = hi < end ? hi : end;
        if (lo >= hi)
            continue;
        st->in_round = true;
        parts[count] = *p;
        parts[count].first = lo;
        parts[count].count = hi - lo;
        origin[count++] = k;
    }
    *any = count > 0;
    return count > 0 && photon_batch_init(out, parts, count, err);
}

/* Scratch tallies of the shape of acc's, for every slot that has a run. */
static tally_set *scratch_like(const photon_batch *batch, const slot_state *states, int sets,
                               const tally_set *acc, tm_error *err)
{
    int n = batch->slots * sets;
    tally_set *s = calloc((size_t)n, sizeof *s);
    bool ok = s != NULL;
    for (int i = 0; ok && i < n; i++)
        if (states[i / sets].run)
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

/* A decision point of a growing plan: 64 groups, then every 16th. */
static bool decides(const groups_call *g, const uncertainty *u)
{
    return g->chunk > 0 && u->groups >= UNCERTAINTY_GROUPS && u->groups % 16 == 0;
}

/* Slot s's scratch tallies of the round (its group states[s].next): added
 * to its tallies (the ranges the call reported are in them whatever
 * follows), and, unless the call failed, to its groups; then whether its
 * run goes on. */
static bool fold_slot(const groups_call *g, const photon_batch *batch, const int *order, int s,
                      slot_state *st, tally_set *scratch, tally_set *acc, bool called, bool stopped,
                      tm_error *err)
{
    groups_plan plan = plan_of(g, st->run);
    uint64_t size = groups_bound(&plan, st->next + 1) - groups_bound(&plan, st->next);
    bool ok = true, added = false;
    for (int k = 0; k < g->sets; k++) {
        int i = s * g->sets + k;
        tally_set_add(&acc[i], &scratch[i]);
        if (ok && called && scratch[i].photons > 0)
            ok = uncertainty_add_piece(&g->unc[i], st->run, st->next, size, &scratch[i], &added,
                                       err);
        tally_set_clear(&scratch[i]);
    }
    if (!ok || !called)
        return ok;
    uint64_t next = next_group(batch, order, st, &plan, st->next + 1);
    /* A group ended at a decision point is decided even when a stop came
     * with it: a run stopped there and resumed must decide as the run done
     * at once (its photons, so its outputs, follow from the decision). */
    bool met = next != UINT64_MAX && added && g->enough && decides(g, &g->unc[s * g->sets]) &&
               g->enough(g->enough_ctx, s, &g->unc[s * g->sets]);
    if (stopped && !met)
        return ok; /* the rest after the pause, or after --resume */
    st->next = next;
    st->over = met || next == UINT64_MAX;
    if (st->over && g->slot_done)
        ok = g->slot_done(g->slot_ctx, s, 1, err);
    return ok;
}

/* Each slot's state, its parts listed in order (a counting sort of the
 * parts by slot, so that a round costs the parts, not parts x slots). */
static slot_state *slot_states(const groups_call *g, const photon_batch *batch, int *order,
                               tm_error *err)
{
    slot_state *st = calloc((size_t)batch->slots, sizeof *st);
    if (!st) {
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (int k = 0; k < batch->count; k++)
        st[batch->parts[k].slot].parts++;
    for (int s = 1; s < batch->slots; s++)
        st[s].first = st[s - 1].first + st[s - 1].parts;
    int *at = calloc((size_t)batch->slots, sizeof *at);
    if (!at) {
        free(st);
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (int k = 0; k < batch->count; k++) {
        int s = batch->parts[k].slot;
        order[st[s].first + at[s]++] = k;
        st[s].run = batch->parts[k].run;
    }
    free(at);
    for (int s = 0; s < batch->slots; s++) {
        st[s].over = st[s].run == NULL;
        if (st[s].run) {
            groups_plan plan = plan_of(g, st[s].run);
            st[s].next = next_group(batch, order, &st[s], &plan, 0);
        }
    }
    return st;
}

bool groups_simulate(const groups_call *g, const photon_batch *batch, tally_set *acc, tm_error *err)
{
    int *order = malloc((size_t)batch->count * sizeof *order);
    slot_state *states = order ? slot_states(g, batch, order, err) : NULL;
    tally_set *scratch = states ? scratch_like(batch, states, g->sets, acc, err) : NULL;
    batch_part *parts = malloc((size_t)batch->count * sizeof *parts);
    int *origin = malloc((size_t)batch->count * sizeof *origin);
    bool ok = scratch && states && parts && origin, any = true;
    if ((!order || (scratch && states)) && !ok)
        error_set(err, NULL, 0, "out of memory");
    for (int r = 0; ok && any && !(g->stop && *g->stop); r++) {
        photon_batch round;
        if (!round_batch(g, batch, states, parts, origin, &round, &any, err)) {
            ok = !any;
            break;
        }
        bool called = g->call(g->ctx, &round, origin, scratch, g->round_stats, err);
        if (called)
            g->add_stats(g->stats, g->round_stats, r == 0);
        bool stopped = g->stop && *g->stop;
        for (int s = 0; s < batch->slots; s++)
            if (states[s].in_round)
                ok =
                    fold_slot(g, batch, order, s, &states[s], scratch, acc, called, stopped, err) &&
                    ok;
        ok = ok && called;
        photon_batch_free(&round);
    }
    for (int i = 0; scratch && i < batch->slots * g->sets; i++)
        tally_set_free(&scratch[i]);
    free(scratch);
    free(states);
    free(order);
    free(parts);
    free(origin);
    return ok;
}
