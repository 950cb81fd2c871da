/* Lookup tables through the public header alone (tmcml_lut, docs/lut.md
 * "From C and Python"):
 *   cli      for both strategies (and the sets' chunks of 256 mua) the
 *            table is, bit for bit, the Rd, Rd_r and Rsp of `tmcml lut`'s
 *            OUT.npz with the same options, and each point the library's
 *            own run of it (runs: tmcml_run with seed S + i; sets:
 *            tmcml_run_sets of the mus' with seed S); the progress callback
 *            counts the whole table's photons
 *   resume   cancelled by the progress callback, then by tmcml_session_cancel
 *            from it, the simulations done kept in the checkpoint; resumed
 *            to the end, the table of an uninterrupted one bit for bit and
 *            the file removed; for both strategies
 *   refused  a checkpoint of another table, a damaged one and one there
 *            without resume refused (TMCML_ERR_FILE) and left as they were;
 *            every bad field of the spec and the options refused
 *            (TMCML_ERR_ARGUMENT) naming it, with nothing written
 *   gpu      `cli` on the GPU (skipped, status 77, without one)
 * The CPU engine, fixed seeds: deterministic. */
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

#define NR 6

static char dir[] = "/tmp/test_api_lut_XXXXXX";

/* What the progress callback saw, and when it cancels. */
typedef struct watch {
    tmcml_session *s;
    uint64_t last, total;
    int calls, backwards;
    double cancel_at;    /* fraction of the table's photons (0: never) */
    bool cancel_session; /* by tmcml_session_cancel rather than the answer */
    const char *path;    /* a checkpoint file looked for at each call (NULL: none) */
    int seen;            /* calls that found it */
} watch;

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    watch *w = user;
    w->backwards += done < w->last;
    w->last = done;
    w->total = total;
    w->calls++;
    w->seen += w->path && access(w->path, F_OK) == 0;
    bool stop = w->cancel_at > 0 && (double)done >= w->cancel_at * (double)total;
    if (stop && w->cancel_session)
        tmcml_session_cancel(w->s);
    return stop && !w->cancel_session;
}

static void options(tmcml_options *o, int64_t photons, watch *w)
{
    lut_options(o, photons, w ? on_progress : NULL, w);
}

/* ---- the command's table ----------------------------------------------------------- */

/* values joined by commas, for --mua and --musp. */
static char *axis_text(const double *values, int count)
{
    char *text = malloc((size_t)count * 32 + 1);
    size_t at = 0;
    for (int i = 0; text && i < count; i++)
        at += (size_t)snprintf(text + at, 32, "%s%.17g", i ? "," : "", values[i]);
    return text;
}

/* `tmcml lut` of the spec into OUT.npz, read back; NULL when it failed. */
static char *command_table(const char *tmcml, const tmcml_lut_spec *spec, int64_t photons,
                           const char *name, size_t *size)
{
    static const char *const strategies[] = {"auto", "sets", "runs"};
    char out[256], npz[300], n[16], seed[32], nr[16], dr[16], count[32];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    snprintf(npz, sizeof npz, "%s.npz", out);
    snprintf(seed, sizeof seed, "%u", SEED);
    snprintf(count, sizeof count, "%lld", (long long)photons);
    snprintf(n, sizeof n, "%g", spec->n);
    snprintf(nr, sizeof nr, "%d", spec->nr);
    snprintf(dr, sizeof dr, "%g", spec->dr);
    char g[16], d[16];
    snprintf(g, sizeof g, "%g", spec->g);
    snprintf(d, sizeof d, "%g", spec->d);
    char *mua = axis_text(spec->mua, spec->num_mua), *musp = axis_text(spec->musp, spec->num_musp);
    char *argv[] = {(char *)tmcml, "lut",
                    "--mua",       mua,
                    "--musp",      musp,
                    "--n",         n,
                    "--g",         g,
                    "--d",         d,
                    "--nr",        nr,
                    "--dr",        dr,
                    "-N",          count,
                    "-S",          seed,
                    "--engine",    engine == TMCML_ENGINE_GPU ? "gpu" : "cpu",
                    "--strategy",  (char *)strategies[spec->strategy],
                    "--threads",   "2",
                    "-q",          "-o",
                    out,           NULL};
    pid_t pid;
    int status = -1;
    if (mua && musp && posix_spawn(&pid, tmcml, NULL, NULL, argv, environ) == 0)
        waitpid(pid, &status, 0);
    free(mua);
    free(musp);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "tmcml lut %s: status %d", name,
              status);
    return read_all(npz, size);
}

