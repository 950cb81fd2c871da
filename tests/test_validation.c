/* Statistical validation of the CPU engine (docs/validation.md):
 *   vanhulst    slab of van de Hulst: published Rd, Tt
 *   giovanelli  semi-infinite medium: Rsp, Rsp + Rd
 *   example     MCML's 3-layer example vs MCML 1.2.2's own output
 *   skin        7-layer skin at 600 nm vs MCML 1.2.2's 10^8-photon output
 *   glass       glass layers: analytic Rsp and energy balance
 *   contrast    three index-matched layers of strongly different attenuation
 *               vs MCML 1.2.2 with splitmix64 (MCML's ran3 is biased here:
 *               tests/data/reference/README.md, docs/validation.md)
 *   index       strong index and attenuation contrast between layers: energy
 *               balance; on the GPU, against the double-precision CPU engine
 * Every run uses a fixed seed, so the test is deterministic; tolerances come
 * from the measured batch variances (tests/stats.h).  Photon counts scale
 * with $TMCML_VALIDATION_SCALE (the sanitizer build runs fewer).
 *
 * `test_validation CASE gpu` validates the GPU engine the same way and, for
 * the reference cases, also against a CPU engine run (exit 77 without a GPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "gpu.h"
#include "engine_device.h"
#include "gpu_runner.h"
#include "mci.h"
#include "variant.h"
#include "mco.h"
#include "result.h"
#include "stats.h"

#define BATCHES     64
#define SEED        20261121u
#define ALPHA       1e-3 /* family-wise false-alarm probability of each group of checks */
/* Bins enter the per-bin comparison only when each batch alone measures them
 * to 20 %: then a batch sums many deposits and is close to normal.  Sparse
 * bins (a few large deposits per batch) have skewed batch values whose
 * sample variance is too often small, which inflates |z| far in the tail
 * where the max test looks. */
#define MAX_REL_SEM (0.2 / 8.0) /* 0.2 / sqrt(BATCHES) */

typedef struct batch_results {
    batch_vec rat; /* Rsp+Rd (giovanelli) or Rd, A, Tt, energy balance */
    batch_vec a_l, a_z, rd_r, tt_r, a_rz;
    double batch_photons;
    double steps_per_photon;
} batch_results;

/* The engine under test: the CPU engine, or the GPU engine when opened. */
static gpu_engine *gpu;

static bool simulate_range(const mci_run *run, uint64_t seed, uint64_t first, uint64_t count,
                           tally_set *t, tm_error *err)
{
    if (!gpu) {
        cpu_options opt = {.seed = seed, .threads = cpu_count(), .score_absorption = true};
        return cpu_simulate(run, &opt, first, count, t, err);
    }
    variant_options v;
    variant_options_init(&v);
    kernel_spec spec;
    gpu_options opt = {.seed = seed};
    gpu_stats stats;
    return variant_spec_for_run(run, true, device_of(gpu), &v, &spec, err) &&
           gpu_simulate(gpu, run, &spec, &opt, first, count, t, &stats, err);
}

