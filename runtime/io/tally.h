/* Integer tallies: what every engine produces and the result module reads.
 *
 * Engines score into 64-bit batches (at most TALLY_BATCH_MAX_PHOTONS photons,
 * so no entry can overflow: each photon adds at most ~2^25 units to a bin) and
 * add finished batches into a tally_set, whose 128-bit entries cannot
 * overflow for any photon count below 2^63. */
#ifndef TMCML_TALLY_H
#define TMCML_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#include "fixed_point.h"
#include "output_arrays.h"
#include "tm_limits.h"

typedef unsigned __int128 tally_acc_t;

/* The integer tally arrays of output_table[] (runtime/io/output_arrays.h),
 * by name and as tally[OUTPUT_TALLY_...]; each indexed as MCML's arrays,
 * r first (output_table's axes). */
typedef struct tally_batch {
    int nr, nz, na;
    int num_layers;      /* of the path tallies; 0: none (tally_batch_add_options) */
    int nt;              /* time bins of the time tallies; 0: none */
    int detectors;       /* of the detector tallies; 0: none */
    int jacobian_layers; /* of the derivative tallies; 0: none */
    int set_weights;     /* of an optics set's weight sums; 0: none */
    int frequencies;     /* of the spatial-frequency tallies; 0: none */
    int modulations;     /* of the modulation tallies; 0: none */
    int xy;              /* cells along x and y of the Cartesian grid's tallies; 0: none */
    OUTPUT_TALLY_FIELDS(uint64_t);
    uint64_t steps; /* hop-drop-spin steps taken (for steps/s figures) */
    /* Photons stopped because they would never end (more steps than the
     * run's limit, held in a glass layer by total reflection, or parallel
     * to one), and their weight in units:
     * neither absorbed nor escaped, reported apart (RAT plus trapped is 1:
     * docs/physics.md, "Photons that never end"). */
    uint64_t trapped_photons, trapped_units;
    /* Optional (NULL unless a test sets it): the same absorption deposits
     * without quantisation, to measure the fixed point's rounding bias. */
    double *a_rz_exact;
} tally_batch;

typedef struct tally_set {
    int nr, nz, na;
    int num_layers;           /* of the path tallies; 0: none (tally_set_add_options) */
    int nt;                   /* of the time tallies; 0: none */
    int detectors;            /* of the detector tallies; 0: none */
    int jacobian_layers;      /* of the derivative tallies; 0: none */
    int set_weights;          /* of an optics set's weight sums; 0: none */
    int frequencies;          /* of the spatial-frequency tallies; 0: none */
    int modulations;          /* of the modulation tallies; 0: none */
    int xy;                   /* of the Cartesian grid's tallies; 0: none */
    uint64_t photons;         /* photons whose tallies have been added */
    tally_acc_t steps;        /* hop-drop-spin steps of those photons */
    uint64_t trapped_photons; /* as in tally_batch */
    tally_acc_t trapped_units;
    OUTPUT_TALLY_FIELDS(tally_acc_t);
} tally_set;

/* The tallies of every run; the optional ones (the path tallies) NULL. */
bool tally_batch_init(tally_batch *b, int nr, int nz, int na);
void tally_batch_clear(tally_batch *b);
void tally_batch_free(tally_batch *b);

bool tally_set_init(tally_set *t, int nr, int nz, int na);
void tally_set_free(tally_set *t);
/* Adds to an initialised batch or set the optional tallies of each group
 * whose axis has a length in lengths (its other members are not read):
 * num_layers, the path tallies (Rd_path, Tt_path: nr x num_layers); nt,
 * the time tallies (Rd_rt, Tt_rt: nr x nt); detectors, the detector tally
 * (Rd_fiber: one entry a detector); frequencies, the spatial-frequency
 * tallies (two parts a frequency); modulations, the modulation tallies
 * (nr x modulations x four parts); xy, the Cartesian grid's (Rd_xy, Tt_xy:
 * xy x xy; A_xz: xy x nz).  Each zero, where it has none yet;
 * false when out of memory (the others stay).  output_option_grid gives
 * the lengths of one group. */
bool tally_batch_add_options(tally_batch *b, const output_grid *lengths);
bool tally_set_add_options(tally_set *t, const output_grid *lengths);
/* The optional tallies `like` has that t lacks, added to t (zeroed, of
 * like's counts), so that tally_set_add(t, like) keeps them; false when
 * out of memory. */
bool tally_set_add_options_of(tally_set *t, const tally_set *like);
/* The length of group's axis in t (its layers, time bins, detectors): 0
 * where t has not the group's tallies. */
int tally_set_option_length(const tally_set *t, output_option group);
/* Whether tally k is there: every run's always, an optional one when added. */
bool tally_set_has(const tally_set *t, int k);
/* Entries of tally k of t (0 for an absent one). */
uint64_t tally_set_bins(const tally_set *t, int k);
/* Every count back to zero (the grid stays). */
void tally_set_clear(tally_set *t);
/* Sums: each tally t has (an optional one that b or other lacks gets
 * nothing). */
void tally_set_add_batch(tally_set *t, const tally_batch *b, uint64_t photons);
void tally_set_add(tally_set *t, const tally_set *other);
/* Equal counts, and the same optional tallies. */
bool tally_set_equal(const tally_set *a, const tally_set *b);
/* Equal counts and every run's tallies, whatever optional ones either has
 * (a run asking for path lengths, time bins or a detector scores every
 * run's tallies as the plain run does). */
bool tally_set_runs_equal(const tally_set *a, const tally_set *b);
/* A fingerprint of every count (grid, photons, steps, trapped photons and
 * weight, then each tally array in the table's order; the optional ones,
 * when there, after every run's, so a run without them keeps its digest):
 * equal tallies give equal digests on any host, so two runs can be compared
 * from their JSON summaries (FNV-1a 64; not cryptographic). */
uint64_t tally_set_digest(const tally_set *t);

/* A photon's weight w times its path L (cm) in a layer, as path-tally
 * units (2^24 a weight x cm, the fixed point's scale), rounded to nearest
 * and capped at TALLY_PATH_MAX_UNITS, so that a batch of
 * TALLY_PATH_BATCH_MAX_PHOTONS photons cannot overflow 64 bits
 * (docs/fixed-point.md, "Path tallies"). */
#define TALLY_PATH_MAX_UNITS (UINT64_C(1) << 39) /* w L = 32768 cm */
static inline uint64_t tally_path_units(double w_cm)
{
    double u = w_cm * TALLY_UNITS_PER_WEIGHT + 0.5;
    return u < (double)TALLY_PATH_MAX_UNITS ? (uint64_t)u : TALLY_PATH_MAX_UNITS;
}

/* A 128-bit count as a double (exact up to 2^53). */
double tally_count(tally_acc_t v);

/* Integer units -> weight. */
double tally_weight(tally_acc_t units);

#endif
