/* Path lengths through the public header alone (api/tmcml.h,
 * tmcml_problem_set_path_lengths): a run asked for them has the four
 * optional arrays (each total the rings' mean weighted by their escaping
 * weight) and the path tallies, its other tallies the plain run's bit for
 * bit; AUTO takes the CPU engine and GPU is refused with a message; a batch
 * mixing problems with and without them gives each problem's own run; the
 * sets get each their own; the .mco round trip keeps them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_two_layers.h"
#include "check.h"
#include "tmcml.h"

static tmcml_problem *problem(tmcml_session *s, int paths)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK(tmcml_problem_set_path_lengths(s, p, paths) == TMCML_OK);
    CHECK(tmcml_problem_path_lengths(p) == (paths != 0));
    return p;
}

/* Each total is the rings' path weighted by the ring's escaping weight. */
static void check_totals(const tmcml_result *r)
{
    size_t n;
    const double *rd_r = tmcml_result_array(r, TMCML_RD_R, &n);
    const double *path = tmcml_result_array(r, TMCML_RD_PATH, &n);
    const double *total = tmcml_result_array(r, TMCML_RD_PATH_TOTAL, &n);
    CHECK(rd_r && path && total && n == 2);
    for (int i = 0; path && total && i < 2; i++) {
        double w = 0, wl = 0;
        for (int ir = 0; ir < grid.nr; ir++) {
            double ring = rd_r[ir] * (ir + 0.5);
            w += ring;
            wl += ring * path[ir * 2 + i];
        }
        CHECK_MSG(fabs(wl / w - total[i]) <= 1e-9 * total[i], "layer %d: %g, total %g", i + 1,
                  wl / w, total[i]);
    }
}

/* The tallies every run has equal, the path ones only in a. */
static void check_same_tallies(tmcml_session *s, const tmcml_result *a, const tmcml_result *b)
{
    static const tmcml_array every[3] = {TMCML_A_RZ, TMCML_RD_RA, TMCML_TT_RA};
    for (int k = 0; k < 3; k++) {
        size_t n;
        tmcml_result_array(a, every[k], &n);
        uint64_t *lo[2] = {malloc(n * 8), malloc(n * 8)}, *hi[2] = {malloc(n * 8), malloc(n * 8)};
        CHECK(tmcml_result_tallies(s, a, every[k], lo[0], hi[0], n) == TMCML_OK);
        CHECK(tmcml_result_tallies(s, b, every[k], lo[1], hi[1], n) == TMCML_OK);
        CHECK_MSG(memcmp(lo[0], lo[1], n * 8) == 0 && memcmp(hi[0], hi[1], n * 8) == 0,
                  "%s differs", tmcml_array_name(every[k]));
        for (int j = 0; j < 2; j++) {
            free(lo[j]);
            free(hi[j]);
        }
    }
}

