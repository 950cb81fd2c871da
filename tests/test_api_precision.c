/* Runs that stop at a precision through the public header alone
 * (tmcml_problem_set_precision, tmcml_result_precision; docs/library.md):
 *   cli           `tmcml run --precision` of the same problem and seed takes
 *                 the library's photons, and its .npz holds the library's
 *                 arrays and errors bit for bit; the library's .mco and
 *                 JSON count the photons taken, its JSON the precision
 *   batch         tmcml_run_batch of three problems (mua 0.1, 1, 5): each
 *                 stops on its own, at its run alone's photons, with its
 *                 results and errors bit for bit; a call that mixes
 *                 problems with and without a precision is refused
 *   capped        a run that reaches max_photons short of its precision:
 *                 TMCML_OK, met 0, the photons max_photons
 *   checkpointed  tmcml_run_checkpointed: tmcml_run's photons and result;
 *                 cancelled and resumed, the same again bit for bit
 *   sets          tmcml_run_sets: the sets share their photons and stop
 *                 together, when the worst has met the precision; each
 *                 set's result then that of the sets run without a
 *                 precision at the photons taken, bit for bit, and the same
 *                 on 1 and 2 threads
 *   arguments     every bad value refused naming its field (relative, of,
 *                 max_photons, a run's photons, absorption off for "A"),
 *                 relative 0 turning it off
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
#include "npz_read.h"
#include "tmcml.h"

#define SEED        20261202u
#define PRECISION   0.005
#define MAX_PHOTONS 4000000

static char dir[] = "/tmp/test_api_precision_XXXXXX";

/* A new problem of two_layers with layer 1's mua, stopping at PRECISION of
 * Rd; NULL on failure. */
static tmcml_problem *problem(tmcml_session *s, double mua)
{
    tmcml_layer l[2] = {two_layers[0], two_layers[1]};
    l[0].mua = mua;
    tmcml_problem *p = NULL;
    CHECK_MSG(tmcml_problem_new(s, l, 2, 1.0, 1.0, &grid, &p) == TMCML_OK, "%s",
              tmcml_session_message(s));
    if (p)
        CHECK_MSG(tmcml_problem_set_precision(s, p, PRECISION, NULL, MAX_PHOTONS) == TMCML_OK, "%s",
                  tmcml_session_message(s));
    return p;
}

static void options(tmcml_options *o)
{
    tmcml_options_init(o);
    o->engine = TMCML_ENGINE_CPU;
    o->seed = SEED;
    o->threads = 2;
}

static tmcml_result *run(tmcml_session *s, const tmcml_problem *p)
{
    tmcml_options o;
    options(&o);
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &o, &r) == TMCML_OK && r, "%s", tmcml_session_message(s));
    return r;
}

static tmcml_precision precision_of(const tmcml_result *r)
{
    tmcml_precision p = {0};
    CHECK(r && tmcml_result_precision(r, &p) == TMCML_OK);
    return p;
}

/* a and b: the same photons, precision, arrays, RAT and errors bit for bit. */
static void check_same(const tmcml_result *a, const tmcml_result *b, const char *what)
{
    if (!a || !b) {
        CHECK_MSG(false, "%s: no result", what);
        return;
    }
    tmcml_precision x = precision_of(a), y = precision_of(b);
    CHECK_MSG(memcmp(&x, &y, sizeof x) == 0,
              "%s: precision (%lld photons, reached %.17g) and "
              "(%lld photons, reached %.17g)",
              what, (long long)x.photons, x.reached, (long long)y.photons, y.reached);
    CHECK_MSG(digest(a) == digest(b), "%s: tallies digest", what);
    tmcml_rat u, v;
    tmcml_result_rat(a, &u);
    tmcml_result_rat(b, &v);
    CHECK_MSG(memcmp(&u, &v, sizeof u) == 0, "%s: RAT", what);
    CHECK(tmcml_result_rat_stderr(a, &u) == TMCML_OK && tmcml_result_rat_stderr(b, &v) == TMCML_OK);
    CHECK_MSG(memcmp(&u, &v, sizeof u) == 0, "%s: RAT's errors", what);
    for (int i = 0; i < tmcml_array_count(); i++) {
        size_t n = 0, m = 0;
        const double *p = tmcml_result_array(a, (tmcml_array)i, &n);
        const double *q = tmcml_result_array(b, (tmcml_array)i, &m);
        CHECK_MSG(n == m && same_bits(p, q, n), "%s: %s", what, tmcml_array_name((tmcml_array)i));
        p = tmcml_result_stderr(a, (tmcml_array)i, &n);
        q = tmcml_result_stderr(b, (tmcml_array)i, &m);
        CHECK_MSG(n == m && same_bits(p, q, n), "%s: %s's errors", what,
                  tmcml_array_name((tmcml_array)i));
    }
}

