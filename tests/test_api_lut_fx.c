/* Lookup tables of R(fx), an SFDI table, through the public header
 * (tmcml_lut_with_frequencies; docs/lut.md, "Spatial frequencies: an SFDI
 * table"):
 *   points   for both strategies, with and without errors: Rd_fx[..., 0]
 *            is Rd bit for bit; Rd, Rd_r and the errors are the table's
 *            without frequencies; each point's R(fx) and its errors are
 *            its own run's with the frequencies (sets: tmcml_run_sets of
 *            the mus', seed S; runs: tmcml_run, seed S + i), a point of
 *            the runs that of `tmcml run -A -S S+i --spatial-frequencies`
 *            (its .npz), and the table that of `tmcml lut
 *            --spatial-frequencies` (fx, Rd_fx, Rd_fx_stderr of its .npz)
 *   resume   cancelled twice and resumed to the end, the table of an
 *            uninterrupted one bit for bit (runs with errors, sets
 *            without); its checkpoint refused by the table without
 *            frequencies or with others, and a checkpoint without them by
 *            the table with them, each naming the line that differs
 *   refused  frequencies that are none (negative, NaN, above 10^4 1/cm,
 *            1025 of them, 0, NULL), rd_fx NULL, rd_fx_stderr without
 *            errors, Rd_fx above 2^27 values, the GPU asked for sets or
 *            for more than 128: TMCML_ERR_ARGUMENT naming it, nothing
 *            written, before any photon runs
 *   gpu      on the GPU (skipped, status 77, without one): auto is runs,
 *            each point its own GPU run's (the GPU's kernel of frequencies
 *            is a run's own), Rd, Rd_r and the errors those of the GPU's
 *            table without frequencies (batched)
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

#define NR      6
#define FX      4
#define MOST    64 /* points of the largest table here */
#define FX_TEXT "0,0.5,2,7"
static const double fx4[FX] = {0, 0.5, 2, 7};
static const double mua3[3] = {0.1, 0.5, 2.0};
static const double musp2[2] = {5, 12};

static char dir[] = "/tmp/test_api_lut_fx_XXXXXX";
static const char *tmcml; /* the command (case points) */

/* A table's values and what made it. */
typedef struct table {
    double rd[MOST], rd_r[MOST * NR], rd_fx[MOST * FX];
    double rd_err[MOST], rd_r_err[MOST * NR], rd_fx_err[MOST * FX], reached[MOST];
    int64_t photons[MOST];
    tmcml_lut_errors errors;
    tmcml_lut_frequencies fx;
    tmcml_lut_info info;
} table;

/* t's outs for a call with errors (or not) and frequencies (or not). */
static void table_outs(table *t, bool errors, const double *fx, int count)
{
    tmcml_lut_errors_init(&t->errors);
    t->errors.rd_stderr = t->rd_err;
    t->errors.rd_r_stderr = t->rd_r_err;
    t->errors.photons = t->photons;
    t->errors.reached = t->reached;
    t->fx = (tmcml_lut_frequencies){fx, count, t->rd_fx, errors ? t->rd_fx_err : NULL};
}

/* The table of spec on the session: with errors, with frequencies fx4 (or
 * without, fx false), kept in ck (may be NULL). */
static tmcml_status make(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *o,
                         const tmcml_checkpoint *ck, bool errors, bool fx, table *t)
{
    table_outs(t, errors, fx4, FX);
    if (fx)
        return tmcml_lut_with_frequencies(s, spec, o, ck, t->rd, t->rd_r,
                                          errors ? &t->errors : NULL, &t->fx, &t->info);
    if (errors)
        return tmcml_lut_with_errors(s, spec, o, ck, t->rd, t->rd_r, &t->errors, &t->info);
    return tmcml_lut(s, spec, o, ck, t->rd, t->rd_r, &t->info);
}

static bool same(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* ---- points ------------------------------------------------------------------------- */

static tmcml_problem *point(tmcml_session *s, const tmcml_lut_spec *spec, double mua, double musp,
                            bool errors)
{
    tmcml_layer layer = {spec->n, mua, musp / (1 - spec->g), spec->g, spec->d};
    tmcml_grid grid = {.dz = spec->dr, .dr = spec->dr, .nz = 1, .nr = spec->nr, .na = 1};
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, &layer, 1, spec->n_above, spec->n_below, &grid, &p) == TMCML_OK);
    CHECK(p && tmcml_problem_set_spatial_frequencies(s, p, fx4, FX) == TMCML_OK);
    CHECK(p && tmcml_problem_set_stderr(s, p, errors) == TMCML_OK);
    return p;
}

