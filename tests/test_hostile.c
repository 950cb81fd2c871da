/* Numerically hostile inputs that the .mci reader accepts, through one engine
 * (argv[1]: cpu or gpu; gpu exits 77 without a GPU):
 *   trapped   a non-absorbing slab of optical thickness 10^4 (a random walk
 *             out takes ~10^8 steps): with a step limit every photon ends,
 *             some as trapped, and the weight is conserved to the rounding
 *             of the integer tallies: Rd + A + Tt + trapped = 1 - Rsp;
 *   deep_glass  (CPU) the results do not depend on the thickness of a glass
 *             layer at the bottom: photons back from 1e300 cm deep are put
 *             on the boundary exactly (the fuzzer found 1e100 changing Rd
 *             by 7 %);
 *   tiny_g    g = 1e-30 scatters as g = 0 (MCML's sampling formula gave
 *             cos theta = 0 in double and +-1 in float for it): Rd and A of
 *             the two agree within 4 standard errors, estimated from
 *             batches (independent seeds). */
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
#include "optics.h"
#include "variant.h"

#define SKIP 77

typedef struct engine {
    gpu_engine *gpu; /* NULL: the CPU engine */
} engine;

static bool simulate(engine *e, const mci_run *run, uint64_t seed, uint32_t max_steps,
                     uint64_t first, uint64_t count, tally_set *t)
{
    tm_error err;
    bool ok;
    if (e->gpu) {
        variant_options v;
        variant_options_init(&v);
        kernel_spec spec;
        gpu_options opt = {.seed = seed, .max_steps = max_steps};
        gpu_stats stats;
        ok = variant_spec_for_run(run, true, device_of(e->gpu), &v, &spec, &err) &&
             gpu_simulate(e->gpu, run, &spec, &opt, first, count, t, &stats, &err);
    } else {
        cpu_options opt = {
            .seed = seed, .threads = 2, .score_absorption = true, .max_steps = max_steps};
        ok = cpu_simulate(run, &opt, first, count, t, &err);
    }
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

static bool parse_one(const char *text, mci_file *f)
{
    tm_error err;
    if (mci_parse(text, "inline", f, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

static tally_acc_t sum(const tally_acc_t *a, size_t n)
{
    tally_acc_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static void test_trapped(engine *e)
{
    static const char *slab = "1.0\n1\nt.mco A\n1\n0.01 0.01\n20 20 5\n1\n1.0\n"
                              "1.4 0 10000 0 1\n1.0\n";
    mci_file f;
    if (!parse_one(slab, &f))
        return;
    const mci_run *run = &f.runs[0];
    const uint64_t photons = 300;
    const uint32_t max_steps = 200000;
    tally_set t;
    CHECK(tally_set_init(&t, run->nr, run->nz, run->na));
    CHECK(simulate(e, run, 11, max_steps, 0, photons, &t));
    size_t nrz = (size_t)run->nr * run->nz, nra = (size_t)run->nr * run->na;
    tally_acc_t scored = sum(t.a_rz, nrz) + sum(t.rd_ra, nra) + sum(t.tt_ra, nra) + t.trapped_units;
    /* Each photon starts with 1 - Rsp and scores it all; the escape and trap
     * roundings are at most half a unit each, the deposits' carried residue
     * at most one unit (fixed_point.h); float weights (GPU) add 2^-24 per
     * step of relative error, ~ max_steps 2^-24 < 0.02 units here. */
    double expected = (1.0 - optics_specular(run)) * TALLY_UNITS_PER_WEIGHT * (double)photons;
    double miss = fabs(tally_count(scored) - expected);
    printf("trapped: %llu of %llu photons stopped after %u steps, weight %.4f per photon; "
           "conservation miss %.1f units (bound %.0f)\n",
           (unsigned long long)t.trapped_photons, (unsigned long long)photons, max_steps,
           tally_weight(t.trapped_units) / (double)photons, miss, 2.0 * (double)photons);
    CHECK(t.trapped_photons > 0 && t.trapped_photons < photons);
    CHECK(miss <= 2.0 * (double)photons);
    /* Bounded: no photon took more than max_steps steps. */
    CHECK(tally_count(t.steps) <= (double)max_steps * (double)photons);
    tally_set_free(&t);
    mci_free(&f);
}

typedef struct batch_stats {
    double mean[2], se[2]; /* Rd, A */
} batch_stats;

/* Rd and A of `batches` batches of n photons: their means and standard
 * errors of the mean. */
static bool rd_a_batches(engine *e, const mci_run *run, uint64_t seed, int batches, uint64_t n,
                         batch_stats *s)
{
    double sum1[2] = {0, 0}, sum2[2] = {0, 0};
    size_t nrz = (size_t)run->nr * run->nz, nra = (size_t)run->nr * run->na;
    for (int b = 0; b < batches; b++) {
        tally_set t;
        if (!tally_set_init(&t, run->nr, run->nz, run->na))
            return false;
        bool ok = simulate(e, run, seed, 0, (uint64_t)b * n, n, &t);
        double v[2] = {tally_weight(sum(t.rd_ra, nra)) / (double)n,
                       tally_weight(sum(t.a_rz, nrz)) / (double)n};
        tally_set_free(&t);
        if (!ok)
            return false;
        for (int k = 0; k < 2; k++) {
            sum1[k] += v[k];
            sum2[k] += v[k] * v[k];
        }
    }
    for (int k = 0; k < 2; k++) {
        s->mean[k] = sum1[k] / batches;
        double var = (sum2[k] - batches * s->mean[k] * s->mean[k]) / (batches - 1);
        s->se[k] = sqrt(var > 0 ? var / batches : 0);
    }
    return true;
}

static void test_tiny_g(engine *e, uint64_t per_batch)
{
    static const char *tiny = "1.0\n1\nt.mco A\n1\n0.01 0.01\n20 20 5\n1\n1.0\n"
                              "1.4 0.1 100 1e-30 1\n1.0\n";
    static const char *zero = "1.0\n1\nt.mco A\n1\n0.01 0.01\n20 20 5\n1\n1.0\n"
                              "1.4 0.1 100 0 1\n1.0\n";
    mci_file ft, fz;
    if (!parse_one(tiny, &ft))
        return;
    if (!parse_one(zero, &fz)) {
        mci_free(&ft);
        return;
    }
    batch_stats st, sz;
    const int batches = 10;
    CHECK(rd_a_batches(e, &ft.runs[0], 21, batches, per_batch, &st));
    CHECK(rd_a_batches(e, &fz.runs[0], 22, batches, per_batch, &sz));
    const char *names[] = {"Rd", "A"};
    for (int k = 0; k < 2; k++) {
        double z = (st.mean[k] - sz.mean[k]) / sqrt(st.se[k] * st.se[k] + sz.se[k] * sz.se[k]);
        printf("tiny_g: %s %.5f +- %.5f (g = 1e-30) vs %.5f +- %.5f (g = 0): z = %.2f\n", names[k],
               st.mean[k], st.se[k], sz.mean[k], sz.se[k], z);
        CHECK_MSG(fabs(z) < 4.0, "%s: z = %.2f", names[k], z);
    }
    mci_free(&ft);
    mci_free(&fz);
}

static void test_deep_glass(engine *e)
{
    static const char *base = "1.0\n1\nt.mco A\n3000\n0.01 0.01\n10 10 5\n2\n1.0\n"
                              "1.37 1 10 0.9 0.1\n1.5 0 0 0 %s\n1.0\n";
    const char *depths[] = {"1e3", "1e300"};
    tally_set t[2];
    for (int k = 0; k < 2; k++) {
        char text[256];
        snprintf(text, sizeof text, base, depths[k]);
        mci_file f;
        if (!parse_one(text, &f))
            return;
        CHECK(tally_set_init(&t[k], f.runs[0].nr, f.runs[0].nz, f.runs[0].na));
        CHECK(simulate(e, &f.runs[0], 3, 0, 0, 3000, &t[k]));
        mci_free(&f);
    }
    size_t nrz = (size_t)t[0].nr * t[0].nz, nra = (size_t)t[0].nr * t[0].na;
    bool same = memcmp(t[0].a_rz, t[1].a_rz, nrz * sizeof *t[0].a_rz) == 0 &&
                memcmp(t[0].rd_ra, t[1].rd_ra, nra * sizeof *t[0].rd_ra) == 0 &&
                memcmp(t[0].tt_ra, t[1].tt_ra, nra * sizeof *t[0].tt_ra) == 0;
    printf("deep_glass: a 1e3 cm and a 1e300 cm glass layer below give %s tallies\n",
           same ? "the same" : "DIFFERENT");
    CHECK(same);
    tally_set_free(&t[0]);
    tally_set_free(&t[1]);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "gpu") != 0)) {
        fprintf(stderr, "usage: test_hostile cpu|gpu\n");
        return 2;
    }
    engine e = {NULL};
    bool gpu = strcmp(argv[1], "gpu") == 0;
    if (gpu) {
        tm_error err;
        if (!gpu_engine_open(0, &e.gpu, &err)) {
            char text[2048];
            printf("no GPU: skipped (%s)\n", error_format(&err, text, sizeof text));
            return SKIP;
        }
    }
    test_trapped(&e);
    if (!gpu) /* the GPU engine refuses the stack (variant.c: float32 depths) */
        test_deep_glass(&e);
    test_tiny_g(&e, gpu ? 200000 : 20000);
    if (e.gpu)
        gpu_engine_close(e.gpu);
    return check_summary(gpu ? "hostile (gpu)" : "hostile (cpu)");
}
