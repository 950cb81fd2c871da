/* Time bins and the fiber detector through the public header alone
 * (tmcml_problem_set_time_bins, tmcml_problem_set_fiber_detector): bad
 * values refused with a message naming them, the problem unchanged; a run
 * has the optional arrays (sum Rd_t dt = Rd) and tallies, its other
 * tallies the plain run's bit for bit; AUTO takes the CPU engine and GPU is
 * refused; a batch mixing problems with and without them gives each its own
 * run, one mixing bin counts is refused; the .mco round trip keeps the
 * settings and arrays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_two_layers.h"
#include "check.h"
#include "tmcml.h"

static tmcml_problem *problem(tmcml_session *s, int nt, double radius)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK(tmcml_problem_set_time_bins(s, p, 0.01, nt) == TMCML_OK);
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.0, radius, 1.0) == TMCML_OK);
    return p;
}

static void test_setters(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0, 0.0);
    double dt = -1, sep = -1, radius = -1, na = -1;
    CHECK(tmcml_problem_time_bins(p, &dt) == 0 && dt == 0.0);
    CHECK(tmcml_problem_fiber_detector(p, &sep, &radius, &na) == 0 && radius == 0.0);
    CHECK(tmcml_problem_set_time_bins(s, p, 0.0, 10) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "bin width 0 ns is not a finite number > 0");
    CHECK(tmcml_problem_set_time_bins(s, p, 0.01, -3) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "-3 time bins");
    CHECK(tmcml_problem_set_time_bins(s, p, NAN, 10) == TMCML_ERR_ARGUMENT);
    /* Widths that are subnormal or too narrow to normalise (1e-320 wrote
     * NaN and Inf into Rd_rt), and bins whose range overflows (issue 42). */
    CHECK(tmcml_problem_set_time_bins(s, p, 1e-320, 10) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "time bins: bin width 9.99989e-321 ns is below");
    CHECK(tmcml_problem_set_time_bins(s, p, 1e-300, 10) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "bin width 1e-300 ns is below 1e-09 ns");
    /* A width in seconds (1e-11 for 10 ps, MCX's habit; issue 47). */
    CHECK(tmcml_problem_set_time_bins(s, p, 1e-11, 50) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "it looks like seconds; time bins are in ns");
    CHECK(tmcml_problem_set_time_bins(s, p, 1e-5, 50) == TMCML_OK); /* 10 fs: taken */
    CHECK(tmcml_problem_set_time_bins(s, p, 0.0, 0) == TMCML_OK);   /* none again */
    CHECK(tmcml_problem_set_time_bins(s, p, 1e307, 1000) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "1000 bins of 1e+307 ns end beyond");
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.1, 1e-320, 0.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "radius 9.99989e-321 is too small to compute with");
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.1, 0.1, 1.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "numerical aperture 1.5 exceeds");
    CHECK(tmcml_problem_set_fiber_detector(s, p, -0.1, 0.1, 0.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "separation -0.1 cm");
    CHECK(tmcml_problem_time_bins(p, NULL) == 0 && !tmcml_problem_fiber_detector(p, 0, 0, 0));
    CHECK(tmcml_problem_set_time_bins(s, NULL, 0.01, 10) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_fiber_detector(s, NULL, 0, 0.1, 0.5) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_time_bins(s, p, 0.02, 7) == TMCML_OK);
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.1, 0.2, 0.3) == TMCML_OK);
    CHECK(tmcml_problem_time_bins(p, &dt) == 7 && dt == 0.02);
    CHECK(tmcml_problem_fiber_detector(p, &sep, &radius, &na) == 1 && sep == 0.1 && radius == 0.2 &&
          na == 0.3);
    /* Kept when the problem is given its photons or name after them (both
     * were dropped: the problem is rebuilt from its .mci text). */
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(tmcml_problem_time_bins(p, &dt) == 7 && dt == 0.02);
    CHECK(tmcml_problem_fiber_detector(p, &sep, &radius, &na) == 1 && sep == 0.1 && radius == 0.2 &&
          na == 0.3);
    tmcml_problem_delete(p);
}