static double validation_scale(void)
{
    const char *s = getenv("TMCML_VALIDATION_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

static bool load_run(const char *name, int index, mci_file *file, const mci_run **run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TMCML_TEST_DATA, name);
    tm_error err;
    if (!mci_read(path, file, &err)) {
        error_print(stderr, &err);
        return false;
    }
    *run = &file->runs[index];
    return true;
}

static bool init_results(batch_results *br, const mci_run *run)
{
    size_t nr = (size_t)run->nr, nz = (size_t)run->nz;
    return batch_vec_init(&br->rat, 5, BATCHES) &&
           batch_vec_init(&br->a_l, (size_t)run->num_layers, BATCHES) &&
           batch_vec_init(&br->a_z, nz, BATCHES) && batch_vec_init(&br->rd_r, nr, BATCHES) &&
           batch_vec_init(&br->tt_r, nr, BATCHES) && batch_vec_init(&br->a_rz, nr * nz, BATCHES);
}

static void free_results(batch_results *br)
{
    batch_vec_free(&br->rat);
    batch_vec_free(&br->a_l);
    batch_vec_free(&br->a_z);
    batch_vec_free(&br->rd_r);
    batch_vec_free(&br->tt_r);
    batch_vec_free(&br->a_rz);
}

static void add_batch(batch_results *br, const mcml_result *res)
{
    double rat[5] = {res->rd, res->a, res->tt, res->rsp + res->rd,
                     res->rsp + res->rd + res->a + res->tt};
    batch_vec_add(&br->rat, rat);
    batch_vec_add(&br->a_l, res->a_l + 1);
    batch_vec_add(&br->a_z, res->a_z);
    batch_vec_add(&br->rd_r, res->rd_r);
    batch_vec_add(&br->tt_r, res->tt_r);
    batch_vec_add(&br->a_rz, res->a_rz);
}

/* BATCHES batches of consecutive photon indices; together they are exactly
 * the run of BATCHES * batch_photons photons with this seed. */
static bool simulate_batches(const mci_run *run, double photons, batch_results *br,
                             mcml_result *last)
{
    uint64_t m = (uint64_t)(photons * validation_scale() / BATCHES);
    if (m < 1000)
        m = 1000;
    br->batch_photons = (double)m;
    if (!init_results(br, run))
        return false;
    printf("  %s engine: %d batches of %llu photons\n", gpu ? "GPU" : "CPU", BATCHES,
           (unsigned long long)m);
    double steps = 0;
    for (int b = 0; b < BATCHES; b++) {
        tally_set t;
        tm_error err;
        mcml_result res = {0};
        bool ok = tally_set_init(&t, run->nr, run->nz, run->na) &&
                  simulate_range(run, SEED, (uint64_t)b * m, m, &t, &err) &&
                  result_from_tallies(run, &t, &res, &err);
        steps += (double)t.steps;
        tally_set_free(&t);
        if (!ok) {
            error_print(stderr, &err);
            return false;
        }
        add_batch(br, &res);
        if (b == BATCHES - 1)
            *last = res;
        else
            result_free(&res);
    }
    br->steps_per_photon = steps / ((double)m * BATCHES);
    batch_vec_finish(&br->rat);
    batch_vec_finish(&br->a_l);
    batch_vec_finish(&br->a_z);
    batch_vec_finish(&br->rd_r);
    batch_vec_finish(&br->tt_r);
    batch_vec_finish(&br->a_rz);
    return true;
}

/* One named scalar against a reference value (n_ref photons, or exact when 0;
 * ref_round: sd of the reference's rounding); bound: |z| limit. */
static void report_scalar(const char *name, const batch_vec *v, size_t i, double ref,
                          double ref_round, double n_ref, double batch_photons, double bound,
                          bool enforce)
{
    double k = v->k;
    double var =
        v->var[i] * (1.0 / k + (n_ref > 0 ? batch_photons / n_ref : 0.0)) + ref_round * ref_round;
    double z = (v->mean[i] - ref) / sqrt(var);
    bool ok = fabs(z) <= bound;
    printf("  %-14s %.6f  reference %.6f  sigma %.2e  z %+.2f  (|z| <= %.2f)  %s\n", name,
           v->mean[i], ref, sqrt(var), z, bound,
           ok ? "ok" : (enforce ? "FAIL" : "outside (not asserted)"));
    if (enforce)
        CHECK_MSG(ok, "%s: z = %.2f", name, z);
}

/* One named scalar against a reference value (n_ref photons, or exact when 0;
 * ref_round: sd of the reference's rounding); bound: |z| limit. */
static void check_scalar(const char *name, const batch_vec *v, size_t i, double ref,
                         double ref_round, double n_ref, double batch_photons, double bound)
{
    report_scalar(name, v, i, ref, ref_round, n_ref, batch_photons, bound, true);
}

static double scalar_bound(int checks)
{
    return stats_t_quantile_two_sided(ALPHA / checks, BATCHES - 1);
}

static void report_vector(const char *name, const batch_vec *v, const double *ref, int digits,
                          double n_ref, double batch_photons, bool enforce)
{
    if (getenv("TMCML_VALIDATION_DUMP"))
        for (size_t i = 0; i < v->n; i++)
            printf("    %s[%zu] ours %.5e +- %.2e  ref %.5e  z %+.2f\n", name, i, v->mean[i],
                   sqrt(v->var[i] / v->k), ref[i],
                   (v->mean[i] - ref[i]) / sqrt(v->var[i] * (1.0 / v->k + batch_photons / n_ref)));
    double *round = malloc(v->n * sizeof *round);
    for (size_t i = 0; i < v->n; i++)
        round[i] = stats_print_rounding_sd(ref[i], digits);
    z_report r = stats_compare(v, ref, round, n_ref, batch_photons, MAX_REL_SEM, ALPHA);
    stats_print_report(name, &r);
    if (!enforce && !r.pass)
        printf("           (%s: not asserted for this reference)\n", name);
    if (enforce) {
        CHECK_MSG(r.bins > 0, "%s: no bin well enough determined", name);
        CHECK_MSG(r.pass, "%s: distribution of z-scores inconsistent with the reference", name);
    }
    free(round);
}

static void check_vector(const char *name, const batch_vec *v, const double *ref, int digits,
                         double n_ref, double batch_photons)
{
    report_vector(name, v, ref, digits, n_ref, batch_photons, true);
}

static int case_vanhulst(void)
{
    mci_file f;
    const mci_run *run;
    batch_results br;
    mcml_result last;
    if (!load_run("validation/vanhulst.mci", 0, &f, &run) ||
        !simulate_batches(run, 2e6, &br, &last))
        return 1;
    double bound = scalar_bound(2);
    check_scalar("Rd", &br.rat, 0, 0.09739, stats_print_rounding_sd(0.09739, 4), 0,
                 br.batch_photons, bound);
    check_scalar("Tt", &br.rat, 2, 0.66096, stats_print_rounding_sd(0.66096, 5), 0,
                 br.batch_photons, bound);
    result_free(&last);
    free_results(&br);
    mci_free(&f);
    return 0;
}

static int case_giovanelli(void)
{
    mci_file f;
    const mci_run *run;
    batch_results br;
    mcml_result last;
    if (!load_run("validation/giovanelli.mci", 0, &f, &run) ||
        !simulate_batches(run, 2e6, &br, &last))
        return 1;
    printf("  Rsp            %.12f  reference 0.04 (exact)\n", last.rsp);
    CHECK(fabs(last.rsp - 0.04) < 1e-15);
    check_scalar("Rsp+Rd", &br.rat, 3, 0.260, stats_print_rounding_sd(0.260, 3), 0,
                 br.batch_photons, scalar_bound(1));
    result_free(&last);
    free_results(&br);
    mci_free(&f);
    return 0;
}

static bool load_reference(const char *name, mco_data *ref)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/%s", TMCML_TEST_DATA, name);
    tm_error err;
    if (!mco_read(path, ref, &err)) {
        error_print(stderr, &err);
        return false;
    }
    return true;
}

