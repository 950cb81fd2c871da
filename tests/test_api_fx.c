/* Spatial frequencies through the public header alone
 * (tmcml_problem_set_spatial_frequencies): bad lists refused with a
 * message naming the value, the problem unchanged; the frequencies copied,
 * kept when the problem gets its photons or name, read back; a run has
 * Rd_fx and Tt_fx (Rd_fx[0] is Rd bit for bit), its other tallies the plain
 * run's; with derivatives (whose GPU kernel scores no frequencies) the GPU
 * refused naming them, AUTO takes the CPU engine; a batch mixing
 * problems with and without them gives each its own run, one mixing counts
 * is refused; the .mco round trip keeps the frequencies and the arrays; a
 * convolution drops them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_lists.h"
#include "check.h"
#include "tmcml.h"

static const double fx[] = {0, 0.5, 2, 10};

static tmcml_problem *problem(tmcml_session *s, int count)
{
    return list_problem(s, tmcml_problem_set_spatial_frequencies, fx, count);
}

static void refused(tmcml_session *s, tmcml_problem *p, const double *v, int count,
                    const char *message)
{
    list_refused(s, p, tmcml_problem_set_spatial_frequencies, tmcml_problem_spatial_frequencies, 2,
                 v, count, message);
}

static void test_setters(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0);
    CHECK(tmcml_problem_spatial_frequencies(p, NULL, 0) == 0);
    double mine[2] = {0.25, 1};
    CHECK(tmcml_problem_set_spatial_frequencies(s, p, mine, 2) == TMCML_OK);
    mine[0] = 99; /* copied: the caller's array is its own */
    double got[4] = {-1, -1, -1, -1};
    CHECK(tmcml_problem_spatial_frequencies(p, got, 4) == 2 && got[0] == 0.25 && got[1] == 1 &&
          got[2] == -1);
    CHECK(tmcml_problem_spatial_frequencies(p, got, 1) == 2);
    static const double negative[] = {0, -0.5}, nan_one[] = {NAN}, high[] = {2e4};
    refused(s, p, negative, 2, "frequency 2, -0.5 1/cm, is negative");
    refused(s, p, nan_one, 1, "frequency 1, nan 1/cm, is not a finite number");
    refused(s, p, high, 1, "is above 10000 1/cm (a period of 1 um)");
    refused(s, p, fx, -1, "-1 frequencies: 1 to 1024 are possible");
    refused(s, p, fx, 1025, "1025 frequencies: 1 to 1024 are possible");
    refused(s, p, NULL, 3, "3 frequencies: 1 to 1024 are possible");
    CHECK(tmcml_problem_set_spatial_frequencies(s, NULL, fx, 1) == TMCML_ERR_ARGUMENT);
    /* Kept when the problem is given its photons or name after them. */
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(tmcml_problem_spatial_frequencies(p, got, 4) == 2 && got[0] == 0.25 && got[1] == 1);
    CHECK(tmcml_problem_set_spatial_frequencies(s, p, NULL, 0) == TMCML_OK); /* none again */
    CHECK(tmcml_problem_spatial_frequencies(p, got, 4) == 0);
    tmcml_problem_delete(p);
}

/* The .mco round trip: the frequencies from its header line, the arrays
 * as printed (7 significant digits). */