/* The member's doubles equal to values[0 .. count-1], bit for bit. */
static void check_member(const char *zip, size_t size, const char *name, const double *values,
                         size_t count)
{
    bool found;
    size_t differ = npz_differing(zip, size, name, values, count, &found);
    CHECK_MSG(found, "%s missing", name);
    CHECK_MSG(!found || differ == 0, "%s: %zu of %zu values differ from tmcml lut's", name, differ,
              count);
}

/* Point (j, i)'s Rd and Rd_r equal to result r's, bit for bit. */
static void check_point(const tmcml_lut_spec *spec, const double *rd, const double *rd_r, int j,
                        int i, const tmcml_result *r)
{
    tmcml_rat rat;
    size_t count = 0, at = (size_t)j * (size_t)spec->num_mua + (size_t)i;
    tmcml_result_rat(r, &rat);
    const double *ring = tmcml_result_array(r, TMCML_RD_R, &count);
    CHECK_MSG(rd[at] == rat.rd && count == (size_t)spec->nr &&
                  memcmp(rd_r + at * (size_t)spec->nr, ring, count * sizeof *ring) == 0,
              "point (mus' %g, mua %g): Rd %.17g, its run's %.17g", spec->musp[j], spec->mua[i],
              rd[at], rat.rd);
}

static tmcml_problem *point(tmcml_session *s, const tmcml_lut_spec *spec, double mua, double musp)
{
    tmcml_layer layer = {spec->n, mua, musp / (1 - spec->g), spec->g, spec->d};
    tmcml_grid grid = {.dz = spec->dr, .dr = spec->dr, .nz = 1, .nr = spec->nr, .na = 1};
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, &layer, 1, spec->n_above, spec->n_below, &grid, &p) == TMCML_OK);
    return p;
}

/* Column j of the sets: tmcml_run_sets of (mua[0], musp[j]) with the
 * column's mua in chunks of TMCML_MUA_SETS_MAX, seed S. */
static void check_column(tmcml_session *s, const tmcml_lut_spec *spec, int64_t photons, int j,
                         const double *rd, const double *rd_r)
{
    tmcml_options o;
    options(&o, photons, NULL);
    o.absorption = 0;
    tmcml_problem *p = point(s, spec, spec->mua[0], spec->musp[j]);
    for (int first = 0; p && first < spec->num_mua; first += TMCML_MUA_SETS_MAX) {
        int n =
            spec->num_mua - first < TMCML_MUA_SETS_MAX ? spec->num_mua - first : TMCML_MUA_SETS_MAX;
        tmcml_result *r[TMCML_MUA_SETS_MAX] = {0};
        CHECK(tmcml_run_sets(s, p, &spec->mua[first], n, &o, r) == TMCML_OK);
        for (int i = 0; i < n; i++) {
            if (r[i])
                check_point(spec, rd, rd_r, j, first + i, r[i]);
            tmcml_result_delete(r[i]);
        }
    }
    tmcml_problem_delete(p);
}

/* Row i of the runs, point by point: tmcml_run of (mua[i], musp[j]) with
 * seed S + i. */
static void check_row(tmcml_session *s, const tmcml_lut_spec *spec, int64_t photons, int i,
                      const double *rd, const double *rd_r)
{
    tmcml_options o;
    options(&o, photons, NULL);
    o.absorption = 0;
    o.seed = SEED + (uint64_t)i;
    for (int j = 0; j < spec->num_musp; j++) {
        tmcml_problem *p = point(s, spec, spec->mua[i], spec->musp[j]);
        tmcml_result *r = NULL;
        CHECK(p && tmcml_run(s, p, &o, &r) == TMCML_OK);
        if (r)
            check_point(spec, rd, rd_r, j, i, r);
        tmcml_result_delete(r);
        tmcml_problem_delete(p);
    }
}