/* MCML's example output (tests/data/reference/mcml_example_1e6.mco) was made
 * by an MCML older than 1.2.2 (its time line has 1.2.1's format).  Against it,
 * both engines (and two different RNGs) find A_l[1] 0.3 % higher and A_z near
 * the surface higher by 3-5 sigma, while agreeing with each other and with
 * MCML 1.2.2's skin output everywhere (docs/validation.md).  Those two are
 * printed but not asserted for that reference. */
static bool assert_absorption = true;

static void check_rat_and_layers(const batch_results *br, const mco_data *ref, double n_ref)
{
    const mcml_result *r = &ref->result;
    int layers = r->num_layers;
    double bound = scalar_bound(3 + layers);
    check_scalar("Rd", &br->rat, 0, r->rd, stats_print_rounding_sd(r->rd, 6), n_ref,
                 br->batch_photons, bound);
    check_scalar("A", &br->rat, 1, r->a, stats_print_rounding_sd(r->a, 6), n_ref, br->batch_photons,
                 bound);
    check_scalar("Tt", &br->rat, 2, r->tt, stats_print_rounding_sd(r->tt, 6), n_ref,
                 br->batch_photons, bound);
    for (int i = 1; i <= layers; i++) {
        char name[32];
        snprintf(name, sizeof name, "A_l[%d]", i);
        report_scalar(name, &br->a_l, (size_t)i - 1, r->a_l[i],
                      stats_print_rounding_sd(r->a_l[i], 4), n_ref, br->batch_photons, bound,
                      assert_absorption);
    }
}

/* Which per-bin arrays a reference case compares. */
enum { CMP_A_Z = 1, CMP_RD_R = 2, CMP_TT_R = 4, CMP_A_RZ = 8 };

/* GPU batches against an independent CPU engine run (another seed) of the
 * same size: float32 against double physics. */
