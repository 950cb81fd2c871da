/* The Cartesian grid and the oblique beam through the public header alone
 * (tmcml_problem_set_xy, TMCML_SOURCE_OBLIQUE): bad grids and angles
 * refused with a message naming the value, the problem unchanged; the
 * grid kept when the problem gets its photons or name, read back; a run
 * has Rd_xy, Tt_xy and A_xz of their shapes and axes, their tallies no
 * more than Rd_ra's, Tt_ra's and A_rz's, its other tallies the plain
 * run's; oblique:0 the pencil beam's tallies; an oblique beam without the
 * grid, or with time bins, detectors, frequencies, derivatives or sets,
 * refused naming the setter; the GPU refused, AUTO takes the CPU; a batch
 * mixing problems with and without the grid gives each its own run, one
 * mixing cell counts is refused; with standard errors each array has its
 * own; the .mco round trip keeps the grid, the source and the arrays; a
 * convolution drops the grid, and refuses the oblique beam. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_lists.h"
#include "check.h"
#include "tmcml.h"

#define NX 12
#define DX 0.02

static tmcml_problem *problem(tmcml_session *s, int nx)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK(tmcml_problem_set_xy(s, p, DX, nx) == TMCML_OK);
    return p;
}

static void refused(tmcml_session *s, tmcml_problem *p, double dx, int nx, const char *message)
{
    CHECK(tmcml_problem_set_xy(s, p, dx, nx) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), message);
    double got = 0;
    CHECK(tmcml_problem_xy(p, &got) == NX && got == DX);
}

static void test_setters(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0);
    double dx = -1;
    CHECK(tmcml_problem_xy(p, &dx) == 0 && dx == 0 && tmcml_problem_xy(NULL, &dx) == 0);
    CHECK(tmcml_problem_set_xy(s, p, DX, NX) == TMCML_OK);
    CHECK(tmcml_problem_xy(p, &dx) == NX && dx == DX && tmcml_problem_xy(p, NULL) == NX);
    refused(s, p, -0.01, 10, "xy: the cell side -0.01 cm is not a finite number of at least");
    refused(s, p, NAN, 10, "xy: the cell side nan cm");
    refused(s, p, INFINITY, 10, "xy: the cell side inf cm");
    refused(s, p, 0, 10, "xy: the cell side 0 cm");
    refused(s, p, 0.01, -1, "xy: -1 cells along x and y: 1 to 4096 are possible");
    refused(s, p, 0.01, 4097, "xy: 4097 cells along x and y: 1 to 4096 are possible");
    CHECK(tmcml_problem_set_xy(s, NULL, DX, NX) == TMCML_ERR_ARGUMENT);
    /* Kept when the problem is given its photons or name after it. */
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(tmcml_problem_xy(p, &dx) == NX && dx == DX);
    CHECK(tmcml_problem_set_xy(s, p, 123.0, 0) == TMCML_OK); /* none again */
    CHECK(tmcml_problem_xy(p, &dx) == 0 && dx == 0);
    /* The angle: [0, 90) degrees, a beam the surface takes. */
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, 90, 0) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "must be below 90 degrees (got 90)");
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, -1, 0) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "must be a finite number of degrees >= 0 (got -1)");
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, NAN, 0) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_source(p, NULL, NULL) == TMCML_SOURCE_PENCIL);
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, 30, 0) == TMCML_OK);
    double a = 0;
    CHECK(tmcml_problem_source(p, &a, NULL) == TMCML_SOURCE_OBLIQUE && a == 30);
    CHECK(tmcml_problem_set_source(s, p, 6, 30, 0) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "TMCML_SOURCE_PENCIL to TMCML_SOURCE_OBLIQUE");
    tmcml_problem_delete(p);
}

static tmcml_result *run(tmcml_session *s, const tmcml_problem *p, tmcml_engine engine)
{
    tmcml_options opt;
    options(&opt, engine);
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    return r;
}

/* The sum of a tally's units (low words: small runs). */
static uint64_t units(tmcml_session *s, const tmcml_result *r, tmcml_array which)
{
    size_t n = 0;
    tmcml_result_array(r, which, &n);
    uint64_t *lo = calloc(n ? n : 1, sizeof *lo), *hi = calloc(n ? n : 1, sizeof *hi), sum = 0;
    CHECK(lo && hi && tmcml_result_tallies(s, r, which, lo, hi, n) == TMCML_OK);
    for (size_t i = 0; lo && hi && i < n; i++)
        sum += lo[i];
    free(lo);
    free(hi);
    return sum;
}

/* Shapes, axes and sums of the grid's arrays of r; with standard errors,
 * each array's. */