/* A decision point of a run that met its precision: 64 groups of the plan
 * (64 of 1000 photons, then 64 of 2000, ...) or more, every 16th. */
static bool decision_point(int64_t photons)
{
    int64_t start = 0, size = 1000;
    for (int g = 0; start <= photons; g++) {
        if (start == photons)
            return g >= 64 && g % 16 == 0;
        start += size;
        if ((g + 1) % 64 == 0)
            size *= 2;
    }
    return false;
}

/* r met PRECISION, stopping at a decision point, its photons those taken. */
static void check_met(const tmcml_result *r, const char *what)
{
    tmcml_precision p = precision_of(r);
    tmcml_info info;
    tmcml_result_info(r, &info);
    CHECK_MSG(p.met == 1 && p.reached <= PRECISION && p.asked == PRECISION &&
                  p.max_photons == MAX_PHOTONS,
              "%s: met %d, reached %g, asked %g, max %lld", what, p.met, p.reached, p.asked,
              (long long)p.max_photons);
    CHECK_MSG(decision_point(p.photons) && p.photons < MAX_PHOTONS, "%s: %lld photons", what,
              (long long)p.photons);
    CHECK_MSG((int64_t)info.photons == p.photons, "%s: info's %llu photons, precision's %lld", what,
              (unsigned long long)info.photons, (long long)p.photons);
    tmcml_rat v, e;
    tmcml_result_rat(r, &v);
    CHECK(tmcml_result_rat_stderr(r, &e) == TMCML_OK);
    /* The same quotient, from the groups' sums rather than the normalised
     * arrays: equal to rounding. */
    CHECK_MSG(fabs(p.reached - e.rd / v.rd) <= 1e-12 * p.reached,
              "%s: reached %.17g, Rd's error over Rd %.17g", what, p.reached, e.rd / v.rd);
}

static void remove_dir(void)
{
    const char *names[] = {"p.mci",     "p.mco",      "p.json", "p.npz",
                           "lib/p.mco", "lib/p.json", "lib",    "run.ckpt"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (unlink(path) != 0)
            rmdir(path);
    }
    CHECK_MSG(rmdir(dir) == 0, "%s: files left in it", dir);
}

/* ---- the command's ------------------------------------------------------------------ */

/* The library's .mco and JSON of r: the photons taken, the precision. */
static void check_written(tmcml_session *s, const tmcml_result *r)
{
    char path[512], line[64];
    snprintf(path, sizeof path, "%s/lib", dir);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/lib/p.mco", dir);
    CHECK_MSG(tmcml_result_write_mco(s, r, path) == TMCML_OK, "%s", tmcml_session_message(s));
    tmcml_precision p = precision_of(r);
    size_t size = 0;
    char *mco = read_all(path, &size);
    snprintf(line, sizeof line, "%lld \t\t\t# No. of photons", (long long)p.photons);
    CHECK_MSG(mco && strstr(mco, line), "the library's .mco: no \"%s\"", line);
    snprintf(path, sizeof path, "%s/lib/p.json", dir);
    char *json = read_all(path, &size);
    CHECK(json_number(json, "{", "photons") == (double)p.photons);
    CHECK(json_number(json, "\"precision\"", "asked") == PRECISION);
    CHECK(json_number(json, "\"precision\"", "max_photons") == MAX_PHOTONS);
    const char *met = json ? strstr(json, "\"met\":") : NULL;
    met = met ? met + strlen("\"met\":") + strspn(met + strlen("\"met\":"), " \t") : NULL;
    CHECK_MSG(met && strncmp(met, "true", 4) == 0, "the library's JSON: not met");
    free(mco);
    free(json);
}

