/* A batch's photons in groups, for the standard errors of batch means
 * (runtime/io/uncertainty.h): session_simulate_batch's way when its
 * session_sim asks for them.
 *
 * Run R's photons are cut into UNCERTAINTY_GROUPS groups by index, group g
 * holding photons [g N / G, (g + 1) N / G) of R's N: a part of a batch (a
 * whole run, or a gap a checkpoint left) is simulated as its pieces in
 * those groups, one engine call a round, each round's pieces of every part
 * at once.  A piece scores into tallies of its own, which become one group
 * of its slot's uncertainty and are then added, exactly (integers), to the
 * slot's tallies: the tallies are bit for bit those of one call, and the
 * groups depend on the seed and the photon counts alone. */
#ifndef TMCML_SESSION_GROUPS_H
#define TMCML_SESSION_GROUPS_H

#include <signal.h>
#include <stdbool.h>

#include "batch.h"
#include "error.h"
#include "tally.h"
#include "uncertainty.h"

/* One engine call over a round's batch into acc (session.c's); stats of
 * the call.  The round's part k is a piece of the batch's part origin[k]. */
typedef bool (*groups_engine_call)(void *ctx, const photon_batch *round, const int *origin,
                                   tally_set *acc, void *stats, tm_error *err);
/* The stats of a round added to the call's so far (first: the first). */
typedef void (*groups_stats_add)(void *sum, const void *round, bool first);
/* A slot whose photons have all been simulated and folded (session_sim's
 * slot_done; may be NULL). */
typedef bool (*groups_slot_done)(void *ctx, int slot, uint64_t launches, tm_error *err);

typedef struct groups_call {
    groups_engine_call call;
    groups_stats_add add_stats;
    void *ctx;
    void *stats, *round_stats; /* the call's, and scratch for one round */
    int sets;                  /* tally sets a slot: acc[slot * sets + k] */
    uncertainty *unc;          /* one per tally set of acc */
    const volatile sig_atomic_t *stop;
    groups_slot_done slot_done;
    void *slot_ctx;
} groups_call;

/* batch in rounds of group pieces; false with *err when a call fails (the
 * rounds done stay in acc and unc, and what the failed call did in acc).  A raised stop flag ends it after the
 * round it cut short, whose photons done are folded as a group. */
bool groups_simulate(const groups_call *g, const photon_batch *batch, tally_set *acc,
                     tm_error *err);

#endif
