/* Spatial frequencies on the CPU engine (docs/physics.md, "Spatial
 * frequencies"): R(fx), T(fx) scored at each escape as w J0(2 pi fx rho).
 *   zero       at fx = 0 (J0 = 1) the positive part is the escape tally's
 *              sum in integers and the negative part 0, so Rd_fx[0] is Rd
 *              and Tt_fx[0] Tt bit for bit, for the run and for each
 *              absorption set; every run's tallies are the plain run's; the
 *              tallies are the same on 1 and 2 threads and in two calls
 *   hankel     against the Hankel transform of the same run's Rd_r and
 *              Tt_r on a fine grid, sum over rings of the ring's weight
 *              times J0 at its centre: the same escapes, so they differ by
 *              the binning alone (within a ring J0 moves by at most
 *              2 pi fx dr / 2 x max|J1|, and the last ring, MCML's overflow,
 *              by at most the range of J0) and the fixed point's rounding
 *   diffusion  a semi-infinite medium of mus'/mua = 100 with n = 1.4 against
 *              diffusion theory's R(fx) (Cuccia et al. 2009, J. Biomed. Opt.
 *              14, 024012, eqs. 8-10), at 2 pi fx <= 0.3 mu_tr: within the
 *              model's own error, 3 % (what this test allows; measured here
 *              +0.7 to +1.3 %), plus the batches' error; R(fx) / R(0), in
 *              which the model's error of the total mostly cancels, within
 *              1 % plus the batches' error
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "cpu_bessel.h"
#include "cpu_sets.h"
#include "mci.h"
#include "mci_text.h"
#include "optics.h"
#include "result.h"
#include "stats.h"

#define SEED    20260318u
#define BATCHES 16
#define TWO_PI  6.283185307179586476925286766559
/* The largest |J1| (at x = 1.8412): J0 moves by at most this times the
 * change of its argument. */
#define J1_MAX  0.5819

static bool tallies(const mci_run *run, int num_sets, const double *mua, int threads,
                    uint64_t first, uint64_t count, tally_set *t, bool init)
{
    return cpu_sets_tallies(run, SEED, num_sets, mua, threads, first, count, t, init);
}

static bool set_fx(mci_run *run, const double *fx, int count)
{
    free(run->fx);
    run->fx = malloc((size_t)count * sizeof *run->fx);
    if (!run->fx)
        return false;
    memcpy(run->fx, fx, (size_t)count * sizeof *fx);
    run->fx_count = count;
    return true;
}

