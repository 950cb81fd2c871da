/* A batch's photons in groups, for batch means (session_groups.h). */
#include "session_groups.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tm_limits.h"

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

/* Whether the groups folded are p's first ones: u->photons a bound of p's
 * groups, and their count that of p's groups before it (empty ones aside:
 * a run of fewer photons than groups). */
static bool folded_fit(const groups_plan *p, const uncertainty *u)
{
    uint64_t groups = 0, g = 0;
    for (; groups_bound(p, g) < u->photons; g++)
        groups += groups_bound(p, g + 1) > groups_bound(p, g);
    return groups_bound(p, g) == u->photons && groups == (uint64_t)u->groups;
}

bool groups_fit_plan(const groups_plan *p, uncertainty *u)
{
    bool fit = u->photons <= p->photons && folded_fit(p, u);
    for (int i = 0; fit && i < u->kept_count; i++) {
        uncertainty_kept *k = &u->kept[i];
        uint64_t first = groups_bound(p, k->group), size = groups_bound(p, k->group + 1) - first;
        fit = k->first == first && k->tallies.photons <= size && (k->size == 0 || k->size == size);
        k->size = fit ? size : k->size;
    }
    return fit;
}

static groups_plan plan_of(const groups_call *g, const mci_run *run)
{
    return (groups_plan){.photons = (uint64_t)run->photons, .chunk = g->chunk};
}

/* ---- the ranges a round's call reports, held until its groups are folded ---- */

struct groups_ranges {
    pthread_mutex_t lock;
    groups_range *at;
    size_t count, cap;
    bool failed; /* out of memory: the call is then failed */
};

bool groups_ranges_add(groups_ranges *r, int part, uint64_t first, uint64_t count)
{
    pthread_mutex_lock(&r->lock);
    if (r->count == r->cap && !r->failed) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        groups_range *at = realloc(r->at, cap * sizeof *at);
        r->failed = at == NULL;
        if (at) {
            r->at = at;
            r->cap = cap;
        }
    }
    if (!r->failed)
        r->at[r->count++] = (groups_range){part, first, count};
    bool ok = !r->failed;
    pthread_mutex_unlock(&r->lock);
    return ok;
}

/* ---- rounds ---- */

/* What the rounds know of a slot: its run and parts (order[first ..
 * first + parts - 1], indices into the batch's parts), the next group it
 * simulates, its groups in the round (the round's slots vfirst ..
 * vfirst + vcount - 1), and whether its run is over (every group done, or
 * precise enough). */