static void compare_with_cpu(const mci_run *run, double photons, const batch_results *br,
                             int arrays)
{
    uint64_t n = (uint64_t)(photons * validation_scale());
    tally_set t;
    tm_error err;
    mcml_result cpu = {0};
    cpu_options opt = {.seed = SEED + 1, .threads = cpu_count(), .score_absorption = true};
    bool ok = tally_set_init(&t, run->nr, run->nz, run->na) &&
              cpu_simulate(run, &opt, 0, n, &t, &err) && result_from_tallies(run, &t, &cpu, &err);
    tally_set_free(&t);
    CHECK(ok);
    if (!ok) {
        error_print(stderr, &err);
        return;
    }
    printf("  against the CPU engine, %llu photons, seed %u:\n", (unsigned long long)n, SEED + 1);
    double bound = scalar_bound(3);
    check_scalar("Rd", &br->rat, 0, cpu.rd, 0, (double)n, br->batch_photons, bound);
    check_scalar("A", &br->rat, 1, cpu.a, 0, (double)n, br->batch_photons, bound);
    check_scalar("Tt", &br->rat, 2, cpu.tt, 0, (double)n, br->batch_photons, bound);
    if (arrays & CMP_A_Z)
        check_vector("A_z", &br->a_z, cpu.a_z, 17, (double)n, br->batch_photons);
    if (arrays & CMP_RD_R)
        check_vector("Rd_r", &br->rd_r, cpu.rd_r, 17, (double)n, br->batch_photons);
    if (arrays & CMP_A_RZ)
        check_vector("A_rz", &br->a_rz, cpu.a_rz, 17, (double)n, br->batch_photons);
    result_free(&cpu);
}

/* The contrast case also shows, without asserting it, how far MCML 1.2.2's
 * own ran3 build lies from tmcml there: its Rd is biased by about 15 sigma
 * of its 10^7 photons (tests/data/reference/README.md, docs/validation.md). */
static bool contrast_ran3;

static void report_ran3(const batch_results *br)
{
    mco_data ran3;
    if (!load_reference("mcml_ran3_contrast_1e7_a.mco", &ran3))
        return;
    const mcml_result *r = &ran3.result;
    double n = (double)ran3.run.photons, bound = scalar_bound(3);
    printf("  against MCML 1.2.2 with its own ran3 (%.0f photons; biased here, not asserted):\n",
           n);
    report_scalar("Rd (ran3)", &br->rat, 0, r->rd, stats_print_rounding_sd(r->rd, 6), n,
                  br->batch_photons, bound, false);
    report_scalar("A (ran3)", &br->rat, 1, r->a, stats_print_rounding_sd(r->a, 6), n,
                  br->batch_photons, bound, false);
    report_scalar("Tt (ran3)", &br->rat, 2, r->tt, stats_print_rounding_sd(r->tt, 6), n,
                  br->batch_photons, bound, false);
    mco_free(&ran3);
}

static int case_reference(const char *input, const char *reference, double photons, int arrays)
{
    mci_file f;
    const mci_run *run;
    batch_results br;
    mcml_result last;
    mco_data ref;
    if (!load_reference(reference, &ref))
        return 1;
    if (!load_run(input, 0, &f, &run) || !simulate_batches(run, photons, &br, &last))
        return 1;
    double n_ref = (double)ref.run.photons;
    printf("  reference: %s, %.0f photons\n", reference, n_ref);
    /* The reference prints Rsp with 6 significant digits. */
    CHECK(fabs(last.rsp - ref.result.rsp) <=
          0.5 * sqrt(12.0) * stats_print_rounding_sd(ref.result.rsp, 6));
    check_rat_and_layers(&br, &ref, n_ref);
    if (arrays & CMP_A_Z)
        report_vector("A_z", &br.a_z, ref.result.a_z, 5, n_ref, br.batch_photons,
                      assert_absorption);
    if (arrays & CMP_RD_R)
        check_vector("Rd_r", &br.rd_r, ref.result.rd_r, 5, n_ref, br.batch_photons);
    if (arrays & CMP_TT_R)
        check_vector("Tt_r", &br.tt_r, ref.result.tt_r, 5, n_ref, br.batch_photons);
    if (arrays & CMP_A_RZ)
        check_vector("A_rz", &br.a_rz, ref.result.a_rz, 5, n_ref, br.batch_photons);
    if (gpu)
        compare_with_cpu(run, photons, &br, arrays);
    if (contrast_ran3)
        report_ran3(&br);
    result_free(&last);
    free_results(&br);
    mci_free(&f);
    mco_free(&ref);
    return 0;
}

static double normal_fresnel(double n1, double n2)
{
    double r = (n1 - n2) / (n1 + n2);
    return r * r;
}