static int ceil_chunks(int k) { return (k + TMCML_MUA_SETS_MAX - 1) / TMCML_MUA_SETS_MAX; }

/* The table of the library against `tmcml lut`'s and against its points'
 * own runs; the progress it reported. */
static void same_as_cli(const char *tmcml, tmcml_lut_strategy strategy, const double *mua, int k,
                        const double *musp, int m, int64_t photons, const char *name)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_lut_spec spec;
    lut_slab_spec(&spec, NR, mua, k, musp, m, strategy);
    size_t points = (size_t)k * (size_t)m;
    double *rd = malloc(points * sizeof *rd), *rd_r = malloc(points * NR * sizeof *rd_r);
    watch w = {.s = s};
    tmcml_options o;
    options(&o, photons, &w);
    tmcml_lut_info info;
    CHECK_MSG(tmcml_lut(s, &spec, &o, NULL, rd, rd_r, &info) == TMCML_OK, "%s: %s", name,
              tmcml_session_message(s));
    bool sets = strategy != TMCML_LUT_RUNS;
    int simulations = sets ? m * ceil_chunks(k) : k;
    CHECK(info.strategy == (sets ? TMCML_LUT_SETS : TMCML_LUT_RUNS));
    CHECK(strcmp(info.engine, engine == TMCML_ENGINE_GPU ? "gpu" : "cpu") == 0);
    CHECK(info.simulations == simulations && info.done == simulations && info.resumed == 0 &&
          info.kept == 0 && info.points_done == (int64_t)points && info.rsp > 0);
    /* The whole table's photons: a simulation's history serves its sets. */
    uint64_t total = (uint64_t)photons * (uint64_t)simulations * (sets ? 1u : (uint64_t)m);
    CHECK_MSG(w.total == total && w.last == total && w.backwards == 0,
              "%s: progress %llu of %llu (expected %llu), %d backwards", name,
              (unsigned long long)w.last, (unsigned long long)w.total, (unsigned long long)total,
              w.backwards);
    size_t size = 0;
    char *zip = command_table(tmcml, &spec, photons, name, &size);
    if (zip) {
        check_member(zip, size, "Rd.npy", rd, points);
        check_member(zip, size, "Rd_r.npy", rd_r, points * NR);
        check_member(zip, size, "Rsp.npy", &info.rsp, 1);
    }
    free(zip);
    for (int j = 0; sets && j < m; j++)
        check_column(s, &spec, photons, j, rd, rd_r);
    for (int i = 0; !sets && i < k; i++)
        check_row(s, &spec, photons, i, rd, rd_r);
    free(rd);
    free(rd_r);
    tmcml_session_delete(s);
}

static const double mua4[4] = {0.1, 0.3, 0.9, 2.0};
static const double musp3[3] = {5, 8, 12};

static int case_cli(const char *tmcml)
{
    CHECK(mkdtemp(dir) != NULL);
    same_as_cli(tmcml, TMCML_LUT_SETS, mua4, 4, musp3, 3, 1500, "sets");
    same_as_cli(tmcml, TMCML_LUT_RUNS, mua4, 4, musp3, 3, 1500, "runs");
    /* 300 mua: two chunks a column (256 and 44 sets); auto is sets. */
    double mua[300];
    for (int i = 0; i < 300; i++)
        mua[i] = 0.01 * (i + 1);
    same_as_cli(tmcml, TMCML_LUT_AUTO, mua, 300, musp3, 2, 300, "chunks");
    CHECK(check_temp_files(dir, NULL) == 0);
    char command[64];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK(system(command) == 0);
    return check_summary("cli");
}

/* ---- stopped and continued --------------------------------------------------------------- */

typedef lut_long_table long_table;

static void long_table_of(long_table *t, tmcml_lut_strategy strategy)
{
    lut_long_table_of(t, NR, strategy);
}

/* The table cancelled (by the callback's answer, or by
 * tmcml_session_cancel from it) once `at` of its photons are done: the
 * simulations done kept in the file. */