typedef struct slot_state {
    const mci_run *run;
    int first, parts;
    uint64_t next;
    int vfirst, vcount;
    bool over, ended; /* ended: over in this round (told after its ranges) */
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

/* A round: each slot's groups as slots of their own (vslot[v] the slot of
 * round slot v, vgroup[v] its group, expect[v] the photons its parts
 * hold), and the parts (origin[k]: the batch's part that the round's part
 * k is a piece of). */
typedef struct round_plan {
    int *vslot;
    uint64_t *vgroup, *expect;
    int vcount;
    batch_part *parts;
    int *origin;
    int count;
} round_plan;

/* A precision plan decides after 64 groups, then every 16th: a slot's
 * groups in one round end there (the decision is taken on the groups
 * before it alone); equal groups, all of them. */
static uint64_t segment_end(const groups_call *g, uint64_t next)
{
    if (g->chunk == 0)
        return UINT64_MAX;
    return next < UNCERTAINTY_GROUPS ? UNCERTAINTY_GROUPS : (next / 16 + 1) * 16;
}

/* Up to cap groups of each slot still going, from its next, to the round. */
static void plan_groups(const groups_call *g, const photon_batch *batch, const int *order,
                        slot_state *states, int cap, round_plan *rp)
{
    rp->vcount = 0;
    for (int s = 0; s < batch->slots; s++) {
        slot_state *st = &states[s];
        st->vfirst = rp->vcount;
        st->vcount = 0;
        if (st->over)
            continue;
        groups_plan plan = plan_of(g, st->run);
        uint64_t end = segment_end(g, st->next);
        for (uint64_t grp = st->next; grp != UINT64_MAX && grp < end && st->vcount < cap;
             grp = next_group(batch, order, st, &plan, grp + 1)) {
            rp->vslot[rp->vcount] = s;
            rp->vgroup[rp->vcount] = grp;
            rp->expect[rp->vcount++] = 0;
            st->vcount++;
        }
    }
}

/* The round's parts: each part's photons in each of its slot's groups of
 * the round, scoring into that group's round slot. */
static void plan_parts(const groups_call *g, const photon_batch *batch, const slot_state *states,
                       round_plan *rp)
{
    rp->count = 0;
    for (int k = 0; k < batch->count; k++) {
        const batch_part *p = &batch->parts[k];
        const slot_state *st = &states[p->slot];
        groups_plan plan = plan_of(g, st->run);
        for (int v = st->vfirst; v < st->vfirst + st->vcount; v++) {
            uint64_t lo = groups_bound(&plan, rp->vgroup[v]);
            uint64_t hi = groups_bound(&plan, rp->vgroup[v] + 1), end = p->first + p->count;
            lo = lo > p->first ? lo : p->first;
            hi = hi < end ? hi : end;
            if (lo >= hi)
                continue;
            rp->parts[rp->count] = *p;
            rp->parts[rp->count].first = lo;
            rp->parts[rp->count].count = hi - lo;
            rp->parts[rp->count].slot = v;
            rp->origin[rp->count++] = k;
            rp->expect[v] += hi - lo;
        }
    }
}

/* The scratch tallies' bytes of a round slot of each slot (the same grid
 * and tallies as its acc), for the round's budget. */
static uint64_t slot_bytes(const tally_set *acc, int sets)
{
    uint64_t bins = 0;
    for (int k = 0; k < sets; k++)
        for (int t = 0; t < OUTPUT_TALLIES_ALL; t++)
            bins += tally_set_bins(&acc[k], t);
    return bins * sizeof(tally_acc_t);
}

/* The most groups of a slot in one round: one when the batch holds one
 * run (its own kernel: several groups would need the batch kernel; the
 * batch may number its slot above 0), else as many as a decision allows
 * (64) within the batch limits of round slots and their tallies' bytes,
 * and what the engine's kernel fits. */
static int round_cap(const groups_call *g, const photon_batch *batch, const slot_state *states,
                     const tally_set *acc)
{
    uint64_t bytes = 0;
    int going = 0, runs = 0;
    for (int s = 0; s < batch->slots; s++) {
        runs += states[s].run != NULL;
        if (!states[s].over) {
            bytes += slot_bytes(&acc[s * g->sets], g->sets);
            going++;
        }
    }
    if (runs <= 1)
        return 1;
    int cap = UNCERTAINTY_GROUPS;
    while (cap > 1 && ((uint64_t)cap * (uint64_t)going > TM_BATCH_MAX_RUNS ||
                       (uint64_t)cap * bytes > TM_BATCH_MAX_TALLY_BYTES))
        cap /= 2;
    return cap;
}

/* Scratch tallies for the round's slots, each of the shape of its slot's
 * acc; NULL when out of memory (*err). */
static tally_set *scratch_for(const groups_call *g, const round_plan *rp, const tally_set *acc,
                              tm_error *err)
{
    int n = rp->vcount * g->sets;
    tally_set *sc = calloc((size_t)(n > 0 ? n : 1), sizeof *sc);
    bool ok = sc != NULL;
    for (int i = 0; ok && i < n; i++) {
        const tally_set *like = &acc[rp->vslot[i / g->sets] * g->sets + i % g->sets];
        ok = tally_set_init(&sc[i], like->nr, like->nz, like->na) &&
             tally_set_add_options_of(&sc[i], like);
    }
    if (ok)
        return sc;
    for (int i = 0; sc && i < n; i++)
        tally_set_free(&sc[i]);
    free(sc);
    error_set(err, NULL, 0, "out of memory for a round's group tallies");
    return NULL;
}

/* A decision point of a growing plan: 64 groups, then every 16th. */
static bool decides(const groups_call *g, const uncertainty *u)
{
    return g->chunk > 0 && u->groups >= UNCERTAINTY_GROUPS && u->groups % 16 == 0;
}

/* Round slot v, slot s's group: its tallies added to s's (and *taken
 * set: its ranges are reported) and to s's groups (a piece of the group
 * when the round did only part of it: the rest comes later). */
static bool take_group(const groups_call *g, slot_state *st, int s, const round_plan *rp, int v,
                       tally_set *scratch, tally_set *acc, bool *added, tm_error *err)
{
    groups_plan plan = plan_of(g, st->run);
    uint64_t grp = rp->vgroup[v];
    uint64_t first = groups_bound(&plan, grp), size = groups_bound(&plan, grp + 1) - first;
    bool ok = true;
    *added = false;
    for (int k = 0; k < g->sets; k++) {
        tally_set *t = &scratch[v * g->sets + k];
        tally_set_add(&acc[s * g->sets + k], t);
        if (ok && t->photons > 0)
            ok = uncertainty_add_piece(&g->unc[s * g->sets + k], st->run, grp, first, size, t,
                                       added, err);
    }
    return ok;
}

/* Slot s's groups of the round, in order: each taken until one the call
 * did not finish (cut by a stop: taken as a piece, its rest after the
 * pause or --resume) or the one after which the run is precise enough;
 * the groups after it are dropped (taken[v] false: neither tallies nor
 * ranges, simulated again later), so that a slot's groups are folded in
 * order and at most one is kept unfinished.  Then whether its run goes on. */
static bool fold_slot(const groups_call *g, const photon_batch *batch, const int *order, int s,
                      slot_state *st, const round_plan *rp, tally_set *scratch, tally_set *acc,
                      bool *taken, tm_error *err)
{
    bool ok = true, open = true;
    for (int v = st->vfirst; ok && open && v < st->vfirst + st->vcount; v++) {
        bool added;
        ok = take_group(g, st, s, rp, v, scratch, acc, &added, err);
        taken[v] = true;
        if (scratch[v * g->sets].photons < rp->expect[v]) {
            st->next = rp->vgroup[v]; /* cut by a stop: the rest later */
            open = false;
            continue;
        }
        groups_plan plan = plan_of(g, st->run);
        uint64_t next = next_group(batch, order, st, &plan, rp->vgroup[v] + 1);
        /* A group ended at a decision point is decided even when a stop
         * came with it: a run stopped there and resumed must decide as the
         * run done at once (its photons, so its outputs, follow from it).
         * And whenever its run has photons after it, whether or not this
         * call has them: the call over a gap that fills the hole a stop
         * left in a group (a thread cut in the group's early chunk while
         * another had ended a later one) ends the group, and with it its
         * parts (next is UINT64_MAX), short of the run's last photon. */
        bool more = groups_bound(&plan, rp->vgroup[v] + 1) < plan.photons;
        bool met = more && added && g->enough && decides(g, &g->unc[s * g->sets]) &&
                   g->enough(g->enough_ctx, s, &g->unc[s * g->sets]);
        st->next = next;
        st->over = st->ended = met || next == UINT64_MAX;
        open = !st->over;
    }
    return ok;
}

/* The ranges the call reported of the groups taken, as the batch's parts'. */
static bool report_taken(const groups_call *g, const groups_ranges *held, const round_plan *rp,
                         const bool *taken, tm_error *err)
{
    bool ok = true;
    for (size_t i = 0; ok && g->report && i < held->count; i++) {
        const groups_range *r = &held->at[i];
        if (taken[rp->parts[r->part].slot])
            ok = g->report(g->ctx, rp->origin[r->part], r->first, r->count, err);
    }
    return ok;
}

/* Each slot's state, its parts listed in order (a counting sort of the
 * parts by slot, so that a round costs the parts, not parts x slots). */
static slot_state *slot_states(const groups_call *g, const photon_batch *batch, int *order,
                               tm_error *err)
{
    slot_state *st = calloc((size_t)batch->slots, sizeof *st);
    int *at = calloc((size_t)batch->slots, sizeof *at);
    if (!st || !at) {
        free(st);
        free(at);
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (int k = 0; k < batch->count; k++)
        st[batch->parts[k].slot].parts++;
    for (int s = 1; s < batch->slots; s++)
        st[s].first = st[s - 1].first + st[s - 1].parts;
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

/* What groups_simulate works with. */
typedef struct rounds {
    int *order;
    slot_state *states;
    round_plan rp;
    bool *taken;
    groups_ranges held;
} rounds;

static bool rounds_init(rounds *r, const groups_call *g, const photon_batch *batch, tm_error *err)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->held.lock, NULL);
    size_t most = (size_t)batch->slots * UNCERTAINTY_GROUPS, parts = (size_t)batch->count;
    r->order = malloc(parts * sizeof *r->order);
    r->rp.vslot = malloc(most * sizeof *r->rp.vslot);
    r->rp.vgroup = malloc(most * sizeof *r->rp.vgroup);
    r->rp.expect = malloc(most * sizeof *r->rp.expect);
    r->taken = malloc(most * sizeof *r->taken);
    r->rp.parts = malloc(parts * UNCERTAINTY_GROUPS * sizeof *r->rp.parts);
    r->rp.origin = malloc(parts * UNCERTAINTY_GROUPS * sizeof *r->rp.origin);
    bool ok = r->order && r->rp.vslot && r->rp.vgroup && r->rp.expect && r->taken && r->rp.parts &&
              r->rp.origin;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    return ok && (r->states = slot_states(g, batch, r->order, err)) != NULL;
}

static void rounds_free(rounds *r)
{
    free(r->order);
    free(r->states);
    free(r->rp.vslot);
    free(r->rp.vgroup);
    free(r->rp.expect);
    free(r->rp.parts);
    free(r->rp.origin);
    free(r->taken);
    free(r->held.at);
    pthread_mutex_destroy(&r->held.lock);
}

/* One round: planned, called, folded; *any false when no slot had a group
 * left. */
static bool one_round(const groups_call *g, const photon_batch *batch, rounds *r, tally_set *acc,
                      bool first, bool *any, tm_error *err)
{
    /* The most groups a slot the limits allow, halved until the engine's
     * kernel fits the round's slots and parts (one a slot: the batch's). */
    for (int cap = round_cap(g, batch, r->states, acc);; cap /= 2) {
        plan_groups(g, batch, r->order, r->states, cap, &r->rp);
        plan_parts(g, batch, r->states, &r->rp);
        if (cap == 1 || !g->fits || g->fits(g->ctx, r->rp.vcount, r->rp.count))
            break;
    }
    *any = r->rp.count > 0;
    photon_batch round;
    if (!*any || !photon_batch_init(&round, r->rp.parts, r->rp.count, err))
        return !*any;
    tally_set *scratch = scratch_for(g, &r->rp, acc, err);
    r->held.count = 0;
    r->held.failed = false;
    bool ok =
        scratch && g->call(g->ctx, &round, r->rp.origin, &r->held, scratch, g->round_stats, err);
    if (ok && r->held.failed) {
        error_set(err, NULL, 0, "out of memory for a round's photon ranges");
        ok = false;
    }
    if (ok)
        g->add_stats(g->stats, g->round_stats, first);
    /* A failed call is dropped whole: neither its tallies nor its ranges. */
    memset(r->taken, 0, (size_t)r->rp.vcount * sizeof *r->taken);
    for (int s = 0; ok && s < batch->slots; s++)
        ok = r->states[s].vcount == 0 ||
             fold_slot(g, batch, r->order, s, &r->states[s], &r->rp, scratch, acc, r->taken, err);
    ok = ok && report_taken(g, &r->held, &r->rp, r->taken, err);
    for (int s = 0; ok && s < batch->slots; s++)
        if (r->states[s].ended && g->slot_done) {
            r->states[s].ended = false;
            ok = g->slot_done(g->slot_ctx, s, 1, err);
        }
    for (int i = 0; scratch && i < r->rp.vcount * g->sets; i++)
        tally_set_free(&scratch[i]);
    free(scratch);
    photon_batch_free(&round);
    return ok;
}

bool groups_simulate(const groups_call *g, const photon_batch *batch, tally_set *acc, tm_error *err)
{
    rounds r;
    bool ok = rounds_init(&r, g, batch, err), any = true;
    for (int n = 0; ok && any && !(g->stop && *g->stop); n++)
        ok = one_round(g, batch, &r, acc, n == 0, &any, err);
    rounds_free(&r);
    return ok;
}
