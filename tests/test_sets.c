/* Absorption sets on the CPU engine (docs/physics.md, "Absorption sets"):
 *   beer_lambert  non-scattering index-matched slabs: Tt of every set is
 *                 exp(-sum mua d) within its statistical error, and exactly
 *                 (to the fixed point's unit) when the reference is glass
 *   two_layers    two scattering layers, 6 sets over a decade of mua
 *   three_layers  three scattering layers, 6 sets whose per-layer minima
 *                 come from different sets
 * Each scattering case compares every set with an independent run of that
 * set's mua (another seed): Rd, A and Tt within a Bonferroni bound of the
 * Student t (about 4.3 sigma), and every per-bin z-score of Rd_r, A_z and
 * A_rz and their mean within a Bonferroni bound valid however the bins
 * depend on each other (stats_compare_dependent, tests/stats.h), both
 * sides' variances from 64 batches each.  Then the per-photon variance of
 * the set at 10x the reference mua beside the independent run's
 * (docs/physics.md quotes it).
 *   determinism   the sets' tallies are bit-identical for 1 and 2 threads
 *                 and for the run split in two calls (the contract of
 *                 docs/design.md, "Bit-identity", for every set)
 * `test_sets CASE gpu` runs a case on the GPU engine (label gpu; exit 77
 * without one), whose kernel scores the sets' escapes without absorption
 * (templates/sets.cu): every run of the case, the sets' and the
 * independent ones, is then -A, and only Rd, Tt and Rd_r are compared;
 * determinism compares two variants (block size, layer placement) and a
 * run split into calls and launches.  `test_sets CASE gpu_absorb` runs it on
 * the GPU's kernel of the sets' absorption (sets_absorb: a deposit per set
 * per interaction) against absorbing GPU runs: A, A_z and A_rz compared
 * too, as on the CPU.
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mci_text.h"
#include "cpu.h"
#include "cpu_sets.h"
#include "engine_device.h"
#include "gpu.h"
#include "mci.h"
#include "mua_sets.h"
#include "result.h"
#include "stats.h"
#include "variant.h"

#define BATCHES 64
/* test_validation.c's seed.  Every check is a Bonferroni bound, so the
 * false-alarm probability of a case is at most ALPHA times its families of
 * checks whatever the correlations.  The bins' checks are those of
 * stats_compare_dependent, not stats_compare's mean z^2 test: with seed
 * 20261126 three_layers' set 0 A_z failed that test, every layer-3 bin of
 * every set having moved together by 2.2 sd (one history serves all sets,
 * and the light reaching layer 3 fluctuates as one), which a test that
 * assumes nearly independent bins reads as a wrong variance.  -DSEED=N
 * builds the test with another seed. */
#ifndef SEED
#define SEED 20261121u
#endif
#define ALPHA       1e-3
#define MAX_REL_SEM (0.2 / 8.0) /* as test_validation.c: each batch measures a bin to 20 % */
#define MAX_SETS    8

/* The GPU engine of a `gpu` or `gpu_absorb` case (NULL: the CPU engine's).
 * Its kernel scores the sets' absorption in a `gpu_absorb` case (a deposit
 * per set per interaction, sets_absorb), none in a `gpu` case (-A):
 * absorbing() says whether A is compared. */
static gpu_engine *gpu;
static bool gpu_absorbs;

static bool absorbing(void) { return gpu == NULL || gpu_absorbs; }

/* The quantities of one set over the batches. */
typedef struct set_stats {
    batch_vec rat; /* Rd, A, Tt */
    batch_vec a_z, rd_r, a_rz;
} set_stats;

static bool stats_init(set_stats *s, const mci_run *run)
{
    size_t nr = (size_t)run->nr, nz = (size_t)run->nz;
    return batch_vec_init(&s->rat, 3, BATCHES) && batch_vec_init(&s->a_z, nz, BATCHES) &&
           batch_vec_init(&s->rd_r, nr, BATCHES) && batch_vec_init(&s->a_rz, nr * nz, BATCHES);
}

static void stats_add(set_stats *s, const mcml_result *res)
{
    double rat[3] = {res->rd, res->a, res->tt};
    batch_vec_add(&s->rat, rat);
    batch_vec_add(&s->a_z, res->a_z);
    batch_vec_add(&s->rd_r, res->rd_r);
    batch_vec_add(&s->a_rz, res->a_rz);
}

static void stats_finish(set_stats *s)
{
    batch_vec_finish(&s->rat);
    batch_vec_finish(&s->a_z);
    batch_vec_finish(&s->rd_r);
    batch_vec_finish(&s->a_rz);
}

