/* The derivatives of the escapes on the GPU engine (label gpu; exit 77
 * without a GPU), whose kernel of the absorption sets scores them
 * (templates/sets.cu, spec sets_jacobian), against the CPU engine and
 * across kernel variants:
 *   agree     a glass layer over three scattering layers of unequal indices
 *             (g 0.9, 0 and 0.7), two absorption sets (the run's own mua
 *             and layer 2's times 1.5): each set's Rd, Tt, Rd_r, Rd_a and
 *             Tt_r Jacobians by every layer's mua, mus and g, GPU batches
 *             against CPU batches of another seed (independent), entry by
 *             entry, with the Bonferroni bound of stats_compare_dependent
 *             (valid whatever the entries' correlation); the glass layer's
 *             mus and g NaN on both
 *   optics    the same with two optics sets (the run's own optics, and
 *             layer 2's mua x1.5 with layer 1's mus x1.1; the run's g, as
 *             the derivatives take): the sets' kernel of both
 *   identity  the run as its own one set: the heuristic variant in one call
 *             against another (block 128, constant layers) in launches of
 *             70000 and two calls, every tally, the derivatives' too, bit
 *             for bit; its escapes (Rd_ra, Tt_ra) those of the same kernel
 *             without the derivatives
 *   library   tmcml_run with the derivatives on the GPU: its Jacobians those
 *             of the engine's kernel for the same seed and photons, bit for
 *             bit
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "cpu_sets.h"
#include "engine_device.h"
#include "gpu_agree.h"
#include "mci.h"
#include "mua_sets.h"
#include "optics_sets.h"
#include "result.h"
#include "stats.h"
#include "tmcml.h"
#include "variant.h"

#define SEED    20261129u
#define BATCHES 16
#define ALPHA   1e-4
#define SETS    2

static gpu_engine *gpu;

/* Glass (n 1.5) over layers of n 1.37, 1.45, 1.37. */
static const char *stack = "1.0\n1\nj.mco A\n1000\n0.01 0.01\n40 30 8\n4\n1.0\n"
                           "1.5 0 0 0 0.05\n1.37 1 100 0.9 0.1\n1.45 1 10 0 0.1\n"
                           "1.37 2 30 0.7 0.2\n1.0\n";

/* The layers' thicknesses of `stack`, for the library's problem. */
static const double thickness[4] = {0.05, 0.1, 0.1, 0.2};

