/* Several fiber detectors through the public header alone
 * (tmcml_problem_add_fiber_detector, tmcml_problem_fiber_detector_at;
 * issue 47): up to TMCML_MAX_FIBER_DETECTORS added in order, one more or a
 * bad one refused naming it (its number and value), the problem unchanged;
 * tmcml_problem_set_fiber_detector replaces them all; they are kept when
 * the problem is given its photons or name; a run gives TMCML_RD_FIBER one
 * value a detector, each detector's tallies and derivatives those of the
 * run of the same seed with it alone, bit for bit, and standard errors a
 * detector; the .mco round trip keeps the detectors and their values; a
 * batch of problems with 3 and 1 detectors gives each its run alone. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_two_layers.h"
#include "check.h"
#include "tmcml.h"

#define DETECTORS 3
static const double geometry[DETECTORS][3] = {
    {0.0, 0.05, 1.0}, {0.1, 0.04, 0.5}, {0.05, 0.05, 1.0}};

/* A problem with detectors [first, first + count) of geometry[]. */
static tmcml_problem *problem(tmcml_session *s, int first, int count)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    for (int k = first; p && k < first + count; k++)
        CHECK_MSG(tmcml_problem_add_fiber_detector(s, p, geometry[k][0], geometry[k][1],
                                                   geometry[k][2]) == TMCML_OK,
                  "%s", tmcml_session_message(s));
    return p;
}

/* Whether p's detectors are geometry[first ..] (count of them). */
static bool has_detectors(const tmcml_problem *p, int first, int count)
{
    double sep, radius, na;
    if (tmcml_problem_fiber_detector_at(p, 0, NULL, NULL, NULL) != count)
        return false;
    for (int k = 0; k < count; k++) {
        tmcml_problem_fiber_detector_at(p, k, &sep, &radius, &na);
        const double *g = geometry[first + k];
        if (sep != g[0] || radius != g[1] || na != g[2])
            return false;
    }
    return true;
}

static void test_setters(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0, DETECTORS);
    double sep = -1, radius = -1, na = -1;
    CHECK(has_detectors(p, 0, DETECTORS));
    CHECK(tmcml_problem_fiber_detector(p, &sep, &radius, &na) == 1 && sep == 0.0 &&
          radius == 0.05 && na == 1.0);
    CHECK(tmcml_problem_fiber_detector_at(p, DETECTORS, &sep, &radius, &na) == DETECTORS &&
          sep == 0.0 && radius == 0.0 && na == 0.0);
    CHECK(tmcml_problem_fiber_detector_at(p, -1, NULL, NULL, NULL) == DETECTORS);
    /* A bad one named by its number and value, the others kept. */
    CHECK(tmcml_problem_add_fiber_detector(s, p, 0.1, -0.2, 0.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s),
                   "fiber detector 4: radius -0.2 cm is not a finite number > 0");
    CHECK(tmcml_problem_add_fiber_detector(s, p, 0.1, 0.2, 1.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "fiber detector 4: numerical aperture 1.5 exceeds");
    CHECK(has_detectors(p, 0, DETECTORS));
    /* Kept when the problem is given its photons or name after them. */
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(has_detectors(p, 0, DETECTORS));
    /* Up to the limit, no more. */
    for (int k = DETECTORS; k < TMCML_MAX_FIBER_DETECTORS; k++)
        CHECK(tmcml_problem_add_fiber_detector(s, p, 0.01 * k, 0.01, 0.5) == TMCML_OK);
    CHECK(tmcml_problem_fiber_detector_at(p, 0, NULL, NULL, NULL) == TMCML_MAX_FIBER_DETECTORS);
    CHECK(tmcml_problem_add_fiber_detector(s, p, 0.2, 0.01, 0.5) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "fiber detector 17: at most 16 detectors");
    CHECK(tmcml_problem_add_fiber_detector(s, NULL, 0.2, 0.01, 0.5) == TMCML_ERR_ARGUMENT);
    /* The one-detector setter replaces them all; radius 0 none. */
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.1, 0.04, 0.5) == TMCML_OK);
    CHECK(has_detectors(p, 1, 1));
    CHECK(tmcml_problem_set_fiber_detector(s, p, 0.0, 0.0, 0.0) == TMCML_OK);
    CHECK(tmcml_problem_fiber_detector_at(p, 0, NULL, NULL, NULL) == 0 &&
          !tmcml_problem_fiber_detector(p, NULL, NULL, NULL));
    CHECK(tmcml_problem_fiber_detector_at(NULL, 0, &sep, NULL, NULL) == 0 && sep == 0.0);
    tmcml_problem_delete(p);
}

