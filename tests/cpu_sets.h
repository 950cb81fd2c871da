/* The CPU engine as the tests of absorption sets, path lengths and time
 * bins call it: absorption scored, each of num_sets sets of mua (0: the
 * run alone), the run's photons [first, first + count) into t (num_sets
 * tally sets, or 1, initialised), false with err. */
#ifndef TMCML_TESTS_CPU_SETS_H
#define TMCML_TESTS_CPU_SETS_H

#include <stdio.h>

#include "cpu.h"

static inline bool cpu_sets_simulate(const mci_run *run, uint64_t seed, int threads, int num_sets,
                                     const double *mua, uint64_t first, uint64_t count,
                                     tally_set *t, tm_error *err)
{
    cpu_options opt = {.seed = seed,
                       .threads = threads,
                       .score_absorption = true,
                       .num_sets = num_sets,
                       .set_layers = run->num_layers,
                       .set_mua = mua};
    return cpu_simulate(run, &opt, first, count, t, err);
}

/* The same into t initialised here when init (num_sets tally sets, or 1),
 * an error printed (test_time.c, test_fx.c, test_fibers.c). */
static inline bool cpu_sets_tallies(const mci_run *run, uint64_t seed, int num_sets,
                                    const double *mua, int threads, uint64_t first, uint64_t count,
                                    tally_set *t, bool init)
{
    tm_error err = {0};
    int n = num_sets > 0 ? num_sets : 1;
    for (int k = 0; init && k < n; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na))
            return false;
    if (cpu_sets_simulate(run, seed, threads, num_sets, mua, first, count, t, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

#endif
