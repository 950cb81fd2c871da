/* Optics sets on the GPU engine (label gpu; exit 77 without a GPU), whose
 * kernel of the absorption sets reweights each interaction and deflection
 * (templates/sets.cu, spec sets_optics), against the CPU engine and across
 * kernel variants:
 *   agree     a glass layer over three scattering layers of unequal indices,
 *             four sets: the run's own optics, layer 2's mus x1.1, layer 3's
 *             mus x0.95 and g +0.02, and all of layer 1 to 3 changed at once
 *             (mua too): each set's Rd, Tt, Rd_r, Rd_a, Tt_r and effective
 *             sample size, GPU batches against CPU batches of another seed
 *             (independent), entry by entry, with the Bonferroni bound of
 *             stats_compare_dependent (valid whatever their correlation);
 *             the set of the run's own optics has an effective sample size
 *             of 1 (to the escapes' rounding)
 *   identity  the heuristic variant in one call against another (block 128,
 *             constant layers) in launches of 70000 and two calls: every
 *             tally, the weight sums too, bit for bit; a set of the run's
 *             own optics (which reweights nothing) has the escapes of the
 *             absorption sets' kernel of its mua
 *   library   tmcml_run_optics_sets on the GPU: each set's arrays those of
 *             the engine's kernel for the same seed and photons, bit for bit
 *   absorb    three layers, one set changing g, scoring its absorption: the
 *             table's g pairs then start at a padded word (gen/spec.c,
 *             spec_sets_g_pairs_at, 9 words before them), -A's at an even
 *             one; the escapes are the -A kernel's bit for bit (scoring the
 *             absorption draws nothing and changes no weight), and the set
 *             absorbs
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
#include "optics_sets.h"
#include "result.h"
#include "stats.h"
#include "tmcml.h"
#include "variant.h"

#define SEED    20261129u
#define BATCHES 16
#define ALPHA   1e-4
#define SETS    4
#define LAYERS  4

static gpu_engine *gpu;

/* Glass (n 1.5) over layers of n 1.37, 1.45, 1.37. */
static const char *stack = "1.0\n1\no.mco A\n1000\n0.01 0.01\n40 30 8\n4\n1.0\n"
                           "1.5 0 0 0 0.05\n1.37 1 100 0.9 0.1\n1.45 1 10 0 0.1\n"
                           "1.37 2 30 0.7 0.2\n1.0\n";

/* The sets' mua, mus and g (set k's layer i at [k * LAYERS + i - 1]). */
typedef struct optics {
    double mua[SETS * LAYERS], mus[SETS * LAYERS], g[SETS * LAYERS];
} optics;

/* The layers' thicknesses of `stack`, for the library's problem. */
static const double thickness[4] = {0.05, 0.1, 0.1, 0.2};

