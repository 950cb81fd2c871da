/* A batch's photons in groups, for the standard errors of batch means
 * (runtime/io/uncertainty.h): session_simulate_batch's way when its
 * session_sim asks for them.
 *
 * Run R's photons are cut into groups by index alone (groups_plan): for
 * its standard errors, UNCERTAINTY_GROUPS groups of its N photons, group g
 * holding photons [g N / G, (g + 1) N / G); for a run that stops at a
 * precision, groups that grow from a chunk (64 of chunk photons, then 64 of
 * twice that, ...) up to its N, the most it may take.  Each round is one
 * engine call: a batch of one slot simulates one group of it (its own
 * kernel); a batch of several slots simulates each slot's groups up to its
 * next decision point (all 64 equal groups at once), each group a slot of
 * the round of its own (the batch kernel, so that a launch's tail is paid
 * once, not once a group), within the batch limits of slots and tally
 * bytes.  A group's tallies are added exactly (integers) to its slot's
 * tallies and become a group of its uncertainty, in order: the tallies are
 * bit for bit those of one call.  A round cut short by a stop takes each
 * slot's groups up to the first it did not finish, which stays kept
 * (the uncertainty keeps its tallies) until a later call ends it; the
 * groups after it are dropped, their photon ranges not reported, so that
 * they are simulated again.  So every group is whole, and the errors, like
 * the tallies, depend on the seed and the photon counts alone, not on
 * where a run was stopped or how its groups were packed (nor, under MPI,
 * on which rank simulated which: driver/ranks.h). */
#ifndef TMCML_SESSION_GROUPS_H
#define TMCML_SESSION_GROUPS_H

#include <signal.h>
#include <stdbool.h>

#include "batch.h"
#include "error.h"
#include "tally.h"
#include "uncertainty.h"

/* The photon ranges an engine call reports, held until the round's groups
 * are folded (the round's part, as its batch numbers it). */
typedef struct groups_range {
    int part;
    uint64_t first, count;
} groups_range;
typedef struct groups_ranges groups_ranges;
/* Holds a range (thread-safe: engines report from their threads); false
 * when out of memory (the round then fails). */
bool groups_ranges_add(groups_ranges *r, int part, uint64_t first, uint64_t count);

/* One engine call over a round's batch into acc (session.c's), its ranges
 * held in held; stats of the call.  The round's part k is a piece of the
 * batch's part origin[k]. */
typedef bool (*groups_engine_call)(void *ctx, const photon_batch *round, const int *origin,
                                   groups_ranges *held, tally_set *acc, void *stats, tm_error *err);
/* A range of the batch's part, done and folded (session_sim's done). */
typedef bool (*groups_report)(void *ctx, int part, uint64_t first, uint64_t count, tm_error *err);
/* The stats of a round added to the call's so far (first: the first). */
typedef void (*groups_stats_add)(void *sum, const void *round, bool first);
/* A slot whose photons have all been simulated and folded (session_sim's
 * slot_done; may be NULL). */
typedef bool (*groups_slot_done)(void *ctx, int slot, uint64_t launches, tm_error *err);

/* Where a run's groups are: chunk 0, UNCERTAINTY_GROUPS equal groups of
 * its photons; else growing from chunk, up to its photons. */
typedef struct groups_plan {
    uint64_t photons, chunk;
} groups_plan;

/* Group g's first photon (its photons for g past the last). */
uint64_t groups_bound(const groups_plan *p, uint64_t g);
/* The group of photon x (< p->photons). */
uint64_t groups_of(const groups_plan *p, uint64_t x);

/* Whether u's groups (a checkpoint's) are p's: the groups folded p's
 * first ones, each whole (their count and photons), and each group kept
 * one of p's, from its first photon, no more than its photons (whose
 * count it is then given).  Not so, the checkpoint was begun with another
 * plan (uncertainty_loosen). */
bool groups_fit_plan(const groups_plan *p, uncertainty *u);

/* At a precision run's decision points (64 groups, then every 16th) that
 * its photons go past: whether slot's run is precise enough (u: its sets'
 * uncertainties).  Asked in the call that ends the group, whether or not
 * that call has photons after it (the gap of a hole a stop left in the
 * group): so the photons taken do not depend on where pauses came. */
typedef bool (*groups_enough)(void *ctx, int slot, const uncertainty *u);

/* Whether the engine's kernel runs a round of this many slots and parts
 * in one call (the GPUs' batch kernel: its tables in shared memory). */
typedef bool (*groups_fits)(void *ctx, int slots, int parts);

typedef struct groups_call {
    groups_engine_call call;
    groups_report report; /* may be NULL */
    groups_fits fits;     /* may be NULL: any round fits */
    groups_stats_add add_stats;
    void *ctx;
    void *stats, *round_stats; /* the call's, and scratch for one round */
    int sets;                  /* tally sets a slot: acc[slot * sets + k] */
    uncertainty *unc;          /* one per tally set of acc */
    const volatile sig_atomic_t *stop;
    groups_slot_done slot_done;
    void *slot_ctx;
    uint64_t chunk;       /* the plan: 0, equal groups; else growing */
    groups_enough enough; /* may be NULL: every group of the runs */
    void *enough_ctx;
} groups_call;

/* batch in rounds of groups; false with *err when a call fails (the
 * rounds done stay in acc and unc; the failed call's work is dropped, its
 * ranges not reported).  A raised stop flag ends it after the round it cut
 * short. */
bool groups_simulate(const groups_call *g, const photon_batch *batch, tally_set *acc,
                     tm_error *err);

#endif
