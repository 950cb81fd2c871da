/* A cpu_problem from a run: made, given the run's extra tallies, freed. */
#ifndef TMCML_CPU_PROBLEM_SETUP_H
#define TMCML_CPU_PROBLEM_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu_problem.h"
#include "mci.h"

/* p for run: its layers, grid and source, seed's streams, A_rz scored or
 * not, no absorption sets.  False when out of memory. */
bool cpu_problem_init(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption);
/* The same for num_sets (1 .. TM_MAX_ABSORPTION_SETS) absorption sets:
 * set_mua[k * run->num_layers + i - 1] is set k's mua of layer i (1-based,
 * as run->layers), finite and >= 0; run's own mua are not used.  False when
 * out of memory. */
bool cpu_problem_init_sets(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption,
                           int num_sets, const double *set_mua);
/* Makes p's sets (cpu_problem_init_sets) optics sets: set_mus and set_g
 * (each NULL: the run's), indexed as set_mua, set k's mus and g of each
 * layer, checked by mua_sets_check (a layer of mus 0 keeps it, |g| < 1, a
 * layer of |g| = 1 keeps its g).  False when out of memory. */
bool cpu_problem_set_scattering(cpu_problem *p, const double *set_mus, const double *set_g);
void cpu_problem_free(cpu_problem *p);
/* Takes run's time bins, fiber detector, derivatives and spatial
 * frequencies (none it does not ask for); p keeps a pointer to run's
 * frequencies, so run outlives p. */
void cpu_problem_set_options(cpu_problem *p, const mci_run *run);

#endif