static int case_glass(void)
{
    for (int run_index = 0; run_index < 2; run_index++) {
        mci_file f;
        const mci_run *run;
        batch_results br;
        mcml_result last;
        if (!load_run("validation/glass.mci", run_index, &f, &run) ||
            !simulate_batches(run, 1e6, &br, &last))
            return 1;
        const mci_layer *l = run->layers;
        double r1 = normal_fresnel(l[0].n, l[1].n), r2 = normal_fresnel(l[1].n, l[2].n);
        double rsp = r1 + (1 - r1) * (1 - r1) * r2 / (1 - r1 * r2);
        printf("  %s: Rsp %.15f  analytic %.15f\n", run->out_name, last.rsp, rsp);
        CHECK(fabs(last.rsp - rsp) <= 1e-15);
        /* Each deposit or escape is rounded to the nearest of 2^24 units per
         * unit weight: at most half a unit per step, so the balance may miss 1
         * by that much on top of the statistical error. */
        double quantization = (br.steps_per_photon + 1.0) * 0.5 / TALLY_UNITS_PER_WEIGHT;
        double z_bound = scalar_bound(2);
        double sigma = sqrt(br.rat.var[4] / br.rat.k);
        double miss = fabs(br.rat.mean[4] - 1.0);
        printf("  Rsp+Rd+A+Tt    %.10f  |1 - sum| %.2e <= %.2f sigma (%.2e) + quantization %.2e"
               " (%.1f steps/photon)  %s\n",
               br.rat.mean[4], miss, z_bound, sigma, quantization, br.steps_per_photon,
               miss <= z_bound * sigma + quantization ? "ok" : "FAIL");
        CHECK(miss <= z_bound * sigma + quantization);
        result_free(&last);
        free_results(&br);
        mci_free(&f);
    }
    return 0;
}

/* No published reference: energy balance, and for the GPU the CPU engine. */
static int case_index(void)
{
    mci_file f;
    const mci_run *run;
    batch_results br;
    mcml_result last;
    if (!load_run("validation/index_contrast.mci", 0, &f, &run) ||
        !simulate_batches(run, 1e6, &br, &last))
        return 1;
    double quantization = (br.steps_per_photon + 1.0) * 0.5 / TALLY_UNITS_PER_WEIGHT;
    double sigma = sqrt(br.rat.var[4] / br.rat.k), miss = fabs(br.rat.mean[4] - 1.0);
    printf("  Rsp+Rd+A+Tt    %.10f  |1 - sum| %.2e  (%.1f steps/photon)\n", br.rat.mean[4], miss,
           br.steps_per_photon);
    CHECK(miss <= scalar_bound(1) * sigma + quantization);
    if (gpu)
        compare_with_cpu(run, 1e6, &br, CMP_A_Z | CMP_RD_R | CMP_A_RZ);
    result_free(&last);
    free_results(&br);
    mci_free(&f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "gpu") != 0)) {
        fprintf(stderr, "usage: test_validation vanhulst|giovanelli|example|skin|glass|contrast|"
                        "index [gpu]\n");
        return 2;
    }
    const char *c = argv[1];
    if (argc == 3) {
        tm_error err;
        if (!gpu_engine_open(0, &gpu, &err)) {
            char text[2048];
            printf("no GPU: skipped (%s)\n", error_format(&err, text, sizeof text));
            return 77;
        }
    }
    printf("validation case %s (seed %u)\n", c, SEED);
    int rc;
    if (strcmp(c, "vanhulst") == 0)
        rc = case_vanhulst();
    else if (strcmp(c, "giovanelli") == 0)
        rc = case_giovanelli();
    else if (strcmp(c, "example") == 0) {
        assert_absorption = false; /* a pre-1.2.2 reference: see above */
        rc = case_reference("reference/mcml_example.mci", "mcml_example_1e6.mco", 2e6,
                            CMP_A_Z | CMP_RD_R | CMP_TT_R);
    } else if (strcmp(c, "skin") == 0)
        /* Tt of skin (0.3 %) is too small for per-bin statistics here. */
        rc = case_reference("reference/skin7_600nm.mci", "mcml_skin7_600nm_1e8.mco", 2e6,
                            CMP_A_Z | CMP_RD_R | CMP_A_RZ);
    else if (strcmp(c, "glass") == 0)
        rc = case_glass();
    else if (strcmp(c, "contrast") == 0) {
        contrast_ran3 = true;
        rc = case_reference("validation/contrast.mci", "mcml_splitmix_contrast_1e7_a.mco", 2e6,
                            CMP_A_Z | CMP_RD_R | CMP_TT_R);
    } else if (strcmp(c, "index") == 0)
        rc = case_index();
    else {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    gpu_engine_close(gpu);
    if (rc)
        return rc;
    return check_summary(c);
}