static bool parse_run(mci_file *f)
{
    tm_error err;
    if (!mci_parse(stack, "test_jacobian_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    f->runs[0].jacobian = true;
    return true;
}

/* The sets of a case: their mua, and for optics sets their mus and g
 * (else NULL); set k's layer i at [k * layers + i - 1]. */
typedef struct sets_of {
    double mua[SETS * 4], mus[SETS * 4], g[SETS * 4];
    bool optics;
} sets_of;

/* The run's own optics, then layer 2's mua times 1.5 and, for optics sets,
 * layer 1's mus times 1.1 (g the run's: the derivatives' g score is the
 * reference's). */
static void make_sets(const mci_run *run, bool optics, sets_of *o)
{
    int n = run->num_layers;
    o->optics = optics;
    for (int k = 0; k < SETS; k++)
        for (int i = 1; i <= n; i++) {
            const mci_layer *l = &run->layers[i];
            o->mua[k * n + i - 1] = l->mua * (k == 1 && i == 3 ? 1.5 : 1.0);
            o->mus[k * n + i - 1] = l->mus * (optics && k == 1 && i == 2 ? 1.1 : 1.0);
            o->g[k * n + i - 1] = l->g;
        }
}

/* Set k's run: its optics in the run's layers. */
static bool run_of(const mci_run *run, const sets_of *o, int k, mci_run *out)
{
    return o->optics ? optics_sets_run(run, o->mua, o->mus, o->g, k, out)
                     : mua_sets_run(run, o->mua, k, out);
}

/* Photons [first, first + count) of run on the GPU, -A, with num_sets sets
 * of mua (optics sets: mus and g too, else NULL), the variant of v, in
 * launches of at most launch photons (0: any); jacobian false: the same
 * kernel without the derivatives. */
static bool gpu_tallies(const mci_run *run, int num_sets, const double *mua, const double *mus,
                        const double *g, const variant_options *v, uint64_t launch, bool jacobian,
                        uint64_t first, uint64_t count, tally_set *t)
{
    gpu_agree_sets sets = {num_sets, mua, mus, g, jacobian, false};
    return gpu_agree_tallies(gpu, run, SEED, sets, v, launch, first, count, t);
}

/* Every Jacobian compared, one row: Rd's, Tt's, Rd_r's, Rd_a's, Tt_r's;
 * NaN entries (a layer without that derivative) as 0, which the
 * comparison leaves out (no variance). */
static size_t row_length(const mci_run *run)
{
    size_t per = (size_t)run->num_layers * 3;
    return per * (2 + 2 * (size_t)run->nr + (size_t)run->na);
}

static void row_of(const mci_run *run, const mcml_result *res, double *row, size_t *nans)
{
    size_t per = (size_t)run->num_layers * 3, at = 0;
    const double *parts[] = {res->rd_jacobian, res->tt_jacobian, res->rd_r_jacobian,
                             res->rd_a_jacobian, res->tt_r_jacobian};
    size_t lengths[] = {per, per, per * (size_t)run->nr, per * (size_t)run->na,
                        per * (size_t)run->nr};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
        for (size_t j = 0; j < lengths[p]; j++, at++) {
            double v = parts[p][j];
            *nans += isnan(v);
            row[at] = isnan(v) ? 0.0 : v;
        }
}

/* One batch of both engines: each set's row into g[k] and c[k]. */
static bool batch(const mci_run *run, const void *sets, int b, uint64_t m, batch_vec *g,
                  batch_vec *c, double *row)
{
    const sets_of *o = sets;
    const double *mus = o->optics ? o->mus : NULL, *gs = o->optics ? o->g : NULL;
    tally_set tg[SETS], tc[SETS];
    tm_error err = {0};
    bool ok = gpu_agree_init(run, SETS, tg) && gpu_agree_init(run, SETS, tc);
    variant_options heuristic;
    variant_options_init(&heuristic);
    ok = ok && gpu_tallies(run, SETS, o->mua, mus, gs, &heuristic, 0, true, (uint64_t)b * m, m, tg);
    cpu_options copt = {.seed = SEED + 1,
                        .threads = cpu_count(),
                        .num_sets = SETS,
                        .set_layers = run->num_layers,
                        .set_mua = o->mua,
                        .set_mus = mus,
                        .set_g = gs};
    ok = ok && cpu_simulate(run, &copt, (uint64_t)b * m, m, tc, &err);
    for (int k = 0; ok && k < SETS; k++) {
        mci_run own;
        size_t nans = 0;
        ok = run_of(run, o, k, &own) &&
             gpu_agree_add_set(run, &own, &tg[k], &tc[k], row_of, &g[k], &c[k], row, &nans, &err);
        CHECK_MSG(!ok || nans > 0, "set %d: no NaN entry (the glass layer's mus and g)", k);
        mci_run_free(&own);
    }
    return gpu_agree_batch_end(ok, &err, SETS, tg, tc);
}

/* Each set's Jacobians, GPU batches against CPU batches: absorption sets,
 * or optics sets (of the run's g). */
static int agree(bool optics)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    sets_of o;
    make_sets(run, optics, &o);
    batch_vec g[SETS], c[SETS];
    if (gpu_agree_batches(run, &o, batch, SETS, row_length(run), BATCHES, 100000, g, c))
        for (int k = 0; k < SETS; k++) {
            printf("set %d: dRd/dmus_1 GPU %.5g, CPU %.5g; dRd/dg_1 GPU %.5g, CPU %.5g\n", k,
                   g[k].mean[3 + 1], c[k].mean[3 + 1], g[k].mean[3 + 2], c[k].mean[3 + 2]);
            gpu_agree_check(k, &g[k], &c[k], ALPHA, 100);
        }
    gpu_agree_batches_free(SETS, g, c);
    mci_free(&f);
    return check_summary(optics ? "optics (gpu)" : "agree (gpu)");
}

static int case_agree(void) { return agree(false); }

static int case_optics(void) { return agree(true); }

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
    tally_set a, b, plain;
    CHECK(gpu_agree_init(run, 1, &a) && gpu_agree_init(run, 1, &b) &&
          gpu_agree_init(run, 1, &plain));
    CHECK(gpu_tallies(run, 1, own, NULL, NULL, &heuristic, 0, true, 0, n, &a));
    CHECK(gpu_tallies(run, 1, own, NULL, NULL, &other, 70000, true, 0, split, &b) &&
          gpu_tallies(run, 1, own, NULL, NULL, &other, 70000, true, split, n - split, &b));
    CHECK_MSG(a.rd_jr && a.tt_ja && tally_set_equal(&a, &b), "the two variants' tallies differ");
    CHECK(gpu_tallies(run, 1, own, NULL, NULL, &heuristic, 0, false, 0, n, &plain));
    CHECK_MSG(!plain.rd_jr, "the kernel without the derivatives scored them");
    static const int escapes[] = {OUTPUT_TALLY_RD_RA, OUTPUT_TALLY_TT_RA};
    for (size_t j = 0; j < 2; j++) {
        int k = escapes[j];
        CHECK_MSG(memcmp(a.tally[k], plain.tally[k], tally_set_bins(&a, k) * sizeof *a.tally[k]) ==
                      0,
                  "tally %d differs from the kernel's without the derivatives", k);
    }
    tally_set_free(&a);
    tally_set_free(&b);
    tally_set_free(&plain);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

/* The library's tmcml_run with the derivatives on the GPU, -A: the Jacobians
 * those of the engine's kernel of the problem's own one set for the same
 * seed and photons, bit for bit. */
static int case_library(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    int n_layers = run->num_layers;
    tmcml_layer layers[4];
    double own[4];
    for (int i = 1; i <= n_layers; i++) {
        const mci_layer *l = &run->layers[i];
        /* the thickness as the .mci text gives it (z1 - z0 may round) */
        layers[i - 1] = (tmcml_layer){l->n, l->mua, l->mus, l->g, thickness[i - 1]};
        own[i - 1] = l->mua;
    }
    const tmcml_grid grid = {run->dz, run->dr, run->nz, run->nr, run->na};
    const uint64_t n = 300000;
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    tmcml_result *r = NULL;
    tmcml_options opt;
    gpu_agree_library_options(&opt, n, SEED);
    bool ok = s &&
              tmcml_problem_new(s, layers, n_layers, run->layers[0].n, run->layers[n_layers + 1].n,
                                &grid, &p) == TMCML_OK &&
              tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK &&
              tmcml_run(s, p, &opt, &r) == TMCML_OK;
    CHECK_MSG(ok, "the library: %s", s ? tmcml_session_message(s) : "no session");
    tally_set t;
    variant_options heuristic;
    variant_options_init(&heuristic);
    mcml_result res = {0};
    tm_error err = {0};
    CHECK(gpu_agree_init(run, 1, &t) &&
          gpu_tallies(run, 1, own, NULL, NULL, &heuristic, 0, true, 0, n, &t) &&
          result_from_tallies(run, &t, &res, &err));
    static const tmcml_array arrays[] = {TMCML_RD_JACOBIAN, TMCML_RD_R_JACOBIAN,
                                         TMCML_RD_A_JACOBIAN, TMCML_TT_R_JACOBIAN};
    const double *ours[] = {res.rd_jacobian, res.rd_r_jacobian, res.rd_a_jacobian,
                            res.tt_r_jacobian};
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
    static const check_case cases[] = {{"agree", case_agree},
                                       {"optics", case_optics},
                                       {"identity", case_identity},
                                       {"library", case_library}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_jacobian_gpu agree|optics|identity|library\n");
}
