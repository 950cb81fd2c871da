/* Optics sets (docs/physics.md, "Optics sets"): K sets of per-layer (mua,
 * mus, g) that one run scores from one set of histories, simulated with
 * the run's own mus and g and each layer's smallest mua over the sets,
 * each set reweighted by the likelihood ratio of its collisions, paths and
 * deflections.  The table's rules, and each set's run (the problem its
 * results describe). */
#ifndef TMCML_OPTICS_SETS_H
#define TMCML_OPTICS_SETS_H

#include <stdbool.h>

#include "error.h"
#include "mci.h"
#include "mua_sets.h"

/* A set whose effective sample size is below this fraction of the
 * reference's is flagged (by the library's caller, the CLI, Python):
 * its errors come from a few heavy histories. */
#define OPTICS_SETS_LOW_ESS 0.1

/* The table optics (count x layers x 3: set k's (mua, mus, g) of layer i at
 * [(k * layers + i - 1) * 3]) split into three count x layers tables. */
void optics_sets_split(const double *optics, int count, int layers, double *mua, double *mus,
                       double *g);

/* Checks count sets against run, naming the set, the layer and the
 * parameter ("optics_sets: set 2, layer 1: mus ..."): 1 .. TM_MAX_ABSORPTION_SETS
 * sets; mua as mua_sets_check; a layer that scatters (mus > 0) keeps
 * scattering (mus within the .mci's range, > 0), one that does not (glass,
 * mus 0) keeps mus 0 and its g; |g| < 1, and a layer of |g| = 1 keeps its g
 * (a fixed deflection has no density to reweight). */
bool optics_sets_check(const mci_run *run, const double *mua, const double *mus, const double *g,
                       int count, tm_error *err);

/* A copy of run with set k's mua, mus and g, marked an optics set (its
 * result has an effective sample size); false when out of memory. */
bool optics_sets_run(const mci_run *run, const double *mua, const double *mus, const double *g,
                     int k, mci_run *out);

/* Reads path (`tmcml run --optics-sets`): one set a line, three values a
 * layer (mua [1/cm], mus [1/cm], g; layer 1 first), separated by commas or
 * blanks, '#' a comment; checked against run as optics_sets_check, a fault
 * named "path:line: set K, layer I: mus ...".  out gets mua, mus and g. */
bool optics_sets_read(const char *path, const mci_run *run, mua_sets *out, tm_error *err);

/* What a GPU kernel of count sets of run must reweight (gen/shape.h's
 * sets_optics): 0 for absorption sets (mus NULL), 2 when a set changes a
 * layer's g (each deflection), else 1 (each interaction). */
int optics_sets_level(const mci_run *run, int count, const double *mus, const double *g);

#endif
