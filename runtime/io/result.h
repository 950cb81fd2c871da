/* Integer tallies -> MCML 1.2.2's normalised physical quantities.
 *
 * Every array and total is derived exactly as MCML 1.2.2 does (Sum2DRd,
 * Sum2DA, Sum2DTt, ScaleRdTt, ScaleA in mcmlio.c): sums first, then the
 * bin-centre scalings of DESIGN.md section 3. */
#ifndef TMCML_RESULT_H
#define TMCML_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "tally.h"

typedef struct mcml_result {
    int nr, nz, na, num_layers;
    uint64_t photons;      /* photons the quantities are normalised by */
    double rsp, rd, a, tt; /* RAT: specular, diffuse reflectance, absorbed, transmitted */
    double *a_l;           /* [num_layers + 2], layer i at a_l[i] (1-based, as MCML) [-] */
    double *a_z;           /* [nz]  [1/cm] */
    double *rd_r, *tt_r;   /* [nr]  [1/cm2] */
    double *rd_a, *tt_a;   /* [na]  [1/sr] */
    double *a_rz;          /* [ir * nz + iz]  [1/cm3] */
    double *rd_ra, *tt_ra; /* [ir * na + ia]  [1/(cm2 sr)] */
} mcml_result;

/* Allocates zeroed arrays for the given grid. */
bool result_alloc(mcml_result *res, int nr, int nz, int na, int num_layers);
void result_free(mcml_result *res);

/* Fills *res (allocated here) from tallies of t->photons photons of run. */
bool result_from_tallies(const mci_run *run, const tally_set *t, mcml_result *res, tm_error *err);

#endif
