/* One photon's life in the CPU engine, MCML 1.2.2 physics in double
 * precision: launch, then hop - drop - spin, cross or not, roulette. */
#ifndef TMCML_CPU_PHOTON_H
#define TMCML_CPU_PHOTON_H

#include <stdbool.h>
#include <stdint.h>

#include "mci.h"
#include "tally.h"

/* A layer as the stepping code wants it: interaction coefficients and
 * boundaries, with mut precomputed. */
typedef struct cpu_layer {
    double n, mua, mus, mut, g;
    double inv_mut, absorbed_fraction, inv_2g; /* 1/mut, mua/mut, 1/(2g) */
    double z0, z1;
    double cos_crit0, cos_crit1;
    bool glass;
} cpu_layer;

/* Everything constant over a run. */
typedef struct cpu_problem {
    int num_layers;
    cpu_layer *layers;        /* num_layers + 2, as mci_run.layers */
    int nr, nz, na;
    double dr, dz, da;
    double inv_dr, inv_dz, inv_da;
    double start_weight;      /* 1 - Rsp */
    int first_layer;
    bool score_absorption;
    uint64_t seed;
    const uint32_t *multipliers;
} cpu_problem;

bool cpu_problem_init(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption);
void cpu_problem_free(cpu_problem *p);

/* Simulates photon `index` (its random stream is (seed, index)) and scores
 * into b. */
void cpu_photon_simulate(const cpu_problem *p, uint64_t index, tally_batch *b);

#endif
