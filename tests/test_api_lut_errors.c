/* A lookup table's errors and a table of one precision through the public
 * header (tmcml_lut_with_errors, docs/lut.md "Error bars and a table of
 * one precision"):
 *   precision  each point stops on its own: every point reaches the
 *              precision (or counts as short), points of high absorption
 *              take more photons than those of low, and each point is, bit
 *              for bit (values, errors, photons), tmcml_run of its problem
 *              with the same precision and seed S + i
 *   uniform    without a precision, both strategies: the values bit for bit
 *              tmcml_lut's, every point the options' photons, errors those
 *              of tmcml_run_sets / tmcml_run with standard errors
 *   resume     a precision table cancelled after a row and resumed from its
 *              checkpoint ends as an uninterrupted one, errors and photons
 *              too; the checkpoint is refused by a table without errors or
 *              with another precision
 *   refused    every bad field of the errors (TMCML_ERR_ARGUMENT naming it)
 *   cli        `tmcml lut --precision`'s OUT.npz holds the library's arrays
 *   gpu        `precision` on the GPU, each point alone (its most photons
 *              fill the GPU), or skipped (status 77) without one
 * Fixed seeds: deterministic. */
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api_lut.h"
#include "check.h"
#include "npz_read.h"
#include "tmcml.h"

extern char **environ;

#define NR        4
#define PRECISION 0.01
#define MOST      4000000

/* mua from low (Rd ~0.5, 64000 photons enough) to high (Rd ~0.01). */
static const double mua[] = {0.1, 5.0, 40.0};
static const double musp[] = {4.0, 12.0};
#define K      3
#define M      2
#define POINTS (K * M)

static char dir[] = "/tmp/test_api_lut_errors_XXXXXX";

/* The slab's table of mua by musp. */
static void slab_spec(tmcml_lut_spec *spec, tmcml_lut_strategy strategy)
{
    lut_slab_spec(spec, NR, mua, K, musp, M, strategy);
}

typedef struct table {
    double rd[POINTS], rd_r[POINTS * NR], rd_stderr[POINTS], rd_r_stderr[POINTS * NR];
    double reached[POINTS];
    int64_t photons[POINTS];
    tmcml_lut_errors e;
} table;

static void table_errors(table *t, double precision)
{
    memset(t, 0, sizeof *t);
    tmcml_lut_errors_init(&t->e);
    t->e.precision = precision;
    t->e.rd_stderr = t->rd_stderr;
    t->e.rd_r_stderr = t->rd_r_stderr;
    t->e.photons = t->photons;
    t->e.reached = t->reached;
}

/* Cancels the table once `cancel_at` of its photons are reported (0: never). */
typedef struct watch {
    double cancel_at;
} watch;

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    const watch *w = user;
    return w->cancel_at > 0 && (double)done >= w->cancel_at * (double)total;
}

static void options(tmcml_options *o, int64_t photons, watch *w)
{
    lut_options(o, photons, w ? on_progress : NULL, w);
}

static tmcml_problem *point(tmcml_session *s, const tmcml_lut_spec *spec, double a, double sp)
{
    tmcml_layer layer = {spec->n, a, sp / (1 - spec->g), spec->g, spec->d};
    tmcml_grid grid = {.dz = spec->dr, .dr = spec->dr, .nz = 1, .nr = spec->nr, .na = 1};
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, &layer, 1, spec->n_above, spec->n_below, &grid, &p) == TMCML_OK);
    CHECK(p && tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    return p;
}