/* Point at's R(fx) (and with errors their errors) those of result r. */
static void check_point(const table *t, size_t at, bool errors, const tmcml_result *r)
{
    size_t count = 0;
    const double *fx = tmcml_result_array(r, TMCML_RD_FX, &count);
    CHECK_MSG(count == FX && same(t->rd_fx + at * FX, fx, FX), "point %zu: R(fx) not its run's",
              at);
    if (!errors)
        return;
    const double *err = tmcml_result_stderr(r, TMCML_RD_FX, &count);
    CHECK_MSG(err && count == FX && same(t->rd_fx_err + at * FX, err, FX),
              "point %zu: R(fx)'s errors not its run's", at);
}

/* Each point against its own run: sets, each mus' the tmcml_run_sets of
 * the mua with seed S; runs, each point tmcml_run with seed S + i. */
static void check_runs(tmcml_session *s, const tmcml_lut_spec *spec, int64_t photons, bool errors,
                       const table *t)
{
    int k = spec->num_mua;
    bool sets = t->info.strategy == TMCML_LUT_SETS;
    tmcml_options o;
    lut_options(&o, photons, NULL, NULL);
    o.absorption = 0;
    for (int j = 0; sets && j < spec->num_musp; j++) {
        tmcml_problem *p = point(s, spec, spec->mua[0], spec->musp[j], errors);
        tmcml_result *r[8] = {0};
        CHECK(p && tmcml_run_sets(s, p, spec->mua, k, &o, r) == TMCML_OK);
        for (int i = 0; i < k; i++)
            if (r[i])
                check_point(t, (size_t)(j * k + i), errors, r[i]);
        for (int i = 0; i < k; i++)
            tmcml_result_delete(r[i]);
        tmcml_problem_delete(p);
    }
    for (int i = 0; !sets && i < k; i++)
        for (int j = 0; j < spec->num_musp; j++) {
            o.seed = SEED + (uint64_t)i;
            tmcml_problem *p = point(s, spec, spec->mua[i], spec->musp[j], errors);
            tmcml_result *r = NULL;
            CHECK(p && tmcml_run(s, p, &o, &r) == TMCML_OK);
            if (r)
                check_point(t, (size_t)(j * k + i), errors, r);
            tmcml_result_delete(r);
            tmcml_problem_delete(p);
        }
}

/* The table with frequencies against the one without: the same Rd, Rd_r
 * and errors, and Rd_fx at fx 0 Rd. */
static void check_same_table(const table *with, const table *without, size_t points, bool errors)
{
    CHECK_MSG(same(with->rd, without->rd, points) && same(with->rd_r, without->rd_r, points * NR),
              "Rd or Rd_r differ from the table's without frequencies");
    CHECK_MSG(!errors || (same(with->rd_err, without->rd_err, points) &&
                          same(with->rd_r_err, without->rd_r_err, points * NR) &&
                          memcmp(with->photons, without->photons, points * 8) == 0),
              "the errors differ from the table's without frequencies");
    for (size_t at = 0; at < points; at++)
        CHECK_MSG(with->rd_fx[at * FX] == with->rd[at], "point %zu: Rd_fx at 0 %.17g, Rd %.17g", at,
                  with->rd_fx[at * FX], with->rd[at]);
}

/* The table of strategy with and without frequencies, each point's run. */
static void points_of(tmcml_lut_strategy strategy, bool errors, table *t)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_lut_spec spec;
    lut_slab_spec(&spec, NR, mua3, 3, musp2, 2, strategy);
    tmcml_options o;
    lut_options(&o, 2000, NULL, NULL);
    static table without;
    CHECK_MSG(make(s, &spec, &o, NULL, errors, true, t) == TMCML_OK, "%s",
              tmcml_session_message(s));
    CHECK(make(s, &spec, &o, NULL, errors, false, &without) == TMCML_OK);
    CHECK(t->info.strategy == (strategy == TMCML_LUT_RUNS ? TMCML_LUT_RUNS : TMCML_LUT_SETS));
    CHECK(strcmp(t->info.engine, engine == TMCML_ENGINE_GPU ? "gpu" : "cpu") == 0);
    check_same_table(t, &without, 6, errors);
    check_runs(s, &spec, 2000, errors, t);
    tmcml_session_delete(s);
}