static int case_cli(const char *tmcml)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(mkdtemp(dir) != NULL);
    tmcml_problem *p = problem(s, 0.5);
    CHECK(tmcml_problem_set_photons(s, p, MAX_PHOTONS) == TMCML_OK);
    char flags[64];
    snprintf(flags, sizeof flags, "--precision %g", PRECISION);
    command_output out = run_command(s, p, tmcml, dir, "p", SEED, flags);
    const char *json = out.json;
    tmcml_result *r = run(s, p);
    check_met(r, "cli");
    tmcml_precision prec = precision_of(r);
    CHECK_MSG(json_number(json, "{", "photons") == (double)prec.photons,
              "the command took %g photons, the library %lld", json_number(json, "{", "photons"),
              (long long)prec.photons);
    double reached = json_number(json, "\"precision\"", "reached");
    CHECK_MSG(memcmp(&reached, &prec.reached, sizeof reached) == 0,
              "the command reached %.17g, the library %.17g", reached, prec.reached);
    int compared = 0;
    for (int i = 0; r && i < tmcml_array_count(); i++) {
        size_t n = 0;
        char member[64];
        const double *values = tmcml_result_array(r, (tmcml_array)i, &n);
        const double *err = tmcml_result_stderr(r, (tmcml_array)i, &n);
        if (!values || !err)
            continue;
        snprintf(member, sizeof member, "%s.npy", tmcml_array_name((tmcml_array)i));
        check_member(&out, member, values, n);
        snprintf(member, sizeof member, "%s_stderr.npy", tmcml_array_name((tmcml_array)i));
        check_member(&out, member, err, n);
        compared++;
    }
    CHECK_MSG(compared == 9, "%d arrays compared", compared);
    if (r)
        check_written(s, r);
    command_output_free(&out);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    remove_dir();
    return check_summary("test_api_precision cli");
}

/* ---- several problems a call ---------------------------------------------------------- */

static int case_batch(void)
{
    tmcml_session *s = tmcml_session_new();
    const double mua[3] = {0.1, 1.0, 5.0};
    tmcml_problem *p[3];
    tmcml_result *batch[3] = {NULL}, *alone[3];
    for (int k = 0; k < 3; k++)
        p[k] = problem(s, mua[k]);
    tmcml_options o;
    options(&o);
    CHECK_MSG(tmcml_run_batch(s, (const tmcml_problem *const *)p, 3, &o, batch) == TMCML_OK, "%s",
              tmcml_session_message(s));
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "batch, mua %g", mua[k]);
        alone[k] = run(s, p[k]);
        check_met(batch[k], what);
        check_same(batch[k], alone[k], what);
    }
    int64_t n0 = precision_of(alone[0]).photons, n2 = precision_of(alone[2]).photons;
    CHECK_MSG(n0 != n2, "mua 0.1 and 5 both took %lld photons", (long long)n0);
    /* Problem 1 without a precision: the call's groups would differ. */
    CHECK(tmcml_problem_set_precision(s, p[1], 0.0, NULL, 0) == TMCML_OK);
    CHECK(tmcml_problem_set_photons(s, p[1], 10000) == TMCML_OK);
    tmcml_result *mixed[3] = {NULL};
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)p, 3, &o, mixed) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problems[1]");
    CHECK(!mixed[0] && !mixed[1] && !mixed[2]);
    for (int k = 0; k < 3; k++) {
        tmcml_result_delete(batch[k]);
        tmcml_result_delete(alone[k]);
        tmcml_problem_delete(p[k]);
    }
    tmcml_session_delete(s);
    return check_summary("test_api_precision batch");
}

/* ---- capped ------------------------------------------------------------------------ */

