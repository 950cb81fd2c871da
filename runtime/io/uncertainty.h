/* Standard errors by batch means (docs/physics.md, "Uncertainty").
 *
 * A run's photons are simulated in groups (driver/session_groups.c cuts them by
 * photon index, so the groups depend on the seed and the photon count
 * alone, never on the engine, the kernel variant, the launch size or the
 * GPU count).  Each group of n_g photons is a sample of every output: its
 * own normalised result m_g (MCML's quantities over its n_g photons), in
 * which a photon that deposits many times in a bin is one contribution.
 * The groups are independent, so with N = sum n_g and m the photon-
 * weighted mean of the m_g (the run's result),
 *
 *     s^2 = sum_g n_g (m_g - m)^2 / (G - 1)      (an unbiased estimate of
 *                                                 the variance of a photon)
 *     stderr(m) = sqrt(s^2 / N)
 *
 * for every entry of every array and for Rd, A and Tt; unequal group
 * sizes keep it unbiased.  The sums are taken as the groups come
 * (weighted Welford updates: no cancellation).
 *
 * A run's groups outlive its process: a checkpoint keeps them (runtime/io/
 * checkpoint.h, version 4), so a run stopped and resumed ends with errors
 * over all its photons.  The stop cuts the group it came in into two (the
 * photons done are folded as a group: driver/session_groups.h), so the
 * resumed run has a group more than the run done at once and its errors
 * are close to that run's, not bit for bit (its tallies are).  Under MPI
 * (driver/ranks.c) each rank groups the pieces of the chunks it took, and
 * rank 0 merges every rank's sums into its own (uncertainty_merge, in rank
 * order) where the tallies are gathered: the errors cover every photon,
 * but the groups (how many, which photons) depend on the rank count and on
 * which rank took which chunk, so they differ from one process's and from
 * one MPI job to the next; the tallies stay bit for bit. */
#ifndef TMCML_UNCERTAINTY_H
#define TMCML_UNCERTAINTY_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "result.h"
#include "tally.h"

/* Groups a run is cut into for its standard errors: 64 gives each
 * estimate 63 degrees of freedom (its own relative error about 9 %; a
 * +-1.96 stderr interval covers 94.5 % rather than 95 %: docs/physics.md).
 * The GPU pays a launch's tail a group (driver/session_groups.h). */
#define UNCERTAINTY_GROUPS 64

_Static_assert(OUTPUT_ARRAYS <= 64, "a mask of the output arrays fits 64 bits");

/* The running sums of one run's (or one absorption set's) groups. */
typedef struct uncertainty {
    int groups;            /* groups added */
    uint64_t photons;      /* their photons */
    output_grid grid;      /* of the arrays below: the first group's */
    double mean[3], m2[3]; /* Rd, A, Tt */
    double *array_mean[OUTPUT_ARRAYS], *array_m2[OUTPUT_ARRAYS]; /* NULL: not in the run */
    /* A group begun and not ended (a run stopped in the middle of one):
     * the tallies of its photons done, pending.photons of them (0: none),
     * kept until the rest of the group is simulated, so that every group
     * is whole and the errors do not depend on where a run was stopped. */
    uint64_t pending_group;
    tally_set pending;
} uncertainty;

void uncertainty_init(uncertainty *u);
void uncertainty_free(uncertainty *u);

/* u (empty) given zeroed sums for the arrays of the mask `arrays` (bit i:
 * output_table[i]) on grid, no group yet (a checkpoint's groups read
 * back, an MPI rank's received); false with *err when out of memory (u
 * then empty). */
bool uncertainty_alloc(uncertainty *u, const output_grid *grid, uint64_t arrays, tm_error *err);

/* The mask of the arrays u has sums of (bit i: output_table[i]). */
uint64_t uncertainty_arrays(const uncertainty *u);

/* Adds the group whose tallies (of group->photons > 0 photons of run) are
 * `group`; false with *err when out of memory or when its arrays are not
 * those of the groups before. */
bool uncertainty_add_group(uncertainty *u, const mci_run *run, const tally_set *group,
                           tm_error *err);

/* Photons [first, first + count) of group g, simulated into `part` (whole
 * group_photons long): the pending group's tallies grow by them (a pending
 * group of another index, which no later photons can end, is added as the
 * group it is), and the group, once whole, is added.  *added says whether
 * a group was.  false with *err when out of memory. */
bool uncertainty_add_piece(uncertainty *u, const mci_run *run, uint64_t g, uint64_t group_photons,
                           const tally_set *part, bool *added, tm_error *err);

/* The group a stop cut, with what is done of it, added as a group of its
 * own (a set of whole photons is a group: honest, though the groups then
 * depend on where the run was cut); for MPI ranks, whose pieces of a group
 * other ranks end.  false with *err when out of memory. */
bool uncertainty_flush_pending(uncertainty *u, const mci_run *run, tm_error *err);

/* Folds b's groups into a's, as if they had been added one after the
 * other (Chan's pairwise update: the ranks of MPI, a resumed run's kept
 * groups); false with *err when their arrays differ or out of memory. */
bool uncertainty_merge(uncertainty *a, const uncertainty *b, tm_error *err);

/* The standard errors into res (allocated here: res->stderr_array of the
 * arrays res has, res->rd_stderr and the like), from u's groups, which
 * must be res's photons; with fewer than two groups every error is NaN
 * (unknown).  False when out of memory or when u is not res's. */
bool uncertainty_fill(const uncertainty *u, mcml_result *res, tm_error *err);

#endif