static void check_arrays(tmcml_session *s, const tmcml_result *r)
{
    size_t shape[TMCML_ARRAY_MAX_DIMS], n = 0;
    CHECK(tmcml_result_array_shape(r, TMCML_RD_XY, shape) == 2 && shape[0] == NX && shape[1] == NX);
    CHECK(tmcml_result_array_shape(r, TMCML_A_XZ, shape) == 2 && shape[0] == NX &&
          shape[1] == (size_t)grid.nz);
    tmcml_axis axes[TMCML_ARRAY_MAX_DIMS];
    CHECK(tmcml_array_dims(TMCML_A_XZ, axes) == 2 && axes[0] == TMCML_AXIS_XY &&
          axes[1] == TMCML_AXIS_Z && tmcml_array_option(TMCML_TT_XY) == 8 &&
          tmcml_array_absorption(TMCML_A_XZ) && !tmcml_array_absorption(TMCML_RD_XY));
    CHECK(units(s, r, TMCML_RD_XY) <= units(s, r, TMCML_RD_RA) &&
          units(s, r, TMCML_TT_XY) <= units(s, r, TMCML_TT_RA) &&
          units(s, r, TMCML_A_XZ) <= units(s, r, TMCML_A_RZ) && units(s, r, TMCML_RD_XY) > 0);
    const double *rd = tmcml_result_array(r, TMCML_RD_XY, &n), *err;
    double sum = 0;
    for (size_t i = 0; rd && i < n; i++)
        sum += rd[i] * DX * DX;
    tmcml_rat rat;
    tmcml_result_rat(r, &rat);
    CHECK_MSG(sum > 0 && sum <= rat.rd * (1 + 1e-12), "Rd_xy sums to %g, Rd %g", sum, rat.rd);
    static const tmcml_array arrays[] = {TMCML_RD_XY, TMCML_TT_XY, TMCML_A_XZ};
    for (size_t k = 0; k < 3; k++) {
        size_t m = 0;
        err = tmcml_result_stderr(r, arrays[k], &m);
        tmcml_result_array(r, arrays[k], &n);
        CHECK_MSG(err && m == n, "%s: no standard errors", tmcml_array_name(arrays[k]));
    }
}

/* The .mco round trip: the grid and the source from its header lines, the
 * arrays as printed; a convolution of the pencil's drops the grid, of the
 * oblique beam's is refused. */
static void check_round_trip(tmcml_session *s, const tmcml_result *r, bool oblique)
{
    tmcml_result *back = mco_round_trip(s, r);
    double dx = 0, a = 0;
    CHECK(back && tmcml_problem_xy(tmcml_result_problem(back), &dx) == NX && dx == DX);
    CHECK(back && tmcml_problem_source(tmcml_result_problem(back), &a, NULL) ==
                      (oblique ? TMCML_SOURCE_OBLIQUE : TMCML_SOURCE_PENCIL));
    static const tmcml_array arrays[] = {TMCML_RD_XY, TMCML_TT_XY, TMCML_A_XZ};
    for (size_t k = 0; back && k < 3; k++) {
        size_t n = 0, m = 0;
        const double *x = tmcml_result_array(r, arrays[k], &n);
        const double *y = tmcml_result_array(back, arrays[k], &m);
        CHECK(x && y && m == n);
        for (size_t i = 0; x && y && m == n && i < n; i++)
            CHECK_MSG(fabs(x[i] - y[i]) <= 1e-4 * fabs(x[i]), "%s[%zu] %g read back as %g",
                      tmcml_array_name(arrays[k]), i, x[i], y[i]);
    }
    tmcml_beam beam = {TMCML_BEAM_FLAT, 0.1};
    tmcml_result *conv = NULL;
    size_t n = 0;
    if (oblique) {
        CHECK(back && tmcml_result_convolve(s, back, &beam, &conv) == TMCML_ERR_ARGUMENT);
        CHECK_CONTAINS(tmcml_session_message(s), "a convolution assumes a beam along the axis");
    } else {
        CHECK(back && tmcml_result_convolve(s, back, &beam, &conv) == TMCML_OK);
        CHECK(conv && !tmcml_result_array(conv, TMCML_RD_XY, &n) && n == 0 &&
              tmcml_problem_xy(tmcml_result_problem(conv), NULL) == 0);
    }
    tmcml_result_delete(conv);
    tmcml_result_delete(back);
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, NX), *plain = problem(s, 0);
    CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    /* A run's own GPU kernel scores the grid (tests/test_xy_gpu.c); with
     * the derivatives the CPU engine alone. */
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_GPU);
    tmcml_result *r = NULL;
    CHECK(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK);
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "the Cartesian grid (tmcml_problem_set_xy) and the "
                                             "oblique beam (TMCML_SOURCE_OBLIQUE) of several "
                                             "problems in one call, with sets or derivatives are "
                                             "scored by the CPU engine alone");
    CHECK(tmcml_problem_set_jacobian(s, p, 0) == TMCML_OK);
    r = run(s, p, TMCML_ENGINE_CPU);
    tmcml_result *q = run(s, plain, TMCML_ENGINE_CPU);
    if (!r || !q)
        return;
    tmcml_info info;
    tmcml_result_info(r, &info);
    CHECK(strcmp(info.engine, "cpu") == 0);
    tmcml_rat rat, rat_plain;
    tmcml_result_rat(r, &rat);
    tmcml_result_rat(q, &rat_plain);
    CHECK(rat.rd == rat_plain.rd && rat.tt == rat_plain.tt && rat.a == rat_plain.a);
    check_arrays(s, r);
    check_same_tallies(s, r, q, TMCML_RD_RA);
    size_t n = 0;
    CHECK(!tmcml_result_array(q, TMCML_RD_XY, &n) && n == 0);
    uint64_t lo[4], hi[4];
    CHECK(tmcml_result_tallies(s, q, TMCML_RD_XY, lo, hi, 0) == TMCML_ERR_STATE);
    CHECK_CONTAINS(tmcml_session_message(s), "this run scored no Cartesian grid");
    check_round_trip(s, r, false);
    tmcml_result_delete(r);
    tmcml_result_delete(q);
    tmcml_problem_delete(p);
    tmcml_problem_delete(plain);
}

