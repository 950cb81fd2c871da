/* Time-resolved escapes and the fiber detector on the CPU engine
 * (docs/outputs.md, "Time-resolved"; docs/physics.md, "Fiber detector"):
 *   sums         the time tallies sum to the escape tallies in integers,
 *                ring by ring (so sum Rd_t dt = Rd), Rd and Tt; a detector
 *                at the axis with NA 1 collects exactly the rings it covers,
 *                with NA 0.5 exactly their first angle bin of 30 degrees;
 *                every run's tallies are the plain run's bit for bit; with
 *                absorption sets, each set's sums too; the same for 1 and 2
 *                threads and a run split in two calls
 *   decay        a homogeneous semi-infinite medium: the late-time log slope
 *                of Rd_t t^(3/2) (diffusion's form) is -mua c / n, within
 *                the weighted fit's error
 *   mean_time    one layer: the mean time of flight of the reflected and
 *                transmitted light from Rd_t and Tt_t is n / c times the mean
 *                path (Rd_path_total, Tt_path_total) of the same histories,
 *                to half a bin
 *   fiber        a detector off the axis (NA 1) against the rings' Rd
 *                weighted with the fraction of each ring inside the face,
 *                within the rings' binning bound and the batches' error
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mci_text.h"
#include "cpu.h"
#include "cpu_sets.h"
#include "detector.h"
#include "mci.h"
#include "result.h"
#include "stats.h"
#include "time_bins.h"

#define SEED    20261126u
#define BATCHES 16

/* Photons [first, first + count) of run (num_sets absorption sets, 0:
 * none) into t (num_sets or 1 tally sets, initialised here when init). */
static bool tallies(const mci_run *run, int num_sets, const double *mua, int threads,
                    uint64_t first, uint64_t count, tally_set *t, bool init)
{
    return cpu_sets_tallies(run, SEED, num_sets, mua, threads, first, count, t, init);
}

static tally_acc_t row_sum(const tally_acc_t *v, int row, int cols)
{
    tally_acc_t s = 0;
    for (int c = 0; c < cols; c++)
        s += v[(size_t)row * cols + c];
    return s;
}

/* Ring by ring, each time tally sums to its escape tally; the detector at
 * the axis (radius rings dr, NA na_bins: every angle bin or the first)
 * collects exactly those rings' escapes. */
static void check_sums(const char *what, const mci_run *run, const tally_set *t, int rings,
                       bool first_angle_only)
{
    int nt = run->time_nt, na = run->na;
    for (int ir = 0; ir < run->nr; ir++) {
        CHECK_MSG(row_sum(t->rd_rt, ir, nt) == row_sum(t->rd_ra, ir, na),
                  "%s: ring %d, Rd_rt against Rd_ra", what, ir);
        CHECK_MSG(row_sum(t->tt_rt, ir, nt) == row_sum(t->tt_ra, ir, na),
                  "%s: ring %d, Tt_rt against Tt_ra", what, ir);
    }
    tally_acc_t covered = 0;
    for (int ir = 0; ir < rings; ir++)
        covered += first_angle_only ? t->rd_ra[(size_t)ir * na] : row_sum(t->rd_ra, ir, na);
    CHECK_MSG(t->rd_fiber && t->rd_fiber[0] == covered,
              "%s: the detector at the axis, %.0f units against the rings' %.0f", what,
              t->rd_fiber ? tally_count(t->rd_fiber[0]) : -1.0, tally_count(covered));
    CHECK_MSG(covered > 0, "%s: nothing reached the detector", what);
}

