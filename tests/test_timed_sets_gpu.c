/* Time bins and fiber detectors in the GPU kernel of the sets (label gpu;
 * exit 77 without a GPU): each set's time-resolved escapes and detectors
 * and, with derivatives, theirs (templates/sets.cu, sets_score_timed), on
 * a glass layer over three scattering layers of unequal indices, 30 time
 * bins and two detectors off the axis:
 *   agree     two absorption sets (the run's own mua, and layer 2's times
 *             1.5) with the derivatives: each set's Rd_t, Tt_t, Rd_fiber,
 *             and the Jacobians of Rd_t and Rd_fiber by every layer's mua,
 *             mus and g, GPU batches against CPU batches of another seed
 *             (independent), entry by entry, with the Bonferroni bound of
 *             stats_compare_independent (valid whatever the entries'
 *             correlation); on the GPU each set's time tallies sum, ring by
 *             ring, to its escape tallies in integers
 *   identity  the run as its own one set with the derivatives: the
 *             heuristic variant in one call against another (block 128,
 *             constant layers) in launches of 70000 and two calls, every
 *             tally bit for bit; its time bins and detectors those of the
 *             run's own kernel (templates/timed.cu) for the same photons
 *   library   tmcml_run with time bins, detectors and the derivatives on
 *             the GPU (once the CPU engine's alone): its Jacobians of Rd_rt
 *             and Rd_fiber those of the engine's kernel, bit for bit
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "engine_device.h"
#include "gpu_agree.h"
#include "mci.h"
#include "mua_sets.h"
#include "result.h"
#include "run_kernel_tallies.h"
#include "stats.h"
#include "tmcml.h"
#include "variant.h"

#define SEED      20261130u
#define BATCHES   16
#define ALPHA     1e-4
#define SETS      2
#define NT        30
#define DT        0.01
#define DETECTORS 2

static gpu_engine *gpu;

/* Glass (n 1.5) over layers of n 1.37, 1.45, 1.37. */
static const char *stack = "1.0\n1\nt.mco A\n1000\n0.01 0.01\n40 30 8\n4\n1.0\n"
                           "1.5 0 0 0 0.05\n1.37 1 100 0.9 0.1\n1.45 1 10 0 0.1\n"
                           "1.37 2 30 0.7 0.2\n1.0\n";

/* The layers' thicknesses of `stack`, for the library's problem. */
static const double thickness[4] = {0.05, 0.1, 0.1, 0.2};

/* Two detectors off the axis: separation, radius (cm), NA. */
static const fiber_detector detectors[DETECTORS] = {{0.1, 0.05, 0.5}, {0.25, 0.1, 0.39}};