/* The oblique beam: the grid needed, what assumes the axis refused; at 0
 * degrees the pencil beam's tallies; at 40 degrees its reflectance's
 * centre to +x. */
static void test_oblique(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0);
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, 40, 0) == TMCML_OK);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_CPU);
    tmcml_result *r = NULL;
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "its one spatial output is the Cartesian grid: "
                                             "tmcml_problem_set_xy first");
    CHECK(tmcml_problem_set_xy(s, p, DX, NX) == TMCML_OK);
    CHECK(tmcml_problem_set_time_bins(s, p, 0.01, 5) == TMCML_OK);
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "time bins (tmcml_problem_set_time_bins): assumes a "
                                             "beam along the axis");
    CHECK(tmcml_problem_set_time_bins(s, p, 0, 0) == TMCML_OK);
    CHECK(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK);
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "the derivatives (tmcml_problem_set_jacobian): "
                                             "assumes a beam along the axis");
    CHECK(tmcml_problem_set_jacobian(s, p, 0) == TMCML_OK);
    const double mua[] = {0.5, 1.0, 0.6, 1.0};
    tmcml_result *sets[2] = {NULL, NULL};
    CHECK(tmcml_run_sets(s, p, mua, 2, &opt, sets) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "absorption or optics sets");
    r = run(s, p, TMCML_ENGINE_CPU);
    size_t n = 0;
    const double *rd = r ? tmcml_result_array(r, TMCML_RD_XY, &n) : NULL;
    double w = 0, wx = 0;
    for (size_t i = 0; rd && i < n; i++) {
        double x = ((double)(i / NX) + 0.5 - NX / 2.0) * DX;
        w += rd[i];
        wx += rd[i] * x;
    }
    CHECK_MSG(w > 0 && wx > 0, "the oblique beam's reflectance is not centred to +x: %g", wx / w);
    if (r)
        check_round_trip(s, r, true);
    tmcml_result_delete(r);
    /* At 0 degrees: the pencil beam, tally for tally. */
    tmcml_problem *pencil = problem(s, NX);
    CHECK(tmcml_problem_set_source(s, p, TMCML_SOURCE_OBLIQUE, 0, 0) == TMCML_OK);
    tmcml_result *a = run(s, p, TMCML_ENGINE_CPU), *b = run(s, pencil, TMCML_ENGINE_CPU);
    tmcml_info ia, ib;
    tmcml_result_info(a, &ia);
    tmcml_result_info(b, &ib);
    CHECK_MSG(a && b && ia.tallies_digest == ib.tallies_digest,
              "oblique at 0 degrees differs from the pencil beam");
    tmcml_result_delete(a);
    tmcml_result_delete(b);
    tmcml_problem_delete(pencil);
    tmcml_problem_delete(p);
}

static void test_batch(tmcml_session *s)
{
    /* Cell counts differ: refused, with the counts named. */
    check_batch_mixed(s, problem(s, NX), problem(s, 0), problem(s, NX + 2),
                      "12 and 14 cells along x of the Cartesian grid");
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    test_setters(s);
    test_run(s);
    test_oblique(s);
    test_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_xy");
}