static int case_sums(void)
{
    /* Two layers over a thin slab so that both Rd and Tt have weight; a
     * glass layer on top; the detector covers rings 0..4. */
    static const char *text = "1.0\n1\ns.mco A\n1000\n0.005 0.01\n40 30 3\n3\n1.0\n"
                              "1.5 0 0 0 0.02\n1.37 0.5 30 0.8 0.05\n1.37 1 40 0.7 0.1\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    mci_run plain;
    CHECK(mci_run_copy(&plain, run));
    run->time_dt = 0.002;
    run->time_nt = 40;
    run->fiber_count = 1;
    run->fibers[0] = (fiber_detector){0.0, 5 * run->dr, 1.0};
    uint64_t n = 30000;
    tally_set a, b, c, sets[2];
    CHECK(tallies(&plain, 0, NULL, 2, 0, n, &a, true));
    CHECK(tallies(run, 0, NULL, 2, 0, n, &b, true));
    CHECK_MSG(!a.rd_rt && !a.rd_fiber && b.rd_rt && b.tt_rt && b.rd_fiber && b.nt == 40 &&
                  b.detectors == 1,
              "the optional tallies: only in the run that asks");
    CHECK_MSG(tally_set_runs_equal(&a, &b), "the run with time bins scores other tallies");
    check_sums("run", run, &b, 5, false);
    /* Split in two calls on one thread: the same tallies. */
    CHECK(tallies(run, 0, NULL, 1, 0, 12345, &c, true) &&
          tallies(run, 0, NULL, 1, 12345, n - 12345, &c, false));
    CHECK_MSG(tally_set_equal(&b, &c), "1 thread in two calls differs from 2 threads");
    /* The normalised arrays: sum Rd_t dt = Rd, sum Tt_t dt = Tt. */
    mcml_result res;
    tm_error err = {0};
    CHECK(result_from_tallies(run, &b, &res, &err));
    double rd = 0, tt = 0;
    for (int it = 0; it < run->time_nt; it++) {
        rd += res.rd_t[it] * run->time_dt;
        tt += res.tt_t[it] * run->time_dt;
    }
    printf("sum Rd_t dt %.15g, Rd %.15g; sum Tt_t dt %.15g, Tt %.15g; Rd_fiber %.6g\n", rd, res.rd,
           tt, res.tt, res.rd_fiber[0]);
    CHECK(fabs(rd - res.rd) <= 1e-12 * res.rd && fabs(tt - res.tt) <= 1e-12 * res.tt);
    CHECK(res.tt > 0.01 && res.rd > 0.01);
    result_free(&res);
    /* NA 0.5 (30 degrees in air) with 3 angle bins of 30 degrees: the
     * first angle bin of the covered rings, exactly. */
    run->fibers[0].na = 0.5;
    tally_set_free(&c);
    CHECK(tallies(run, 0, NULL, 2, 0, n, &c, true));
    check_sums("NA 0.5", run, &c, 5, true);
    /* Absorption sets: each set's sums. */
    static const double mua[2 * 3] = {0, 0.5, 1, 0, 2, 3};
    run->fibers[0].na = 1.0;
    CHECK(tallies(run, 2, mua, 2, 0, n, sets, true));
    check_sums("set 1", run, &sets[0], 5, false);
    check_sums("set 2", run, &sets[1], 5, false);
    for (int k = 0; k < 2; k++)
        tally_set_free(&sets[k]);
    tally_set_free(&a);
    tally_set_free(&b);
    tally_set_free(&c);
    mci_run_free(&plain);
    mci_free(&f);
    return check_summary("sums");
}

/* Batch b of run's photons (count each) as a result. */
static bool batch_result(const mci_run *run, int b, uint64_t count, mcml_result *res)
{
    tally_set t;
    tm_error err = {0};
    bool ok = tallies(run, 0, NULL, 2, (uint64_t)b * count, count, &t, true) &&
              result_from_tallies(run, &t, res, &err);
    if (!ok && err.message[0])
        error_print(stderr, &err);
    tally_set_free(&t);
    return ok;
}

/* Semi-infinite, index-matched, isotropic scattering: diffusion theory
 * gives the reflectance's late tail as t^(-3/2) exp(-mua v t)
 * exp(-z0^2 / (4 D v t)), v = c / n.  The fit of ln(Rd_t t^(3/2)) +
 * z0^2 / (4 D v t) against t over the late bins (0.2 to 0.7 ns, 3 to 11
 * mean free paths of absorption, 40 to 150 transport mean free paths of
 * scattering) has slope -mua v; weights from each bin's variance over the
 * batches, the slope's standard error from the fit, a 4.5-sigma bound. */