static tally_acc_t tally_sum(const tally_acc_t *v, size_t n)
{
    tally_acc_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* At fx = 0 (frequency 0 of t): the escape tallies' sums, nothing negative,
 * and the normalised arrays RAT's bit for bit. */
static void check_zero(const char *what, const mci_run *run, const tally_set *t)
{
    size_t bins = (size_t)run->nr * (size_t)run->na, nf = (size_t)run->fx_count;
    CHECK_MSG(t->rd_fx_parts && t->rd_fx_parts[0] == tally_sum(t->rd_ra, bins) &&
                  t->rd_fx_parts[nf] == 0,
              "%s: Rd_fx's parts at 0 against Rd_ra's sum", what);
    CHECK_MSG(t->tt_fx_parts && t->tt_fx_parts[0] == tally_sum(t->tt_ra, bins) &&
                  t->tt_fx_parts[nf] == 0,
              "%s: Tt_fx's parts at 0 against Tt_ra's sum", what);
    mcml_result res;
    tm_error err = {0};
    CHECK(result_from_tallies(run, t, &res, &err));
    CHECK_MSG(res.rd_fx && res.rd_fx[0] == res.rd && res.tt_fx[0] == res.tt,
              "%s: Rd_fx[0] %.17g, Rd %.17g; Tt_fx[0] %.17g, Tt %.17g", what,
              res.rd_fx ? res.rd_fx[0] : -1, res.rd, res.tt_fx ? res.tt_fx[0] : -1, res.tt);
    CHECK_MSG(res.rd_fx && res.rd_fx[1] < res.rd && res.rd_fx[2] < res.rd_fx[1],
              "%s: R(fx) does not fall with fx", what);
    result_free(&res);
}

static int case_zero(void)
{
    /* A glass layer over two layers of a thin slab: escapes both ways. */
    static const char *text = "1.0\n1\nz.mco A\n1000\n0.005 0.01\n40 30 3\n3\n1.0\n"
                              "1.5 0 0 0 0.02\n1.37 0.5 30 0.8 0.05\n1.37 1 40 0.7 0.1\n1.0\n";
    static const double fx[] = {0, 0.5, 1, 4, 25};
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    mci_run plain;
    CHECK(mci_run_copy(&plain, run) && set_fx(run, fx, 5));
    uint64_t n = 30000;
    tally_set a, b, c, sets[2];
    CHECK(tallies(&plain, 0, NULL, 2, 0, n, &a, true) && tallies(run, 0, NULL, 2, 0, n, &b, true));
    CHECK_MSG(!a.rd_fx_parts && b.rd_fx_parts && b.tt_fx_parts && b.frequencies == 5,
              "the frequency tallies: only in the run that asks");
    CHECK_MSG(tally_set_runs_equal(&a, &b), "the run with frequencies scores other tallies");
    check_zero("run", run, &b);
    CHECK(tallies(run, 0, NULL, 1, 0, 12345, &c, true) &&
          tallies(run, 0, NULL, 1, 12345, n - 12345, &c, false));
    CHECK_MSG(tally_set_equal(&b, &c), "1 thread in two calls differs from 2 threads");
    /* A negative part where J0 is: fx = 25 /cm, 2 pi fx rho > 2.4 beyond
     * 0.015 cm. */
    CHECK_MSG(b.rd_fx_parts[5 + 4] > 0, "no negative part at 25 /cm");
    static const double mua[2 * 3] = {0, 0.5, 1, 0, 2, 3};
    CHECK(tallies(run, 2, mua, 2, 0, n, sets, true));
    check_zero("set 1", run, &sets[0]);
    check_zero("set 2", run, &sets[1]);
    tally_set_free(&a);
    tally_set_free(&b);
    tally_set_free(&c);
    tally_set_free(&sets[0]);
    tally_set_free(&sets[1]);
    mci_run_free(&plain);
    mci_free(&f);
    return check_summary("zero");
}

static tally_acc_t row_sum(const tally_acc_t *v, int row, int cols)
{
    tally_acc_t s = 0;
    for (int c = 0; c < cols; c++)
        s += v[(size_t)row * cols + c];
    return s;
}

/* R(fx) of the tallies t (parts, nf frequencies, k-th) per photon. */
static double fx_value(const tally_acc_t *parts, int nf, int k, double n)
{
    return (tally_weight(parts[k]) - tally_weight(parts[nf + k])) / n;
}

/* One side (the escape tally e, the frequencies' parts): the rings' sum
 * against the tally, and the binning bound. */
static void check_hankel(const char *side, const mci_run *run, const tally_set *t,
                         const tally_acc_t *e, const tally_acc_t *parts)
{
    double n = (double)t->photons, dr = run->dr;
    for (int k = 0; k < run->fx_count; k++) {
        double omega = TWO_PI * run->fx[k], rings = 0, bound = 0;
        for (int ir = 0; ir < run->nr; ir++) {
            double w = tally_weight(row_sum(e, ir, run->na)) / n;
            rings += w * cpu_bessel_j0(omega * (ir + 0.5) * dr);
            /* MCML's last ring holds every escape beyond the grid: J0
             * there is anywhere in [-0.403, 1]. */
            bound += w * (ir == run->nr - 1 ? 1.403 : omega * dr / 2 * J1_MAX);
        }
        /* Each escape's two scores are rounded to a unit each. */
        bound += 2.0 / TALLY_UNITS_PER_WEIGHT;
        double got = fx_value(parts, run->fx_count, k, n);
        printf("%s(%g /cm): %.8f, the rings' %.8f: difference %.3g, binning bound %.3g\n", side,
               run->fx[k], got, rings, got - rings, bound);
        CHECK_MSG(fabs(got - rings) <= bound, "%s at %g /cm: %g off, bound %g", side, run->fx[k],
                  got - rings, bound);
        /* The test has power: a J0 of the wrong argument (fx for 2 pi fx)
         * moves R(fx) by far more. */
        CHECK(bound < 0.05 * fabs(got));
    }
}

static int case_hankel(void)
{
    /* 3 um rings to 3 cm; a slab thin enough for a transmittance. */
    static const char *text = "1.0\n1\nh.mco A\n1000\n0.01 0.0003\n1 10000 1\n1\n1.0\n"
                              "1.4 0.5 50 0.8 0.1\n1.0\n";
    static const double fx[] = {0.25, 1, 2.5, 5};
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    tally_set t;
    CHECK(set_fx(run, fx, 4) && tallies(run, 0, NULL, 2, 0, 50000, &t, true));
    check_hankel("R", run, &t, t.rd_ra, t.rd_fx_parts);
    check_hankel("T", run, &t, t.tt_ra, t.tt_fx_parts);
    tally_set_free(&t);
    mci_free(&f);
    return check_summary("hankel");
}

/* Diffusion theory's R(fx) of a semi-infinite medium (Cuccia et al. 2009,
 * eqs. 8-10): a' = mus' / mu_tr, mu_eff' = sqrt(3 mua mu_tr + (2 pi fx)^2),
 * A from Groenhuis's R_eff of the index n against air. */
static double diffusion_rd(double mua, double musp, double n, double fx)
{
    double mutr = mua + musp, ap = musp / mutr;
    double reff = 0.0636 * n + 0.668 + 0.710 / n - 1.440 / (n * n);
    double a = (1 - reff) / (2 * (1 + reff));
    double k = TWO_PI * fx, mueff = sqrt(3 * mua * mutr + k * k);
    return 3 * a * ap / ((mueff / mutr + 1) * (mueff / mutr + 3 * a));
}

#define DIFFUSION_FX    3
#define MODEL_ERROR     0.03
#define MODEL_ERROR_FX0 0.01

static int case_diffusion(void)
{
    /* mua 0.1, mus 10 (g 0: mus' 10 /cm), 100 cm deep: semi-infinite. */
    static const char *text = "1.0\n1\nd.mco A\n1000\n0.01 0.01\n1 10 1\n1\n1.0\n"
                              "1.4 0.1 10 0 100\n1.0\n";
    static const double fx[DIFFUSION_FX] = {0, 0.25, 0.5}; /* 2 pi fx / mu_tr <= 0.31 */
    const double mua = 0.1, musp = 10, n = 1.4;
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    CHECK(set_fx(run, fx, DIFFUSION_FX));
    /* The model's source is the light that enters: the photons' weight
     * after the specular reflection, 1 - Rsp. */
    double entered = 1 - optics_specular(run);
    batch_vec v;
    CHECK(batch_vec_init(&v, 2 * DIFFUSION_FX, BATCHES));
    for (int b = 0; b < BATCHES; b++) {
        tally_set t;
        CHECK(tallies(run, 0, NULL, 2, (uint64_t)b * 6000, 6000, &t, true));
        double x[2 * DIFFUSION_FX], r0 = fx_value(t.rd_fx_parts, DIFFUSION_FX, 0, 6000);
        for (int k = 0; k < DIFFUSION_FX; k++) {
            x[k] = fx_value(t.rd_fx_parts, DIFFUSION_FX, k, 6000) / entered;
            x[DIFFUSION_FX + k] = x[k] * entered / r0;
        }
        batch_vec_add(&v, x);
        tally_set_free(&t);
    }
    batch_vec_finish(&v);
    double t_q = stats_t_quantile_two_sided(1e-4, BATCHES - 1);
    double d0 = diffusion_rd(mua, musp, n, 0);
    for (int k = 0; k < DIFFUSION_FX; k++) {
        double d = diffusion_rd(mua, musp, n, fx[k]), ratio = d / d0;
        double sem = sqrt(v.var[k] / BATCHES), sem_ratio = sqrt(v.var[DIFFUSION_FX + k] / BATCHES);
        double got = v.mean[k], got_ratio = v.mean[DIFFUSION_FX + k];
        printf("fx %.2f /cm: MC %.5f +- %.5f, diffusion %.5f (%+.2f %%); R/R(0) %.5f +- %.5f, "
               "diffusion's %.5f (%+.2f %%)\n",
               fx[k], got, sem, d, 100 * (got - d) / d, got_ratio, sem_ratio, ratio,
               100 * (got_ratio - ratio) / ratio);
        CHECK_MSG(fabs(got - d) <= MODEL_ERROR * d + t_q * sem, "R(%g): %g against %g", fx[k], got,
                  d);
        CHECK_MSG(fabs(got_ratio - ratio) <= MODEL_ERROR_FX0 * ratio + t_q * sem_ratio,
                  "R(%g) / R(0): %g against %g", fx[k], got_ratio, ratio);
        CHECK(sem < 0.005 * got); /* the test has power */
    }
    batch_vec_free(&v);
    mci_free(&f);
    return check_summary("diffusion");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"zero", case_zero}, {"hankel", case_hankel}, {"diffusion", case_diffusion}};
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof cases[0],
                          "usage: test_fx zero|hankel|diffusion\n");
}