static bool same_doubles(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Point at of t, bit for bit result r's: values, errors, photons. */
static void check_point(const table *t, size_t at, const tmcml_result *r, int64_t photons)
{
    tmcml_rat rat, err;
    size_t count = 0, count_err = 0;
    tmcml_result_rat(r, &rat);
    tmcml_result_rat_stderr(r, &err);
    const double *ring = tmcml_result_array(r, TMCML_RD_R, &count);
    const double *ring_err = tmcml_result_stderr(r, TMCML_RD_R, &count_err);
    CHECK_MSG(t->rd[at] == rat.rd && count == NR && same_doubles(t->rd_r + at * NR, ring, NR),
              "point %zu: Rd %.17g, its run's %.17g", at, t->rd[at], rat.rd);
    CHECK_MSG(t->rd_stderr[at] == err.rd && count_err == NR && ring_err &&
                  same_doubles(t->rd_r_stderr + at * NR, ring_err, NR),
              "point %zu: Rd's error %.17g, its run's %.17g", at, t->rd_stderr[at], err.rd);
    CHECK_MSG(t->photons[at] == photons, "point %zu: %lld photons, its run %lld", at,
              (long long)t->photons[at], (long long)photons);
}

/* ---- precision -------------------------------------------------------------------- */

static void run_table(tmcml_session *s, tmcml_lut_strategy strategy, int64_t photons, table *t,
                      const tmcml_checkpoint *ck, watch *w, tmcml_status expect)
{
    tmcml_lut_spec spec;
    slab_spec(&spec, strategy);
    tmcml_options o;
    options(&o, photons, w);
    tmcml_status got = tmcml_lut_with_errors(s, &spec, &o, ck, t->rd, t->rd_r, &t->e, NULL);
    CHECK_MSG(got == expect, "table: %s (status %d, expected %d)", tmcml_session_message(s),
              (int)got, (int)expect);
}

/* A point's most photons in `precision`: on a GPU, so many that each
 * point is simulated alone, in a call of its own (docs/batches.md). */
static int64_t most_photons = MOST;

static int case_precision(void)
{
    tmcml_session *s = tmcml_session_new();
    table t;
    table_errors(&t, PRECISION);
    run_table(s, TMCML_LUT_AUTO, most_photons, &t, NULL, NULL, TMCML_OK);
    CHECK_MSG(t.e.points_short == 0, "%lld points short", (long long)t.e.points_short);
    int64_t least = INT64_MAX, most = 0;
    uint64_t total = 0;
    for (int at = 0; at < POINTS; at++) {
        CHECK_MSG(t.reached[at] <= PRECISION &&
                      fabs(t.reached[at] - t.rd_stderr[at] / t.rd[at]) <= 1e-12 * t.reached[at],
                  "point %d: reached %g, its Rd's relative error %g", at, t.reached[at],
                  t.rd_stderr[at] / t.rd[at]);
        least = t.photons[at] < least ? t.photons[at] : least;
        most = t.photons[at] > most ? t.photons[at] : most;
        total += (uint64_t)t.photons[at];
    }
    CHECK_MSG(least == 64000 && most > 2 * least && t.e.photons_total == total,
              "photons a point from %lld to %lld, total %llu (sum %llu)", (long long)least,
              (long long)most, (unsigned long long)t.e.photons_total, (unsigned long long)total);
    /* Each point its own precision run, seed S + i. */
    tmcml_lut_spec spec;
    slab_spec(&spec, TMCML_LUT_RUNS);
    for (int i = 0; i < K; i++)
        for (int j = 0; j < M; j++) {
            tmcml_options o;
            options(&o, most_photons, NULL);
            o.absorption = 0;
            o.seed = SEED + (uint64_t)i;
            tmcml_problem *p = point(s, &spec, mua[i], musp[j]);
            tmcml_result *r = NULL;
            CHECK(p && tmcml_problem_set_precision(s, p, PRECISION, "Rd", 0) == TMCML_OK);
            CHECK(p && tmcml_run(s, p, &o, &r) == TMCML_OK);
            tmcml_precision prec;
            if (r && tmcml_result_precision(r, &prec) == TMCML_OK)
                check_point(&t, (size_t)j * K + (size_t)i, r, prec.photons);
            tmcml_result_delete(r);
            tmcml_problem_delete(p);
        }
    tmcml_session_delete(s);
    return check_summary("precision");
}

/* ---- uniform -------------------------------------------------------------------------- */

/* Without a precision: tmcml_lut's values, each point 64000 photons, the
 * errors those of the point's runs (runs) or its column's sets (sets). */
static void uniform(tmcml_session *s, tmcml_lut_strategy strategy)
{
    const int64_t photons = 20000;
    table t, plain;
    table_errors(&t, 0);
    run_table(s, strategy, photons, &t, NULL, NULL, TMCML_OK);
    tmcml_lut_spec spec;
    slab_spec(&spec, strategy);
    tmcml_options o;
    options(&o, photons, NULL);
    CHECK(tmcml_lut(s, &spec, &o, NULL, plain.rd, plain.rd_r, NULL) == TMCML_OK);
    CHECK_MSG(same_doubles(t.rd, plain.rd, POINTS) && same_doubles(t.rd_r, plain.rd_r, POINTS * NR),
              "strategy %d: the values differ from tmcml_lut's", (int)strategy);
    CHECK(t.e.points_short == 0 && t.e.photons_total == (uint64_t)photons * POINTS);
    o.absorption = 0;
    for (int j = 0; j < M; j++) {
        tmcml_result *r[K] = {0};
        if (strategy == TMCML_LUT_SETS) {
            tmcml_problem *p = point(s, &spec, mua[0], musp[j]);
            CHECK(p && tmcml_run_sets(s, p, mua, K, &o, r) == TMCML_OK);
            tmcml_problem_delete(p);
        }
        for (int i = 0; i < K; i++) {
            if (strategy == TMCML_LUT_RUNS) {
                o.seed = SEED + (uint64_t)i;
                tmcml_problem *p = point(s, &spec, mua[i], musp[j]);
                CHECK(p && tmcml_run(s, p, &o, &r[i]) == TMCML_OK);
                tmcml_problem_delete(p);
            }
            size_t at = (size_t)j * K + (size_t)i;
            if (r[i])
                check_point(&t, at, r[i], photons);
            CHECK(t.rd_stderr[at] > 0 &&
                  fabs(t.reached[at] - t.rd_stderr[at] / t.rd[at]) <= 1e-12 * t.reached[at]);
            tmcml_result_delete(r[i]);
        }
    }
}

static int case_uniform(void)
{
    tmcml_session *s = tmcml_session_new();
    uniform(s, TMCML_LUT_SETS);
    uniform(s, TMCML_LUT_RUNS);
    tmcml_session_delete(s);
    return check_summary("uniform");
}

/* ---- resume --------------------------------------------------------------------------- */

static bool same_tables(const table *a, const table *b)
{
    return same_doubles(a->rd, b->rd, POINTS) && same_doubles(a->rd_r, b->rd_r, POINTS * NR) &&
           same_doubles(a->rd_stderr, b->rd_stderr, POINTS) &&
           same_doubles(a->rd_r_stderr, b->rd_r_stderr, POINTS * NR) &&
           same_doubles(a->reached, b->reached, POINTS) &&
           memcmp(a->photons, b->photons, sizeof a->photons) == 0 &&
           a->e.photons_total == b->e.photons_total;
}

static int case_resume(void)
{
    CHECK(mkdtemp(dir) != NULL);
    tmcml_session *s = tmcml_session_new();
    char path[256];
    snprintf(path, sizeof path, "%s/t.lut.ckpt", dir);
    table whole, part, other;
    table_errors(&whole, PRECISION);
    run_table(s, TMCML_LUT_RUNS, MOST, &whole, NULL, NULL, TMCML_OK);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0;
    /* Cancelled once the first row is done: the progress counts a row as
     * its most photons, a third of the table's, whatever it took. */
    watch w = {.cancel_at = 0.34};
    table_errors(&part, PRECISION);
    run_table(s, TMCML_LUT_RUNS, MOST, &part, &ck, &w, TMCML_ERR_CANCELLED);
    CHECK_MSG(access(path, F_OK) == 0, "no checkpoint after the cancel");
    /* Another precision, or none, is another table: refused, file kept. */
    ck.resume = 1;
    table_errors(&other, 0.05);
    run_table(s, TMCML_LUT_RUNS, MOST, &other, &ck, NULL, TMCML_ERR_FILE);
    CHECK_MSG(strstr(tmcml_session_message(s), "--precision") != NULL, "%s",
              tmcml_session_message(s));
    tmcml_lut_spec spec;
    slab_spec(&spec, TMCML_LUT_RUNS);
    tmcml_options o;
    options(&o, MOST, NULL);
    CHECK(tmcml_lut(s, &spec, &o, &ck, other.rd, other.rd_r, NULL) == TMCML_ERR_FILE);
    CHECK(access(path, F_OK) == 0);
    table_errors(&part, PRECISION);
    run_table(s, TMCML_LUT_RUNS, MOST, &part, &ck, NULL, TMCML_OK);
    CHECK_MSG(same_tables(&whole, &part), "the resumed table differs from the uninterrupted one");
    CHECK_MSG(access(path, F_OK) != 0, "the finished table's checkpoint is still there");
    tmcml_session_delete(s);
    rmdir(dir);
    return check_summary("resume");
}

/* ---- refused ---------------------------------------------------------------------------- */

static void refused(tmcml_session *s, tmcml_lut_strategy strategy, int64_t photons, table *t,
                    const char *field)
{
    run_table(s, strategy, photons, t, NULL, NULL, TMCML_ERR_ARGUMENT);
    CHECK_MSG(strncmp(tmcml_session_message(s), field, strlen(field)) == 0,
              "expected a message naming %s, got: %s", field, tmcml_session_message(s));
}

static int case_refused(void)
{
    tmcml_session *s = tmcml_session_new();
    table t;
    const double bad[] = {-0.01, 1.0, 2.0, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        table_errors(&t, bad[i]);
        refused(s, TMCML_LUT_AUTO, MOST, &t, "precision:");
    }
    table_errors(&t, 0);
    t.e.of = "Rd";
    refused(s, TMCML_LUT_AUTO, MOST, &t, "of: only with a precision");
    table_errors(&t, 0);
    t.e.max_photons = MOST;
    refused(s, TMCML_LUT_AUTO, MOST, &t, "max_photons: only with a precision");
    table_errors(&t, PRECISION);
    t.e.max_photons = 1000;
    refused(s, TMCML_LUT_AUTO, MOST, &t, "max_photons: expected 0");
    table_errors(&t, PRECISION);
    refused(s, TMCML_LUT_AUTO, 50000, &t, "photons: a precision needs at least 64000");
    table_errors(&t, PRECISION);
    refused(s, TMCML_LUT_SETS, MOST, &t, "strategy: SETS with a precision");
    table_errors(&t, PRECISION);
    t.e.of = "Tt";
    refused(s, TMCML_LUT_AUTO, MOST, &t, "of: Rd");
    table_errors(&t, PRECISION);
    t.e.of = "Rd_r[9]";
    refused(s, TMCML_LUT_AUTO, MOST, &t, "mua");
    CHECK(tmcml_lut_with_errors(s, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == TMCML_ERR_ARGUMENT);
    /* Nothing was given for a refused call. */
    CHECK(t.e.points_short == 0 && t.e.photons_total == 0 && t.photons[0] == 0);
    /* A session that refused works on. */
    table_errors(&t, 0);
    run_table(s, TMCML_LUT_RUNS, 1000, &t, NULL, NULL, TMCML_OK);
    tmcml_session_delete(s);
    return check_summary("refused");
}

/* ---- the command ------------------------------------------------------------------------ */

static int case_cli(const char *tmcml)
{
    CHECK(mkdtemp(dir) != NULL);
    tmcml_session *s = tmcml_session_new();
    table t;
    table_errors(&t, PRECISION);
    run_table(s, TMCML_LUT_AUTO, MOST, &t, NULL, NULL, TMCML_OK);
    char out[256], npz[300], seed[32];
    snprintf(out, sizeof out, "%s/t", dir);
    snprintf(npz, sizeof npz, "%s.npz", out);
    snprintf(seed, sizeof seed, "%u", SEED);
    char *argv[] = {(char *)tmcml, "lut",  "--mua",    "0.1,5,40", "--musp",    "4,12",
                    "--n",         "1.37", "--g",      "0.8",      "--d",       "0.5",
                    "--nr",        "4",    "--dr",     "0.05",     "-N",        "4000000",
                    "-S",          seed,   "--engine", "cpu",      "--threads", "2",
                    "--precision", "1%",   "-q",       "-o",       out,         NULL};
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, tmcml, NULL, NULL, argv, environ) == 0)
        waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "tmcml lut: status %d", status);
    size_t size = 0;
    char *zip = read_all(npz, &size), header[256];
    const struct {
        const char *name;
        const double *values;
        size_t count;
    } members[] = {{"Rd.npy", t.rd, POINTS},
                   {"Rd_stderr.npy", t.rd_stderr, POINTS},
                   {"Rd_r_stderr.npy", t.rd_r_stderr, POINTS * NR},
                   {"reached.npy", t.reached, POINTS}};
    for (size_t k = 0; zip && k < sizeof members / sizeof *members; k++) {
        size_t differ =
            npz_differing(zip, size, members[k].name, members[k].values, members[k].count, NULL);
        CHECK_MSG(differ == 0, "%s: %zu values differ from the library's", members[k].name, differ);
    }
    const unsigned char *taken =
        zip ? npz_member(zip, size, "point_photons.npy", header, sizeof header) : NULL;
    size_t differ = taken ? 0 : (size_t)POINTS;
    for (size_t i = 0; taken && i < POINTS; i++) {
        uint64_t v = 0;
        for (int b = 0; b < 8; b++)
            v |= (uint64_t)taken[8 * i + (size_t)b] << (8 * b);
        differ += v != (uint64_t)t.photons[i];
    }
    CHECK_MSG(differ == 0, "point_photons: %zu differ from the library's", differ);
    free(zip);
    tmcml_session_delete(s);
    remove(npz);
    snprintf(npz, sizeof npz, "%s.csv", out);
    remove(npz);
    rmdir(dir);
    return check_summary("cli");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (strcmp(which, "precision") == 0)
        return case_precision();
    if (strcmp(which, "uniform") == 0)
        return case_uniform();
    if (strcmp(which, "resume") == 0)
        return case_resume();
    if (strcmp(which, "refused") == 0)
        return case_refused();
    if (strcmp(which, "cli") == 0 && argc > 2)
        return case_cli(argv[2]);
    if (strcmp(which, "gpu") == 0) {
        if (!lut_use_gpu())
            return 77;
        most_photons = 100000000;
        return case_precision();
    }
    fprintf(stderr,
            "usage: test_api_lut_errors precision|uniform|resume|refused|gpu | cli TMCML\n");
    return 2;
}