static int case_capped(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = problem(s, 0.5);
    const int64_t cap = 64000; /* the least: one decision point, far from 0.05 % */
    CHECK(tmcml_problem_set_precision(s, p, 0.0005, "Rd", cap) == TMCML_OK);
    tmcml_result *r = run(s, p);
    tmcml_precision pr = precision_of(r);
    tmcml_info info;
    tmcml_result_info(r, &info);
    CHECK_MSG(pr.met == 0 && pr.photons == cap && pr.max_photons == cap && pr.asked == 0.0005 &&
                  pr.reached > 0.0005 && isfinite(pr.reached),
              "capped: met %d, %lld of %lld photons, reached %g", pr.met, (long long)pr.photons,
              (long long)pr.max_photons, pr.reached);
    CHECK(info.photons == (uint64_t)cap);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    return check_summary("test_api_precision capped");
}

/* ---- checkpointed ---------------------------------------------------------------------- */

static int case_checkpointed(void)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(mkdtemp(dir) != NULL);
    tmcml_problem *p = slab_problem(s);
    CHECK(tmcml_problem_set_precision(s, p, 0.0013, "Rd", 1000000) == TMCML_OK);
    tmcml_result *whole = run(s, p);
    tmcml_precision pw = precision_of(whole);
    CHECK_MSG(pw.met && pw.photons > 64000, "the slab took %lld photons, met %d, reached %g",
              (long long)pw.photons, pw.met, pw.reached);
    char path[512];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    tmcml_options o;
    options(&o);
    check_cancelled_and_resumed(s, p, &o, path, whole, check_same);
    tmcml_result_delete(whole);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    remove_dir();
    return check_summary("test_api_precision checkpointed");
}

/* ---- arguments --------------------------------------------------------------------- */

/* set_precision(relative, of, max) refused naming field. */
static void check_refused(tmcml_session *s, tmcml_problem *p, double relative, const char *of,
                          int64_t max, const char *field)
{
    CHECK_MSG(tmcml_problem_set_precision(s, p, relative, of, max) == TMCML_ERR_ARGUMENT,
              "relative %g, of %s, max %lld: accepted", relative, of ? of : "NULL", (long long)max);
    const char *m = tmcml_session_message(s);
    CHECK_MSG(strncmp(m, field, strlen(field)) == 0, "\"%s\" does not name %s", m, field);
}

/* A run of p with o refused, its message naming what. */
static void check_run_refused(tmcml_session *s, const tmcml_problem *p, const tmcml_options *o,
                              const char *what)
{
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, o, &r) == TMCML_ERR_ARGUMENT && !r, "%s: accepted", what);
    CHECK_CONTAINS(tmcml_session_message(s), what);
}