static void cancelled(tmcml_session *s, const long_table *t, const tmcml_checkpoint *ck, double at,
                      bool by_session, double *rd, double *rd_r, tmcml_lut_info *info)
{
    watch w = {.s = s, .cancel_at = at, .cancel_session = by_session, .path = ck->path};
    tmcml_options o;
    options(&o, t->photons, &w);
    bool fresh = access(ck->path, F_OK) != 0;
    CHECK(tmcml_lut(s, &t->spec, &o, ck, rd, rd_r, info) == TMCML_ERR_CANCELLED);
    /* ck->every 0: written only when cancelled. */
    CHECK_MSG(!fresh || ck->every > 0 || w.seen == 0, "a checkpoint before the cancel");
    CHECK_CONTAINS(tmcml_session_message(s), "(resume continues the table)");
    CHECK_MSG(info->done >= 1 && info->done < info->simulations && info->kept == info->done,
              "cancelled at %g: %d of %d done, %d kept", at, info->done, info->simulations,
              info->kept);
    CHECK(access(ck->path, F_OK) == 0);
}

static void stop_and_resume(tmcml_lut_strategy strategy)
{
    tmcml_session *s = tmcml_session_new();
    long_table t;
    long_table_of(&t, strategy);
    double whole[64], whole_r[64 * NR], rd[64], rd_r[64 * NR];
    tmcml_options o;
    options(&o, t.photons, NULL);
    tmcml_lut_info info;
    CHECK(tmcml_lut(s, &t.spec, &o, NULL, whole, whole_r, &info) == TMCML_OK);
    char path[300];
    snprintf(path, sizeof path, "%s/%d.lut.ckpt", dir, (int)strategy);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0; /* only when cancelled */
    cancelled(s, &t, &ck, 0.3, false, rd, rd_r, &info);
    int first = info.done;
    ck.resume = 1;
    cancelled(s, &t, &ck, 0.7, true, rd, rd_r, &info);
    CHECK_MSG(info.resumed == first && info.done >= first, "resumed %d of %d kept, done %d",
              info.resumed, first, info.done);
    int second = info.done;
    watch w = {.s = s};
    options(&o, t.photons, &w);
    CHECK_MSG(tmcml_lut(s, &t.spec, &o, &ck, rd, rd_r, &info) == TMCML_OK, "resumed: %s",
              tmcml_session_message(s));
    CHECK(info.resumed == second && info.done == info.simulations && info.kept == 0);
    CHECK_MSG(memcmp(rd, whole, sizeof rd) == 0 && memcmp(rd_r, whole_r, sizeof rd_r) == 0,
              "strategy %d: the resumed table differs from the uninterrupted one", (int)strategy);
    CHECK(access(path, F_OK) != 0);
    /* The progress of a resumed table starts at what was kept. */
    CHECK(w.backwards == 0 && w.last == w.total);
    tmcml_session_delete(s);
}

/* Periodic checkpoints appear while the table goes on; the file goes at
 * its end. */
static void periodic(void)
{
    tmcml_session *s = tmcml_session_new();
    long_table t;
    long_table_of(&t, TMCML_LUT_RUNS);
    char path[300];
    snprintf(path, sizeof path, "%s/periodic.lut.ckpt", dir);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0.001;
    double rd[64], rd_r[64 * NR];
    watch w = {.s = s, .path = path};
    tmcml_options o;
    options(&o, t.photons, &w);
    tmcml_lut_info info;
    CHECK(tmcml_lut(s, &t.spec, &o, &ck, rd, rd_r, &info) == TMCML_OK);
    CHECK_MSG(w.seen > 0, "no periodic checkpoint seen in %d calls", w.calls);
    CHECK(access(path, F_OK) != 0 && info.kept == 0);
    tmcml_session_delete(s);
}

static int case_resume(void)
{
    CHECK(mkdtemp(dir) != NULL);
    stop_and_resume(TMCML_LUT_RUNS);
    stop_and_resume(TMCML_LUT_SETS);
    periodic();
    CHECK(check_temp_files(dir, NULL) == 0);
    rmdir(dir);
    return check_summary("resume");
}

/* ---- refused ------------------------------------------------------------------------------- */

static char *file_bytes(const char *path, size_t *size)
{
    *size = 0;
    return read_all(path, size);
}