/* argv run; its exit status (-1 when it did not run). */
static int spawn(char *const argv[])
{
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) == 0)
        waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The member name's doubles (count) equal to values, bit for bit. */
static void check_member(const char *zip, size_t size, const char *name, const double *values,
                         size_t count)
{
    bool found;
    size_t differ = npz_differing(zip, size, name, values, count, &found);
    CHECK_MSG(found && differ == 0, "%s: %s, %zu of %zu values differ", name,
              found ? "found" : "missing", differ, count);
}

/* `tmcml lut --spatial-frequencies` of the slab: its .npz's fx, Rd_fx and
 * Rd_fx_stderr those of t (runs, with errors). */
static void command_table(const table *t)
{
    char out[256], npz[300], seed[32];
    snprintf(out, sizeof out, "%s/table", dir);
    snprintf(npz, sizeof npz, "%s.npz", out);
    snprintf(seed, sizeof seed, "%u", SEED);
    char *argv[] = {
        (char *)tmcml, "lut",      "--mua",      "0.1,0.5,2", "--musp",   "5,12",
        "--n",         "1.37",     "--g",        "0.8",       "--d",      "0.5",
        "--nr",        "6",        "--dr",       "0.05",      "-N",       "2000",
        "-S",          seed,       "--strategy", "runs",      "--stderr", "--spatial-frequencies",
        FX_TEXT,       "--engine", "cpu",        "--threads", "2",        "-q",
        "-o",          out,        NULL};
    CHECK(spawn(argv) == 0);
    size_t size = 0;
    char *zip = read_all(npz, &size);
    check_member(zip, size, "fx.npy", fx4, FX);
    check_member(zip, size, "Rd_fx.npy", t->rd_fx, 6 * FX);
    check_member(zip, size, "Rd_fx_stderr.npy", t->rd_fx_err, 6 * FX);
    check_member(zip, size, "Rd.npy", t->rd, 6);
    free(zip);
}

/* `tmcml run POINT.mci -A -S S+i --spatial-frequencies` of point (mus'
 * 12, mua number 2): its .npz's Rd_fx that of t. */
static void command_point(const table *t)
{
    char mci[300], out[300], npz[320], seed[32];
    snprintf(mci, sizeof mci, "%s/point.mci", dir);
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(npz, sizeof npz, "%s/point.npz", out);
    snprintf(seed, sizeof seed, "%u", SEED + 2);
    FILE *f = fopen(mci, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "1.0\n1\npoint.mco A\n2000\n0.05 0.05\n1 6 1\n1\n1.0\n");
        fprintf(f, "1.37 %.17g %.17g 0.8 0.5\n1.0\n", mua3[2], musp2[1] / (1 - 0.8));
        fclose(f);
    }
    char *argv[] = {
        (char *)tmcml, "run",      mci,   "-A",        "-S", seed, "--spatial-frequencies",
        FX_TEXT,       "--engine", "cpu", "--threads", "2",  "-q", "--npz",
        "-o",          out,        NULL};
    CHECK(spawn(argv) == 0);
    size_t size = 0;
    char *zip = read_all(npz, &size);
    check_member(zip, size, "Rd_fx.npy", t->rd_fx + (1 * 3 + 2) * FX, FX);
    free(zip);
}

static int case_points(void)
{
    CHECK(mkdtemp(dir) != NULL);
    static table t;
    points_of(TMCML_LUT_SETS, false, &t);
    points_of(TMCML_LUT_SETS, true, &t);
    points_of(TMCML_LUT_AUTO, false, &t); /* on the CPU: sets */
    points_of(TMCML_LUT_RUNS, false, &t);
    points_of(TMCML_LUT_RUNS, true, &t);
    command_table(&t);
    command_point(&t);
    CHECK(check_temp_files(dir, NULL) == 0);
    return check_summary("points");
}

/* ---- resume ----------------------------------------------------------------------------- */

typedef struct watch {
    uint64_t last;
    double cancel_at; /* fraction of the table's photons (0: never) */
} watch;

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    watch *w = user;
    w->last = done;
    return w->cancel_at > 0 && (double)done >= w->cancel_at * (double)total;
}

/* The runs' long table with errors, the sets' without: both layouts of
 * a checkpoint with frequencies. */