static bool parse_run(mci_file *f)
{
    tm_error err;
    if (!mci_parse(stack, "test_timed_sets_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->jacobian = true;
    run->time_dt = DT;
    run->time_nt = NT;
    run->fiber_count = DETECTORS;
    for (int d = 0; d < DETECTORS; d++)
        run->fibers[d] = detectors[d];
    return true;
}

/* The run's own mua, then layer 2's times 1.5; set k's layer i at
 * [k * layers + i - 1]. */
static void make_sets(const mci_run *run, double *mua)
{
    int n = run->num_layers;
    for (int k = 0; k < SETS; k++)
        for (int i = 1; i <= n; i++)
            mua[k * n + i - 1] = run->layers[i].mua * (k == 1 && i == 3 ? 1.5 : 1.0);
}

/* Photons [first, first + count) of run on the GPU, -A, with num_sets sets
 * of mua and the derivatives, the variant of v, in launches of at most
 * launch photons (0: any). */
static bool gpu_tallies(const mci_run *run, int num_sets, const double *mua,
                        const variant_options *v, uint64_t launch, uint64_t first, uint64_t count,
                        tally_set *t)
{
    gpu_agree_sets sets = {num_sets, mua, NULL, NULL, true, false};
    return gpu_agree_tallies(gpu, run, SEED, sets, v, launch, first, count, t);
}

/* What is compared, one row: Rd_t, Tt_t, Rd_fiber, then the Jacobians of
 * Rd_t and Rd_fiber; NaN entries (the glass layer's mus and g) as 0,
 * which the comparison leaves out (no variance). */
static size_t row_length(const mci_run *run)
{
    size_t per = (size_t)run->num_layers * 3;
    return 2 * NT + DETECTORS + per * (NT + DETECTORS);
}

static void row_of(const mci_run *run, const mcml_result *res, double *row, size_t *nans)
{
    size_t per = (size_t)run->num_layers * 3, at = 0;
    const double *parts[] = {res->rd_t, res->tt_t, res->rd_fiber, res->rd_t_jacobian,
                             res->rd_fiber_jacobian};
    size_t lengths[] = {NT, NT, DETECTORS, per * NT, per * DETECTORS};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
        for (size_t j = 0; j < lengths[p]; j++, at++) {
            double v = parts[p][j];
            *nans += isnan(v);
            row[at] = isnan(v) ? 0.0 : v;
        }
}

static tally_acc_t row_sum(const tally_acc_t *v, int row, int cols)
{
    tally_acc_t s = 0;
    for (int c = 0; c < cols; c++)
        s += v[(size_t)row * cols + c];
    return s;
}

/* Each ring's time tallies sum to its escape tallies (the escape's own
 * units in its time bin). */
static void check_time_sums(const mci_run *run, int set, const tally_set *t)
{
    for (int ir = 0; ir < run->nr; ir++) {
        CHECK_MSG(row_sum(t->rd_rt, ir, NT) == row_sum(t->rd_ra, ir, run->na) &&
                      row_sum(t->tt_rt, ir, NT) == row_sum(t->tt_ra, ir, run->na),
                  "set %d, ring %d: the time tallies do not sum to the escape tallies", set, ir);
    }
}

/* One batch of both engines: each set's row into g[k] and c[k]. */
static bool batch(const mci_run *run, const void *sets, int b, uint64_t m, batch_vec *g,
                  batch_vec *c, double *row)
{
    const double *mua = sets;
    tally_set tg[SETS], tc[SETS];
    tm_error err = {0};
    bool ok = gpu_agree_init(run, SETS, tg) && gpu_agree_init(run, SETS, tc);
    variant_options heuristic;
    variant_options_init(&heuristic);
    ok = ok && gpu_tallies(run, SETS, mua, &heuristic, 0, (uint64_t)b * m, m, tg);
    cpu_options copt = {.seed = SEED + 1,
                        .threads = cpu_count(),
                        .num_sets = SETS,
                        .set_layers = run->num_layers,
                        .set_mua = mua};
    ok = ok && cpu_simulate(run, &copt, (uint64_t)b * m, m, tc, &err);
    for (int k = 0; ok && k < SETS; k++) {
        mci_run own;
        size_t nans = 0;
        check_time_sums(run, k, &tg[k]);
        ok = mua_sets_run(run, mua, k, &own) &&
             gpu_agree_add_set(run, &own, &tg[k], &tc[k], row_of, &g[k], &c[k], row, &nans, &err);
        CHECK_MSG(!ok || nans > 0, "set %d: no NaN entry (the glass layer's mus and g)", k);
        mci_run_free(&own);
    }
    return gpu_agree_batch_end(ok, &err, SETS, tg, tc);
}

static int case_agree(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    double mua[SETS * 4];
    make_sets(run, mua);
    batch_vec g[SETS], c[SETS];
    size_t fiber = 2 * NT; /* the row's first detector */
    if (gpu_agree_batches(run, mua, batch, SETS, row_length(run), BATCHES, 100000, g, c))
        for (int k = 0; k < SETS; k++) {
            printf("set %d: Rd_fiber[0] GPU %.5g, CPU %.5g; Rd_fiber[1] GPU %.5g, CPU %.5g\n", k,
                   g[k].mean[fiber], c[k].mean[fiber], g[k].mean[fiber + 1], c[k].mean[fiber + 1]);
            gpu_agree_check(k, &g[k], &c[k], ALPHA, 100);
        }
    gpu_agree_batches_free(SETS, g, c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

/* The time bins' and the detectors' tallies. */
static const int timed_tallies[] = {OUTPUT_TALLY_RD_RT, OUTPUT_TALLY_TT_RT, OUTPUT_TALLY_RD_FIBER};

static int case_identity(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    double own[4];
    gpu_agree_own_mua(run, own);
    variant_options heuristic, other;
    variant_options_init(&heuristic);
    gpu_agree_other_variant(&other);
    const uint64_t n = 300000, split = 110000;
    tally_set a, b, alone;
    CHECK(gpu_agree_init(run, 1, &a) && gpu_agree_init(run, 1, &b));
    CHECK(gpu_tallies(run, 1, own, &heuristic, 0, 0, n, &a));
    CHECK(gpu_tallies(run, 1, own, &other, 70000, 0, split, &b) &&
          gpu_tallies(run, 1, own, &other, 70000, split, n - split, &b));
    CHECK_MSG(a.rd_jt && a.tt_jt && a.rd_jf && tally_set_equal(&a, &b),
              "the two variants' tallies differ");
    check_time_sums(run, 0, &a);
    /* The run's own kernel, without the derivatives: the same photons. */
    mci_run plain = *run;
    plain.jacobian = false;
    CHECK(run_gpu_tallies(gpu, &plain, &heuristic, 0, SEED, 0, n, &alone, true));
    for (size_t j = 0; j < sizeof timed_tallies / sizeof *timed_tallies; j++) {
        int k = timed_tallies[j];
        CHECK_MSG(
            a.tally[k] && alone.tally[k] &&
                memcmp(a.tally[k], alone.tally[k], tally_set_bins(&a, k) * sizeof *a.tally[k]) == 0,
            "tally %d differs from the run's own kernel's", k);
    }
    tally_set_free(&a);
    tally_set_free(&b);
    tally_set_free(&alone);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

/* The library's problem of `stack` with time bins, the detectors and the
 * derivatives. */
static bool library_problem(tmcml_session *s, const mci_run *run, tmcml_problem **p)
{
    int n_layers = run->num_layers;
    tmcml_layer layers[4];
    for (int i = 1; i <= n_layers; i++) {
        const mci_layer *l = &run->layers[i];
        /* the thickness as the .mci text gives it (z1 - z0 may round) */
        layers[i - 1] = (tmcml_layer){l->n, l->mua, l->mus, l->g, thickness[i - 1]};
    }
    const tmcml_grid grid = {run->dz, run->dr, run->nz, run->nr, run->na};
    bool ok = tmcml_problem_new(s, layers, n_layers, run->layers[0].n, run->layers[n_layers + 1].n,
                                &grid, p) == TMCML_OK &&
              tmcml_problem_set_jacobian(s, *p, 1) == TMCML_OK &&
              tmcml_problem_set_time_bins(s, *p, DT, NT) == TMCML_OK;
    for (int d = 0; ok && d < DETECTORS; d++)
        ok = tmcml_problem_add_fiber_detector(s, *p, detectors[d].sep, detectors[d].radius,
                                              detectors[d].na) == TMCML_OK;
    return ok;
}

static int case_library(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    double own[4];
    gpu_agree_own_mua(run, own);
    const uint64_t n = 300000;
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    tmcml_result *r = NULL;
    tmcml_options opt;
    gpu_agree_library_options(&opt, n, SEED);
    bool ok = s && library_problem(s, run, &p) && tmcml_run(s, p, &opt, &r) == TMCML_OK;
    CHECK_MSG(ok, "the library: %s", s ? tmcml_session_message(s) : "no session");
    tally_set t;
    variant_options heuristic;
    variant_options_init(&heuristic);
    mcml_result res = {0};
    tm_error err = {0};
    CHECK(gpu_agree_init(run, 1, &t) && gpu_tallies(run, 1, own, &heuristic, 0, 0, n, &t) &&
          result_from_tallies(run, &t, &res, &err));
    static const tmcml_array arrays[] = {TMCML_RD_RT_JACOBIAN, TMCML_RD_FIBER_JACOBIAN,
                                         TMCML_RD_FIBER};
    const double *ours[] = {res.rd_rt_jacobian, res.rd_fiber_jacobian, res.rd_fiber};
    gpu_agree_library_same(ok ? r : NULL, arrays, ours, sizeof arrays / sizeof *arrays);
    result_free(&res);
    tally_set_free(&t);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    mci_free(&f);
    return check_summary("library (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"agree", case_agree}, {"identity", case_identity}, {"library", case_library}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_timed_sets_gpu agree|identity|library\n");
}