static bool parse_run(mci_file *f, optics *o)
{
    tm_error err;
    if (!mci_parse(stack, "test_optics_sets_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->optics_set = true; /* each set's weight sums are scored */
    for (int k = 0; k < SETS; k++)
        for (int i = 1; i <= LAYERS; i++) {
            const mci_layer *l = &run->layers[i];
            int at = k * LAYERS + i - 1;
            bool all = k == 3 && i >= 2;
            o->mua[at] = l->mua * (all ? 1.2 : 1.0);
            o->mus[at] = l->mus * (k == 1 && i == 3   ? 1.1
                                   : k == 2 && i == 4 ? 0.95
                                   : all              ? 1.05
                                                      : 1.0);
            o->g[at] = l->g + (k == 2 && i == 4 ? 0.02 : all ? -0.02 : 0.0);
        }
    tm_error why = {0};
    if (!optics_sets_check(run, o->mua, o->mus, o->g, SETS, &why)) {
        error_print(stderr, &why);
        return false;
    }
    return true;
}

/* The CPU engine's tallies of the sets, with their weight sums (the CPU
 * engine scores them for the sets whose tallies have them: runtime/engine/cpu.c). */
static bool init_cpu_sets(const mci_run *run, tally_set *t)
{
    output_grid sums = {.set_weights = OUTPUT_SET_WEIGHTS};
    for (int k = 0; k < SETS; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na) ||
            !tally_set_add_options(&t[k], &sums))
            return false;
    return true;
}

/* Photons [first, first + count) of run on the GPU, -A, with its optics
 * sets o (mus NULL: absorption sets of o's mua), the variant of v, in
 * launches of at most launch photons (0: any). */
static bool gpu_tallies(const mci_run *run, int num_sets, const optics *o, bool scatter,
                        const variant_options *v, uint64_t launch, uint64_t first, uint64_t count,
                        tally_set *t)
{
    gpu_agree_sets sets = {num_sets, o->mua, scatter ? o->mus : NULL, scatter ? o->g : NULL,
                           false,    false};
    return gpu_agree_tallies(gpu, run, SEED, sets, v, launch, first, count, t);
}

/* Rd, Tt, the effective sample size, then Rd_r, Rd_a and Tt_r: one row. */
static size_t row_length(const mci_run *run) { return 3 + 2 * (size_t)run->nr + (size_t)run->na; }

static void row_of(const mci_run *run, const mcml_result *res, double *row, size_t *nans)
{
    (void)nans; /* none: every value is defined */
    row[0] = res->rd;
    row[1] = res->tt;
    row[2] = res->ess;
    memcpy(row + 3, res->rd_r, (size_t)run->nr * sizeof *row);
    memcpy(row + 3 + run->nr, res->rd_a, (size_t)run->na * sizeof *row);
    memcpy(row + 3 + run->nr + run->na, res->tt_r, (size_t)run->nr * sizeof *row);
}

/* One batch of both engines: each set's row into g[k] and c[k]. */
static bool batch(const mci_run *run, const void *sets, int b, uint64_t m, batch_vec *g,
                  batch_vec *c, double *row)
{
    const optics *o = sets;
    tally_set tg[SETS], tc[SETS];
    tm_error err = {0};
    bool ok = gpu_agree_init(run, SETS, tg) && init_cpu_sets(run, tc);
    variant_options heuristic;
    variant_options_init(&heuristic);
    ok = ok && gpu_tallies(run, SETS, o, true, &heuristic, 0, (uint64_t)b * m, m, tg);
    cpu_options copt = {.seed = SEED + 1,
                        .threads = cpu_count(),
                        .num_sets = SETS,
                        .set_layers = LAYERS,
                        .set_mua = o->mua,
                        .set_mus = o->mus,
                        .set_g = o->g};
    ok = ok && cpu_simulate(run, &copt, (uint64_t)b * m, m, tc, &err);
    for (int k = 0; ok && k < SETS; k++) {
        mci_run own;
        size_t nans = 0;
        ok = optics_sets_run(run, o->mua, o->mus, o->g, k, &own) &&
             gpu_agree_add_set(run, &own, &tg[k], &tc[k], row_of, &g[k], &c[k], row, &nans, &err);
        mci_run_free(&own);
    }
    return gpu_agree_batch_end(ok, &err, SETS, tg, tc);
}

static int case_agree(void)
{
    mci_file f;
    optics o;
    if (!parse_run(&f, &o))
        return 1;
    const mci_run *run = &f.runs[0];
    batch_vec g[SETS], c[SETS];
    if (gpu_agree_batches(run, &o, batch, SETS, row_length(run), BATCHES, 100000, g, c))
        for (int k = 0; k < SETS; k++) {
            printf("set %d: Rd GPU %.6f, CPU %.6f; Tt GPU %.6f, CPU %.6f; ESS GPU %.4f, CPU %.4f\n",
                   k, g[k].mean[0], c[k].mean[0], g[k].mean[1], c[k].mean[1], g[k].mean[2],
                   c[k].mean[2]);
            /* The run's own optics: every weight the reference's, but for the
             * rounding of an escape's units (half a unit each). */
            if (k == 0)
                CHECK_MSG(fabs(g[k].mean[2] - 1.0) <= 1e-6, "set 0's effective sample size %.17g",
                          g[k].mean[2]);
            gpu_agree_check(k, &g[k], &c[k], ALPHA, 40);
        }
    gpu_agree_batches_free(SETS, g, c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

static int case_identity(void)
{
    mci_file f;
    optics o;
    if (!parse_run(&f, &o))
        return 1;
    const mci_run *run = &f.runs[0];
    variant_options heuristic, other;
    variant_options_init(&heuristic);
    gpu_agree_other_variant(&other);
    const uint64_t n = 300000, split = 110000;
    tally_set a[SETS], b[SETS], own, plain;
    CHECK(gpu_agree_init(run, SETS, a) && gpu_agree_init(run, SETS, b));
    CHECK(gpu_tallies(run, SETS, &o, true, &heuristic, 0, 0, n, a));
    CHECK(gpu_tallies(run, SETS, &o, true, &other, 70000, 0, split, b) &&
          gpu_tallies(run, SETS, &o, true, &other, 70000, split, n - split, b));
    for (int k = 0; k < SETS; k++)
        CHECK_MSG(a[k].set_w && tally_set_equal(&a[k], &b[k]),
                  "set %d: the two variants' tallies differ", k);
    /* Set 0, the run's own optics, alone: an optics set and an absorption
     * set of the same mua escape alike. */
    CHECK(gpu_agree_init(run, 1, &own) && gpu_agree_init(run, 1, &plain));
    CHECK(gpu_tallies(run, 1, &o, true, &heuristic, 0, 0, n, &own));
    CHECK(gpu_tallies(run, 1, &o, false, &heuristic, 0, 0, n, &plain));
    CHECK_MSG(!plain.set_w, "the absorption set scored weight sums");
    static const int escapes[] = {OUTPUT_TALLY_RD_RA, OUTPUT_TALLY_TT_RA};
    for (size_t j = 0; j < 2; j++) {
        int k = escapes[j];
        CHECK_MSG(memcmp(own.tally[k], plain.tally[k],
                         tally_set_bins(&own, k) * sizeof *own.tally[k]) == 0,
                  "tally %d of the run's own optics differs from the absorption set's", k);
    }
    for (int k = 0; k < SETS; k++) {
        tally_set_free(&a[k]);
        tally_set_free(&b[k]);
    }
    tally_set_free(&own);
    tally_set_free(&plain);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

/* The library's tmcml_run_optics_sets on the GPU, -A: each set's Rd_r, Rd_a
 * and Tt_r those of the engine's kernel of the sets (set 0, the problem's
 * own optics, its reference) for the same seed and photons, bit for bit. */
static int case_library(void)
{
    mci_file f;
    optics o;
    if (!parse_run(&f, &o))
        return 1;
    const mci_run *run = &f.runs[0];
    tmcml_layer layers[LAYERS];
    double table[SETS * LAYERS * 3];
    for (int i = 1; i <= LAYERS; i++) {
        const mci_layer *l = &run->layers[i];
        /* the thickness as the .mci text gives it (z1 - z0 may round) */
        layers[i - 1] = (tmcml_layer){l->n, l->mua, l->mus, l->g, thickness[i - 1]};
        for (int k = 0; k < SETS; k++) {
            double *at = &table[(k * LAYERS + i - 1) * 3];
            at[0] = o.mua[k * LAYERS + i - 1];
            at[1] = o.mus[k * LAYERS + i - 1];
            at[2] = o.g[k * LAYERS + i - 1];
        }
    }
    const tmcml_grid grid = {run->dz, run->dr, run->nz, run->nr, run->na};
    const uint64_t n = 300000;
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    tmcml_result *r[SETS] = {0};
    tmcml_options opt;
    gpu_agree_library_options(&opt, n, SEED);
    bool ok = s &&
              tmcml_problem_new(s, layers, LAYERS, run->layers[0].n, run->layers[LAYERS + 1].n,
                                &grid, &p) == TMCML_OK &&
              tmcml_run_optics_sets(s, p, table, SETS, &opt, r) == TMCML_OK;
    CHECK_MSG(ok, "the library: %s", s ? tmcml_session_message(s) : "no session");
    tally_set t[SETS];
    variant_options heuristic;
    variant_options_init(&heuristic);
    CHECK(gpu_agree_init(run, SETS, t) && gpu_tallies(run, SETS, &o, true, &heuristic, 0, 0, n, t));
    static const tmcml_array arrays[] = {TMCML_RD_R, TMCML_RD_A, TMCML_TT_R};
    for (int k = 0; ok && k < SETS; k++) {
        mci_run own;
        mcml_result res = {0};
        tm_error err = {0};
        CHECK(optics_sets_run(run, o.mua, o.mus, o.g, k, &own) &&
              result_from_tallies(&own, &t[k], &res, &err));
        const double *ours[] = {res.rd_r, res.rd_a, res.tt_r};
        for (size_t j = 0; j < 3; j++) {
            size_t count = 0;
            const double *lib = tmcml_result_array(r[k], arrays[j], &count);
            CHECK_MSG(lib && ours[j] && memcmp(lib, ours[j], count * sizeof *lib) == 0,
                      "set %d: the library's array %d is not the engine's", k, (int)arrays[j]);
        }
        result_free(&res);
        mci_run_free(&own);
    }
    for (int k = 0; k < SETS; k++) {
        tmcml_result_delete(r[k]);
        tally_set_free(&t[k]);
    }
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    mci_free(&f);
    return check_summary("library (gpu)");
}

/* Three tissue layers (no glass), so that one set's tables before its g
 * pairs are an odd number of words with absorption. */
static const char *three = "1.0\n1\no.mco A\n1000\n0.01 0.01\n40 30 8\n3\n1.0\n"
                           "1.37 1 100 0.9 0.1\n1.45 1 10 0.3 0.1\n1.37 2 30 0.7 0.2\n1.0\n";

static int case_absorb(void)
{
    mci_file f;
    tm_error err = {0};
    if (!mci_parse(three, "three.mci", &f, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    mci_run *run = &f.runs[0];
    run->optics_set = true;
    double mua[3], mus[3], g[3];
    for (int i = 1; i <= 3; i++) {
        mua[i - 1] = run->layers[i].mua;
        mus[i - 1] = run->layers[i].mus * (i == 2 ? 1.05 : 1.0);
        g[i - 1] = run->layers[i].g + (i == 3 ? 0.03 : i == 2 ? -0.05 : 0.0);
    }
    CHECK(optics_sets_check(run, mua, mus, g, 1, &err));
    kernel_spec spec = {.num_layers = 3, .num_sets = 1, .sets_optics = 2, .sets_absorb = true};
    CHECK_MSG(spec_sets_g_pairs_at(&spec) == 10, "the pairs at word %zu",
              spec_sets_g_pairs_at(&spec));
    variant_options heuristic;
    variant_options_init(&heuristic);
    const uint64_t n = 200000;
    tally_set with, without;
    CHECK(gpu_agree_init(run, 1, &with) && gpu_agree_init(run, 1, &without));
    gpu_agree_sets absorbing = {1, mua, mus, g, false, true}, escaping = absorbing;
    escaping.absorption = false;
    CHECK(gpu_agree_tallies(gpu, run, SEED, absorbing, &heuristic, 0, 0, n, &with));
    CHECK(gpu_agree_tallies(gpu, run, SEED, escaping, &heuristic, 0, 0, n, &without));
    static const int escapes[] = {OUTPUT_TALLY_RD_RA, OUTPUT_TALLY_TT_RA};
    for (size_t j = 0; j < 2; j++) {
        int k = escapes[j];
        CHECK_MSG(with.tally[k] && without.tally[k] &&
                      memcmp(with.tally[k], without.tally[k],
                             tally_set_bins(&with, k) * sizeof *with.tally[k]) == 0,
                  "tally %d with absorption differs from -A's", k);
    }
    uint64_t absorbed = 0;
    for (size_t b = 0;
         with.tally[OUTPUT_TALLY_A_RZ] && b < tally_set_bins(&with, OUTPUT_TALLY_A_RZ); b++)
        absorbed += with.tally[OUTPUT_TALLY_A_RZ][b];
    CHECK_MSG(absorbed > 0, "the set absorbed nothing");
    tally_set_free(&with);
    tally_set_free(&without);
    mci_free(&f);
    return check_summary("absorb (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"agree", case_agree},
                                       {"identity", case_identity},
                                       {"library", case_library},
                                       {"absorb", case_absorb}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_optics_sets_gpu agree|identity|library\n");
}
