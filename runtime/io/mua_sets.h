/* Absorption sets (docs/physics.md, "Absorption sets"): a table of K sets
 * of per-layer mua that one run scores from one set of histories.  Read
 * from a file (`tmcml run --mua-sets`), checked (the library's and the
 * file's values obey the .mci's rules for mua), and turned into each set's
 * run, the problem its results describe. */
#ifndef TMCML_MUA_SETS_H
#define TMCML_MUA_SETS_H

#include <stdbool.h>

#include "error.h"
#include "mci.h"

typedef struct mua_sets {
    int count, layers;
    double *mua; /* count x layers: set k's mua of layer i (1-based) at [k * layers + i - 1] */
    /* Optics sets (optics_sets.h, `--optics-sets`): each set's mus and g,
     * indexed as mua; NULL for absorption sets.  run_mus and run_g: the
     * mus and g of each run of the file (runs x layers), which its
     * histories are simulated with (the reference's). */
    double *mus, *g;
    double *run_mus, *run_g;
} mua_sets;

/* Reads path: one set a line, one mua [1/cm] a layer (layer 1 first),
 * separated by commas or blanks; '#' starts a comment, blank lines are
 * skipped.  Every line must have num_layers values, each 0 or within the
 * .mci's range.  Errors: "path:line: what (value)". */
bool mua_sets_read(const char *path, int num_layers, mua_sets *out, tm_error *err);

/* The table of such a file of per_layer values a layer (1: mua; 3: mua,
 * mus, g), *count rows of num_layers x per_layer, each row's line in
 * lines[] (room for TM_MAX_ABSORPTION_SETS): malloc'd, or NULL with *err
 * ("path:line: layer 2: mus ..."). */
double *mua_sets_read_table(const char *path, int num_layers, int per_layer, int *count, int *lines,
                            tm_error *err);

/* Checks count sets of layers values (1 .. TM_MAX_ABSORPTION_SETS sets,
 * each mua 0 or within MCI_MIN_COEFFICIENT .. MCI_MAX_COEFFICIENT):
 * "TABLE: set 2, layer 1: ..." otherwise (table: the caller's name of the
 * table, "mua_sets" or "optics_sets"). */
bool mua_sets_check(const char *table, const double *mua, int count, int layers, tm_error *err);

/* A copy of run whose layers have set k's mua (false when out of memory). */
bool mua_sets_run(const mci_run *run, const double *mua, int k, mci_run *out);

/* The sets' reference: a copy of run whose layers have each layer's
 * smallest mua over the count sets, the mua that photons are simulated
 * with (so that every set's weight factor is at most 1; the CPU engine
 * makes the same, cpu_photon.c).  False when out of memory. */
bool mua_sets_reference(const mci_run *run, const double *mua, int count, mci_run *out);

/* run's own mua as the one set of *out (a run with derivatives on the GPU:
 * the absorption sets' kernel scores them); false when out of memory. */
bool mua_sets_own(const mci_run *run, mua_sets *out);

void mua_sets_free(mua_sets *s);

#endif
