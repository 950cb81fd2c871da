/* Standard errors through the public header alone (tmcml_problem_set_stderr,
 * tmcml_result_stderr, tmcml_result_rat_stderr; docs/library.md):
 *   identity      a problem with every optional group (path lengths, time
 *                 bins, a fiber detector) run with and without the flag:
 *                 the same arrays, totals and tallies bit for bit; errors
 *                 only when asked, 64 groups, each array's error of its
 *                 count, finite and >= 0, 0 exactly where the array is 0
 *                 and > 0 where it is not; the flag kept by a problem
 *                 given its photons and name after it, and by the result's
 *                 problem; none for a result read from an .mco or
 *                 convolved; NULLs and unknown arrays
 *   cli           the totals' errors in `tmcml run --stderr`'s JSON and
 *                 every array's NAME_stderr in its .npz, for the same
 *                 problem, seed and photons, are the library's bit for bit
 *   batch         tmcml_run_batch gives each problem that asks the errors
 *                 it gets alone, bit for bit (a problem that does not ask
 *                 gets none, its tallies unchanged)
 *   sets          tmcml_run_sets gives every set its errors; the set equal
 *                 to the per-layer minimum has a plain run's, bit for bit
 *   checkpointed  tmcml_run_checkpointed gives tmcml_run's errors bit for
 *                 bit, whole and cancelled then resumed from its file (the
 *                 file keeps the groups done)
 *   gpu           identity and batch on the GPU (status 77 without one)
 * The CPU engine and fixed seeds: deterministic. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_run_checks.h"
#include "check.h"
#include "tmcml.h"

#define SEED   20261201u
#define GROUPS 64 /* runtime/io/uncertainty.h's UNCERTAINTY_GROUPS */

static tmcml_engine engine = TMCML_ENGINE_CPU;
static char dir[] = "/tmp/test_api_stderr_XXXXXX";

/* A new problem of two_layers with layer 1's mua; NULL on failure. */
static tmcml_problem *problem(tmcml_session *s, double mua, int stderr_on)
{
    tmcml_layer l[2] = {two_layers[0], two_layers[1]};
    l[0].mua = mua;
    tmcml_problem *p = NULL;
    CHECK_MSG(tmcml_problem_new(s, l, 2, 1.0, 1.0, &grid, &p) == TMCML_OK, "%s",
              tmcml_session_message(s));
    if (p && stderr_on)
        CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    return p;
}

static void options(tmcml_options *o, int64_t photons)
{
    tmcml_options_init(o);
    o->engine = engine;
    o->photons = photons;
    o->seed = SEED;
    o->threads = 2;
}

static tmcml_result *run(tmcml_session *s, const tmcml_problem *p, int64_t photons)
{
    tmcml_options o;
    options(&o, photons);
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &o, &r) == TMCML_OK && r, "%s", tmcml_session_message(s));
    return r;
}

/* a and b's arrays and RAT, bit for bit. */
static void check_same_results(const tmcml_result *a, const tmcml_result *b, const char *what)
{
    CHECK_MSG(digest(a) == digest(b), "%s: tallies digest", what);
    tmcml_rat x, y;
    tmcml_result_rat(a, &x);
    tmcml_result_rat(b, &y);
    CHECK_MSG(memcmp(&x, &y, sizeof x) == 0, "%s: RAT", what);
    for (int i = 0; i < tmcml_array_count(); i++) {
        size_t n = 0, m = 0;
        const double *u = tmcml_result_array(a, (tmcml_array)i, &n);
        const double *v = tmcml_result_array(b, (tmcml_array)i, &m);
        CHECK_MSG(n == m && same_bits(u, v, n), "%s: %s", what, tmcml_array_name((tmcml_array)i));
    }
}

