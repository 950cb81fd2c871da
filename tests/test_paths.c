/* Partial path lengths on the CPU engine (docs/outputs.md, "Path lengths"):
 *   ballistic    non-scattering index-matched slabs (one layer, two, and a
 *                glass stack): every transmitted photon has path d_i in
 *                layer i, so Tt_path_total and ring 0 of Tt_path are d_i to
 *                the fixed point's rounding (bound derived below), for the
 *                run and for each of 3 absorption sets
 *   derivative   one scattering layer: -d ln Rd / d mua = the mean path of
 *                the escaping weight = Rd_path_total, against a central
 *                difference of Rd from absorption sets at mua -+ delta
 *                scored from the same histories, batch by batch
 *   two_layers   two scattering layers: Rd_path_total summed over the
 *                layers against the difference with both layers' mua
 *                moved by delta; Tt the same
 *   plain        a run with path lengths and no sets (one set of its own
 *                mua) has the plain run's tallies bit for bit
 *   determinism  3 sets with path lengths: every set's tallies, path
 *                tallies included, bit-identical for 1 and 2 threads and
 *                for the run split in two calls; the path unit's cap
 * Fixed seeds: deterministic. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "mci.h"
#include "result.h"
#include "stats.h"

#define SEED     20261121u
#define BATCHES  16
#define MAX_SETS 4

static bool parse_run(const char *text, mci_file *f)
{
    tm_error err;
    if (mci_parse(text, "test_paths.mci", f, &err)) {
        f->runs[0].path_lengths = true;
        return true;
    }
    error_print(stderr, &err);
    return false;
}

/* Photons [first, first + count) of run with num_sets sets (0: alone), set
 * k (or the run) into t[k], threads threads. */