static void check_round_trip(tmcml_session *s, const tmcml_result *r)
{
    char dir[] = "/tmp/test_api_fx.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/f.mco", dir);
    tmcml_result *back = NULL;
    CHECK(tmcml_result_write_mco(s, r, path) == TMCML_OK);
    CHECK_MSG(tmcml_result_read_mco(s, path, &back) == TMCML_OK, "%s", tmcml_session_message(s));
    double got[4] = {0};
    CHECK(back && tmcml_problem_spatial_frequencies(tmcml_result_problem(back), got, 4) == 4 &&
          memcmp(got, fx, sizeof fx) == 0);
    size_t n = 0, m = 0;
    const double *a = tmcml_result_array(r, TMCML_TT_FX, &n);
    const double *b = back ? tmcml_result_array(back, TMCML_TT_FX, &m) : NULL;
    for (size_t i = 0; a && b && m == n && i < n; i++)
        CHECK_MSG(fabs(a[i] - b[i]) <= 1e-6 * fabs(a[i]), "Tt_fx[%zu] %g read back as %g", i, a[i],
                  b[i]);
    CHECK(b && m == 4);
    tmcml_beam beam = {TMCML_BEAM_FLAT, 0.1};
    tmcml_result *conv = NULL;
    CHECK(back && tmcml_result_convolve(s, back, &beam, &conv) == TMCML_OK);
    CHECK(conv && !tmcml_result_array(conv, TMCML_RD_FX, &n) && n == 0 &&
          tmcml_problem_spatial_frequencies(tmcml_result_problem(conv), NULL, 0) == 0);
    tmcml_result_delete(conv);
    tmcml_result_delete(back);
    snprintf(path, sizeof path, "%s/f.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/f.mco", dir);
    unlink(path);
    rmdir(dir);
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 4), *plain = problem(s, 0), *derived = problem(s, 4);
    CHECK(tmcml_problem_set_jacobian(s, derived, 1) == TMCML_OK);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_GPU);
    tmcml_result *r = NULL, *q = NULL, *d = NULL;
    CHECK(tmcml_run(s, derived, &opt, &d) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "spatial frequencies");
    CHECK_CONTAINS(tmcml_session_message(s), "CPU engine alone");
    options(&opt, TMCML_ENGINE_AUTO);
    CHECK_MSG(tmcml_run(s, derived, &opt, &d) == TMCML_OK, "%s", tmcml_session_message(s));
    tmcml_info info;
    if (d) {
        tmcml_result_info(d, &info);
        CHECK(strcmp(info.engine, "cpu") == 0);
    }
    tmcml_result_delete(d);
    tmcml_problem_delete(derived);
    options(&opt, TMCML_ENGINE_CPU); /* the CPU engine's arrays (the GPU's: test_fx_gpu.c) */
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    CHECK(tmcml_run(s, plain, &opt, &q) == TMCML_OK);
    if (!r || !q)
        return;
    size_t n = 0, shape[TMCML_ARRAY_MAX_DIMS];
    const double *rd_fx = tmcml_result_array(r, TMCML_RD_FX, &n);
    CHECK(rd_fx && n == 4);
    CHECK(tmcml_result_array_shape(r, TMCML_TT_FX, shape) == 1 && shape[0] == 4);
    tmcml_rat rat, rat_plain;
    tmcml_result_rat(r, &rat);
    tmcml_result_rat(q, &rat_plain);
    const double *tt_fx = tmcml_result_array(r, TMCML_TT_FX, &n);
    CHECK_MSG(rd_fx && tt_fx && rd_fx[0] == rat.rd && tt_fx[0] == rat.tt,
              "Rd_fx[0] %.17g, Rd %.17g", rd_fx ? rd_fx[0] : -1, rat.rd);
    CHECK(rd_fx && rd_fx[1] < rd_fx[0] && rd_fx[2] < rd_fx[1]);
    CHECK(rat.rd == rat_plain.rd && rat.tt == rat_plain.tt && rat.a == rat_plain.a);
    check_same_tallies(s, r, q, TMCML_TT_RA);
    CHECK(!tmcml_result_array(q, TMCML_RD_FX, &n) && n == 0);
    check_round_trip(s, r);
    tmcml_result_delete(r);
    tmcml_result_delete(q);
    tmcml_problem_delete(p);
    tmcml_problem_delete(plain);
}

static void test_batch(tmcml_session *s)
{
    /* Counts differ: refused, with the counts named. */
    check_batch_mixed(s, problem(s, 4), problem(s, 0), problem(s, 3),
                      "4 and 3 spatial frequencies");
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    test_setters(s);
    test_run(s);
    test_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_fx");
}