/* a and b's standard errors, bit for bit (both with them). */
static void check_same_errors(const tmcml_result *a, const tmcml_result *b, const char *what)
{
    CHECK_MSG(tmcml_result_stderr_groups(a) == GROUPS && tmcml_result_stderr_groups(b) == GROUPS,
              "%s: groups %d and %d", what, tmcml_result_stderr_groups(a),
              tmcml_result_stderr_groups(b));
    tmcml_rat x, y;
    CHECK(tmcml_result_rat_stderr(a, &x) == TMCML_OK && tmcml_result_rat_stderr(b, &y) == TMCML_OK);
    CHECK_MSG(memcmp(&x, &y, sizeof x) == 0, "%s: RAT's errors %.17g %.17g", what, x.rd, y.rd);
    for (int i = 0; i < tmcml_array_count(); i++) {
        size_t n = 0, m = 0;
        const double *u = tmcml_result_stderr(a, (tmcml_array)i, &n);
        const double *v = tmcml_result_stderr(b, (tmcml_array)i, &m);
        CHECK_MSG(n == m && same_bits(u, v, n), "%s: %s's errors", what,
                  tmcml_array_name((tmcml_array)i));
    }
}

static void check_no_errors(const tmcml_result *r, const char *what)
{
    CHECK_MSG(tmcml_result_stderr_groups(r) == 0, "%s: %d groups", what,
              tmcml_result_stderr_groups(r));
    for (int i = 0; i < tmcml_array_count(); i++) {
        size_t n = 7;
        CHECK_MSG(tmcml_result_stderr(r, (tmcml_array)i, &n) == NULL && n == 0, "%s: %s", what,
                  tmcml_array_name((tmcml_array)i));
    }
    tmcml_rat e = {1, 1, 1, 1};
    CHECK(tmcml_result_rat_stderr(r, &e) == TMCML_ERR_STATE);
    CHECK(e.rsp == 0 && isnan(e.rd) && isnan(e.a) && isnan(e.tt));
}

/* Every array r has, an error of its count: finite and >= 0, 0 exactly
 * where the array is 0 (every group 0), > 0 where it is not (the groups
 * differ); RAT's errors > 0, Rsp's 0; `arrays` counts those with errors. */
static void check_errors_plausible(const tmcml_result *r, const char *what, int *arrays)
{
    CHECK_MSG(tmcml_result_stderr_groups(r) == GROUPS, "%s: %d groups", what,
              tmcml_result_stderr_groups(r));
    *arrays = 0;
    for (int i = 0; i < tmcml_array_count(); i++) {
        const char *name = tmcml_array_name((tmcml_array)i);
        size_t n = 0, m = 0;
        const double *v = tmcml_result_array(r, (tmcml_array)i, &n);
        const double *e = tmcml_result_stderr(r, (tmcml_array)i, &m);
        CHECK_MSG((v == NULL) == (e == NULL) && n == m, "%s: %s: %zu values, %zu errors", what,
                  name, n, m);
        *arrays += e != NULL;
        size_t bad = 0;
        for (size_t k = 0; v && e && k < n; k++)
            bad += !(isfinite(e[k]) && e[k] >= 0 && (v[k] == 0) == (e[k] == 0));
        CHECK_MSG(bad == 0,
                  "%s: %s: %zu of %zu errors not finite, negative, or 0 where the "
                  "value is not (or not 0 where it is)",
                  what, name, bad, n);
    }
    tmcml_rat e, v;
    tmcml_result_rat(r, &v);
    CHECK(tmcml_result_rat_stderr(r, &e) == TMCML_OK);
    CHECK_MSG(e.rsp == 0 && e.rd > 0 && e.a > 0 && e.rd < v.rd && e.a < v.a && isfinite(e.tt) &&
                  e.tt >= 0,
              "%s: RAT's errors %g %g %g %g", what, e.rsp, e.rd, e.a, e.tt);
}

/* ---- identity ----------------------------------------------------------------------- */