static void stats_free(set_stats *s)
{
    batch_vec_free(&s->rat);
    batch_vec_free(&s->a_z);
    batch_vec_free(&s->rd_r);
    batch_vec_free(&s->a_rz);
}

/* Photons [first, first + count) of run on the GPU, with the sets
 * (num_sets > 0: the run simulated is their reference) or alone, -A, the
 * variant of v, in launches of at most `launch` photons (0: any). */
static bool gpu_tallies(const mci_run *run, uint64_t seed, int num_sets, const double *mua,
                        const variant_options *v, uint64_t launch, uint64_t first, uint64_t count,
                        tally_set *t, tm_error *err)
{
    mci_run ref;
    if (num_sets > 0 ? !mua_sets_reference(run, mua, num_sets, &ref) : !mci_run_copy(&ref, run)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    kernel_spec spec;
    gpu_options opt = {
        .seed = seed, .max_launch_photons = launch, .num_sets = num_sets, .set_mua = mua};
    gpu_stats stats;
    bool ok = variant_spec_for_run(&ref, gpu_absorbs, device_of(gpu), v, &spec, err) &&
              (num_sets == 0 ||
               variant_sets_spec(&spec, (sets_scoring){.num_sets = num_sets, .paths = false}, v,
                                 device_of(gpu), err));
    ok = ok && gpu_simulate(gpu, &ref, &spec, &opt, first, count, t, &stats, err);
    mci_run_free(&ref);
    return ok;
}

/* One way of simulating the sets: the CPU engine's threads, or the GPU's
 * variant and launches of at most `launch` photons (0: any); sets_tallies
 * splits the run in two calls at `split`. */
typedef struct sets_way {
    int threads;
    const variant_options *variant;
    uint64_t launch, split;
} sets_way;

/* The case's engine, the way w says: photons [first, first + count) of run
 * with the sets (num_sets > 0) or alone, into t[0 .. max(num_sets, 1) - 1]. */
static bool way_call(const mci_run *run, uint64_t seed, int num_sets, const double *mua,
                     const sets_way *w, uint64_t first, uint64_t count, tally_set *t, tm_error *err)
{
    if (gpu)
        return gpu_tallies(run, seed, num_sets, mua, w->variant, w->launch, first, count, t, err);
    return cpu_sets_simulate(run, seed, w->threads, num_sets, mua, first, count, t, err);
}

/* Photons [first, first + count) of run with the sets (num_sets > 0), set k
 * into out[k]'s next batch; or, num_sets == 0, of run itself into out[0]. */
static bool simulate(const mci_run *run, uint64_t seed, int num_sets, const double *mua,
                     uint64_t first, uint64_t count, set_stats *out)
{
    int slots = num_sets > 0 ? num_sets : 1;
    tally_set t[MAX_SETS];
    tm_error err = {0};
    bool ok = true;
    int ready = 0;
    for (; ok && ready < slots; ready++)
        ok = tally_set_init(&t[ready], run->nr, run->nz, run->na);
    variant_options heuristic;
    variant_options_init(&heuristic);
    sets_way usual = {cpu_count(), &heuristic, 0, 0};
    ok = ok && way_call(run, seed, num_sets, mua, &usual, first, count, t, &err);
    for (int k = 0; ok && k < slots; k++) {
        mcml_result res = {0};
        ok = result_from_tallies(run, &t[k], &res, &err);
        if (ok)
            stats_add(&out[k], &res);
        result_free(&res);
    }
    for (int k = 0; k < ready; k++)
        tally_set_free(&t[k]);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* run with set k's mua in its layers. */
static bool run_of_set(const mci_run *run, const double *mua, int k, mci_run *out)
{
    if (!mci_run_copy(out, run))
        return false;
    for (int i = 1; i <= run->num_layers; i++)
        out->layers[i].mua = mua[(size_t)k * run->num_layers + i - 1];
    return true;
}

/* BATCHES batches of m photons with the sets (sets[k]) and, with another
 * seed, of an independent run of each set (alone[k]). */
static bool measure(const mci_run *run, int num_sets, const double *mua, uint64_t m,
                    set_stats *sets, set_stats *alone)
{
    for (int k = 0; k < num_sets; k++)
        if (!stats_init(&sets[k], run) || !stats_init(&alone[k], run))
            return false;
    for (int b = 0; b < BATCHES; b++)
        if (!simulate(run, SEED, num_sets, mua, (uint64_t)b * m, m, sets))
            return false;
    for (int k = 0; k < num_sets; k++) {
        mci_run own;
        if (!run_of_set(run, mua, k, &own))
            return false;
        bool ok = true;
        for (int b = 0; ok && b < BATCHES; b++)
            ok = simulate(&own, SEED + 1, 0, NULL, (uint64_t)b * m, m, &alone[k]);
        mci_run_free(&own);
        if (!ok)
            return false;
        stats_finish(&sets[k]);
        stats_finish(&alone[k]);
    }
    return true;
}

/* Two independent batch means: their difference against both variances. */
static void check_rat(int set, const set_stats *s, const set_stats *a, double bound)
{
    static const char *names[3] = {"Rd", "A", "Tt"};
    for (size_t i = 0; i < 3; i++) {
        double sd = sqrt(s->rat.var[i] / s->rat.k + a->rat.var[i] / a->rat.k);
        if (sd == 0.0) { /* e.g. no transmission through a thick slab */
            CHECK_MSG(s->rat.mean[i] == a->rat.mean[i], "set %d %s", set, names[i]);
            continue;
        }
        double z = (s->rat.mean[i] - a->rat.mean[i]) / sd;
        printf("  set %d %-2s  sets %.6f  alone %.6f  sigma %.2e  z %+.2f (|z| <= %.2f)\n", set,
               names[i], s->rat.mean[i], a->rat.mean[i], sd, z, bound);
        CHECK_MSG(fabs(z) <= bound, "set %d %s: z = %.2f", set, names[i], z);
    }
}

/* The per-bin z-scores of one array.  Batch b of the sets and batch b of
 * the independent run are independent, so their differences, shifted by the
 * independent run's mean (which keeps each bin's relative error, by which
 * the comparison selects bins), are batches whose mean is the sets' minus
 * the independent run's plus that mean and whose variance is both sides'.
 * Each bin's z is then a Student t of BATCHES - 1 degrees of freedom, and
 * stats_compare_dependent bounds them all and their mean whatever the
 * correlations between the bins (a fluctuation of the light reaching a
 * layer moves all its bins, in every set, together). */
static void check_bins(int set, const char *name, const batch_vec *s, const batch_vec *a,
                       double alpha)
{
    batch_vec d;
    double *row = malloc(s->n * sizeof *row);
    bool ok = row && batch_vec_init(&d, s->n, BATCHES);
    CHECK(ok);
    if (!ok) {
        free(row);
        return;
    }
    for (int b = 0; b < s->k; b++) {
        for (size_t i = 0; i < s->n; i++)
            row[i] = s->rows[(size_t)b * s->n + i] - a->rows[(size_t)b * a->n + i] + a->mean[i];
        batch_vec_add(&d, row);
    }
    batch_vec_finish(&d);
    z_report r = stats_compare_dependent(&d, a->mean, MAX_REL_SEM, alpha);
    char label[32];
    snprintf(label, sizeof label, "%d %s", set, name);
    stats_print_report(label, &r);
    CHECK_MSG(r.bins > 0, "set %d %s: no bin well enough determined", set, name);
    CHECK_MSG(r.pass, "set %d %s: a bin's z or their mean beyond the bound", set, name);
    batch_vec_free(&d);
    free(row);
}

/* Per-photon standard deviations of set k's Rd and A beside the independent
 * run's, and the photons the sets need for the same error (the ratio of the
 * variances). */
static void report_variance(int k, const set_stats *s, const set_stats *a, double m, double factor)
{
    for (size_t i = 0; i < (absorbing() ? 2u : 1u); i++) {
        double vs = s->rat.var[i] * m, va = a->rat.var[i] * m;
        printf("  variance at %.1fx the reference mua, %s: per-photon sd %.4f with the sets, "
               "%.4f alone: %.2fx the photons for the same error\n",
               factor, i == 0 ? "Rd" : "A ", sqrt(vs), sqrt(va), vs / va);
    }
    (void)k;
}

/* Every set against its independent run. */
static void compare_sets(int num_sets, const set_stats *sets, const set_stats *alone)
{
    /* ALPHA for each family: the 3 K scalars, the 3 K arrays. */
    double alpha = ALPHA / (3.0 * num_sets);
    double bound = stats_t_quantile_two_sided(alpha, BATCHES - 1);
    for (int k = 0; k < num_sets; k++) {
        check_rat(k, &sets[k], &alone[k], bound);
        check_bins(k, "Rd_r", &sets[k].rd_r, &alone[k].rd_r, alpha);
        if (!absorbing()) /* -A: no A_z, no A_rz */
            continue;
        check_bins(k, "A_z", &sets[k].a_z, &alone[k].a_z, alpha);
        check_bins(k, "A_rz", &sets[k].a_rz, &alone[k].a_rz, alpha);
    }
}

static int scattering_case(const char *name, const char *text, int num_sets, const double *mua,
                           int far_set, double far_factor)
{
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    const mci_run *run = &f.runs[0];
    set_stats sets[MAX_SETS], alone[MAX_SETS];
    memset(sets, 0, sizeof sets);
    memset(alone, 0, sizeof alone);
    uint64_t m = 8000;
    CHECK(measure(run, num_sets, mua, m, sets, alone));
    if (check_failures == 0) {
        compare_sets(num_sets, sets, alone);
        report_variance(far_set, &sets[far_set], &alone[far_set], (double)m, far_factor);
    }
    for (int k = 0; k < num_sets; k++) {
        stats_free(&sets[k]);
        stats_free(&alone[k]);
    }
    mci_free(&f);
    return check_summary(name);
}

/* Two layers (mus' 6 and 12 /cm, n 1.37 under air): 6 sets, each layer's mua
 * 10^(j/5) times its base, j = 0 .. 5; the last is 10x the reference. */
static int case_two_layers(void)
{
    const char *name = "two_layers";
    static const char *text = "1.0\n1\nsets.mco A\n1000\n0.005 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 0.2 20 0.7 0.05\n1.37 0.5 40 0.7 0.15\n1.0\n";
    double mua[6 * 2];
    for (int j = 0; j < 6; j++) {
        double scale = pow(10.0, j / 5.0);
        mua[j * 2] = 0.2 * scale;
        mua[j * 2 + 1] = 0.5 * scale;
    }
    return scattering_case(name, text, 6, mua, 5, 10.0);
}

/* Three layers: set j scales layer 1 by 10^(j/5), layer 2 by 10^((5-j)/5)
 * and layer 3 by 1 + j, so the reference (the per-layer minimum) is no set's
 * mua and every set is away from it in some layer. */
static int case_three_layers(void)
{
    const char *name = "three_layers";
    static const char *text = "1.0\n1\nsets.mco A\n1000\n0.005 0.01\n40 30 5\n3\n1.0\n"
                              "1.4 0.3 30 0.8 0.03\n1.4 0.2 20 0.7 0.05\n"
                              "1.4 0.4 40 0.9 0.1\n1.0\n";
    double mua[6 * 3];
    for (int j = 0; j < 6; j++) {
        mua[j * 3] = 0.3 * pow(10.0, j / 5.0);
        mua[j * 3 + 1] = 0.2 * pow(10.0, (5 - j) / 5.0);
        mua[j * 3 + 2] = 0.4 * (1 + j);
    }
    return scattering_case(name, text, 6, mua, 5, 10.0);
}

/* Tt of set k of a non-scattering stack against exp(-sum mua_i d_i). */
static void check_beer_lambert(const mci_run *run, int num_sets, const double *mua, bool exact)
{
    set_stats sets[MAX_SETS];
    memset(sets, 0, sizeof sets);
    uint64_t m = 2000;
    bool ok = true;
    for (int k = 0; ok && k < num_sets; k++)
        ok = stats_init(&sets[k], run);
    for (int b = 0; ok && b < BATCHES; b++)
        ok = simulate(run, SEED, num_sets, mua, (uint64_t)b * m, m, sets);
    CHECK(ok);
    double bound = stats_t_quantile_two_sided(ALPHA / num_sets, BATCHES - 1);
    for (int k = 0; ok && k < num_sets; k++) {
        stats_finish(&sets[k]);
        double depth = 0.0;
        for (int i = 1; i <= run->num_layers; i++)
            depth +=
                mua[(size_t)k * run->num_layers + i - 1] * (run->layers[i].z1 - run->layers[i].z0);
        double want = exp(-depth), tt = sets[k].rat.mean[2];
        double sd = sqrt(sets[k].rat.var[2] / BATCHES);
        printf("  set %d  Tt %.8f  exp(-mua d) %.8f  sigma %.2e\n", k, tt, want, sd);
        if (exact) /* every photon carries exactly exp(-mua d), rounded to a unit */
            CHECK_MSG(fabs(tt - want) <= 0x1p-24 && sd < 0x1p-24, "set %d: Tt %.10f", k, tt);
        else
            CHECK_MSG(fabs(tt - want) <= bound * sd, "set %d: z = %.2f", k, (tt - want) / sd);
        CHECK_MSG(sets[k].rat.mean[0] == 0.0, "set %d: Rd %g", k, sets[k].rat.mean[0]);
    }
    for (int k = 0; k < num_sets; k++)
        stats_free(&sets[k]);
}

static int case_beer_lambert(void)
{
    const char *name = "beer_lambert";
    /* One absorbing slab, index-matched: the reference (mua 0.5) absorbs at
     * its first interaction, so Tt is a Bernoulli count times each set's
     * factor exp(-(mua_k - 0.5) d). */
    static const char *slab = "1.0\n1\nbl.mco A\n1000\n0.01 0.01\n20 10 5\n1\n1.0\n"
                              "1.0 1 0 0 0.2\n1.0\n";
    /* Two layers whose reference is glass (a set with mua 0): no interaction
     * at all, so every photon carries exp(-sum mua_i d_i) exactly. */
    static const char *glass = "1.0\n1\nbl2.mco A\n1000\n0.01 0.01\n30 10 5\n2\n1.0\n"
                               "1.0 1 0 0 0.1\n1.0 1 0 0 0.2\n1.0\n";
    static const double slab_mua[5] = {0.5, 1.0, 2.0, 5.0, 10.0};
    static const double glass_mua[4 * 2] = {0.0, 0.0, 1.0, 2.0, 5.0, 0.5, 10.0, 10.0};
    mci_file f;
    if (!parse_inline(slab, &f))
        return 1;
    printf("slab, reference mua 0.5:\n");
    check_beer_lambert(&f.runs[0], 5, slab_mua, false);
    mci_free(&f);
    if (!parse_inline(glass, &f))
        return 1;
    printf("two layers, glass reference:\n");
    check_beer_lambert(&f.runs[0], 4, glass_mua, true);
    mci_free(&f);
    return check_summary(name);
}

/* num_sets sets of photons [0, n) of run the way w says, into
 * t[0 .. num_sets-1]. */
static bool sets_tallies(const mci_run *run, int num_sets, const double *mua, const sets_way *w,
                         uint64_t n, tally_set *t)
{
    tm_error err = {0};
    for (int k = 0; k < num_sets; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na))
            return false;
    bool ok = way_call(run, SEED, num_sets, mua, w, w->split, n - w->split, t, &err) &&
              (w->split == 0 || way_call(run, SEED, num_sets, mua, w, 0, w->split, t, &err));
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* The sets' tallies the same two ways: on the CPU 1 thread in one call
 * against 2 threads in two; on the GPU the heuristic variant in one call
 * against blocks of 128 with the layers in shared memory in two calls of
 * launches of 7777 photons. */
static int case_determinism(void)
{
    const char *name = gpu_absorbs ? "determinism (gpu_absorb)"
                       : gpu       ? "determinism (gpu)"
                                   : "determinism";
    static const char *text = "1.0\n1\nsets.mco A\n1000\n0.005 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 0.2 20 0.7 0.05\n1.37 0.5 40 0.7 0.15\n1.0\n";
    static const double mua[3 * 2] = {0.2, 0.5, 1.0, 0.6, 2.0, 5.0};
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    variant_options heuristic, other;
    variant_options_init(&heuristic);
    variant_options_init(&other);
    tm_error err = {0};
    CHECK(variant_options_set(&other, "--block", "128", &err) &&
          variant_options_set(&other, "--layers", "shared", &err));
    uint64_t n = gpu ? 200000 : 20000;
    sets_way one = {1, &heuristic, 0, 0}, two = {2, &other, 7777, gpu ? 70000 : 7777};
    tally_set a[3], b[3];
    CHECK(sets_tallies(&f.runs[0], 3, mua, &one, n, a));
    CHECK(sets_tallies(&f.runs[0], 3, mua, &two, n, b));
    for (int k = 0; k < 3 && check_failures == 0; k++) {
        CHECK_MSG(tally_set_equal(&a[k], &b[k]), "set %d differs between the two ways", k);
        CHECK(a[k].photons == n && b[k].photons == n && a[k].steps == b[k].steps);
        CHECK(a[k].steps == a[0].steps && a[k].rd_ra[0] > 0);
    }
    for (int k = 0; k < 3; k++) {
        tally_set_free(&a[k]);
        tally_set_free(&b[k]);
    }
    mci_free(&f);
    return check_summary(name);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"beer_lambert", case_beer_lambert},
                                       {"two_layers", case_two_layers},
                                       {"three_layers", case_three_layers},
                                       {"determinism", case_determinism}};
    gpu_absorbs = argc > 2 && strcmp(argv[2], "gpu_absorb") == 0;
    bool use_gpu = argc > 2 && (strcmp(argv[2], "gpu") == 0 || gpu_absorbs);
    return engine_device_run_case(&gpu, use_gpu, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_sets beer_lambert|two_layers|three_layers|"
                                  "determinism [gpu|gpu_absorb]\n");
}
