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
 * The groups are folded in the order of their index, each whole (its
 * tallies summed exactly, whatever simulated its photons and in how many
 * pieces), so the errors are a function of the groups alone: bit for bit
 * the same on any thread count, any batch, across a stop and --resume, and
 * under MPI on any rank count.  A group begun and not yet foldable (its
 * photons not all done, or a group before it not folded yet) is kept, its
 * tallies so far with it, until it is: uncertainty_add_piece.
 *
 * A run's groups outlive its process: a checkpoint keeps the sums and the
 * groups kept (runtime/io/checkpoint.h, versions 4 to 6), so a run stopped
 * and resumed ends with the errors of the run done at once.  Under MPI
 * (driver/ranks.c) every rank but rank 0 holds the groups it simulates
 * (hold), and rank 0, where the tallies are gathered, adds their pieces to
 * its own kept groups and folds each as it becomes whole and next. */
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

/* A group begun and not folded: its index, its first photon and its
 * photons (0 where not known yet: the cut group of a checkpoint of
 * version 4 or 5, until more of it comes), and the tallies of its photons
 * done, tallies.photons of them. */
typedef struct uncertainty_kept {
    uint64_t group, first, size;
    tally_set tallies;
} uncertainty_kept;

/* The running sums of one run's (or one absorption set's) groups. */
typedef struct uncertainty {
    int groups;            /* groups folded */
    uint64_t photons;      /* their photons: the run's first ones */
    output_grid grid;      /* of the arrays below: the first group's */
    double mean[3], m2[3]; /* Rd, A, Tt */
    double *array_mean[OUTPUT_ARRAYS], *array_m2[OUTPUT_ARRAYS]; /* NULL: not in the run */
    /* The groups begun and not folded, by increasing index. */
    uncertainty_kept *kept;
    int kept_count, kept_cap;
    /* Fold none: kept until gathered (an MPI rank's other than rank 0's,
     * whose groups rank 0 folds: driver/ranks.c). */
    bool hold;
    /* Fold each piece at once, a group of its own (uncertainty_loosen). */
    bool loose;
} uncertainty;

void uncertainty_init(uncertainty *u);
void uncertainty_free(uncertainty *u);

/* u (empty) given zeroed sums for the arrays of the mask `arrays` (bit i:
 * output_table[i]) on grid, no group yet (a checkpoint's groups read
 * back); false with *err when out of memory (u then empty). */
bool uncertainty_alloc(uncertainty *u, const output_grid *grid, uint64_t arrays, tm_error *err);

/* The mask of the arrays u has sums of (bit i: output_table[i]). */
uint64_t uncertainty_arrays(const uncertainty *u);

/* Adds the group whose tallies (of group->photons > 0 photons of run) are
 * `group` to the sums, as the next one; false with *err when out of memory
 * or when its arrays are not those of the groups before. */
bool uncertainty_add_group(uncertainty *u, const mci_run *run, const tally_set *group,
                           tm_error *err);

/* Photons of group g (of `size` photons from photon `first`) simulated
 * into `part`: added to the group kept (begun here if none is), and every
 * group that is then whole and next (its first photon u->photons) folded,
 * unless u holds them.  *added says whether a group was.  false with *err
 * when out of memory or when the group's arrays are not the others'. */
bool uncertainty_add_piece(uncertainty *u, const mci_run *run, uint64_t g, uint64_t first,
                           uint64_t size, const tally_set *part, bool *added, tm_error *err);

/* A group g kept, of tallies of like's shape, zeroed (from `first`, of
 * `size` photons: 0 when not known), in its place among the others: a
 * checkpoint's read back.  NULL with *err when out of memory or when g is
 * kept already. */
uncertainty_kept *uncertainty_keep(uncertainty *u, uint64_t g, uint64_t first, uint64_t size,
                                   const tally_set *like, tm_error *err);

/* u's groups are not those of the run's plan (a checkpoint resumed with
 * --precision and begun without, or the other way round; or written by a
 * tmcml whose MPI ranks cut groups), so that some of the plan's groups can
 * never be whole: its groups kept are folded now, and from here on every
 * piece at once, each a group of its own (a group of the plan whole, or
 * the part of one a stop cut or the plan change left).  Valid groups of
 * whole photons, but not those of any unbroken run.  False with *err when
 * out of memory. */
bool uncertainty_loosen(uncertainty *u, const mci_run *run, tm_error *err);

/* The photons of the groups kept. */
uint64_t uncertainty_kept_photons(const uncertainty *u);

/* Drops the groups kept (an MPI rank's, once gathered); hold stays. */
void uncertainty_drop_kept(uncertainty *u);

/* A copy of u's sums in *copy (empty before) with each group kept then
 * added as a group of its own, in order, whole or not: the errors of the
 * photons done so far (a stopped run's partial outputs).  False with *err
 * when out of memory. */
bool uncertainty_with_kept(const uncertainty *u, const mci_run *run, uncertainty *copy,
                           tm_error *err);

/* Folds b's sums into a's, as if b's groups had been added one after the
 * other (Chan's pairwise update), to rounding (not bit for bit): false
 * with *err when their arrays differ or out of memory.  b's kept groups
 * are not taken. */
bool uncertainty_merge(uncertainty *a, const uncertainty *b, tm_error *err);

/* The standard errors into res (allocated here: res->stderr_array of the
 * arrays res has, res->rd_stderr and the like), from u's groups, which
 * must be res's photons; with fewer than two groups every error is NaN
 * (unknown).  False when out of memory or when u is not res's. */
bool uncertainty_fill(const uncertainty *u, mcml_result *res, tm_error *err);

#endif