static int case_decay(void)
{
    static const char *text = "1.0\n1\nd.mco A\n1000\n0.01 0.05\n1 20 1\n1\n1.4\n"
                              "1.4 0.5 10 0 1e6\n1.4\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    run->time_dt = 0.01;
    run->time_nt = 100;
    const double mua = 0.5, mus = 10, n = 1.4, v = TIME_LIGHT_CM_PER_NS / n;
    const double mut = mua + mus, z0 = 1.0 / mut, D = 1.0 / (3.0 * mut);
    const int first = 20, last = 70;
    batch_vec rd;
    CHECK(batch_vec_init(&rd, (size_t)run->time_nt, BATCHES));
    for (int b = 0; b < BATCHES; b++) {
        mcml_result res;
        if (!batch_result(run, b, 40000, &res)) {
            CHECK(false);
            break;
        }
        batch_vec_add(&rd, res.rd_t);
        result_free(&res);
    }
    batch_vec_finish(&rd);
    /* Weighted least squares of y = a + s t. */
    double sw = 0, st = 0, sy = 0, stt = 0, sty = 0;
    for (int i = first; i < last; i++) {
        double t = (i + 0.5) * run->time_dt, m = rd.mean[i];
        double var_y = rd.var[i] / BATCHES / (m * m); /* of ln(mean) */
        CHECK_MSG(m > 0 && var_y > 0, "bin %d: no weight", i);
        if (!(m > 0 && var_y > 0))
            continue;
        double y = log(m * pow(t, 1.5)) + z0 * z0 / (4 * D * v * t), w = 1 / var_y;
        sw += w;
        st += w * t;
        sy += w * y;
        stt += w * t * t;
        sty += w * t * y;
    }
    double det = sw * stt - st * st;
    double slope = (sw * sty - st * sy) / det, slope_sd = sqrt(sw / det);
    double want = -mua * v;
    printf("decay: slope %.5g +- %.3g /ns, -mua c / n %.5g (%.2f sigma)\n", slope, slope_sd, want,
           (slope - want) / slope_sd);
    CHECK_MSG(fabs(slope - want) <= 4.5 * slope_sd, "slope %g, want %g +- 4.5 x %g", slope, want,
              slope_sd);
    CHECK(slope_sd < 0.05 * mua * v); /* the test has power */
    batch_vec_free(&rd);
    mci_free(&f);
    return check_summary("decay");
}

/* One layer: each escape's time is n L / c exactly, L its path, and its
 * bin's centre is within dt / 2 of it (the last bin, which collects the
 * rest, must be empty), so the mean time over the escaping weight from the
 * bins is n / c times the mean path to dt / 2, plus the path tally's
 * rounding (2^-24 weight cm an escape, far below). */
static int case_mean_time(void)
{
    static const char *text = "1.0\n1\nm.mco A\n1000\n0.01 0.01\n20 30 5\n1\n1.0\n"
                              "1.33 1 50 0.8 0.3\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    run->path_lengths = true;
    run->time_dt = 0.0005;
    run->time_nt = 5000;
    tally_set t;
    mcml_result res;
    tm_error err = {0};
    CHECK(tallies(run, 0, NULL, 2, 0, 20000, &t, true) && result_from_tallies(run, &t, &res, &err));
    const double n = 1.33, dt = run->time_dt;
    for (int k = 0; k < 2; k++) {
        const double *bins = k == 0 ? res.rd_t : res.tt_t;
        double total = k == 0 ? res.rd : res.tt,
               path = k == 0 ? res.rd_path_total[1] : res.tt_path_total[1];
        double mean = 0;
        for (int it = 0; it < run->time_nt; it++)
            mean += (it + 0.5) * dt * bins[it] * dt;
        mean /= total;
        double want = n / TIME_LIGHT_CM_PER_NS * path;
        printf("%s: mean time %.6g ns, n L / c %.6g ns (dt / 2 = %g)\n", k == 0 ? "Rd" : "Tt", mean,
               want, dt / 2);
        CHECK(bins[run->time_nt - 1] == 0.0);
        CHECK_MSG(fabs(mean - want) <= dt / 2 + 1e-9, "%s: mean time %g, n L / c %g",
                  k == 0 ? "Rd" : "Tt", mean, want);
        CHECK(total > 0.05);
    }
    result_free(&res);
    tally_set_free(&t);
    mci_free(&f);
    return check_summary("mean_time");
}

