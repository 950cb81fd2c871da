/* Modulation frequencies through the public header alone
 * (tmcml_problem_set_modulation): bad lists refused with a message naming
 * the value, the problem unchanged; the frequencies copied, kept when the
 * problem gets its photons or name, read back; a run has Rd_r_ac,
 * Rd_r_phase, Rd_ac and Rd_phase of their shapes, its other tallies the
 * plain run's; the GPU refused naming them with derivatives (a run's own
 * GPU kernel scores them alone), AUTO takes the CPU engine there; a
 * batch mixing problems with and without them gives each its own run, one
 * mixing counts is refused; with standard errors each array has its own;
 * the .mco round trip keeps the frequencies and the arrays; a convolution
 * drops them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_lists.h"
#include "check.h"
#include "tmcml.h"

static const double hz[] = {1e8, 2e8, 1e9};

static tmcml_problem *problem(tmcml_session *s, int count)
{
    return list_problem(s, tmcml_problem_set_modulation, hz, count);
}

static void refused(tmcml_session *s, tmcml_problem *p, const double *v, int count,
                    const char *message)
{
    list_refused(s, p, tmcml_problem_set_modulation, tmcml_problem_modulation, 2, v, count,
                 message);
}

static void test_setters(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0);
    CHECK(tmcml_problem_modulation(p, NULL, 0) == 0);
    double mine[2] = {1e8, 3e8};
    CHECK(tmcml_problem_set_modulation(s, p, mine, 2) == TMCML_OK);
    mine[0] = 99; /* copied: the caller's array is its own */
    double got[4] = {-1, -1, -1, -1};
    CHECK(tmcml_problem_modulation(p, got, 4) == 2 && got[0] == 1e8 && got[1] == 3e8 &&
          got[2] == -1);
    CHECK(tmcml_problem_modulation(p, got, 1) == 2);
    static const double negative[] = {1e8, -1e8}, nan_one[] = {NAN}, high[] = {2e10}, low[] = {100},
                        zero[] = {0};
    refused(s, p, negative, 2, "frequency 2, -1e+08 Hz, is negative");
    refused(s, p, nan_one, 1, "frequency 1, nan Hz, is not a finite number");
    refused(s, p, high, 1, "is above 10 GHz: looks like the wrong unit");
    refused(s, p, low, 1, "frequency 1, 100 Hz, is below 1 kHz: looks like the wrong unit");
    refused(s, p, zero, 1, "0 Hz, is no modulation");
    refused(s, p, hz, -1, "-1 modulation frequencies: 1 to 256 are possible");
    refused(s, p, hz, 257, "257 modulation frequencies: 1 to 256 are possible");
    refused(s, p, NULL, 3, "3 modulation frequencies: 1 to 256 are possible");
    CHECK(tmcml_problem_set_modulation(s, NULL, hz, 1) == TMCML_ERR_ARGUMENT);
    /* Kept when the problem is given its photons or name after them. */
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(tmcml_problem_modulation(p, got, 4) == 2 && got[0] == 1e8 && got[1] == 3e8);
    CHECK(tmcml_problem_set_modulation(s, p, NULL, 0) == TMCML_OK); /* none again */
    CHECK(tmcml_problem_modulation(p, got, 4) == 0);
    tmcml_problem_delete(p);
}

/* a and b (arrays of n) within relative 1e-4 (the .mco prints 5 digits of
 * a ring's values, 7 of the totals). */
static void check_close(const char *name, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; a && b && i < n; i++)
        CHECK_MSG(fabs(a[i] - b[i]) <= 1e-4 * fabs(a[i]), "%s[%zu] %g read back as %g", name, i,
                  a[i], b[i]);
}

/* The .mco round trip: the frequencies from its header line, the arrays
 * as printed. */
