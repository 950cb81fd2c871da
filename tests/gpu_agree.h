/* What the GPU tests of the sets' kernel share (tests/test_jacobian_gpu.c,
 * tests/test_optics_sets_gpu.c): their tally sets made, the sets run on the
 * GPU, batches of both engines and a set's GPU batches judged against its
 * CPU batches; the other variant of their identity cases and the options
 * of their library cases. */
#ifndef TMCML_TESTS_GPU_AGREE_H
#define TMCML_TESTS_GPU_AGREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine_device.h"
#include "gpu.h"
#include "mci.h"
#include "mua_sets.h"
#include "optics_sets.h"
#include "result.h"
#include "stats.h"
#include "tally.h"
#include "tmcml.h"
#include "variant.h"

/* n tally sets of run's grid. */
static inline bool gpu_agree_init(const mci_run *run, int n, tally_set *t)
{
    for (int k = 0; k < n; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na))
            return false;
    return true;
}

/* The sets of a GPU run: num_sets sets of mua, for optics sets their mus
 * and g too (else NULL), set k's layer i at [k * layers + i - 1]; the
 * derivatives scored when jacobian; each set's absorption when absorption
 * (else -A). */
typedef struct gpu_agree_sets {
    int num_sets;
    const double *mua, *mus, *g;
    bool jacobian, absorption;
} gpu_agree_sets;

/* Photons [first, first + count) of run on eng, -A unless s.absorption, of seed `seed`, with
 * the sets s, the variant of v, in launches of at most launch photons (0:
 * any), into t; the error on stderr when it fails. */