/* A checkpoint refused with TMCML_ERR_FILE naming why, and left as it was. */
static void refused_file(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *o,
                         const tmcml_checkpoint *ck, const char *why)
{
    size_t size;
    char *before = file_bytes(ck->path, &size);
    double rd[64], rd_r[64 * NR];
    tmcml_lut_info info;
    CHECK_MSG(tmcml_lut(s, spec, o, ck, rd, rd_r, &info) == TMCML_ERR_FILE, "%s: not refused", why);
    CHECK_CONTAINS(tmcml_session_message(s), why);
    CHECK(info.done == 0 && info.kept == 0);
    CHECK_MSG(same_file(ck->path, before, size), "%s: the checkpoint changed", why);
    free(before);
}

static void refused_checkpoints(tmcml_session *s)
{
    long_table t;
    long_table_of(&t, TMCML_LUT_RUNS);
    char path[300];
    snprintf(path, sizeof path, "%s/kept.lut.ckpt", dir);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    double rd[64], rd_r[64 * NR];
    tmcml_lut_info info;
    cancelled(s, &t, &ck, 0.3, false, rd, rd_r, &info);
    tmcml_options o;
    options(&o, t.photons, NULL);
    refused_file(s, &t.spec, &o, &ck, "a checkpoint of this table exists");
    ck.resume = 1;
    o.seed = SEED + 1;
    refused_file(s, &t.spec, &o, &ck, "made with --seed 20261129, this one has --seed 20261130");
    o.seed = SEED;
    o.photons = t.photons + 1;
    refused_file(s, &t.spec, &o, &ck, "made with --photons 6000, this one has --photons 6001");
    o.photons = t.photons;
    t.musp[2] += 1;
    refused_file(s, &t.spec, &o, &ck, "made with --musp[2] 15, this one has --musp[2] 16");
    t.musp[2] -= 1;
    t.spec.strategy = TMCML_LUT_SETS;
    refused_file(s, &t.spec, &o, &ck, "made with --strategy runs, this one has --strategy sets");
    t.spec.strategy = TMCML_LUT_RUNS;
    /* A byte changed in the middle: a disk or copy error. */
    size_t size;
    char *bytes = file_bytes(path, &size);
    FILE *f = fopen(path, "r+b");
    if (bytes && f) {
        fseek(f, (long)size / 2, SEEK_SET);
        fputc(bytes[size / 2] ^ 0x10, f);
    }
    if (f)
        fclose(f);
    free(bytes);
    refused_file(s, &t.spec, &o, &ck, "checksum mismatch");
    unlink(path);
}

/* Refused with TMCML_ERR_ARGUMENT naming what, nothing written to rd. */
static void refused_argument(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *o,
                             const tmcml_checkpoint *ck, const char *what)
{
    double rd[4] = {-1, -1, -1, -1}, rd_r[4 * NR];
    tmcml_status status = tmcml_lut(s, spec, o, ck, rd, rd_r, NULL);
    CHECK_MSG(status == TMCML_ERR_ARGUMENT, "%s: status %d (%s)", what, (int)status,
              tmcml_session_message(s));
    CHECK_CONTAINS(tmcml_session_message(s), what);
    CHECK(rd[0] == -1 && rd[3] == -1);
}