static void test_run(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 1), *q = problem(s, 0);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *r = NULL, *plain = NULL;
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    opt.engine = TMCML_ENGINE_CPU;
    CHECK(tmcml_run(s, q, &opt, &plain) == TMCML_OK);
    tmcml_info info;
    tmcml_result_info(r, &info);
    CHECK(strcmp(info.engine, "cpu") == 0);
    for (int a = TMCML_RD_PATH; a <= TMCML_TT_PATH_TOTAL; a++) {
        size_t n = 0, shape[TMCML_ARRAY_MAX_DIMS];
        CHECK(tmcml_result_array(r, (tmcml_array)a, &n) && n > 0);
        CHECK(tmcml_result_array_shape(r, (tmcml_array)a, shape) >= 1 && shape[0] > 0);
        CHECK(!tmcml_result_array(plain, (tmcml_array)a, &n) && n == 0);
    }
    check_totals(r);
    check_same_tallies(s, r, plain);
    size_t n = (size_t)grid.nr * 2;
    uint64_t lo[40], hi[40];
    CHECK(tmcml_result_tallies(s, r, TMCML_TT_PATH, lo, hi, n) == TMCML_OK);
    CHECK(tmcml_result_tallies(s, plain, TMCML_TT_PATH, lo, hi, n) == TMCML_ERR_STATE);
    /* The .mco and back: the extra sections read, to the .mco's 5 digits. */
    char dir[] = "/tmp/test_api_paths.XXXXXX", path[64], json[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/p.mco", dir);
    snprintf(json, sizeof json, "%s/p.json", dir);
    tmcml_result *back = NULL;
    CHECK(tmcml_result_write_mco(s, r, path) == TMCML_OK);
    CHECK(tmcml_result_read_mco(s, path, &back) == TMCML_OK);
    const double *want = tmcml_result_array(r, TMCML_RD_PATH_TOTAL, &n);
    const double *got = tmcml_result_array(back, TMCML_RD_PATH_TOTAL, &n);
    CHECK(want && got && n == 2 && fabs(got[0] - want[0]) <= 5e-5 * want[0]);
    CHECK(tmcml_problem_path_lengths(tmcml_result_problem(back)));
    remove(path);
    remove(json);
    rmdir(dir);
    /* The GPU engine without sets: refused, naming them. */
    opt.engine = TMCML_ENGINE_GPU;
    tmcml_result *g = NULL;
    CHECK(tmcml_run(s, p, &opt, &g) == TMCML_ERR_ARGUMENT && !g);
    CHECK_CONTAINS(tmcml_session_message(s), "on the GPU, path lengths are scored with absorption "
                                             "sets (tmcml_run_sets)");
    tmcml_result_delete(back);
    tmcml_result_delete(r);
    tmcml_result_delete(plain);
    tmcml_problem_delete(p);
    tmcml_problem_delete(q);
}

/* A batch of a problem with path lengths and one without: each the run of
 * its own (the CPU engine takes each slot's loop). */
static void test_batch(tmcml_session *s)
{
    const tmcml_problem *batch[2] = {problem(s, 1), problem(s, 0)};
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *out[2] = {NULL, NULL};
    check_batch_as_alone(s, batch, &opt, out);
    size_t n;
    CHECK(tmcml_result_array(out[0], TMCML_RD_PATH, &n) &&
          !tmcml_result_array(out[1], TMCML_RD_PATH, &n));
    for (int i = 0; i < 2; i++) {
        tmcml_result_delete(out[i]);
        tmcml_problem_delete((tmcml_problem *)batch[i]);
    }
}

/* Sets: each its own path lengths; more absorption, shorter paths. */
static void test_sets(tmcml_session *s)
{
    static const double mua[2 * 2] = {0.5, 1.0, 5.0, 10.0};
    tmcml_problem *p = problem(s, 1);
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *out[2] = {NULL, NULL};
    CHECK_MSG(tmcml_run_sets(s, p, mua, 2, &opt, out) == TMCML_OK, "%s", tmcml_session_message(s));
    size_t n;
    const double *t0 = out[0] ? tmcml_result_array(out[0], TMCML_RD_PATH_TOTAL, &n) : NULL;
    const double *t1 = out[1] ? tmcml_result_array(out[1], TMCML_RD_PATH_TOTAL, &n) : NULL;
    CHECK(t0 && t1 && t1[0] < t0[0] && t1[1] < t0[1]);
    for (int k = 0; k < 2; k++)
        if (out[k])
            check_totals(out[k]);
    tmcml_result_delete(out[0]);
    tmcml_result_delete(out[1]);
    tmcml_problem_delete(p);
}

int main(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    tmcml_problem *p = problem(s, 0);
    CHECK(tmcml_problem_set_path_lengths(s, NULL, 1) == TMCML_ERR_ARGUMENT);
    tmcml_problem_delete(p);
    test_run(s);
    test_batch(s);
    test_sets(s);
    tmcml_session_delete(s);
    return check_summary("test_api_paths");
}