static uint64_t *tallies_of(tmcml_session *s, const tmcml_result *r, tmcml_array which, size_t n)
{
    uint64_t *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    CHECK(lo && hi && tmcml_result_tallies(s, r, which, lo, hi, n) == TMCML_OK);
    free(hi);
    return lo;
}

/* Detector d of r (DETECTORS of them) against one, its run alone: the
 * tallies, and the derivatives (a block of L x 3 a detector) bit for bit. */
static void check_alone(tmcml_session *s, const tmcml_result *r, const tmcml_result *one, int d)
{
    size_t n = 0, m = 0;
    uint64_t *all = tallies_of(s, r, TMCML_RD_FIBER, DETECTORS);
    uint64_t *alone = tallies_of(s, one, TMCML_RD_FIBER, 1);
    CHECK_MSG(all && alone && all[d] == alone[0], "detector %d: tallies differ from alone", d + 1);
    free(all);
    free(alone);
    const double *j = tmcml_result_array(r, TMCML_RD_FIBER_JACOBIAN, &n);
    const double *j1 = tmcml_result_array(one, TMCML_RD_FIBER_JACOBIAN, &m);
    CHECK(j && j1 && n == DETECTORS * m && m == 2 * 3);
    CHECK_MSG(j && j1 && memcmp(j + (size_t)d * m, j1, m * sizeof *j) == 0,
              "detector %d: derivatives differ from alone", d + 1);
    tmcml_rat a, b;
    tmcml_result_rat(r, &a);
    tmcml_result_rat(one, &b);
    CHECK(a.rd == b.rd && a.tt == b.tt && a.a == b.a);
}

/* The .mco round trip of r: the detectors and their values. */
static void check_mco(tmcml_session *s, const tmcml_result *r)
{
    tmcml_result *back = mco_round_trip(s, r);
    CHECK(back && has_detectors(tmcml_result_problem(back), 0, DETECTORS));
    size_t n = 0, m = 0, shape[TMCML_ARRAY_MAX_DIMS];
    const double *v = tmcml_result_array(r, TMCML_RD_FIBER, &n);
    const double *w = back ? tmcml_result_array(back, TMCML_RD_FIBER, &m) : NULL;
    CHECK(back && tmcml_result_array_shape(back, TMCML_RD_FIBER, shape) == 1 &&
          shape[0] == DETECTORS);
    for (size_t k = 0; v && w && k < n && m == n; k++)
        CHECK_MSG(fabs(w[k] - v[k]) <= 1e-6 * v[k], "detector %zu read back as %g, not %g", k + 1,
                  w[k], v[k]);
    tmcml_result_delete(back);
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0, DETECTORS);
    CHECK(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK);
    CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    if (!r)
        return;
    size_t n = 0, shape[TMCML_ARRAY_MAX_DIMS];
    const double *fiber = tmcml_result_array(r, TMCML_RD_FIBER, &n);
    CHECK(fiber && n == DETECTORS && fiber[0] > 0 && fiber[1] > 0 && fiber[2] > 0);
    CHECK(tmcml_result_array_shape(r, TMCML_RD_FIBER_JACOBIAN, shape) == 3 &&
          shape[0] == DETECTORS && shape[1] == 2 && shape[2] == 3);
    CHECK(tmcml_result_stderr(r, TMCML_RD_FIBER, &n) != NULL && n == DETECTORS);
    for (int d = 0; d < DETECTORS; d++) {
        tmcml_problem *q = problem(s, d, 1);
        CHECK(tmcml_problem_set_jacobian(s, q, 1) == TMCML_OK);
        tmcml_result *one = NULL;
        CHECK(tmcml_run(s, q, &opt, &one) == TMCML_OK);
        if (one)
            check_alone(s, r, one, d);
        tmcml_result_delete(one);
        tmcml_problem_delete(q);
    }
    check_mco(s, r);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
}

static void test_batch(tmcml_session *s)
{
    const tmcml_problem *batch[2] = {problem(s, 0, DETECTORS), problem(s, 2, 1)};
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *out[2] = {NULL, NULL};
    check_batch_as_alone(s, batch, &opt, out);
    size_t n = 0;
    CHECK(out[0] && tmcml_result_array(out[0], TMCML_RD_FIBER, &n) && n == DETECTORS);
    CHECK(out[1] && tmcml_result_array(out[1], TMCML_RD_FIBER, &n) && n == 1);
    for (int i = 0; i < 2; i++) {
        tmcml_result_delete(out[i]);
        tmcml_problem_delete((tmcml_problem *)batch[i]);
    }
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    test_setters(s);
    test_run(s);
    test_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_fibers");
}