static void refused_specs(tmcml_session *s)
{
    static const double mua2[2] = {0.1, 1}, musp2[2] = {5, 10}, down[2] = {0.5, 0.1};
    static const double negative[2] = {-5, 1}, huge[2] = {5, 1e12}, nan1[2] = {NAN, 1};
    tmcml_lut_spec ok, b;
    lut_slab_spec(&ok, NR, mua2, 2, musp2, 2, TMCML_LUT_AUTO);
    tmcml_options o;
    options(&o, 100, NULL);
    double rd[4], rd_r[4 * NR];
    tmcml_lut_info info;
    CHECK(tmcml_lut(NULL, &ok, &o, NULL, rd, rd_r, &info) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_lut(s, NULL, &o, NULL, rd, rd_r, &info) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "spec: NULL");
    CHECK(tmcml_lut(s, &ok, NULL, NULL, rd, rd_r, &info) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "opt: NULL");
    CHECK(tmcml_lut(s, &ok, &o, NULL, NULL, rd_r, &info) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "rd: NULL");
    CHECK(tmcml_lut(s, &ok, &o, NULL, rd, NULL, &info) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "rd_r: NULL");
#define REFUSED(FIELD, VALUE, WHAT)                                                                \
    do {                                                                                           \
        b = ok;                                                                                    \
        b.FIELD = VALUE;                                                                           \
        refused_argument(s, &b, &o, NULL, WHAT);                                                   \
    } while (0)
    REFUSED(num_mua, 0, "num_mua: expected 1 to 1000000 values (got 0)");
    REFUSED(num_musp, 1000001, "num_musp: expected 1 to 1000000 values");
    REFUSED(mua, NULL, "mua: NULL for 2 values");
    REFUSED(mua, down, "mua[1]: the values must increase");
    REFUSED(musp, negative, "musp[0]: -5 is no coefficient: expected 0 or 1e-12 to 1e12");
    REFUSED(mua, nan1, "mua[0]: nan is no coefficient");
    REFUSED(g, 1.0, "g 1: expected -1 to below 1");
    REFUSED(g, -1.5, "g -1.5: expected -1 to below 1");
    REFUSED(d, 0.0, "d 0: expected a thickness above 0 cm, or inf");
    REFUSED(d, -INFINITY, "d -inf: expected a thickness above 0 cm");
    REFUSED(d, NAN, "d nan: expected a thickness");
    REFUSED(n, 1000.0, "n 1000: expected a refractive index from 0.01 to 100");
    REFUSED(n_above, 0.0, "n_above 0: expected a refractive index");
    REFUSED(n_below, 1000.0, "n_below 1000: expected a refractive index");
    REFUSED(dr, -1.0, "dr -1: expected a ring width of at least 1e-09 cm");
    REFUSED(nr, 0, "nr: expected 1 to 134217728 rings (got 0)");
    REFUSED(strategy, (tmcml_lut_strategy)7, "strategy: expected TMCML_LUT_AUTO");
    /* mus = mus' / (1 - g) beyond the .mci's coefficients: the point named. */
    REFUSED(musp, huge, "mua 0.1, mus' 1e+12: layer 1: ");
    /* The size docs/lut.md states: 2^27 values of Rd_r. */
    static double many[2000];
    for (int i = 0; i < 2000; i++)
        many[i] = 1 + i;
    b = ok;
    b.mua = many;
    b.num_mua = 1000;
    b.musp = many;
    b.num_musp = 2000;
    b.nr = 100;
    refused_argument(s, &b, &o, NULL,
                     "num_musp x num_mua x nr: 2000 mus' x 1000 mua x 100 rings is "
                     "2e+08 values of Rd_r, more than 2^27 (1 GiB)");
#undef REFUSED
    o.photons = 0;
    refused_argument(s, &ok, &o, NULL, "photons: expected the photons of a point");
    options(&o, 100, NULL);
    o.threads = -1;
    refused_argument(s, &ok, &o, NULL, "threads: expected");
    options(&o, 100, NULL);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    refused_argument(s, &ok, &o, &ck, "checkpoint path: expected a file name");
    ck.path = "x.lut.ckpt";
    ck.every = -1;
    refused_argument(s, &ok, &o, &ck, "checkpoint every: expected seconds");
    /* A session that refused works on. */
    CHECK(tmcml_lut(s, &ok, &o, NULL, rd, rd_r, &info) == TMCML_OK && info.done == 2);
}

static int case_refused(void)
{
    CHECK(mkdtemp(dir) != NULL);
    tmcml_session *s = tmcml_session_new();
    refused_specs(s);
    refused_checkpoints(s);
    tmcml_session_delete(s);
    CHECK(check_temp_files(dir, NULL) == 0);
    rmdir(dir);
    return check_summary("refused");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    const char *tmcml = argc > 2 ? argv[2] : "";
    if (strcmp(which, "cli") == 0)
        return case_cli(tmcml);
    if (strcmp(which, "resume") == 0)
        return case_resume();
    if (strcmp(which, "refused") == 0)
        return case_refused();
    if (strcmp(which, "gpu") == 0)
        return lut_use_gpu() ? case_cli(tmcml) : 77;
    fprintf(stderr, "usage: test_api_lut cli|gpu TMCML | resume | refused\n");
    return 2;
}
