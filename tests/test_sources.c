/* Sources on the CPU engine (docs/physics.md, "Sources"):
 *   gaussian     a direct Gaussian beam against CONV's convolution of the
 *                pencil run (runtime/io/conv.c): Rd_r and A_z agree within
 *                their errors, and so do the totals; the flat beam's totals
 *                equal the Gaussian's bit for bit (a beam moves every
 *                history sideways and changes nothing else)
 *   point_slab   an isotropic point at the centre of an index-matched slab:
 *                Rd = Tt within their error, Rd + A + Tt = 1 within its
 *                error (roulette conserves weight on average), Rsp = 0
 *   diffusion    an isotropic point deep in a thick isotropically
 *                scattering medium (albedo 0.99): the fluence integrated
 *                over planes, A_z / mua, against diffusion theory at 5, 10
 *                and 15 transport lengths, the tolerance diffusion theory's
 *                own error there (from the exact transport solution, below)
 *                plus the statistical bound; and against the exact
 *                asymptotic transport solution at 10 and 15 within the
 *                statistical bound alone
 *   fiber        a fiber of radius 0 and NA 0 is the pencil beam: RAT,
 *                Rd_r and A_z within their errors, Rsp equal; a fiber of
 *                large NA into a mismatched medium, and one under a glass
 *                layer: Rsp (the cone's mean Fresnel reflectance) + Rd + A
 *                + Tt = 1 within its error
 *   determinism  every source's tallies bit-identical for 1 and 2 threads
 *                and for the run split in two calls
 *   gpu          (label gpu; exit 77 without one) each source's kernel
 *                (templates/source.cu) against the CPU engine over the
 *                same photon ranges: RAT, Rd_r and A_z within their
 *                errors; and its tallies bit-identical across variants
 *                (block size, layer placement: constant, shared,
 *                immediate) and launch splits
 * Each comparison is of the batch-by-batch differences of two runs over
 * the same photon ranges (independent histories: the sources draw first),
 * every bin a Student t with BATCHES - 1 degrees of freedom, Bonferroni
 * over the bins (stats_compare_dependent: valid under any dependence).
 * Fixed seed: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mci_text.h"
#include "conv.h"
#include "cpu.h"
#include "engine_device.h"
#include "gpu.h"
#include "mci.h"
#include "optics.h"
#include "result.h"
#include "stats.h"
#include "variant.h"

#ifndef SEED
#define SEED 20261126u
#endif
#define BATCHES     32
#define ALPHA       1e-3
#define MAX_REL_SEM 0.1 /* bins measured to 10 % or better */

/* The GPU engine of the gpu case (NULL: none). */
static gpu_engine *gpu;

