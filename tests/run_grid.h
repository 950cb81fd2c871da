/* The grid of a run the tests make up in C rather than read from an .mci
 * (test_mco.c, test_npz_reader.c, test_result.c): nz x nr bins of dz x dr,
 * and na angle bins over the quarter turn as the .mci reader makes them. */
#ifndef TMCML_TESTS_RUN_GRID_H
#define TMCML_TESTS_RUN_GRID_H

#include <math.h>

#include "mci.h"

static inline void run_grid(mci_run *run, double dz, double dr, int nz, int nr, int na)
{
    run->dz = dz;
    run->dr = dr;
    run->nz = nz;
    run->nr = nr;
    run->na = na;
    run->da = 0.5 * M_PI / na;
}

#endif