static void tallies(tmcml_session *s, const tmcml_result *r, tmcml_array which, uint64_t *lo,
                    size_t n)
{
    uint64_t *hi = calloc(n, sizeof *hi);
    CHECK(tmcml_result_tallies(s, r, which, lo, hi, n) == TMCML_OK);
    for (size_t i = 0; i < n; i++)
        CHECK(hi[i] == 0);
    free(hi);
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 30, 0.05), *plain = problem(s, 0, 0.0);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_GPU);
    tmcml_result *r = NULL, *q = NULL, *two[2] = {NULL, NULL};
    /* A run's own GPU kernel scores them: a batch of two on the GPU is
     * refused (the absorption sets too), AUTO takes the CPU. */
    const tmcml_problem *pair[2] = {p, plain};
    CHECK(tmcml_run_batch(s, pair, 2, &opt, two) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "time bins and fiber detectors are scored on the GPU");
    static const double mua[2 * 2] = {0.5, 1.0, 1.0, 2.0};
    CHECK(tmcml_run_sets(s, p, mua, 2, &opt, two) == TMCML_ERR_ARGUMENT);
    options(&opt, TMCML_ENGINE_AUTO);
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    CHECK(tmcml_run(s, plain, &opt, &q) == TMCML_OK);
    if (!r || !q)
        return;
    size_t n = 0, shape[TMCML_ARRAY_MAX_DIMS];
    const double *rd_t = tmcml_result_array(r, TMCML_RD_T, &n);
    CHECK(rd_t && n == 30);
    CHECK(tmcml_result_array_shape(r, TMCML_RD_RT, shape) == 2 && shape[0] == 20 && shape[1] == 30);
    double sum = 0;
    for (size_t i = 0; rd_t && i < n; i++)
        sum += rd_t[i] * 0.01;
    tmcml_rat rat;
    tmcml_result_rat(r, &rat);
    CHECK_MSG(fabs(sum - rat.rd) <= 1e-12 * rat.rd, "sum Rd_t dt %.15g, Rd %.15g", sum, rat.rd);
    const double *fiber = tmcml_result_array(r, TMCML_RD_FIBER, &n);
    CHECK(fiber && n == 1 && fiber[0] > 0 && fiber[0] < rat.rd);
    CHECK(!tmcml_result_array(q, TMCML_RD_T, &n) && n == 0);
    uint64_t lo[1];
    CHECK(tmcml_result_tallies(s, q, TMCML_RD_FIBER, lo, lo, 1) == TMCML_ERR_STATE);
    CHECK_CONTAINS(tmcml_session_message(s), "fiber detector");
    /* The detector at the axis over ring 0..4 (0.05 cm), NA 1: those rings'
     * escapes in integers; every run's tallies the plain run's. */
    uint64_t ra[20 * 4], ra_plain[20 * 4], det[1];
    tallies(s, r, TMCML_RD_RA, ra, 80);
    tallies(s, q, TMCML_RD_RA, ra_plain, 80);
    tallies(s, r, TMCML_RD_FIBER, det, 1);
    uint64_t covered = 0;
    for (int i = 0; i < 5 * 4; i++)
        covered += ra[i];
    CHECK(det[0] == covered && memcmp(ra, ra_plain, sizeof ra) == 0);
    /* The .mco round trip. */
    tmcml_result *back = mco_round_trip(s, r);
    double dt = 0, radius = 0;
    CHECK(back && tmcml_problem_time_bins(tmcml_result_problem(back), &dt) == 30 && dt == 0.01);
    CHECK(back && tmcml_problem_fiber_detector(tmcml_result_problem(back), NULL, &radius, NULL) &&
          radius == 0.05);
    const double *fiber_back = back ? tmcml_result_array(back, TMCML_RD_FIBER, &n) : NULL;
    CHECK(fiber_back && fiber && fabs(fiber_back[0] - fiber[0]) <= 1e-6 * fiber[0]);
    tmcml_result_delete(back);
    tmcml_result_delete(r);
    tmcml_result_delete(q);
    tmcml_problem_delete(p);
    tmcml_problem_delete(plain);
}

static void test_batch(tmcml_session *s)
{
    /* Bin counts differ: refused, with the counts named. */
    check_batch_mixed(s, problem(s, 10, 0.05), problem(s, 0, 0.0), problem(s, 11, 0.0),
                      "10 and 11 time bins");
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    test_setters(s);
    test_run(s);
    test_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_time");
}