static bool tallies(const mci_run *run, int num_sets, const double *mua, int threads,
                    uint64_t first, uint64_t count, tally_set *t)
{
    tm_error err = {0};
    cpu_options opt = {.seed = SEED,
                       .threads = threads,
                       .score_absorption = true,
                       .num_sets = num_sets,
                       .set_layers = run->num_layers,
                       .set_mua = mua};
    if (cpu_simulate(run, &opt, first, count, t, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

static bool init_sets(const mci_run *run, int n, tally_set *t)
{
    for (int k = 0; k < n; k++)
        if (!tally_set_init(&t[k], run->nr, run->nz, run->na))
            return false;
    return true;
}

static void free_sets(tally_set *t, int n)
{
    for (int k = 0; k < n; k++)
        tally_set_free(&t[k]);
}

/* The results of photons [first, first + count) of run, one a set. */
static bool results(const mci_run *run, int num_sets, const double *mua, uint64_t first,
                    uint64_t count, mcml_result *res)
{
    int n = num_sets > 0 ? num_sets : 1;
    tally_set t[MAX_SETS];
    tm_error err = {0};
    bool ok = init_sets(run, n, t) && tallies(run, num_sets, mua, 2, first, count, t);
    for (int k = 0; ok && k < n; k++) {
        res[k] = (mcml_result){0};
        ok = result_from_tallies(run, &t[k], &res[k], &err);
        if (!ok)
            error_print(stderr, &err);
    }
    free_sets(t, n);
    return ok;
}

/* Ballistic: every transmitted photon crosses layer i along z, so its path
 * there is the difference of two depths, d_i to within 2 ulp of the
 * stack's depth (each depth is a rounded sum, and the photon's z is set to
 * the boundary's exactly: cross_or_not), and its weight w is the same for
 * every photon of a set.  The tally adds round(w L_i 2^24) per photon and
 * the weight tally round(w 2^24): their quotient is L_i to within
 * (0.5 + L_i 0.5) / round(w 2^24) cm, which for w >= 2^-4 is below 2^-19
 * L_i + 2^-19 cm. */
static void check_ballistic(const char *what, const mci_run *run, int num_sets, const double *mua)
{
    mcml_result res[MAX_SETS];
    if (!results(run, num_sets, mua, 0, 20000, res)) {
        CHECK(false);
        return;
    }
    int n = num_sets > 0 ? num_sets : 1, nl = run->num_layers;
    double depth = run->layers[nl].z1;
    for (int k = 0; k < n; k++) {
        CHECK_MSG(res[k].tt > 1.0 / 16, "%s set %d: Tt %g: too little weight for the bound", what,
                  k, res[k].tt);
        for (int i = 1; i <= nl; i++) {
            double d = run->layers[i].d;
            double bound = 0x1p-19 * (d + 1.0) + 4 * DBL_EPSILON * depth;
            double total = res[k].tt_path_total[i], ring0 = res[k].tt_path[i - 1];
            printf("%s set %d layer %d: Tt_path_total %.12f, ring 0 %.12f, d %.12f\n", what, k, i,
                   total, ring0, d);
            CHECK_MSG(fabs(total - d) <= bound, "%s set %d layer %d: Tt_path_total %.15g, d %.15g",
                      what, k, i, total, d);
            CHECK_MSG(fabs(ring0 - d) <= bound, "%s set %d layer %d: Tt_path[0] %.15g, d %.15g",
                      what, k, i, ring0, d);
            CHECK_MSG(res[k].rd_path_total[i] == 0.0, "%s: no reflected weight, no path", what);
        }
        for (int ir = 1; ir < run->nr; ir++)
            CHECK(res[k].tt_path[ir * nl] == 0.0); /* no weight left outside ring 0 */
        result_free(&res[k]);
    }
}

static int case_ballistic(void)
{
    static const char *slab = "1.0\n1\nb.mco A\n1000\n0.01 0.01\n20 10 5\n1\n1.0\n"
                              "1.0 1 0 0 0.2\n1.0\n";
    static const char *two = "1.0\n1\nb2.mco A\n1000\n0.01 0.01\n30 10 5\n2\n1.0\n"
                             "1.0 1 0 0 0.1\n1.0 2 0 0 0.3\n1.0\n";
    /* Glass alone: crossed before launch (cpu_photon_simulate_sets). */
    static const char *glass = "1.0\n1\nb3.mco A\n1000\n0.01 0.01\n30 10 5\n2\n1.0\n"
                               "1.0 0 0 0 0.15\n1.0 0 0 0 0.05\n1.0\n";
    static const double slab_mua[3] = {1.0, 2.0, 5.0};
    static const double two_mua[3 * 2] = {1.0, 2.0, 0.5, 1.0, 3.0, 3.0};
    const char *texts[3] = {slab, two, glass};
    const char *names[3] = {"slab", "two layers", "glass"};
    const double *mua[3] = {slab_mua, two_mua, two_mua};
    for (int c = 0; c < 3; c++) {
        mci_file f;
        if (!parse_run(texts[c], &f))
            return 1;
        check_ballistic(names[c], &f.runs[0], 0, NULL);
        check_ballistic(names[c], &f.runs[0], 3, mua[c]);
        mci_free(&f);
    }
    return check_summary("ballistic");
}

/* Set `center` and its neighbours center -+ 1 are mua moved by -+ delta in
 * every layer.  Batch by batch, -(ln R(+) - ln R(-)) / (2 delta) against
 * the sum over layers of the centre's path total (Rd or Tt).  From the same
 * histories the two differ by the difference's truncation, delta^2 / 6
 * times the third cumulant of the weighted path, which for weights that
 * fall as exp(-mua L) is at most 6 / mua^3 (taken with the smallest mua),
 * and by the fixed point's rounding of R(+-): at most N/2 units each, so
 * 1 / (2^24 R 2 delta) in the quotient; plus 4 standard errors over the
 * batches for what remains. */
static void check_derivative(const char *what, const mci_run *run, const double *mua, int center,
                             double delta, double mua_min, bool transmitted)
{
    int nl = run->num_layers;
    batch_vec d;
    CHECK(batch_vec_init(&d, 1, BATCHES));
    double path_sum = 0, r_min = 1;
    for (int b = 0; b < BATCHES; b++) {
        mcml_result res[MAX_SETS];
        if (!results(run, MAX_SETS, mua, (uint64_t)b * 4000, 4000, res)) {
            CHECK(false);
            return;
        }
        double rp = transmitted ? res[center + 1].tt : res[center + 1].rd;
        double rm = transmitted ? res[center - 1].tt : res[center - 1].rd;
        double fd = -(log(rp) - log(rm)) / (2 * delta);
        double path = 0;
        for (int i = 1; i <= nl; i++)
            path += transmitted ? res[center].tt_path_total[i] : res[center].rd_path_total[i];
        double diff = path - fd;
        batch_vec_add(&d, &diff);
        path_sum += path;
        r_min = fmin(r_min, fmin(rp, rm));
        for (int k = 0; k < MAX_SETS; k++)
            result_free(&res[k]);
    }
    batch_vec_finish(&d);
    double truncation = delta * delta / 6 * 6 / (mua_min * mua_min * mua_min);
    double rounding = 1.0 / (16777216.0 * r_min * 2 * delta);
    double sem = sqrt(d.var[0] / BATCHES);
    double bound = 4 * sem + truncation + rounding;
    printf("%s: mean path %.6f cm, path - difference %.3g (sem %.3g, bound %.3g)\n", what,
           path_sum / BATCHES, d.mean[0], sem, bound);
    CHECK_MSG(fabs(d.mean[0]) <= bound, "%s: path - difference %g beyond %g", what, d.mean[0],
              bound);
    batch_vec_free(&d);
}

static int case_derivative(void)
{
    static const char *text = "1.0\n1\nd.mco A\n1000\n0.01 0.01\n40 30 5\n1\n1.0\n"
                              "1.37 2 100 0.9 0.2\n1.0\n";
    /* The reference (the minimum, 0.5) far below: each set's own weight
     * matters (the reference's would give another mean). */
    static const double mua[MAX_SETS] = {0.5, 1.99, 2.0, 2.01};
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    check_derivative("one layer, Rd", &f.runs[0], mua, 2, 0.01, 2.0, false);
    mci_free(&f);
    return check_summary("derivative");
}

static int case_two_layers(void)
{
    static const char *text = "1.0\n1\nd2.mco A\n1000\n0.01 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 1 60 0.8 0.05\n1.37 3 120 0.9 0.1\n1.0\n";
    static const double mua[MAX_SETS * 2] = {0.2, 0.5, 0.99, 2.99, 1.0, 3.0, 1.01, 3.01};
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    check_derivative("two layers, Rd", &f.runs[0], mua, 2, 0.01, 1.0, false);
    check_derivative("two layers, Tt", &f.runs[0], mua, 2, 0.01, 1.0, true);
    mci_free(&f);
    return check_summary("two_layers");
}

/* Every run's tallies (not the optional ones) equal. */
static bool same_tallies(const tally_set *a, const tally_set *b)
{
    if (a->photons != b->photons || a->steps != b->steps ||
        a->trapped_photons != b->trapped_photons || a->trapped_units != b->trapped_units)
        return false;
    for (int k = 0; k < OUTPUT_TALLIES; k++)
        if (memcmp(a->tally[k], b->tally[k], tally_set_bins(a, k) * sizeof *a->tally[k]) != 0)
            return false;
    return true;
}

static int case_plain(void)
{
    static const char *text = "1.0\n1\np.mco A\n1000\n0.005 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 0.2 20 0.7 0.05\n1.37 0.5 40 0.7 0.15\n1.0\n";
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    mci_run plain;
    CHECK(mci_run_copy(&plain, &f.runs[0]));
    plain.path_lengths = false;
    tally_set a, b;
    CHECK(init_sets(&plain, 1, &a) && init_sets(&plain, 1, &b));
    CHECK(tallies(&plain, 0, NULL, 2, 0, 20000, &a));
    CHECK(tallies(&f.runs[0], 0, NULL, 2, 0, 20000, &b));
    CHECK_MSG(!a.rd_path && b.rd_path && b.tt_path && b.num_layers == 2,
              "the path tallies: only in the run that asks");
    CHECK_MSG(same_tallies(&a, &b), "the run with path lengths scores other tallies");
    tally_set_free(&a);
    tally_set_free(&b);
    mci_run_free(&plain);
    mci_free(&f);
    return check_summary("plain");
}

static int case_determinism(void)
{
    static const char *text = "1.0\n1\nsets.mco A\n1000\n0.005 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 0.2 20 0.7 0.05\n1.37 0.5 40 0.7 0.15\n1.0\n";
    static const double mua[3 * 2] = {0.2, 0.5, 1.0, 0.6, 2.0, 5.0};
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    tally_set a[3], b[3];
    uint64_t n = 20000;
    CHECK(init_sets(&f.runs[0], 3, a) && init_sets(&f.runs[0], 3, b));
    CHECK(tallies(&f.runs[0], 3, mua, 1, 0, n, a));
    CHECK(tallies(&f.runs[0], 3, mua, 2, 0, 7777, b) &&
          tallies(&f.runs[0], 3, mua, 2, 7777, n - 7777, b));
    for (int k = 0; k < 3; k++) {
        CHECK_MSG(a[k].rd_path && tally_set_equal(&a[k], &b[k]),
                  "set %d differs between 1 thread and 2 threads in two calls", k);
        CHECK(tally_set_digest(&a[k]) == tally_set_digest(&b[k]));
    }
    /* Each set its own paths: the sets' weights differ. */
    CHECK(memcmp(a[0].rd_path, a[2].rd_path,
                 tally_set_bins(&a[0], OUTPUT_TALLY_RD_PATH) * sizeof *a[0].rd_path) != 0);
    free_sets(a, 3);
    free_sets(b, 3);
    mci_free(&f);
    /* The unit's cap keeps a batch in 64 bits (TALLY_PATH_BATCH_MAX_PHOTONS). */
    CHECK(tally_path_units(1.0) == UINT64_C(1) << 24);
    CHECK(tally_path_units(1e300) == TALLY_PATH_MAX_UNITS);
    CHECK(tally_path_units(NAN) == TALLY_PATH_MAX_UNITS);
    CHECK(TALLY_PATH_BATCH_MAX_PHOTONS * (TALLY_PATH_MAX_UNITS >> 32) <= (UINT64_MAX >> 32));
    return check_summary("determinism");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    if (strcmp(name, "ballistic") == 0)
        return case_ballistic();
    if (strcmp(name, "derivative") == 0)
        return case_derivative();
    if (strcmp(name, "two_layers") == 0)
        return case_two_layers();
    if (strcmp(name, "plain") == 0)
        return case_plain();
    if (strcmp(name, "determinism") == 0)
        return case_determinism();
    fprintf(stderr, "usage: test_paths ballistic|derivative|two_layers|plain|determinism\n");
    return 2;
}