static bool with_errors(const lut_long_table *t) { return t->spec.strategy == TMCML_LUT_RUNS; }

/* The table with frequencies cancelled once `at` of its photons are done:
 * the simulations done kept in the file. */
static void cancelled(tmcml_session *s, const lut_long_table *t, const tmcml_checkpoint *ck,
                      double at, table *out)
{
    watch w = {.cancel_at = at};
    tmcml_options o;
    lut_options(&o, t->photons, on_progress, &w);
    CHECK(make(s, &t->spec, &o, ck, with_errors(t), true, out) == TMCML_ERR_CANCELLED);
    CHECK_MSG(out->info.done >= 1 && out->info.done < out->info.simulations &&
                  out->info.kept == out->info.done,
              "cancelled at %g: %d of %d done, %d kept", at, out->info.done, out->info.simulations,
              out->info.kept);
}

static void stop_and_resume(tmcml_lut_strategy strategy)
{
    tmcml_session *s = tmcml_session_new();
    lut_long_table t;
    lut_long_table_of(&t, NR, strategy);
    static table whole, part;
    tmcml_options o;
    lut_options(&o, t.photons, NULL, NULL);
    CHECK(make(s, &t.spec, &o, NULL, with_errors(&t), true, &whole) == TMCML_OK);
    char path[300];
    snprintf(path, sizeof path, "%s/%d.lut.ckpt", dir, (int)strategy);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0; /* only when cancelled */
    cancelled(s, &t, &ck, 0.3, &part);
    ck.resume = 1;
    cancelled(s, &t, &ck, 0.7, &part);
    CHECK_MSG(make(s, &t.spec, &o, &ck, with_errors(&t), true, &part) == TMCML_OK, "resumed: %s",
              tmcml_session_message(s));
    CHECK(part.info.resumed > 0 && part.info.done == part.info.simulations);
    CHECK_MSG(same(part.rd, whole.rd, MOST) && same(part.rd_r, whole.rd_r, MOST * NR) &&
                  same(part.rd_fx, whole.rd_fx, MOST * FX),
              "strategy %d: the resumed table differs from the uninterrupted one", (int)strategy);
    CHECK_MSG(!with_errors(&t) || (same(part.rd_err, whole.rd_err, MOST) &&
                                   same(part.rd_fx_err, whole.rd_fx_err, MOST * FX)),
              "strategy %d: the resumed errors differ", (int)strategy);
    CHECK(access(path, F_OK) != 0);
    tmcml_session_delete(s);
}

/* The checkpoint refused (TMCML_ERR_FILE) naming why, and left as it was. */
static void refused_file(tmcml_session *s, const lut_long_table *t, const tmcml_checkpoint *ck,
                         const double *fx, int count, const char *why)
{
    size_t size = 0;
    char *before = read_all(ck->path, &size);
    static table u;
    tmcml_options o;
    lut_options(&o, t->photons, NULL, NULL);
    table_outs(&u, with_errors(t), fx, count);
    tmcml_status got =
        count ? tmcml_lut_with_frequencies(s, &t->spec, &o, ck, u.rd, u.rd_r, &u.errors, &u.fx,
                                           &u.info)
              : tmcml_lut_with_errors(s, &t->spec, &o, ck, u.rd, u.rd_r, &u.errors, &u.info);
    CHECK_MSG(got == TMCML_ERR_FILE, "%s: not refused (%d)", why, (int)got);
    CHECK_CONTAINS(tmcml_session_message(s), why);
    CHECK_MSG(same_file(ck->path, before, size), "%s: the checkpoint changed", why);
    free(before);
}

/* A checkpoint with frequencies is not the table's without them or with
 * others, nor one without them the table's with them. */