static void check_round_trip(tmcml_session *s, const tmcml_result *r)
{
    tmcml_result *back = mco_round_trip(s, r);
    double got[4] = {0};
    CHECK(back && tmcml_problem_modulation(tmcml_result_problem(back), got, 4) == 3 &&
          memcmp(got, hz, sizeof hz) == 0);
    static const tmcml_array arrays[] = {TMCML_RD_R_AC, TMCML_RD_R_PHASE, TMCML_RD_AC,
                                         TMCML_RD_PHASE};
    for (size_t k = 0; back && k < sizeof arrays / sizeof arrays[0]; k++) {
        size_t n = 0, m = 0;
        const double *a = tmcml_result_array(r, arrays[k], &n);
        const double *b = tmcml_result_array(back, arrays[k], &m);
        CHECK(a && b && m == n);
        check_close(tmcml_array_name(arrays[k]), a, b, m == n ? n : 0);
    }
    tmcml_beam beam = {TMCML_BEAM_FLAT, 0.1};
    tmcml_result *conv = NULL;
    size_t n = 0;
    CHECK(back && tmcml_result_convolve(s, back, &beam, &conv) == TMCML_OK);
    CHECK(conv && !tmcml_result_array(conv, TMCML_RD_R_AC, &n) && n == 0 &&
          tmcml_problem_modulation(tmcml_result_problem(conv), NULL, 0) == 0);
    tmcml_result_delete(conv);
    tmcml_result_delete(back);
}

/* The shapes and values of r's arrays: nr x 3 and 3, the amplitude at most
 * Rd (a sum of weights' projections), the phase a lag that grows with the
 * frequency; with standard errors, each array's. */
static void check_arrays(const tmcml_result *r, const tmcml_rat *rat)
{
    size_t n = 0, shape[TMCML_ARRAY_MAX_DIMS];
    CHECK(tmcml_result_array_shape(r, TMCML_RD_R_AC, shape) == 2 && shape[0] == (size_t)grid.nr &&
          shape[1] == 3);
    CHECK(tmcml_result_array_shape(r, TMCML_RD_PHASE, shape) == 1 && shape[0] == 3);
    tmcml_axis axes[TMCML_ARRAY_MAX_DIMS];
    CHECK(tmcml_array_dims(TMCML_RD_R_PHASE, axes) == 2 && axes[0] == TMCML_AXIS_R &&
          axes[1] == TMCML_AXIS_MODULATION && tmcml_array_option(TMCML_RD_AC) == 7);
    const double *ac = tmcml_result_array(r, TMCML_RD_AC, &n);
    const double *phase = tmcml_result_array(r, TMCML_RD_PHASE, &n);
    CHECK(ac && phase && n == 3);
    if (ac && phase)
        CHECK_MSG(ac[0] <= rat->rd && ac[2] < ac[0] && phase[0] > 0 && phase[1] > phase[0] &&
                      phase[2] > phase[1],
                  "Rd %g: Rd_ac %g %g %g, Rd_phase %g %g %g", rat->rd, ac[0], ac[1], ac[2],
                  phase[0], phase[1], phase[2]);
    size_t m = 0;
    const double *err = tmcml_result_stderr(r, TMCML_RD_R_PHASE, &m);
    CHECK(err && m == (size_t)grid.nr * 3 && err[0] > 0 && tmcml_result_stderr(r, TMCML_RD_AC, &m));
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 3), *plain = problem(s, 0);
    CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    CHECK(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_GPU);
    tmcml_result *r = NULL, *q = NULL;
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "modulation frequencies");
    CHECK_CONTAINS(tmcml_session_message(s), "CPU engine alone");
    options(&opt, TMCML_ENGINE_AUTO);
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    options(&opt, TMCML_ENGINE_CPU);
    CHECK(tmcml_run(s, plain, &opt, &q) == TMCML_OK);
    if (!r || !q)
        return;
    tmcml_info info;
    tmcml_result_info(r, &info);
    CHECK(strcmp(info.engine, "cpu") == 0);
    tmcml_rat rat, rat_plain;
    tmcml_result_rat(r, &rat);
    tmcml_result_rat(q, &rat_plain);
    CHECK(rat.rd == rat_plain.rd && rat.tt == rat_plain.tt && rat.a == rat_plain.a);
    check_arrays(r, &rat);
    check_same_tallies(s, r, q, TMCML_RD_RA);
    size_t n = 0;
    CHECK(!tmcml_result_array(q, TMCML_RD_R_AC, &n) && n == 0);
    check_round_trip(s, r);
    tmcml_result_delete(r);
    tmcml_result_delete(q);
    tmcml_problem_delete(p);
    tmcml_problem_delete(plain);
}

static void test_batch(tmcml_session *s)
{
    /* Counts differ: refused, with the counts named. */
    check_batch_mixed(s, problem(s, 3), problem(s, 0), problem(s, 2),
                      "3 and 2 modulation frequencies");
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    test_setters(s);
    test_run(s);
    test_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_mod");
}