/* The fraction of the face over ring ir, weighted by area as a uniform
 * density in the ring would be, and the spread of the fraction within the
 * ring (max - min), from m points. */
static void ring_fraction(double dr, int ir, double sep, double radius, double *mean,
                          double *spread)
{
    const int m = 400;
    double sum = 0, area = 0, lo = 2, hi = -1;
    for (int j = 0; j <= m; j++) {
        double r = (ir + (double)j / m) * dr;
        double f = detector_fiber_fraction(r, sep, radius);
        double w = (j == 0 || j == m ? 0.5 : 1.0) * r;
        sum += w * f;
        area += w;
        lo = fmin(lo, f);
        hi = fmax(hi, f);
    }
    *mean = area > 0 ? sum / area : 0;
    *spread = hi - lo;
}

/* A face of radius 0.05 cm at 0.15 cm from the axis, NA 1 in air: its
 * collection per photon against the sum over rings of the ring's reflected
 * weight per photon times its mean fraction.  The two differ by at most
 * the sum of the rings' weight times their fraction's spread (the escapes'
 * positions within a ring are not uniform) - the binning bound - and by
 * their statistical difference, from the same histories batch by batch. */
static int case_fiber(void)
{
    static const char *text = "1.0\n1\nf.mco A\n1000\n0.01 0.001\n1 300 1\n1\n1.0\n"
                              "1.4 0.5 50 0.8 1e6\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    run->fiber_count = 1;
    run->fibers[0] = (fiber_detector){0.15, 0.05, 1.0};
    double frac[300], spread[300];
    for (int ir = 0; ir < run->nr; ir++)
        ring_fraction(run->dr, ir, run->fibers[0].sep, run->fibers[0].radius, &frac[ir],
                      &spread[ir]);
    batch_vec d;
    CHECK(batch_vec_init(&d, 1, BATCHES));
    double bias = 0, detected = 0;
    for (int b = 0; b < BATCHES; b++) {
        tally_set t;
        CHECK(tallies(run, 0, NULL, 2, (uint64_t)b * 10000, 10000, &t, true));
        double n = (double)t.photons, rings = 0;
        for (int ir = 0; ir < run->nr - 1; ir++) { /* the last ring is MCML's overflow */
            double w = tally_weight(row_sum(t.rd_ra, ir, run->na)) / n;
            rings += w * frac[ir];
            bias += w * spread[ir] / BATCHES;
        }
        double fiber = tally_weight(t.rd_fiber[0]) / n, diff = fiber - rings;
        detected += fiber / BATCHES;
        batch_vec_add(&d, &diff);
        tally_set_free(&t);
    }
    batch_vec_finish(&d);
    double sem = sqrt(d.var[0] / BATCHES);
    double bound = bias + stats_t_quantile_two_sided(1e-4, BATCHES - 1) * sem;
    printf("fiber: collected %.6g, minus the rings' %.3g (binning bound %.3g, sem %.3g)\n",
           detected, d.mean[0], bias, sem);
    CHECK_MSG(fabs(d.mean[0]) <= bound, "difference %g, bound %g", d.mean[0], bound);
    CHECK(bias < 0.05 * detected && detected > 0.005); /* the test has power */
    batch_vec_free(&d);
    mci_free(&f);
    return check_summary("fiber");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"sums", case_sums},
                                       {"decay", case_decay},
                                       {"mean_time", case_mean_time},
                                       {"fiber", case_fiber}};
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof cases[0],
                          "usage: test_time sums|decay|mean_time|fiber\n");
}