static bool tallies(const mci_run *run, int threads, uint64_t first, uint64_t count, tally_set *t)
{
    tm_error err = {0};
    cpu_options opt = {.seed = SEED, .threads = threads, .score_absorption = true};
    if (tally_set_init(t, run->nr, run->nz, run->na) &&
        cpu_simulate(run, &opt, first, count, t, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

/* The result of photons [first, first + count) of run. */
static bool batch_result(const mci_run *run, uint64_t first, uint64_t count, mcml_result *res)
{
    tally_set t;
    tm_error err = {0};
    *res = (mcml_result){0};
    bool ok = tallies(run, 2, first, count, &t) && result_from_tallies(run, &t, res, &err);
    if (!ok && err.message[0])
        error_print(stderr, &err);
    tally_set_free(&t);
    return ok;
}

/* What a case compares: n values per batch of each of two runs. */
typedef struct pair {
    size_t n;
    double *a, *b; /* BATCHES x n */
} pair;

static bool pair_init(pair *p, size_t n)
{
    p->n = n;
    p->a = calloc(BATCHES * n, sizeof *p->a);
    p->b = calloc(BATCHES * n, sizeof *p->b);
    return p->a && p->b;
}

static void pair_free(pair *p)
{
    free(p->a);
    free(p->b);
}

/* a - b, batch by batch, against 0: the batch differences shifted by b's
 * mean (a constant), so that stats_compare_dependent selects bins by the
 * size of the quantity and tests mean(a) - mean(b) over the differences'
 * own spread. */
static bool pair_check(const char *name, const pair *p)
{
    batch_vec v;
    double *ref = calloc(p->n, sizeof *ref), *row = calloc(p->n, sizeof *row);
    if (!ref || !row || !batch_vec_init(&v, p->n, BATCHES)) {
        free(ref);
        free(row);
        return false;
    }
    for (int b = 0; b < BATCHES; b++)
        for (size_t i = 0; i < p->n; i++)
            ref[i] += p->b[b * p->n + i] / BATCHES;
    for (int b = 0; b < BATCHES; b++) {
        for (size_t i = 0; i < p->n; i++)
            row[i] = p->a[b * p->n + i] - p->b[b * p->n + i] + ref[i];
        batch_vec_add(&v, row);
    }
    batch_vec_finish(&v);
    z_report r = stats_compare_dependent(&v, ref, MAX_REL_SEM, ALPHA);
    stats_print_report(name, &r);
    CHECK_MSG(r.pass && r.bins > 0, "%s: %zu bins, max |z| %.2f (bound %.2f)", name, r.bins,
              r.max_abs_z, r.max_abs_z_bound);
    batch_vec_free(&v);
    free(ref);
    free(row);
    return r.pass;
}

/* What a source's case compares with another run, batch by batch: Rd_r
 * (the last ring, the rest, left out), A_z, and Rd, A and Tt. */
typedef struct comparison {
    pair rd_r, a_z, rat;
} comparison;

static bool comparison_init(comparison *c, const mci_run *run)
{
    memset(c, 0, sizeof *c); /* each pair freeable whatever fails */
    return pair_init(&c->rd_r, (size_t)run->nr - 1) && pair_init(&c->a_z, (size_t)run->nz) &&
           pair_init(&c->rat, 3);
}

/* Batch b: x's values, its Rd_r against rd_r_ref's, the others against
 * ref's. */
static void comparison_add(comparison *c, int b, const mcml_result *x, const mcml_result *rd_r_ref,
                           const mcml_result *ref)
{
    size_t nr = c->rd_r.n, nz = c->a_z.n;
    memcpy(c->rd_r.a + b * nr, x->rd_r, nr * sizeof(double));
    memcpy(c->rd_r.b + b * nr, rd_r_ref->rd_r, nr * sizeof(double));
    memcpy(c->a_z.a + b * nz, x->a_z, nz * sizeof(double));
    memcpy(c->a_z.b + b * nz, ref->a_z, nz * sizeof(double));
    double xr[3] = {x->rd, x->a, x->tt}, rr[3] = {ref->rd, ref->a, ref->tt};
    memcpy(c->rat.a + b * 3, xr, sizeof xr);
    memcpy(c->rat.b + b * 3, rr, sizeof rr);
}

static void comparison_check(const comparison *c)
{
    pair_check("Rd_r", &c->rd_r);
    pair_check("A_z", &c->a_z);
    pair_check("RAT", &c->rat);
}

static void comparison_free(comparison *c)
{
    pair_free(&c->rd_r);
    pair_free(&c->a_z);
    pair_free(&c->rat);
}

/* One quantity's mean and standard error over batches of its values. */
static void mean_sem(const double *x, int k, double *mean, double *sem)
{
    double s = 0, ss = 0;
    for (int b = 0; b < k; b++)
        s += x[b];
    *mean = s / k;
    for (int b = 0; b < k; b++)
        ss += (x[b] - *mean) * (x[b] - *mean);
    *sem = sqrt(ss / (k - 1) / k);
}

/* Photons per batch: m, times TMCML_VALIDATION_SCALE when set (the
 * sanitizer build's 0.1, as test_validation.c; the tolerances follow the
 * variance, so they stay valid). */
static uint64_t photons(uint64_t m)
{
    const char *s = getenv("TMCML_VALIDATION_SCALE");
    double scale = s ? atof(s) : 1.0;
    uint64_t n = (uint64_t)((double)m * (scale > 0 ? scale : 1.0));
    return n > 50 ? n : 50;
}

/* |t| bound of one two-sided test at ALPHA / tests. */
static double t_bound(int tests) { return stats_t_quantile_two_sided(ALPHA / tests, BATCHES - 1); }

/* ---- gaussian ------------------------------------------------------------ */

static const char *skin_like = "1.0\n1\ng.mco A\n1000\n0.01 0.01\n40 60 1\n1\n1.0\n"
                               "1.4 1.0 100.0 0.9 0.2\n1.0\n";

/* A fiber under a glass layer 1 into another n (its two surfaces'
 * Fresnel, the sideways shift), with n above 1.33. */
static const char *glass = "1.0\n1\nf.mco A\n1000\n0.01 0.01\n40 60 1\n2\n1.33\n"
                           "1.5 0 0 0 0.05\n1.4 1.0 100.0 0.9 0.2\n1.0\n";

static int case_gaussian(void)
{
    mci_file pf, gf, ff;
    if (!parse_inline(skin_like, &pf) || !parse_inline(skin_like, &gf) ||
        !parse_inline(skin_like, &ff))
        return 1;
    mci_run *pencil = &pf.runs[0], *gauss = &gf.runs[0], *flat = &ff.runs[0];
    const double w = 0.1;
    if (!run_set_source(gauss, "gaussian:0.1") || !run_set_source(flat, "flat:0.1"))
        return 1;
    const conv_beam beam = {CONV_BEAM_GAUSSIAN, w};
    const uint64_t m = photons(2000);
    comparison cmp;
    if (!comparison_init(&cmp, pencil))
        return 1;
    for (int b = 0; b < BATCHES; b++) {
        mcml_result p, g, f, c;
        tm_error err;
        if (!batch_result(pencil, b * m, m, &p) || !batch_result(gauss, b * m, m, &g) ||
            !batch_result(flat, b * m, m, &f) || !conv_result(&p, pencil->dr, &beam, &c, &err)) {
            CHECK(false);
            return check_summary("gaussian");
        }
        /* Rd_r against the convolution; A_z, Rd, A, Tt against the pencil's
         * (a beam moves weight sideways, not up or down) */
        comparison_add(&cmp, b, &g, &c, &p);
        CHECK_MSG(f.rd == g.rd && f.a == g.a && f.tt == g.tt,
                  "batch %d: the flat beam's totals %.17g %.17g %.17g, the Gaussian's %.17g %.17g "
                  "%.17g",
                  b, f.rd, f.a, f.tt, g.rd, g.a, g.tt);
        CHECK(g.rsp == p.rsp);
        result_free(&p);
        result_free(&g);
        result_free(&f);
        result_free(&c);
    }
    comparison_check(&cmp);
    comparison_free(&cmp);
    mci_free(&pf);
    mci_free(&gf);
    mci_free(&ff);
    return check_summary("gaussian");
}

/* ---- point_slab ---------------------------------------------------------- */

static int case_point_slab(void)
{
    mci_file f;
    if (!parse_inline("1.0\n1\np.mco A\n1000\n0.01 0.01\n20 20 1\n1\n1.0\n"
                      "1.0 1.0 20.0 0.8 0.2\n1.0\n",
                      &f) ||
        !run_set_source(&f.runs[0], "point:0.1"))
        return 1;
    const uint64_t m = photons(4000);
    double diff[BATCHES], sum[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        mcml_result r;
        if (!batch_result(&f.runs[0], b * m, m, &r)) {
            CHECK(false);
            return check_summary("point_slab");
        }
        CHECK(r.rsp == 0.0);
        diff[b] = r.rd - r.tt;
        sum[b] = r.rd + r.a + r.tt;
        result_free(&r);
    }
    double md, sd, ms, ss, bound = t_bound(2);
    mean_sem(diff, BATCHES, &md, &sd);
    mean_sem(sum, BATCHES, &ms, &ss);
    printf("  Rd - Tt %.6f +- %.6f, Rd + A + Tt %.6f +- %.6f (bound %.2f sem)\n", md, sd, ms, ss,
           bound);
    CHECK_MSG(fabs(md) <= bound * sd, "Rd - Tt = %g, %.2f sem", md, md / sd);
    CHECK_MSG(fabs(ms - 1.0) <= bound * ss + 1e-12, "Rd + A + Tt = %.9f, %.2f sem", ms,
              (ms - 1.0) / ss);
    mci_free(&f);
    return check_summary("point_slab");
}

/* ---- diffusion ----------------------------------------------------------- */

/* Isotropic scattering of albedo c in an infinite medium, in units of the
 * mean free path, from a unit isotropic plane source (the plane integral of
 * a point source's fluence).  Transport theory (Case & Zweifel): the flux
 * is A e^{-k|x|} plus a transient below e^{-|x|} / |x|, k the root of
 * c artanh(k) / k = 1 and A = k (1 - k^2) / (c (k^2 + c - 1)) (the pole of
 * L(q) / (1 - c L(q)), L(q) = arctan(q) / q, the Fourier transform of the
 * uncollided flux E1(|x|) / 2).  Diffusion theory: D = 1/3, mu_eff =
 * sqrt(3 (1 - c)), flux e^{-mu_eff |x|} / (2 D mu_eff).  At c = 0.99 they
 * differ by 1.1 % at 2 mean free paths, 0.87 % at 5, 0.52 % at 10 and
 * 0.17 % at 15 (diffusion higher): diffusion theory's error there, which
 * the test computes rather than states. */
typedef struct transport {
    double k, amplitude; /* exact asymptotic */
    double mu, d_amp;    /* diffusion */
} transport;

static transport transport_of(double c)
{
    double lo = 1e-9, hi = 1.0 - 1e-12;
    for (int i = 0; i < 200; i++) {
        double k = 0.5 * (lo + hi);
        if (c * atanh(k) / k > 1.0)
            hi = k;
        else
            lo = k;
    }
    transport t;
    t.k = 0.5 * (lo + hi);
    t.amplitude = t.k * (1.0 - t.k * t.k) / (c * (t.k * t.k + c - 1.0));
    t.mu = sqrt(3.0 * (1.0 - c));
    t.d_amp = 3.0 / (2.0 * t.mu);
    return t;
}

/* A e^{-k x} averaged over x in [x0, x1] (x0 >= 0). */
static double bin_mean(double amplitude, double k, double x0, double x1)
{
    return amplitude * (exp(-k * x0) - exp(-k * x1)) / (k * (x1 - x0));
}

static int case_diffusion(void)
{
    /* mut = 10/cm (mean free path 1 mm), mua 0.1: c = 0.99; the point 4 cm
     * (40 mean free paths) from either surface, whose image sources change
     * the flux at 15 paths from the point by e^{-2 k 25} < 2e-4. */
    mci_file f;
    if (!parse_inline("1.0\n1\nd.mco A\n1000\n0.05 0.1\n160 2 1\n1\n1.0\n"
                      "1.0 0.1 9.9 0.0 8.0\n1.0\n",
                      &f) ||
        !run_set_source(&f.runs[0], "point:4.0"))
        return 1;
    const mci_run *run = &f.runs[0];
    const double mua = 0.1, mut = 10.0, z0 = 4.0, c = 0.99;
    transport t = transport_of(c);
    printf("  exact: k %.6f A %.6f; diffusion: mu_eff %.6f amplitude %.6f (per mean free path)\n",
           t.k, t.amplitude, t.mu, t.d_amp);
    static const double paths[] = {5.0, 10.0, 15.0};
    enum { POINTS = 3 };
    const uint64_t m = photons(1500);
    double flux[POINTS][BATCHES];
    int bins[POINTS];
    for (int j = 0; j < POINTS; j++)
        bins[j] = (int)floor((z0 + paths[j] / mut) / run->dz); /* the bin below that depth */
    for (int b = 0; b < BATCHES; b++) {
        mcml_result r;
        if (!batch_result(run, b * m, m, &r)) {
            CHECK(false);
            return check_summary("diffusion");
        }
        for (int j = 0; j < POINTS; j++)
            flux[j][b] = r.a_z[bins[j]] / mua; /* per cm of depth: mean free paths per path */
        result_free(&r);
    }
    double bound = t_bound(2 * POINTS);
    for (int j = 0; j < POINTS; j++) {
        double x0 = (bins[j] * run->dz - z0) * mut, x1 = x0 + run->dz * mut, mean, sem;
        mean_sem(flux[j], BATCHES, &mean, &sem);
        double exact = bin_mean(t.amplitude, t.k, x0, x1), diff = bin_mean(t.d_amp, t.mu, x0, x1);
        double theory_err = fabs(diff - exact); /* diffusion theory's own error here */
        printf("  %4.0f paths: MC %.5f +- %.5f, exact %.5f, diffusion %.5f (its error %.2f %%)\n",
               paths[j], mean, sem, exact, diff, 100 * theory_err / exact);
        CHECK_MSG(fabs(mean - diff) <= theory_err + bound * sem,
                  "%g paths: MC %g, diffusion %g: beyond its error %g + %.2f sem %g", paths[j],
                  mean, diff, theory_err, bound, sem);
        /* The transient is below e^{-x} / x: 5e-6 of the flux at 10 paths. */
        if (paths[j] >= 10.0)
            CHECK_MSG(fabs(mean - exact) <= bound * sem, "%g paths: MC %g, transport %g, %.2f sem",
                      paths[j], mean, exact, (mean - exact) / sem);
    }
    mci_free(&f);
    return check_summary("diffusion");
}

/* ---- fiber --------------------------------------------------------------- */

static int case_fiber(void)
{
    mci_file pf, ff, wf, gf;
    if (!parse_inline(skin_like, &pf) || !parse_inline(skin_like, &ff) ||
        !parse_inline(skin_like, &wf) || !parse_inline(glass, &gf) ||
        !run_set_source(&ff.runs[0], "fiber:0:0") ||
        !run_set_source(&wf.runs[0], "fiber:0.05:0.9") ||
        !run_set_source(&gf.runs[0], "fiber:0.03:1.2"))
        return 1;
    const mci_run *pencil = &pf.runs[0], *fiber = &ff.runs[0], *wide = &wf.runs[0];
    CHECK_MSG(fabs(optics_specular(fiber) - optics_specular(pencil)) <= 1e-15,
              "Rsp of a fiber of NA 0 %.17g, the pencil's %.17g", optics_specular(fiber),
              optics_specular(pencil));
    const uint64_t m = photons(2000);
    comparison cmp;
    double sum[BATCHES], glass_sum[BATCHES];
    if (!comparison_init(&cmp, pencil))
        return 1;
    for (int b = 0; b < BATCHES; b++) {
        mcml_result p, q, w, g;
        if (!batch_result(pencil, b * m, m, &p) || !batch_result(fiber, b * m, m, &q) ||
            !batch_result(wide, b * m, m, &w) || !batch_result(&gf.runs[0], b * m, m, &g)) {
            CHECK(false);
            return check_summary("fiber");
        }
        comparison_add(&cmp, b, &q, &p, &p);
        sum[b] = w.rsp + w.rd + w.a + w.tt;
        glass_sum[b] = g.rsp + g.rd + g.a + g.tt;
        result_free(&g);
        result_free(&p);
        result_free(&q);
        result_free(&w);
    }
    comparison_check(&cmp);
    double ms, ss, mg, sg, bound = t_bound(2);
    mean_sem(sum, BATCHES, &ms, &ss);
    mean_sem(glass_sum, BATCHES, &mg, &sg);
    printf("  fiber NA 0.9: Rsp %.6f, Rsp + Rd + A + Tt %.6f +- %.6f\n", optics_specular(wide), ms,
           ss);
    printf("  fiber under glass: Rsp %.6f, Rsp + Rd + A + Tt %.6f +- %.6f\n",
           optics_specular(&gf.runs[0]), mg, sg);
    CHECK(optics_specular(wide) > optics_specular(pencil)); /* oblique light reflects more */
    CHECK_MSG(fabs(ms - 1.0) <= bound * ss, "Rsp + Rd + A + Tt = %.9f, %.2f sem", ms,
              (ms - 1.0) / ss);
    CHECK_MSG(fabs(mg - 1.0) <= bound * sg, "under glass: Rsp + Rd + A + Tt = %.9f, %.2f sem", mg,
              (mg - 1.0) / sg);
    comparison_free(&cmp);
    mci_free(&pf);
    mci_free(&ff);
    mci_free(&wf);
    mci_free(&gf);
    return check_summary("fiber");
}

/* ---- determinism --------------------------------------------------------- */

static int case_determinism(void)
{
    static const char *const sources[] = {"gaussian:0.05", "flat:0.05", "point:0.1",
                                          "fiber:0.02:0.4"};
    for (size_t s = 0; s < sizeof sources / sizeof sources[0]; s++) {
        mci_file f;
        if (!parse_inline("1.0\n1\nq.mco A\n1000\n0.01 0.01\n30 30 5\n2\n1.0\n"
                          "1.0 0 0 0 0.05\n1.4 2.0 80.0 0.8 0.2\n1.3\n",
                          &f) ||
            !run_set_source(&f.runs[0], sources[s]))
            return 1;
        tally_set one, two, split;
        bool ok = tallies(&f.runs[0], 1, 0, 3000, &one) && tallies(&f.runs[0], 2, 0, 3000, &two) &&
                  tallies(&f.runs[0], 2, 0, 1234, &split);
        tm_error err;
        cpu_options opt = {.seed = SEED, .threads = 2, .score_absorption = true};
        ok = ok && cpu_simulate(&f.runs[0], &opt, 1234, 3000 - 1234, &split, &err);
        CHECK_MSG(ok, "%s: simulated", sources[s]);
        if (ok) {
            uint64_t d1 = tally_set_digest(&one), d2 = tally_set_digest(&two),
                     d3 = tally_set_digest(&split);
            printf("  %-16s %016llx %016llx %016llx\n", sources[s], (unsigned long long)d1,
                   (unsigned long long)d2, (unsigned long long)d3);
            CHECK_MSG(d1 == d2 && d2 == d3, "%s: tallies differ by threads or split", sources[s]);
        }
        tally_set_free(&one);
        tally_set_free(&two);
        tally_set_free(&split);
        mci_free(&f);
    }
    return check_summary("determinism");
}

/* ---- gpu ----------------------------------------------------------------- */

/* Photons [first, first + count) of run on the GPU, the variant of the
 * knob options (word pairs), in launches of at most `launch` (0: any). */
static bool gpu_tallies(const mci_run *run, const char *options, uint64_t launch, uint64_t first,
                        uint64_t count, tally_set *t)
{
    tm_error err = {0};
    variant_options v;
    variant_options_init(&v);
    char words[128], *save = NULL;
    snprintf(words, sizeof words, "%s", options);
    bool ok = tally_set_init(t, run->nr, run->nz, run->na);
    for (char *o = strtok_r(words, " ", &save); ok && o; o = strtok_r(NULL, " ", &save))
        ok = variant_options_set(&v, o, strtok_r(NULL, " ", &save), &err);
    kernel_spec spec;
    gpu_options opt = {.seed = SEED, .max_launch_photons = launch};
    gpu_stats stats;
    ok = ok && variant_spec_for_run(run, true, device_of(gpu), &v, &spec, &err) &&
         gpu_simulate(gpu, run, &spec, &opt, first, count, t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* The GPU's result of photons [first, first + count) of run. */
static bool gpu_result(const mci_run *run, uint64_t first, uint64_t count, mcml_result *res)
{
    tally_set t;
    tm_error err = {0};
    *res = (mcml_result){0};
    bool ok = gpu_tallies(run, "", 0, first, count, &t) && result_from_tallies(run, &t, res, &err);
    if (!ok && err.message[0])
        error_print(stderr, &err);
    tally_set_free(&t);
    return ok;
}

/* One source's kernel against the CPU engine, batch by batch. */
static void gpu_against_cpu(const char *what, const mci_run *run)
{
    const uint64_t m = 20000;
    comparison cmp;
    if (!comparison_init(&cmp, run)) {
        CHECK(false);
        comparison_free(&cmp);
        return;
    }
    bool ok = true;
    for (int b = 0; ok && b < BATCHES; b++) {
        mcml_result g, c;
        ok = gpu_result(run, b * m, m, &g) && batch_result(run, b * m, m, &c);
        CHECK_MSG(ok, "%s: batch %d simulated", what, b);
        if (!ok)
            break;
        comparison_add(&cmp, b, &g, &c, &c);
        result_free(&g);
        result_free(&c);
    }
    printf("%s:\n", what);
    if (ok)
        comparison_check(&cmp);
    comparison_free(&cmp);
}

/* One source's tallies for several variants and launch splits: one digest. */
static void gpu_identity(const char *what, const mci_run *run)
{
    static const struct {
        const char *options;
        uint64_t launch;
    } ways[] = {{"", 0},
                {"--block 64 --tile 16x16 --entry 32", 0},
                {"--layers shared", 0},
                {"--layers immediate", 0},
                {"--layers constant --tile 0x0", 777}};
    uint64_t first = 0;
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        tally_set t;
        bool ok = gpu_tallies(run, ways[w].options, ways[w].launch, 0, 5000, &t);
        CHECK_MSG(ok, "%s: \"%s\" simulated", what, ways[w].options);
        uint64_t d = ok ? tally_set_digest(&t) : 0;
        printf("  %-14s %-40s %016llx\n", what, ways[w].options, (unsigned long long)d);
        if (w == 0)
            first = d;
        CHECK_MSG(d == first, "%s: \"%s\" gives other tallies", what, ways[w].options);
        tally_set_free(&t);
    }
}

static int case_gpu(void)
{
    static const char *const sources[] = {"gaussian:0.1", "flat:0.1", "point:0.1",
                                          "fiber:0.03:0.5"};
    for (size_t s = 0; s <= sizeof sources / sizeof sources[0]; s++) {
        const char *text = s < 4 ? sources[s] : "fiber:0.03:1.2";
        mci_file f;
        if (!parse_inline(s < 4 ? skin_like : glass, &f) || !run_set_source(&f.runs[0], text))
            return 1;
        gpu_against_cpu(text, &f.runs[0]);
        gpu_identity(text, &f.runs[0]);
        mci_free(&f);
    }
    return check_summary("gpu");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"gaussian", case_gaussian},       {"point_slab", case_point_slab},
        {"diffusion", case_diffusion},     {"fiber", case_fiber},
        {"determinism", case_determinism}, {"gpu", case_gpu}};
    const char *name = argc > 1 ? argv[1] : "";
    return engine_device_run_case(
        &gpu, strcmp(name, "gpu") == 0, name, cases, sizeof cases / sizeof cases[0],
        "usage: test_sources gaussian|point_slab|diffusion|fiber|determinism|gpu\n");
}