static void test_flag_kept(tmcml_session *s)
{
    tmcml_problem *p = problem(s, 0.5, 1);
    CHECK(tmcml_problem_stderr(p) == 1);
    CHECK(tmcml_problem_set_photons(s, p, 1234) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK_MSG(tmcml_problem_stderr(p) == 1, "set_photons or set_name dropped the flag");
    CHECK(tmcml_problem_set_stderr(s, p, 0) == TMCML_OK && tmcml_problem_stderr(p) == 0);
    CHECK(tmcml_problem_set_stderr(s, p, 5) == TMCML_OK && tmcml_problem_stderr(p) == 1);
    CHECK(tmcml_problem_set_stderr(NULL, p, 1) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_stderr(s, NULL, 1) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problem: NULL");
    CHECK(tmcml_problem_stderr(NULL) == 0);
    tmcml_problem_delete(p);
}

static void test_nulls(const tmcml_result *r)
{
    size_t n = 7;
    tmcml_rat e;
    CHECK(tmcml_result_stderr_groups(NULL) == 0);
    CHECK(tmcml_result_stderr(NULL, TMCML_RD_R, &n) == NULL && n == 0);
    n = 7;
    CHECK(tmcml_result_stderr(r, (tmcml_array)tmcml_array_count(), &n) == NULL && n == 0);
    CHECK(tmcml_result_stderr(r, (tmcml_array)-1, NULL) == NULL);
    CHECK(tmcml_result_stderr(r, TMCML_RD_R, NULL) != NULL);
    CHECK(tmcml_result_rat_stderr(NULL, &e) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_result_rat_stderr(r, NULL) == TMCML_ERR_ARGUMENT);
}

/* Read back from its .mco, or convolved: no errors (neither keeps them). */
static void test_derived(tmcml_session *s, const tmcml_result *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/derived.mco", dir);
    tmcml_result *back = NULL, *conv = NULL;
    CHECK(tmcml_result_write_mco(s, r, path) == TMCML_OK);
    CHECK(tmcml_result_read_mco(s, path, &back) == TMCML_OK && back);
    check_no_errors(back, "read from an .mco");
    CHECK(tmcml_problem_stderr(tmcml_result_problem(back)) == 0);
    const tmcml_beam beam = {TMCML_BEAM_GAUSSIAN, 0.05};
    CHECK(tmcml_result_convolve(s, r, &beam, &conv) == TMCML_OK && conv);
    check_no_errors(conv, "convolved");
    tmcml_result_delete(back);
    tmcml_result_delete(conv);
}

/* A problem with every optional group, run with and without the flag. */
static void check_identity(tmcml_session *s, bool optional_groups)
{
    tmcml_problem *plain = problem(s, 0.5, 0), *asked = problem(s, 0.5, 1);
    for (int k = 0; optional_groups && k < 2; k++) {
        tmcml_problem *p = k ? asked : plain;
        CHECK(tmcml_problem_set_path_lengths(s, p, 1) == TMCML_OK);
        CHECK(tmcml_problem_set_time_bins(s, p, 0.005, 12) == TMCML_OK);
        CHECK(tmcml_problem_set_fiber_detector(s, p, 0.05, 0.04, 0.5) == TMCML_OK);
        static const double fx[] = {0, 1, 5};
        CHECK(tmcml_problem_set_spatial_frequencies(s, p, fx, 3) == TMCML_OK);
        static const double hz[] = {1e8, 1e9};
        CHECK(tmcml_problem_set_modulation(s, p, hz, 2) == TMCML_OK);
        CHECK(tmcml_problem_set_xy(s, p, 0.02, 9) == TMCML_OK);
    }
    tmcml_result *a = run(s, plain, 20000), *b = run(s, asked, 20000);
    if (!a || !b)
        return;
    check_same_results(a, b, "with and without standard errors");
    check_no_errors(a, "not asked");
    int arrays = 0;
    check_errors_plausible(b, "asked", &arrays);
    /* Every array but the Jacobians (a group of their own, not asked here:
     * the GPU does not score them). */
    int jacobians = 0;
    for (int i = 0; i < tmcml_array_count(); i++)
        jacobians += tmcml_array_option((tmcml_array)i) == 4;
    CHECK_MSG(arrays == (optional_groups ? tmcml_array_count() - jacobians : 9),
              "%d arrays with errors", arrays);
    CHECK(tmcml_problem_stderr(tmcml_result_problem(b)) == 1);
    CHECK(tmcml_problem_stderr(tmcml_result_problem(a)) == 0);
    if (optional_groups) {
        test_nulls(b);
        test_derived(s, b);
    }
    tmcml_result_delete(a);
    tmcml_result_delete(b);
    tmcml_problem_delete(plain);
    tmcml_problem_delete(asked);
}

/* Removes dir's files and dir. */
static void remove_dir(void)
{
    const char *names[] = {"derived.mco", "derived.json", "se.mci",  "se.mco",
                           "se.json",     "se.npz",       "run.ckpt"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    CHECK_MSG(rmdir(dir) == 0, "%s: files left in it", dir);
}

static int case_identity(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(mkdtemp(dir) != NULL);
    test_flag_kept(s);
    check_identity(s, true);
    tmcml_session_delete(s);
    remove_dir();
    return check_summary("test_api_stderr identity");
}

/* ---- the command's ------------------------------------------------------------------ */

static int case_cli(const char *tmcml)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(mkdtemp(dir) != NULL);
    tmcml_problem *p = problem(s, 0.5, 1);
    const int64_t photons = 7001; /* groups of 109 and 110 photons */
    CHECK(tmcml_problem_set_photons(s, p, photons) == TMCML_OK);
    command_output out = run_command(s, p, tmcml, dir, "se", SEED, "--stderr");
    const char *json = out.json;
    tmcml_result *r = run(s, p, photons);
    tmcml_rat e = {0};
    CHECK(r && tmcml_result_rat_stderr(r, &e) == TMCML_OK);
    double rd = json_number(json, "\"stderr\"", "Rd"), a = json_number(json, "\"stderr\"", "A"),
           tt = json_number(json, "\"stderr\"", "Tt");
    CHECK_MSG(memcmp(&rd, &e.rd, sizeof rd) == 0 && memcmp(&a, &e.a, sizeof a) == 0 &&
                  memcmp(&tt, &e.tt, sizeof tt) == 0,
              "the command's Rd, A, Tt errors %.17g %.17g %.17g, the library's %.17g %.17g %.17g",
              rd, a, tt, e.rd, e.a, e.tt);
    CHECK(json_number(json, "\"stderr\"", "groups") == GROUPS);
    int compared = 0;
    for (int i = 0; r && i < tmcml_array_count(); i++) {
        size_t n = 0;
        const double *err = tmcml_result_stderr(r, (tmcml_array)i, &n);
        if (!err)
            continue;
        char member[64];
        snprintf(member, sizeof member, "%s_stderr.npy", tmcml_array_name((tmcml_array)i));
        check_member(&out, member, err, n);
        compared++;
    }
    CHECK_MSG(compared == 9, "%d arrays compared", compared);
    check_member(&out, "Rd_stderr.npy", &e.rd, 1);
    command_output_free(&out);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    remove_dir();
    return check_summary("test_api_stderr cli");
}

/* ---- several problems a call ---------------------------------------------------------- */

static void check_batch(tmcml_session *s)
{
    const double mua[3] = {0.5, 2.0, 0.1};
    const int64_t photons[3] = {5000, 7001, 3333};
    const int asks[3] = {1, 0, 1};
    tmcml_problem *p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = problem(s, mua[i], asks[i]);
        CHECK(p[i] && tmcml_problem_set_photons(s, p[i], photons[i]) == TMCML_OK);
    }
    tmcml_options o;
    options(&o, 0); /* each problem's photons */
    tmcml_result *out[3] = {NULL, NULL, NULL};
    CHECK_MSG(tmcml_run_batch(s, (const tmcml_problem *const *)p, 3, &o, out) == TMCML_OK, "%s",
              tmcml_session_message(s));
    for (int i = 0; i < 3; i++) {
        char what[64];
        snprintf(what, sizeof what, "batch's problem %d", i);
        tmcml_result *alone = run(s, p[i], 0);
        if (out[i] && alone) {
            check_same_results(out[i], alone, what);
            if (asks[i])
                check_same_errors(out[i], alone, what);
            else
                check_no_errors(out[i], what);
        }
        tmcml_result_delete(alone);
        tmcml_result_delete(out[i]);
        tmcml_problem_delete(p[i]);
    }
}

static int case_batch(void)
{
    tmcml_session *s = tmcml_session_new();
    check_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_stderr batch");
}

/* Three sets; set 0 the problem's own mua and the per-layer minimum. */
static int case_sets(void)
{
    static const double sets[3 * 2] = {0.5, 1.0, 5.0, 1.0, 0.5, 10.0};
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = problem(s, 0.5, 1), *plain = problem(s, 0.5, 0);
    tmcml_options o;
    options(&o, 6000);
    tmcml_result *out[3] = {NULL, NULL, NULL}, *none[3] = {NULL, NULL, NULL};
    CHECK_MSG(tmcml_run_sets(s, p, sets, 3, &o, out) == TMCML_OK, "%s", tmcml_session_message(s));
    CHECK(tmcml_run_sets(s, plain, sets, 3, &o, none) == TMCML_OK);
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "set %d", k);
        int arrays = 0;
        if (out[k] && none[k]) {
            check_same_results(out[k], none[k], what);
            check_errors_plausible(out[k], what, &arrays);
            check_no_errors(none[k], what);
        }
        CHECK_MSG(arrays == 9, "%s: %d arrays with errors", what, arrays);
    }
    tmcml_result *alone = run(s, p, 6000);
    if (out[0] && alone) {
        check_same_results(out[0], alone, "set 0 and a plain run");
        check_same_errors(out[0], alone, "set 0 and a plain run");
    }
    tmcml_result_delete(alone);
    for (int k = 0; k < 3; k++) {
        tmcml_result_delete(out[k]);
        tmcml_result_delete(none[k]);
    }
    tmcml_problem_delete(p);
    tmcml_problem_delete(plain);
    tmcml_session_delete(s);
    return check_summary("test_api_stderr sets");
}

