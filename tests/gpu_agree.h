/* What the GPU tests of the sets' kernel share (tests/test_jacobian_gpu.c,
 * tests/test_optics_sets_gpu.c): their tally sets made, and a set's GPU
 * batches judged against its CPU batches. */
#ifndef TMCML_TESTS_GPU_AGREE_H
#define TMCML_TESTS_GPU_AGREE_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "mci.h"
#include "stats.h"
#include "tally.h"

/* n tally sets of run's grid. */
static inline bool gpu_agree_init(const mci_run *run, int n, tally_set *t)
{
    for (int k = 0; k < n; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na))
            return false;
    return true;
}

/* Set `set`'s GPU batches g against its CPU batches c
 * (stats_compare_independent, family-wise alpha): more than `least` of
 * their entries well enough determined to compare, every one within the
 * bound. */
static inline void gpu_agree_check(int set, const batch_vec *g, const batch_vec *c, double alpha,
                                   size_t least)
{
    bool ok;
    z_report r = stats_compare_independent(g, c, 0.2, alpha, &ok);
    CHECK(ok);
    char name[32];
    snprintf(name, sizeof name, "set %d", set);
    stats_print_report(name, &r);
    CHECK_MSG(r.bins > least, "set %d: only %zu entries well enough determined", set, r.bins);
    CHECK_MSG(r.pass, "set %d: an entry's z or their mean beyond the bound", set);
}

#endif
