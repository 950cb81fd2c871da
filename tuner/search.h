/* The tuner's search (FFTW's "measure" planning for one problem on one GPU):
 * a pilot run finds the high-fluence region, then staged candidates are
 * compiled, checked bit for bit against the reference kernel and timed,
 * within a wall-clock budget.  The winner becomes a profile entry.
 *
 * A candidate's speed is its steady-state rate: photons handed out per
 * second while the pilot launch goes from 20 % to 80 % of its photons, the
 * median of the repeats.  The whole launch also pays a ramp-up and a tail of
 * the longest photons, which a long run pays once per 2^32 photons; on a
 * pilot they would dominate heavy-tailed cases (the intralipid slab) and
 * favour configurations with few threads.
 *
 * Stages:
 *   reference  the documented heuristic (tuner/variant.c): sets the pilot
 *              size (kernel time >= min_kernel_seconds) and the tallies every
 *              other candidate must reproduce exactly;
 *   launch     block sizes x residencies (launch bounds), each with the tile
 *              that captures most pilot deposit events in the shared memory
 *              left per block at that residency;
 *   tile       around the best launch: the best-capturing shapes for both
 *              entry widths, in the whole and in half the budget, and no tile;
 *   refine     layer table in shared memory, the last-bin register cache,
 *              no launch bound. */
#ifndef TMCML_SEARCH_H
#define TMCML_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "candidates.h"
#include "tm_limits.h"
#include "error.h"
#include "mci.h"
#include "profile.h"
#include "candidate.h"
#include "runner.h"

void tune_options_init(tune_options *opt);

typedef struct tune_result {
    tune_candidate *candidates;
    int count, capacity;
    int reference, winner; /* indices (-1: none) */
    uint64_t pilot_photons;
    double steps_per_photon;
    double seconds; /* the whole search */
    int mismatches;
    int num_sets; /* the shape tuned: tune_options' sets */
    bool sets_paths, sets_jacobian;
    int sets_optics;
} tune_result;

/* Runs the search for run (its photon count is not used: the pilot sets its
 * own), measuring through runner only.  False on a problem that stops the
 * search (the reference kernel fails, a GPU fault); a candidate's own
 * failure is recorded, not fatal. */
bool tune_search(const tune_runner *runner, const mci_run *run, bool score_absorption,
                 const tune_options *opt, tune_result *res, tm_error *err);
void tune_result_free(tune_result *res);

/* Appends a candidate of config (zeroed, status unset) to res; NULL when out
 * of memory.  The pointer is valid until the next append. */
tune_candidate *tune_result_add(tune_result *res, const kernel_knobs *config, const char *stage);

/* The winner as a profile entry (class, config, rates, pilot, counts, date). */
void tune_result_entry(const tune_result *res, const mci_run *run, bool score_absorption,
                       profile_entry *e);

const char *tune_status_name(tune_status s);

#endif
