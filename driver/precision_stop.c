/* Where a precision run stops (precision_stop.h). */
#include "precision_stop.h"

/* Row p's run met: it takes the photons of its groups. */
static void take(precision_stop *p, const uncertainty *u)
{
    p->taken = u->photons;
    if (p->ck)
        p->ck->photons = u->photons; /* no gap left: the run is done */
}

static bool met(const precision_stop *p, const uncertainty *u)
{
    return precision_reached(&p->target, u) <= p->target.relative;
}

/* A decision point of one slot's run. */
static bool enough(void *ctx, int slot, const uncertainty *u)
{
    precision_stop *p = &((precision_stop *)ctx)[slot];
    if (!met(p, u))
        return false;
    take(p, u);
    return true;
}

/* A decision point of a history of sets (one slot): every deciding row. */
static bool enough_sets(void *ctx, int slot, const uncertainty *u)
{
    (void)slot;
    precision_stop_sets *ps = ctx;
    for (int k = ps->lead; k < ps->count; k++)
        if (!met(&ps->rows[k], &u[k]))
            return false;
    for (int k = ps->lead; k < ps->count; k++)
        take(&ps->rows[k], &u[k]);
    return true;
}

static void decided_by(session_sim *sim, groups_enough fn, void *ctx)
{
    sim->group_chunk = PRECISION_CHUNK;
    sim->enough = fn;
    sim->enough_ctx = ctx;
}

void precision_stop_sim(session_sim *sim, precision_stop *slots)
{
    if (slots)
        decided_by(sim, enough, slots);
}

void precision_stop_sets_sim(session_sim *sim, precision_stop_sets *sets)
{
    if (sets)
        decided_by(sim, enough_sets, sets);
}