static void other_tables(void)
{
    tmcml_session *s = tmcml_session_new();
    lut_long_table t;
    lut_long_table_of(&t, NR, TMCML_LUT_RUNS);
    char path[300];
    snprintf(path, sizeof path, "%s/other.lut.ckpt", dir);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    static table part;
    cancelled(s, &t, &ck, 0.3, &part);
    ck.resume = 1;
    static const double other[FX] = {0, 0.5, 2, 8};
    refused_file(s, &t, &ck, NULL, 0,
                 "made with --spatial-frequencies count 4, this one has nothing more");
    refused_file(s, &t, &ck, other, FX,
                 "made with --spatial-frequencies[3] 7, this one has --spatial-frequencies[3] 8");
    refused_file(s, &t, &ck, fx4, 3,
                 "made with --spatial-frequencies count 4, this one has --spatial-frequencies "
                 "count 3");
    unlink(path);
    /* A table without frequencies, cancelled: its checkpoint (version 2) is
     * not the table's with them. */
    watch w = {.cancel_at = 0.3};
    tmcml_options o;
    lut_options(&o, t.photons, on_progress, &w);
    ck.resume = 0;
    CHECK(make(s, &t.spec, &o, &ck, true, false, &part) == TMCML_ERR_CANCELLED);
    ck.resume = 1;
    refused_file(s, &t, &ck, fx4, FX,
                 "made with nothing more, this one has --spatial-frequencies count 4");
    unlink(path);
    tmcml_session_delete(s);
}

static int case_resume(void)
{
    CHECK(mkdtemp(dir) != NULL);
    stop_and_resume(TMCML_LUT_RUNS);
    stop_and_resume(TMCML_LUT_SETS);
    other_tables();
    CHECK(check_temp_files(dir, NULL) == 0);
    rmdir(dir);
    return check_summary("resume");
}

/* ---- refused -------------------------------------------------------------------------------- */

/* Refused with TMCML_ERR_ARGUMENT naming what, nothing written, no
 * progress reported (no photon ran). */
static void refused(tmcml_session *s, const tmcml_lut_spec *spec, tmcml_options *o, bool errors,
                    const tmcml_lut_frequencies *fx, const char *what)
{
    static table t;
    table_outs(&t, errors, NULL, 0);
    for (int i = 0; i < 6; i++)
        t.rd[i] = -1;
    watch w = {.last = UINT64_MAX};
    o->progress = on_progress;
    o->progress_user = &w;
    tmcml_status got = tmcml_lut_with_frequencies(s, spec, o, NULL, t.rd, t.rd_r,
                                                  errors ? &t.errors : NULL, fx, &t.info);
    CHECK_MSG(got == TMCML_ERR_ARGUMENT, "%s: status %d (%s)", what, (int)got,
              tmcml_session_message(s));
    CHECK_CONTAINS(tmcml_session_message(s), what);
    CHECK(t.rd[0] == -1 && t.rd[5] == -1 && w.last == UINT64_MAX && t.info.done == 0);
}

