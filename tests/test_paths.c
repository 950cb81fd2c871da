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
 * `test_paths CASE gpu` runs ballistic, derivative, two_layers and
 * determinism on the GPU engine (label gpu; exit 77 without a GPU), whose
 * kernel scores path lengths with absorption sets and without absorption
 * (templates/sets.cu): the same checks, the bounds widened by the kernel's
 * float arithmetic (derived at each), determinism across two variants and
 * launch sizes, and the path kernel's every-run tallies equal to the sets'
 * kernel without paths; and
 *   engines      (GPU only) every set's Rd_path_total and Tt_path_total
 *                per layer against the CPU engine's, batch by batch, with
 *                a Bonferroni t bound over the comparisons
 * Fixed seeds: deterministic. */
#include <float.h>
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

#define SEED     20261121u
#define BATCHES  16
#define MAX_SETS 4

/* The GPU engine of a `gpu` case (NULL: the CPU engine's). */
static gpu_engine *gpu;

/* Photons [first, first + count) of run on the GPU with num_sets > 0 sets
 * and their path lengths, -A, the variant of v (NULL: the heuristic's), in
 * launches of at most `launch` photons (0: any); paths false: the sets'
 * kernel without them. */
static bool gpu_tallies(const mci_run *run, int num_sets, const double *mua,
                        const variant_options *v, uint64_t launch, bool paths, uint64_t first,
                        uint64_t count, tally_set *t, tm_error *err)
{
    variant_options heuristic;
    variant_options_init(&heuristic);
    v = v ? v : &heuristic;
    mci_run ref;
    if (!mua_sets_reference(run, mua, num_sets, &ref)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    ref.path_lengths = paths;
    kernel_spec spec;
    gpu_options opt = {
        .seed = SEED, .max_launch_photons = launch, .num_sets = num_sets, .set_mua = mua};
    gpu_stats stats;
    bool ok = variant_spec_for_run(&ref, false, device_of(gpu), v, &spec, err) &&
              variant_sets_spec(&spec, (sets_scoring){.num_sets = num_sets, .paths = paths}, v,
                                device_of(gpu), err) &&
              gpu_simulate(gpu, &ref, &spec, &opt, first, count, t, &stats, err);
    mci_run_free(&ref);
    return ok;
}

/* The inline run, with its path lengths asked for. */
static bool parse_run(const char *text, mci_file *f)
{
    if (!parse_inline(text, f))
        return false;
    f->runs[0].path_lengths = true;
    return true;
}

/* Photons [first, first + count) of run with num_sets sets (0: alone), set
 * k (or the run) into t[k], threads threads. */
static bool tallies(const mci_run *run, int num_sets, const double *mua, int threads,
                    uint64_t first, uint64_t count, tally_set *t)
{
    tm_error err = {0};
    if (gpu) {
        if (gpu_tallies(run, num_sets, mua, NULL, 0, true, first, count, t, &err))
            return true;
        error_print(stderr, &err);
        return false;
    }
    if (cpu_sets_simulate(run, SEED, threads, num_sets, mua, first, count, t, &err))
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
 * L_i + 2^-19 cm.  The GPU kernel's path is a float: the layer's depths
 * rounded to floats, the distance to the boundary and its sum into the
 * path each rounded (2^-24 of the stack's depth each), and w L_i one float
 * product (its w is the weight tally's own): 8 2^-24 of the depth more. */
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
            double bound =
                0x1p-19 * (d + 1.0) + 4 * DBL_EPSILON * depth + (gpu ? 8 * 0x1p-24 * depth : 0.0);
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
        if (!gpu) /* a GPU kernel scores paths with sets */
            check_ballistic(names[c], &f.runs[0], 0, NULL);
        check_ballistic(names[c], &f.runs[0], 3, mua[c]);
        mci_free(&f);
    }
    return check_summary("ballistic");
}

/* Layer i's reference mua: the smallest of the MAX_SETS sets'. */
static double mua_min_of(const double *mua, int i, int nl)
{
    double m = mua[i - 1];
    for (int k = 1; k < MAX_SETS; k++)
        m = fmin(m, mua[k * nl + i - 1]);
    return m;
}

/* Set `center` and its neighbours center -+ 1 are mua moved by -+ delta in
 * every layer.  Batch by batch, -(ln R(+) - ln R(-)) / (2 delta) against
 * the sum over layers of the centre's path total (Rd or Tt).  From the same
 * histories the two differ by the difference's truncation, delta^2 / 6
 * times the third cumulant of the weighted path, which for weights that
 * fall as exp(-mua L) is at most 6 / mua^3 (taken with the smallest mua),
 * and by the fixed point's rounding of R(+-): at most N/2 units each, so
 * 1 / (2^24 R 2 delta) in the quotient; plus 4 standard errors over the
 * batches for what remains.  On the GPU a set's weight is the reference's
 * times __expf(-x), x = sum_i (mua_k,i - mua_ref,i) L_i, within
 * (2 + 1.173 x) 2^-23 of it relatively (CUDA's __expf bound, in ulp), and
 * two float products more (2 2^-23): averaged over the escaping weight, x
 * is sum_i extra_i path_i, so ln R(+-) each move by at most
 * (4 + 1.173 x) 2^-23, the difference quotient by twice that / 2 delta. */
static void check_derivative(const char *what, const mci_run *run, const double *mua, int center,
                             double delta, double mua_min, bool transmitted)
{
    int nl = run->num_layers;
    batch_vec d;
    CHECK(batch_vec_init(&d, 1, BATCHES));
    double path_sum = 0, r_min = 1, x_max = 0;
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
        for (int i = 1; i <= nl; i++) {
            double p_i = transmitted ? res[center].tt_path_total[i] : res[center].rd_path_total[i];
            path += p_i;
            x_max = fmax(x_max, (mua[(center + 1) * nl + i - 1] - mua_min_of(mua, i, nl)) * p_i);
        }
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
    double expf_error = gpu ? 2 * (4 + 1.173 * x_max * nl) * 0x1p-23 / (2 * delta) : 0.0;
    double bound = 4 * sem + truncation + rounding + expf_error;
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
    CHECK_MSG(tally_set_runs_equal(&a, &b), "the run with path lengths scores other tallies");
    tally_set_free(&a);
    tally_set_free(&b);
    mci_run_free(&plain);
    mci_free(&f);
    return check_summary("plain");
}

/* On the GPU: the heuristic variant in one call against blocks of 128 with
 * the layers in shared memory in two calls of launches of 7777 photons;
 * and the kernel of the sets without paths scores the same every-run
 * tallies as the kernel with them. */
static int gpu_determinism(const mci_run *run, const double *mua)
{
    variant_options other;
    variant_options_init(&other);
    tm_error err = {0};
    CHECK(variant_options_set(&other, "--block", "128", &err) &&
          variant_options_set(&other, "--layers", "shared", &err));
    uint64_t n = 200000, split = 70000;
    tally_set a[3], b[3], c[3];
    CHECK(init_sets(run, 3, a) && init_sets(run, 3, b) && init_sets(run, 3, c));
    bool ok = gpu_tallies(run, 3, mua, NULL, 0, true, 0, n, a, &err) &&
              gpu_tallies(run, 3, mua, &other, 7777, true, split, n - split, b, &err) &&
              gpu_tallies(run, 3, mua, &other, 7777, true, 0, split, b, &err) &&
              gpu_tallies(run, 3, mua, NULL, 0, false, 0, n, c, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    for (int k = 0; ok && k < 3; k++) {
        CHECK_MSG(a[k].rd_path && a[k].tt_path && tally_set_equal(&a[k], &b[k]),
                  "set %d differs between the two variants and launches", k);
        CHECK_MSG(!c[k].rd_path && tally_set_runs_equal(&a[k], &c[k]),
                  "set %d: the path kernel's every-run tallies are not the sets' kernel's", k);
    }
    CHECK(ok && memcmp(a[0].rd_path, a[2].rd_path,
                       tally_set_bins(&a[0], OUTPUT_TALLY_RD_PATH) * sizeof *a[0].rd_path) != 0);
    free_sets(a, 3);
    free_sets(b, 3);
    free_sets(c, 3);
    return check_summary("determinism (gpu)");
}

static int case_determinism(void)
{
    static const char *text = "1.0\n1\nsets.mco A\n1000\n0.005 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 0.2 20 0.7 0.05\n1.37 0.5 40 0.7 0.15\n1.0\n";
    static const double mua[3 * 2] = {0.2, 0.5, 1.0, 0.6, 2.0, 5.0};
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    if (gpu) {
        int status = gpu_determinism(&f.runs[0], mua);
        mci_free(&f);
        return status;
    }
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

/* GPU only: every set's path totals per layer against the CPU engine's
 * (on other photons: independent histories), batch by batch.  Each difference
 * of batch means over its standard error is t-distributed with about
 * BATCHES - 1 degrees of freedom (Welch's, conservatively); the bound is
 * the two-sided quantile at ALPHA / comparisons (Bonferroni). */
#define ALPHA 1e-4
static int case_engines(void)
{
    static const char *text = "1.0\n1\ne.mco A\n1000\n0.01 0.01\n40 30 5\n2\n1.0\n"
                              "1.37 1 60 0.8 0.05\n1.37 3 120 0.9 0.1\n1.0\n";
    static const double mua[3 * 2] = {1.0, 3.0, 2.0, 1.5, 4.0, 6.0};
    mci_file f;
    if (!parse_run(text, &f))
        return 1;
    const mci_run *run = &f.runs[0];
    int nl = run->num_layers, m = 3 * 2 * nl; /* sets x (Rd, Tt) x layers */
    batch_vec on[2];
    CHECK(batch_vec_init(&on[0], (size_t)m, BATCHES) && batch_vec_init(&on[1], (size_t)m, BATCHES));
    gpu_engine *g = gpu;
    for (int e = 0; e < 2; e++) {
        gpu = e == 0 ? g : NULL; /* e 1: the CPU engine, on photons of its own */
        for (int b = 0; b < BATCHES; b++) {
            mcml_result res[3];
            uint64_t first = (uint64_t)b * 20000 + (e == 1 ? UINT64_C(1) << 40 : 0);
            /* the CPU's photons are others: the two engines' means independent */
            bool ok = results(run, 3, mua, first, 20000, res);
            CHECK(ok);
            double x[3 * 2 * 2];
            for (int k = 0; ok && k < 3; k++) {
                for (int i = 1; i <= nl; i++) {
                    x[(k * 2 + 0) * nl + i - 1] = res[k].rd_path_total[i];
                    x[(k * 2 + 1) * nl + i - 1] = res[k].tt_path_total[i];
                }
                result_free(&res[k]);
            }
            if (ok)
                batch_vec_add(&on[e], x);
        }
    }
    gpu = g;
    batch_vec_finish(&on[0]);
    batch_vec_finish(&on[1]);
    double t = stats_t_quantile_two_sided(ALPHA / m, BATCHES - 1);
    for (int j = 0; j < m; j++) {
        double se = sqrt((on[0].var[j] + on[1].var[j]) / BATCHES);
        double diff = on[0].mean[j] - on[1].mean[j];
        printf("set %d %s layer %d: GPU %.6f, CPU %.6f cm, t %.2f (bound %.2f)\n", j / (2 * nl),
               (j / nl) % 2 ? "Tt" : "Rd", j % nl + 1, on[0].mean[j], on[1].mean[j],
               se > 0 ? diff / se : 0.0, t);
        CHECK_MSG(fabs(diff) <= t * se, "set %d %s layer %d: GPU %g, CPU %g", j / (2 * nl),
                  (j / nl) % 2 ? "Tt" : "Rd", j % nl + 1, on[0].mean[j], on[1].mean[j]);
    }
    batch_vec_free(&on[0]);
    batch_vec_free(&on[1]);
    mci_free(&f);
    return check_summary("engines");
}

int main(int argc, char **argv)
{
    static const check_case on_cpu[] = {{"ballistic", case_ballistic},
                                        {"derivative", case_derivative},
                                        {"two_layers", case_two_layers},
                                        {"determinism", case_determinism},
                                        {"plain", case_plain}};
    static const check_case on_gpu[] = {{"ballistic", case_ballistic},
                                        {"derivative", case_derivative},
                                        {"two_layers", case_two_layers},
                                        {"determinism", case_determinism},
                                        {"engines", case_engines}};
    _Static_assert(sizeof on_cpu == sizeof on_gpu, "one case each");
    bool use_gpu = argc > 2 && strcmp(argv[2], "gpu") == 0;
    return engine_device_run_case(
        &gpu, use_gpu, argc > 1 ? argv[1] : "", use_gpu ? on_gpu : on_cpu,
        sizeof on_cpu / sizeof on_cpu[0],
        "usage: test_paths ballistic|derivative|two_layers|plain|determinism\n"
        "       test_paths ballistic|derivative|two_layers|determinism|engines gpu\n");
}
