/* The Jacobians of the escapes from their derivative tallies
 * (docs/physics.md, "Derivatives").
 *
 * A derivative tally keeps, per escape ring (or angle), layer i and term,
 * the sum over the escaping photons of w S_i, w c_i and the two parts of
 * w G_i (output_jacobian_term).  Each term is normalised as the escape
 * array it is the derivative of (Rd_r's ring area, Rd_a's solid angle, Rd's
 * photon count), then
 *
 *     dX/dmua_i = -S     dX/dmus_i = C / mus_i - S     dX/dg_i = G+ - G-
 *
 * NaN where the layer's scattering has no derivative this way: mus_i and
 * g_i of a layer that does not scatter (glass, or mus 0: no history
 * scatters there, whatever its mus would be), and g_i of a layer of
 * |g| = 1 (a fixed deflection has no density to differentiate). */
#ifndef TMCML_JACOBIAN_H
#define TMCML_JACOBIAN_H

#include <stdbool.h>

#include "mci.h"
#include "output_arrays.h"
#include "tally.h"

/* Jacobian row o (its norm one of OUTPUT_NORM_JACOBIAN_*) of run from its
 * derivative tally v of n photons into out (o's bins); false for a row
 * that is not a Jacobian. */
bool jacobian_array(const mci_run *run, const output_array *o, const tally_acc_t *v, double n,
                    double *out);

/* Whether layer i (1-based) of run has a derivative by its mus, by its g
 * (the NaN cases above). */
bool jacobian_has_mus(const mci_run *run, int i);
bool jacobian_has_g(const mci_run *run, int i);

#endif