/* ---- a checkpointed run ---------------------------------------------------------------- */

/* a and b's arrays, RAT and errors bit for bit (when both are there): a
 * resumed run's too, the file keeping the groups and the one the cancel cut. */
static void check_same_with_errors(const tmcml_result *a, const tmcml_result *b, const char *what)
{
    if (a && b) {
        check_same_results(a, b, what);
        check_same_errors(a, b, what);
    }
}

static int case_checkpointed(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(mkdtemp(dir) != NULL);
    /* 60000 of the slab's photons take about a second. */
    tmcml_problem *p = slab_problem(s);
    CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    const int64_t photons = 60000;
    tmcml_result *whole = run(s, p, photons);
    char path[512];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    tmcml_options o;
    options(&o, photons);
    check_cancelled_and_resumed(s, p, &o, path, whole, check_same_with_errors);
    tmcml_result_delete(whole);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    remove_dir();
    return check_summary("test_api_stderr checkpointed");
}

static int case_gpu(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_device dev;
    int count = 0;
    if (tmcml_devices(s, &dev, 1, &count) != TMCML_OK || count == 0) {
        tmcml_session_delete(s);
        printf("SKIP: no GPU\n");
        return 77;
    }
    engine = TMCML_ENGINE_GPU;
    check_identity(s, false);
    check_batch(s);
    tmcml_session_delete(s);
    return check_summary("test_api_stderr gpu");
}

static const char *tmcml_path = "";

static int case_cli_of_path(void) { return case_cli(tmcml_path); }

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"identity", case_identity}, {"cli", case_cli_of_path},           {"batch", case_batch},
        {"sets", case_sets},         {"checkpointed", case_checkpointed}, {"gpu", case_gpu},
    };
    tmcml_path = argc > 2 ? argv[2] : "";
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof cases[0],
                          "usage: test_api_stderr identity|cli|batch|sets|checkpointed|gpu "
                          "[TMCML]\n");
}