static int case_arguments(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = problem(s, 0.5);
    const double bad[] = {-0.01, 1.0, 2.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refused(s, p, bad[i], NULL, 0, "relative");
    check_refused(s, p, 0.01, "Rq", 0, "of");
    check_refused(s, p, 0.01, "Rd_r[8]", 0, "of"); /* 8 rings: 0 to 7 */
    check_refused(s, p, 0.01, "Rd_r[3:2]", 0, "of");
    check_refused(s, p, 0.01, "Rd_t[0]", 0, "of"); /* no time bins */
    check_refused(s, p, 0.01, "Rd_r[0:1]xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                  0, "of");
    check_refused(s, p, 0.01, NULL, 63999, "max_photons");
    check_refused(s, p, 0.01, NULL, -1, "max_photons");
    CHECK(tmcml_problem_set_precision(NULL, p, 0.01, NULL, 0) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_precision(s, NULL, 0.01, NULL, 0) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problem: NULL");
    /* Checked at the run: the photons it may take, -A for A. */
    tmcml_options o;
    options(&o);
    CHECK(tmcml_problem_set_precision(s, p, 0.01, "A", 0) == TMCML_OK);
    o.photons = 63999;
    check_run_refused(s, p, &o, "problems[0]: a precision run needs at least 64000 photons");
    o.photons = 0;
    CHECK(tmcml_problem_set_photons(s, p, 1000) == TMCML_OK);
    check_run_refused(s, p, &o, "raise max_photons");
    CHECK(tmcml_problem_set_precision(s, p, 0.01, "A", 64000) == TMCML_OK);
    o.absorption = 0;
    check_run_refused(s, p, &o, "problems[0]: of A:");
    o.absorption = 1;
    /* Off again: a plain run of the problem's photons, no precision. */
    CHECK(tmcml_problem_set_precision(s, p, 0.0, "not looked at", 1) == TMCML_OK);
    tmcml_result *r = run(s, p);
    tmcml_precision pr = {1, 1, 1, 1, 1};
    CHECK(r && tmcml_result_precision(r, &pr) == TMCML_ERR_STATE);
    CHECK(isnan(pr.asked) && pr.photons == 0 && pr.met == 0);
    CHECK(tmcml_result_stderr_groups(r) == 0);
    CHECK(tmcml_result_precision(NULL, &pr) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_result_precision(r, NULL) == TMCML_ERR_ARGUMENT);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    return check_summary("test_api_precision arguments");
}

/* ---- absorption sets ------------------------------------------------------------------ */

#define SETS 3

/* The sets (layer 1's and 2's mua) of p with o, out[0 .. SETS-1]. */
static void run_sets(tmcml_session *s, const tmcml_problem *p, const tmcml_options *o,
                     tmcml_result **out)
{
    static const double mua[SETS * 2] = {0.1, 0.1, 1.0, 1.0, 5.0, 5.0};
    CHECK_MSG(tmcml_run_sets(s, p, mua, SETS, o, out) == TMCML_OK, "%s", tmcml_session_message(s));
}

static int case_sets(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = problem(s, 0.5);
    tmcml_options o;
    options(&o);
    o.absorption = 0;
    tmcml_result *two[SETS] = {0}, *one[SETS] = {0}, *plain[SETS] = {0};
    run_sets(s, p, &o, two);
    o.threads = 1;
    run_sets(s, p, &o, one);
    double worst = 0;
    int64_t photons = two[0] ? precision_of(two[0]).photons : 0;
    for (int k = 0; k < SETS && two[k] && one[k]; k++) {
        char what[32];
        snprintf(what, sizeof what, "set %d", k);
        check_met(two[k], what);
        check_same(two[k], one[k], what);
        tmcml_precision pr = precision_of(two[k]);
        CHECK_MSG(pr.photons == photons, "set %d: %lld photons, set 0 %lld", k,
                  (long long)pr.photons, (long long)photons);
        worst = pr.reached > worst ? pr.reached : worst;
    }
    /* The set of most absorption decided: the others were precise before. */
    CHECK(two[SETS - 1] && precision_of(two[SETS - 1]).reached == worst &&
          precision_of(two[0]).reached < worst);
    /* The photons [0, taken) of the history: the sets run of that many. */
    CHECK(tmcml_problem_set_precision(s, p, 0.0, NULL, 0) == TMCML_OK);
    o.photons = photons;
    run_sets(s, p, &o, plain);
    for (int k = 0; k < SETS && two[k] && plain[k]; k++) {
        tmcml_rat u, v;
        tmcml_result_rat(two[k], &u);
        tmcml_result_rat(plain[k], &v);
        CHECK_MSG(digest(two[k]) == digest(plain[k]) && memcmp(&u, &v, sizeof u) == 0,
                  "set %d: not the sets run of %lld photons", k, (long long)photons);
    }
    for (int k = 0; k < SETS; k++) {
        tmcml_result_delete(two[k]);
        tmcml_result_delete(one[k]);
        tmcml_result_delete(plain[k]);
    }
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    return check_summary("test_api_precision sets");
}

static const char *tmcml_path = "";

static int case_cli_of_path(void) { return case_cli(tmcml_path); }

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"cli", case_cli_of_path},           {"batch", case_batch},         {"capped", case_capped},
        {"checkpointed", case_checkpointed}, {"arguments", case_arguments}, {"sets", case_sets},
    };
    tmcml_path = argc > 2 ? argv[2] : "";
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof cases[0],
                          "usage: test_api_precision cli|batch|capped|checkpointed|arguments|sets "
                          "[TMCML]\n");
}
