/* What the GPU tests of a run's own kernel with an optional group share
 * (tests/test_time_gpu.c, tests/test_fx_gpu.c, tests/test_mod_gpu.c): a
 * run's tallies from the GPU with a variant, in launches of at most a given
 * count, and from the CPU engine; the batches their agreement cases compare;
 * and the other variant their identity cases hold against the heuristic one
 * (block 128, shared layers, no tile). */
#ifndef TMCML_TESTS_RUN_KERNEL_TALLIES_H
#define TMCML_TESTS_RUN_KERNEL_TALLIES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "engine_device.h"
#include "gpu.h"
#include "mci.h"
#include "result.h"
#include "stats.h"
#include "tally.h"
#include "variant.h"

/* Photons [first, first + count) of run on gpu with v's variant, in
 * launches of at most launch photons (0: any), into t (initialised here
 * when init); the error on stderr when it fails. */
static inline bool run_gpu_tallies(gpu_engine *gpu, const mci_run *run, const variant_options *v,
                                   uint64_t launch, uint64_t seed, uint64_t first, uint64_t count,
                                   tally_set *t, bool init)
{
    tm_error err = {0};
    kernel_spec spec;
    gpu_options opt = {.seed = seed, .max_launch_photons = launch};
    gpu_stats stats;
    bool ok = (!init || tally_set_init(t, run->nr, run->nz, run->na)) &&
              variant_spec_for_run(run, true, device_of(gpu), v, &spec, &err) &&
              gpu_simulate(gpu, run, &spec, &opt, first, count, t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* The same photons on the CPU engine, every core, into t (initialised). */
static inline bool run_cpu_tallies(const mci_run *run, uint64_t seed, uint64_t first,
                                   uint64_t count, tally_set *t)
{
    tm_error err = {0};
    cpu_options opt = {.seed = seed, .threads = cpu_count(), .score_absorption = true};
    bool ok = tally_set_init(t, run->nr, run->nz, run->na) &&
              cpu_simulate(run, &opt, first, count, t, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* An agreement case's view of a batch: its quantities as one row (row_of),
 * and what it checks of the GPU's tallies and result beside them (NULL:
 * nothing). */
typedef void (*run_row_of)(const mci_run *run, const mcml_result *res, double *row);
typedef void (*run_batch_check)(const mci_run *run, const tally_set *t, const mcml_result *res,
                                int batch);

/* batches batches of m photons of run, each batch's row (g->n and c->n
 * quantities) added to g from the GPU (the heuristic variant, seed) and to
 * c from the CPU engine (seed + 1: independent of the GPU's), each GPU
 * batch checked by check; then both finished (means and variances).
 * False, said as a failed check, when a run fails. */
static inline bool run_agree_batches(gpu_engine *gpu, const mci_run *run, uint64_t seed,
                                     int batches, uint64_t m, run_row_of row_of,
                                     run_batch_check check, batch_vec *g, batch_vec *c)
{
    variant_options heuristic;
    variant_options_init(&heuristic);
    double *row = malloc(g->n * sizeof *row);
    bool ok = row != NULL;
    CHECK_MSG(ok, "out of memory");
    for (int b = 0; ok && b < batches; b++) {
        tally_set tg, tc;
        mcml_result rg, rc;
        tm_error err = {0};
        ok = run_gpu_tallies(gpu, run, &heuristic, 0, seed, b * m, m, &tg, true) &&
             run_cpu_tallies(run, seed + 1, b * m, m, &tc) &&
             result_from_tallies(run, &tg, &rg, &err) && result_from_tallies(run, &tc, &rc, &err);
        CHECK_MSG(ok, "batch %d: %s", b, err.message);
        if (!ok)
            break;
        if (check)
            check(run, &tg, &rg, b);
        row_of(run, &rg, row);
        batch_vec_add(g, row);
        row_of(run, &rc, row);
        batch_vec_add(c, row);
        result_free(&rg);
        result_free(&rc);
        tally_set_free(&tg);
        tally_set_free(&tc);
    }
    free(row);
    batch_vec_finish(g);
    batch_vec_finish(c);
    return ok;
}

static inline void run_other_variant(variant_options *v)
{
    tm_error err = {0};
    variant_options_init(v);
    CHECK(variant_options_set(v, "--block", "128", &err) &&
          variant_options_set(v, "--layers", "shared", &err) &&
          variant_options_set(v, "--tile", "0x0", &err));
}

/* The identity case of a run's kernel with an optional group: 300 000
 * photons of seed `seed` by the heuristic variant in one call, and by the
 * other one in launches of 70 000 and two calls, every tally bit for bit
 * (the group's optional one, `optional`, there); then drop(run) takes the
 * group away, and the plain kernel's every-run tallies are the first
 * one's. */
static inline void run_identity(gpu_engine *gpu, mci_run *run, uint64_t seed, int optional,
                                void (*drop)(mci_run *run))
{
    variant_options heuristic, other;
    variant_options_init(&heuristic);
    run_other_variant(&other);
    const uint64_t n = 300000, split = 110000;
    tally_set a, b, plain;
    CHECK(run_gpu_tallies(gpu, run, &heuristic, 0, seed, 0, n, &a, true));
    CHECK(run_gpu_tallies(gpu, run, &other, 70000, seed, 0, split, &b, true) &&
          run_gpu_tallies(gpu, run, &other, 70000, seed, split, n - split, &b, false));
    CHECK_MSG(a.tally[optional] && tally_set_equal(&a, &b), "the two variants' tallies differ");
    drop(run);
    CHECK(run_gpu_tallies(gpu, run, &heuristic, 0, seed, 0, n, &plain, true));
    for (int k = 0; k < OUTPUT_TALLIES; k++)
        CHECK_MSG(memcmp(a.tally[k], plain.tally[k], tally_set_bins(&a, k) * sizeof *a.tally[k]) ==
                      0,
                  "tally %d differs from the plain kernel's", k);
    tally_set_free(&a);
    tally_set_free(&b);
    tally_set_free(&plain);
}

#endif
