/* One photon's life in the CPU engine, MCML 1.2.2 physics in double
 * precision: launch, then hop - drop - spin, cross or not, roulette. */
#ifndef TMCML_CPU_PHOTON_H
#define TMCML_CPU_PHOTON_H

#include <stdint.h>

#include "cpu_problem.h"
#include "tally.h"

/* Simulates photon `index` (its random stream is (seed, index)) and scores
 * into b. */
void cpu_photon_simulate(const cpu_problem *p, uint64_t index, tally_batch *b);

/* The same history for a problem with absorption sets, set k scored into
 * sets[k] (p->num_sets batches, with path tallies when p->paths). */
void cpu_photon_simulate_sets(const cpu_problem *p, uint64_t index, tally_batch *sets);

#endif