static inline bool gpu_agree_tallies(gpu_engine *eng, const mci_run *run, uint64_t seed,
                                     gpu_agree_sets s, const variant_options *v, uint64_t launch,
                                     uint64_t first, uint64_t count, tally_set *t)
{
    tm_error err = {0};
    mci_run ref;
    if (!mua_sets_reference(run, s.mua, s.num_sets, &ref))
        return false;
    ref.jacobian = s.jacobian;
    kernel_spec spec;
    gpu_options opt = {.seed = seed,
                       .max_launch_photons = launch,
                       .num_sets = s.num_sets,
                       .set_mua = s.mua,
                       .set_mus = s.mus,
                       .set_g = s.g};
    sets_scoring scoring = {.num_sets = s.num_sets,
                            .jacobian = s.jacobian,
                            .optics = optics_sets_level(run, s.num_sets, s.mus, s.g)};
    gpu_stats stats;
    bool ok = variant_spec_for_run(&ref, s.absorption, device_of(eng), v, &spec, &err) &&
              variant_sets_spec(&spec, scoring, v, device_of(eng), &err) &&
              gpu_simulate(eng, &ref, &spec, &opt, first, count, t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    mci_run_free(&ref);
    return ok;
}

/* The end of a batch of both engines: err on stderr when it failed (ok
 * false, with a message), each engine's n tally sets tg and tc freed; ok. */
static inline bool gpu_agree_batch_end(bool ok, const tm_error *err, int n, tally_set *tg,
                                       tally_set *tc)
{
    if (!ok && err->message[0])
        error_print(stderr, err);
    for (int k = 0; k < n; k++) {
        tally_set_free(&tg[k]);
        tally_set_free(&tc[k]);
    }
    return ok;
}

/* A result's row of what a case compares; its NaN entries (a quantity a
 * layer has none of) written as 0, which the comparison leaves out, and
 * counted in *nans. */
typedef void gpu_agree_row(const mci_run *run, const mcml_result *res, double *row, size_t *nans);

/* A set's tallies of both engines, tg and tc, as results of its run `own`
 * (run's with the set's optics), their rows (row_of) into g and c: both
 * with the same NaN entries, which it returns in *nans.  False (with *err)
 * when a result could not be made. */
static inline bool gpu_agree_add_set(const mci_run *run, const mci_run *own, const tally_set *tg,
                                     const tally_set *tc, gpu_agree_row *row_of, batch_vec *g,
                                     batch_vec *c, double *row, size_t *nans, tm_error *err)
{
    mcml_result rg = {0}, rc = {0};
    size_t nan_g = 0, nan_c = 0;
    bool ok = result_from_tallies(own, tg, &rg, err) && result_from_tallies(own, tc, &rc, err);
    if (ok) {
        row_of(run, &rg, row, &nan_g);
        batch_vec_add(g, row);
        row_of(run, &rc, row, &nan_c);
        batch_vec_add(c, row);
        CHECK_MSG(nan_g == nan_c, "NaN entries GPU %zu, CPU %zu", nan_g, nan_c);
    }
    *nans = nan_g;
    result_free(&rg);
    result_free(&rc);
    return ok;
}

/* Batch b of both engines, m photons of the case's sets: each set's row
 * into g[set] and c[set] (row: room for one). */
typedef bool gpu_agree_batch(const mci_run *run, const void *sets, int b, uint64_t m, batch_vec *g,
                             batch_vec *c, double *row);

/* Each of n sets' GPU and CPU batch vectors g and c, rows of `length`,
 * filled by `batches` batches of m photons (a failed one a failed check,
 * and the last) and finished; false when there was no room for a row
 * (nothing filled).  gpu_agree_batches_free frees them. */
static inline bool gpu_agree_batches(const mci_run *run, const void *sets, gpu_agree_batch *batch,
                                     int n, size_t length, int batches, uint64_t m, batch_vec *g,
                                     batch_vec *c)
{
    for (int k = 0; k < n; k++)
        CHECK(batch_vec_init(&g[k], length, batches) && batch_vec_init(&c[k], length, batches));
    double *row = malloc(length * sizeof *row);
    if (!row)
        return false;
    for (int b = 0; b < batches; b++)
        if (!batch(run, sets, b, m, g, c, row)) {
            CHECK_MSG(false, "batch %d failed", b);
            break;
        }
    for (int k = 0; k < n; k++) {
        batch_vec_finish(&g[k]);
        batch_vec_finish(&c[k]);
    }
    free(row);
    return true;
}

static inline void gpu_agree_batches_free(int n, batch_vec *g, batch_vec *c)
{
    for (int k = 0; k < n; k++) {
        batch_vec_free(&g[k]);
        batch_vec_free(&c[k]);
    }
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

/* The variant the identity cases hold against the heuristic one: block
 * 128, constant layers. */
static inline void gpu_agree_other_variant(variant_options *v)
{
    tm_error err = {0};
    variant_options_init(v);
    CHECK(variant_options_set(v, "--block", "128", &err) &&
          variant_options_set(v, "--layers", "constant", &err));
}

/* The run's own mua, layer i's at own[i - 1]: the run as its own one set
 * (its derivatives' kernel). */
static inline void gpu_agree_own_mua(const mci_run *run, double *own)
{
    for (int i = 1; i <= run->num_layers; i++)
        own[i - 1] = run->layers[i].mua;
}

/* Each of n arrays of the library's result r is ours[j], the engine's, bit
 * for bit. */
static inline void gpu_agree_library_same(const tmcml_result *r, const tmcml_array *arrays,
                                          const double *const *ours, size_t n)
{
    for (size_t j = 0; r && j < n; j++) {
        size_t count = 0;
        const double *lib = tmcml_result_array(r, arrays[j], &count);
        CHECK_MSG(lib && ours[j] && count > 0 && memcmp(lib, ours[j], count * sizeof *lib) == 0,
                  "the library's array %d is not the engine's", (int)arrays[j]);
    }
}

/* The options of the library cases: the GPU, n photons of seed `seed`, -A. */
static inline void gpu_agree_library_options(tmcml_options *opt, uint64_t n, unsigned seed)
{
    tmcml_options_init(opt);
    opt->engine = TMCML_ENGINE_GPU;
    opt->photons = (int64_t)n;
    opt->seed = seed;
    opt->absorption = 0;
}

#endif
