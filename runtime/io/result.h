/* Integer tallies -> MCML 1.2.2's normalised physical quantities.
 *
 * Every array and total is derived exactly as MCML 1.2.2 does (Sum2DRd,
 * Sum2DA, Sum2DTt, ScaleRdTt, ScaleA in mcmlio.c): sums first, then the
 * bin-centre scalings of docs/physics.md and docs/outputs.md's table. */
#ifndef TMCML_RESULT_H
#define TMCML_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "output_arrays.h"
#include "tally.h"

/* The arrays are output_table[]'s (runtime/io/output_arrays.h: dimensions,
 * units, normalisation), by name (a_l, a_z, ...) and as array[row]; each
 * holds output_stored() entries, output_first() on: a_l[i] is layer i
 * (1-based, as MCML), a_l[0] and a_l[num_layers + 1] the media above and
 * below. */
typedef struct mcml_result {
    int nr, nz, na, num_layers;
    int nt, detectors;     /* of the optional time and detector arrays; 0: none */
    int frequencies;       /* of the optional spatial-frequency arrays; 0: none */
    int modulations;       /* of the optional frequency-domain arrays; 0: none */
    int xy;                /* cells along x (and y) of the Cartesian grid's arrays; 0: none */
    uint64_t photons;      /* photons the quantities are normalised by */
    double rsp, rd, a, tt; /* RAT: specular, diffuse reflectance, absorbed, transmitted */
    OUTPUT_RESULT_FIELDS;
    /* Standard errors (runtime/io/uncertainty.h), of the groups' estimate:
     * stderr_groups 0 where the run has none (every pointer NULL); else
     * stderr_array[i] is array[i]'s, entry for entry, and rd_stderr and the
     * like the totals' (Rsp is exact).  NaN where fewer than two groups. */
    int stderr_groups;
    double rd_stderr, a_stderr, tt_stderr;
    double *stderr_array[OUTPUT_ARRAYS];
    /* An optics set's effective sample size (docs/physics.md, "Optics
     * sets"): Kish's (sum w)^2 / sum w^2 over its escapes as a fraction of
     * the reference history's; NaN for any other result. */
    double ess;
} mcml_result;

/* The grid of res, as output_bins() takes it. */
output_grid result_grid(const mcml_result *res);

/* Allocates zeroed arrays for the given grid: every run's; the optional
 * ones (output_array.option) stay NULL until result_alloc_paths and the
 * like. */
bool result_alloc(mcml_result *res, int nr, int nz, int na, int num_layers);
/* Adds the path-length arrays (zeroed); false when out of memory. */
bool result_alloc_paths(mcml_result *res);
/* Whether res has them (a run that asked for path lengths). */
bool result_has_paths(const mcml_result *res);
/* The same for the time arrays of nt bins and the detector arrays of
 * `detectors` entries: allocated (zeroed) by result_alloc_time and
 * result_alloc_detectors, false when out of memory. */
bool result_alloc_time(mcml_result *res, int nt);
bool result_alloc_detectors(mcml_result *res, int detectors);
/* The same for Rd_fx and Tt_fx at `frequencies` spatial frequencies. */
bool result_alloc_fx(mcml_result *res, int frequencies);
/* The same for Rd_r_ac, Rd_r_phase, Rd_ac and Rd_phase at `modulations`
 * modulation frequencies. */
bool result_alloc_mod(mcml_result *res, int modulations);
/* The same for Rd_xy, Tt_xy and A_xz on a grid of xy x xy cells. */
bool result_alloc_xy(mcml_result *res, int xy);
/* The Jacobians (zeroed), num_layers x 3 per escape bin, those of the
 * time bins and the detector when res has them already (result_alloc_time,
 * result_alloc_detectors first): false when out of memory. */
bool result_alloc_jacobian(mcml_result *res);
void result_free(mcml_result *res);

/* Fills *res (allocated here) from tallies of t->photons photons of run,
 * with the path-length arrays when t has path tallies. */
bool result_from_tallies(const mci_run *run, const tally_set *t, mcml_result *res, tm_error *err);

#endif