/* Frequencies that are none, each refused as a problem's are. */
static void refused_values(tmcml_session *s, const tmcml_lut_spec *spec, tmcml_options *o)
{
    static double many[1025];
    static table t;
    tmcml_lut_frequencies f = {fx4, FX, t.rd_fx, NULL};
    static const double negative[2] = {0, -1}, nan2[2] = {0, NAN}, high[2] = {0, 2e4};
    struct {
        const double *fx;
        int count;
        const char *what;
    } bad[] = {
        {negative, 2, "spatial frequencies: frequency 2, -1 1/cm, is negative"},
        {nan2, 2, "spatial frequencies: frequency 2, nan 1/cm, is not a finite number"},
        {high, 2, "spatial frequencies: frequency 2, 20000 1/cm, is above 10000 1/cm"},
        {many, 1025, "spatial frequencies: 1025 frequencies: 1 to 1024 are possible"},
        {fx4, 0, "spatial frequencies: 0 frequencies: 1 to 1024 are possible"},
        {NULL, 2, "spatial frequencies: 2 frequencies: 1 to 1024 are possible"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f.fx = bad[i].fx;
        f.count = bad[i].count;
        refused(s, spec, o, false, &f, bad[i].what);
    }
}

static void refused_fields(tmcml_session *s, const tmcml_lut_spec *spec, tmcml_options *o)
{
    static table t;
    tmcml_lut_frequencies f = {fx4, FX, NULL, NULL};
    refused(s, spec, o, false, &f, "rd_fx: NULL for 4 frequencies");
    f = (tmcml_lut_frequencies){fx4, FX, t.rd_fx, t.rd_fx_err};
    refused(s, spec, o, false, &f, "rd_fx_stderr: standard errors need errors");
    refused(s, spec, o, false, NULL, "fx: NULL");
    CHECK(tmcml_lut_with_frequencies(NULL, spec, o, NULL, t.rd, t.rd_r, NULL, &f, &t.info) ==
          TMCML_ERR_ARGUMENT);
    /* Rd_fx's size: 2^27 values, as Rd_r's. */
    static double axis[1000], many[1024];
    for (int i = 0; i < 1000; i++)
        axis[i] = 1 + i;
    tmcml_lut_spec big = *spec;
    big.mua = big.musp = axis;
    big.num_mua = big.num_musp = 1000;
    big.nr = 1;
    f = (tmcml_lut_frequencies){many, 1024, t.rd_fx, NULL};
    refused(s, &big, o, false, &f,
            "1000 mus' x 1000 mua x 1024 frequencies is 1.02e+09 values of Rd_fx, more than "
            "2^27");
}

/* The GPU asked for what it does not score: sets, or more frequencies
 * than its kernel takes (refused whether there is a GPU or not). */
static void refused_gpu(tmcml_session *s, tmcml_lut_spec spec, tmcml_options *o)
{
    static table t;
    static double fx129[129];
    tmcml_lut_frequencies f = {fx4, FX, t.rd_fx, NULL};
    o->engine = TMCML_ENGINE_GPU;
    spec.strategy = TMCML_LUT_SETS;
    refused(s, &spec, o, false, &f,
            "engine: spatial frequencies with the sets strategy (the GPU's kernel of absorption "
            "sets scores none) are scored by the CPU engine alone: TMCML_ENGINE_CPU or AUTO, or "
            "strategy RUNS");
    spec.strategy = TMCML_LUT_AUTO;
    f = (tmcml_lut_frequencies){fx129, 129, t.rd_fx, NULL};
    refused(s, &spec, o, false, &f,
            "engine: spatial frequencies of 129 frequencies (a GPU kernel scores at most 128)");
    o->engine = engine;
}

static int case_refused(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_lut_spec spec;
    lut_slab_spec(&spec, NR, mua3, 3, musp2, 2, TMCML_LUT_AUTO);
    tmcml_options o;
    lut_options(&o, 100, NULL, NULL);
    refused_values(s, &spec, &o);
    refused_fields(s, &spec, &o);
    refused_gpu(s, spec, &o);
    /* A session that refused works on; 129 frequencies the CPU scores. */
    static table t;
    static double fx129[129];
    for (int i = 0; i < 129; i++)
        fx129[i] = 0.1 * i;
    tmcml_lut_frequencies f = {fx129, 129, malloc(6 * 129 * sizeof(double)), NULL};
    lut_options(&o, 100, NULL, NULL);
    CHECK(f.rd_fx && tmcml_lut_with_frequencies(s, &spec, &o, NULL, t.rd, t.rd_r, NULL, &f,
                                                &t.info) == TMCML_OK);
    CHECK(t.info.done == 2 && f.rd_fx && f.rd_fx[5 * 129] == t.rd[5]);
    free(f.rd_fx);
    tmcml_session_delete(s);
    return check_summary("refused");
}

/* ---- gpu ----------------------------------------------------------------------------------- */

/* On the GPU: auto is runs, a row's points each a run of its own. */
static int case_gpu(void)
{
    static table t, without;
    tmcml_session *s = tmcml_session_new();
    tmcml_lut_spec spec;
    lut_slab_spec(&spec, NR, mua3, 3, musp2, 2, TMCML_LUT_AUTO);
    tmcml_options o;
    lut_options(&o, 2000, NULL, NULL);
    CHECK_MSG(make(s, &spec, &o, NULL, true, true, &t) == TMCML_OK, "%s", tmcml_session_message(s));
    CHECK(t.info.strategy == TMCML_LUT_RUNS && strcmp(t.info.engine, "gpu") == 0);
    spec.strategy = TMCML_LUT_RUNS; /* batched */
    CHECK(make(s, &spec, &o, NULL, true, false, &without) == TMCML_OK);
    CHECK(strcmp(without.info.engine, "gpu") == 0);
    check_same_table(&t, &without, 6, true);
    check_runs(s, &spec, 2000, true, &t);
    tmcml_session_delete(s);
    return check_summary("gpu");
}

/* The case gpu: case_gpu on the GPU, skipped without one. */
static int case_on_gpu(void) { return lut_use_gpu() ? case_gpu() : 77; }

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"points", case_points},
                                       {"resume", case_resume},
                                       {"refused", case_refused},
                                       {"gpu", case_on_gpu}};
    tmcml = argc > 2 ? argv[2] : "";
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof *cases,
                          "usage: test_api_lut_fx points TMCML | resume | refused | gpu\n");
}
