/* A lookup table's checkpoint file (lut_checkpoint.h). */
#include "lut_checkpoint.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "hash.h"
#include "le_file.h"
#include "resume.h"
#include "textbuf.h"
#include "tm_limits.h"

#define MAGIC          "TMCMLLUT"
/* Version 3 is a table with spatial frequencies (each point's R(fx) after
 * its values and errors), 2 one with errors (each point's photons and
 * standard errors after its values), 1 one with neither, the files of
 * earlier tmcml, which go on being written and read as they were. */
#define VERSION        1u
#define VERSION_ERRORS 2u
#define VERSION_FX     3u

static uint32_t version_of(const lut_spec *spec)
{
    return spec->fx_count > 0 ? VERSION_FX : spec->errors ? VERSION_ERRORS : VERSION;
}

/* ---- the identity ---------------------------------------------------------- */

static void add_line(textbuf *t, const char *option, double value)
{
    textbuf_add(t, "%s ", option);
    textbuf_add_double(t, value);
    textbuf_add(t, "\n");
}

static void add_axis(textbuf *t, const char *option, const double *values, int count)
{
    textbuf_add(t, "%s count %d\n", option, count);
    for (int i = 0; i < count; i++) {
        textbuf_add(t, "%s[%d] ", option, i);
        textbuf_add_double(t, values[i]);
        textbuf_add(t, "\n");
    }
}

char *lut_checkpoint_identity(const lut_spec *spec, lut_strategy strategy)
{
    textbuf t = TEXTBUF_INIT;
    add_line(&t, "--n", spec->n);
    add_line(&t, "--n-above", spec->n_above);
    add_line(&t, "--n-below", spec->n_below);
    add_line(&t, "--g", spec->g);
    if (spec->d == LUT_SEMI_INFINITE_D)
        textbuf_add(&t, "--d inf\n");
    else
        add_line(&t, "--d", spec->d);
    textbuf_add(&t, "--nr %d\n", spec->nr);
    add_line(&t, "--dr", spec->dr);
    textbuf_add(&t, "--photons %lld\n", (long long)spec->photons);
    textbuf_add(&t, "--seed %llu\n", (unsigned long long)spec->seed);
    textbuf_add(&t, "--strategy %s\n", lut_strategy_name(strategy));
    add_axis(&t, "--mua", spec->mua, spec->k);
    add_axis(&t, "--musp", spec->musp, spec->m);
    textbuf_add(&t, "absorption not scored (-A), max_steps %" PRIu32 "\n",
                spec->max_steps ? spec->max_steps : TM_MAX_STEPS_PER_PHOTON);
    /* Lines a table without errors lacks: its identity is version 1's. */
    if (spec->errors)
        textbuf_add(&t, "--stderr\n");
    if (spec->precision > 0.0) {
        add_line(&t, "--precision", spec->precision);
        textbuf_add(&t, "--precision-of %s\n", spec->precision_of ? spec->precision_of : "Rd");
    }
    /* Lines a table without frequencies lacks: its identity is as before. */
    if (spec->fx_count > 0)
        add_axis(&t, "--spatial-frequencies", spec->fx, spec->fx_count);
    return textbuf_take(&t);
}

/* ---- writing ----------------------------------------------------------------- */

typedef struct write_job {
    const char *identity, *physics;
    const lut_table *t;
    uint32_t version;
} write_job;

/* values[at * n .. at * n + n - 1] of each point of span. */
static void put_points(le_writer *w, lut_span span, const double *values, int n)
{
    for (int p = 0; p < span.count; p++) {
        const double *point = values + (span.first + (size_t)p * span.stride) * (size_t)n;
        for (int i = 0; i < n; i++)
            le_put_double(w, point[i]);
    }
}

static void put_call(le_writer *w, const lut_table *t, int call)
{
    lut_span span = lut_table_span(t, call);
    le_put_u32(w, (uint32_t)call);
    for (int p = 0; p < span.count; p++)
        le_put_double(w, t->rd[span.first + (size_t)p * span.stride]);
    put_points(w, span, t->rd_r, t->nr);
    for (int p = 0; t->rd_stderr && p < span.count; p++) {
        size_t at = span.first + (size_t)p * span.stride;
        le_put_u64(w, t->photons[at]);
        le_put_double(w, t->rd_stderr[at]);
        le_put_double(w, t->reached[at]);
        for (int r = 0; r < t->nr; r++)
            le_put_double(w, t->rd_r_stderr[at * (size_t)t->nr + (size_t)r]);
    }
    if (t->rd_fx)
        put_points(w, span, t->rd_fx, t->nfx);
    if (t->rd_fx_stderr)
        put_points(w, span, t->rd_fx_stderr, t->nfx);
}

static bool write_body(FILE *f, void *ctx, tm_error *err)
{
    const write_job *job = ctx;
    const lut_table *t = job->t;
    le_writer w = le_writer_start(f);
    le_put(&w, MAGIC, 8);
    le_put_u32(&w, job->version);
    le_put_text(&w, job->identity);
    le_put_text(&w, job->physics);
    le_put_u32(&w, (uint32_t)t->strategy);
    le_put_u32(&w, (uint32_t)t->m);
    le_put_u32(&w, (uint32_t)t->k);
    le_put_u32(&w, (uint32_t)t->nr);
    le_put_u32(&w, (uint32_t)t->calls);
    le_put_double(&w, t->rsp);
    le_put_u64(&w, t->trapped);
    le_put_u32(&w, (uint32_t)t->done_count);
    for (int c = 0; c < t->calls; c++)
        if (t->done[c])
            put_call(&w, t, c);
    le_put_u64(&w, w.sum);
    (void)err; /* a failed write: fs_write_atomic names errno (disk full, ulimit -f) */
    return w.ok;
}

bool lut_checkpoint_write(const char *path, const lut_spec *spec, const char *physics,
                          const lut_table *t, tm_error *err)
{
    write_job job = {lut_checkpoint_identity(spec, t->strategy), physics, t, version_of(spec)};
    if (!job.identity) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    bool ok = fs_write_atomic(path, write_body, &job, err);
    free((void *)job.identity);
    return ok;
}

/* ---- reading ------------------------------------------------------------------- */

/* The checksum of the whole file, read once before anything is trusted: a
 * damaged file is said to be damaged, not taken for another table's.
 * *size: the bytes before the checksum. */
static bool checksum_ok(FILE *f, const char *path, uint64_t *size, tm_error *err)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 8 + 4 + 8) {
        error_set(err, path, 0, "not a valid tmcml lut checkpoint: truncated");
        return false;
    }
    *size = (uint64_t)st.st_size - 8;
    unsigned char buf[1 << 16];
    uint64_t sum = HASH_FNV1A_START, left = *size;
    while (left > 0) {
        size_t n = fread(buf, 1, left < sizeof buf ? (size_t)left : sizeof buf, f);
        if (n == 0)
            break;
        sum = hash_fnv1a(sum, buf, n);
        left -= n;
    }
    unsigned char stored[8];
    uint64_t v = 0;
    bool whole = left == 0 && fread(stored, 1, 8, f) == 8;
    for (int k = 0; whole && k < 8; k++)
        v |= (uint64_t)stored[k] << (8 * k);
    if (!whole || v != sum) {
        error_set(err, path, 0,
                  "not a valid tmcml lut checkpoint: checksum mismatch (the file was damaged "
                  "after it was written: a disk or copy error, or a partial overwrite)");
        return false;
    }
    rewind(f);
    return true;
}

/* The first line where the checkpoint's identity and this table's differ,
 * as what the checkpoint was made with and what this table has. */
static void identity_differs(const char *path, const char *was, const char *now, tm_error *err)
{
    while (*was && *now) {
        size_t a = strcspn(was, "\n"), b = strcspn(now, "\n");
        if (a != b || memcmp(was, now, a) != 0)
            break;
        was += a + (was[a] == '\n');
        now += b + (now[b] == '\n');
    }
    /* A text that ended has nothing more where the other has a line (a
     * table of frequencies against one without them). */
    was = *was ? was : "nothing more";
    now = *now ? now : "nothing more";
    int a = (int)strcspn(was, "\n"), b = (int)strcspn(now, "\n");
    error_set(err, path, 0,
              "the checkpoint is of another table: made with %.*s, this one has %.*s: resume "
              "with the checkpoint's options, or delete it to start over",
              a < 200 ? a : 200, was, b < 200 ? b : 200, now);
}

/* "cpu" of "cpu 1dcb...": the engine a physics text names. */
static size_t engine_word(const char *physics) { return strcspn(physics, " "); }

static bool physics_matches(const char *path, const char *was, const char *now, tm_error *err)
{
    if (resume_physics_same(was, now, false)) /* a table has no optics sets */
        return true;
    size_t a = engine_word(was), b = engine_word(now);
    if (a != b || memcmp(was, now, a) != 0)
        error_set(err, path, 0,
                  "the checkpoint's values came from the %.*s engine (%s), this table would run "
                  "on the %.*s engine, whose values differ: resume on the %.*s engine (--engine "
                  "%.*s), or delete it to start over",
                  (int)a, was, was, (int)b, now, (int)a, was, (int)a, was);
    else
        error_set(err, path, 0,
                  "the checkpoint was made by other physics code (%s; this tmcml: %s): its "
                  "values could not be continued bit for bit: finish the table with the tmcml "
                  "that made it, or delete it to start over",
                  was, now);
    return false;
}

/* The errors of one call's points (a table with errors), checked too: a
 * point took photons, its errors are finite and not negative (its
 * relative error may be infinite: an Rd of 0). */
static void get_errors(le_reader *r, lut_table *t, lut_span span, uint64_t most)
{
    bool plausible = true;
    for (int p = 0; r->ok && p < span.count; p++) {
        size_t at = span.first + (size_t)p * span.stride;
        t->photons[at] = le_get_u64(r);
        t->rd_stderr[at] = le_get_double(r);
        t->reached[at] = le_get_double(r);
        plausible = plausible && t->photons[at] > 0 && t->photons[at] <= most &&
                    t->rd_stderr[at] >= 0.0 && isfinite(t->rd_stderr[at]) && t->reached[at] >= 0.0;
        double *ring = t->rd_r_stderr + at * (size_t)t->nr;
        for (int i = 0; i < t->nr; i++) {
            ring[i] = le_get_double(r);
            plausible = plausible && ring[i] >= 0.0 && isfinite(ring[i]);
        }
    }
    if (r->ok && !plausible)
        le_bad(r, "implausible errors (a point of no photons or more than the table's, or a "
                  "standard error negative or not finite)");
}

/* values[at * n ..] of each point of span, each within [lo, hi] (finite);
 * false when one is not. */
static bool get_points(le_reader *r, lut_span span, double *values, int n, double lo, double hi)
{
    bool plausible = true;
    for (int p = 0; r->ok && p < span.count; p++) {
        double *point = values + (span.first + (size_t)p * span.stride) * (size_t)n;
        for (int i = 0; i < n; i++) {
            point[i] = le_get_double(r);
            plausible = plausible && point[i] >= lo && point[i] <= hi;
        }
    }
    return plausible;
}

/* The R(fx) of one call's points (a table with frequencies), and their
 * errors (with errors): |R(fx)| is at most Rd, so within -1 to 1. */
static void get_fx(le_reader *r, lut_table *t, lut_span span)
{
    bool plausible = get_points(r, span, t->rd_fx, t->nfx, -1.0, 1.0);
    if (t->rd_fx_stderr)
        plausible = get_points(r, span, t->rd_fx_stderr, t->nfx, 0.0, DBL_MAX) && plausible;
    if (r->ok && !plausible)
        le_bad(r, "implausible R(fx) (outside -1 to 1, or not finite) or standard errors of it "
                  "(negative or not finite)");
}

/* The values of one call, checked to be ones a simulation could give. */
static void get_call(le_reader *r, lut_table *t, int call, uint64_t most)
{
    lut_span span = lut_table_span(t, call);
    bool plausible = true;
    for (int p = 0; p < span.count; p++) {
        double rd = le_get_double(r);
        plausible = plausible && rd >= 0.0 && rd <= 1.0;
        t->rd[span.first + (size_t)p * span.stride] = rd;
    }
    plausible = get_points(r, span, t->rd_r, t->nr, 0.0, DBL_MAX) && plausible;
    if (!plausible)
        le_bad(r, "implausible values (an Rd outside 0 to 1, or an Rd_r negative or not finite)");
    if (r->ok && t->rd_stderr)
        get_errors(r, t, span, most);
    if (r->ok && t->rd_fx)
        get_fx(r, t, span);
}

/* The head's numbers: the table's shape, as this table's. */
static void get_shape(le_reader *r, const lut_table *t)
{
    uint64_t strategy = le_get_u32(r), m = le_get_u32(r), k = le_get_u32(r), nr = le_get_u32(r),
             calls = le_get_u32(r);
    if (r->ok && (strategy != (uint64_t)t->strategy || m != (uint64_t)t->m || k != (uint64_t)t->k ||
                  nr != (uint64_t)t->nr || calls != (uint64_t)t->calls))
        le_bad(r, "its table's shape is not its identity's");
}

/* Every call done and its values, after the identity and physics. */
static void get_calls(le_reader *r, const lut_spec *spec, lut_table *t)
{
    get_shape(r, t);
    t->rsp = le_get_double(r);
    t->trapped = le_get_u64(r);
    uint64_t done = le_get_u32(r);
    if (r->ok && (done > (uint64_t)t->calls || !(t->rsp >= 0.0 && t->rsp <= 1.0)))
        le_bad(r, done > (uint64_t)t->calls ? "more calls done than the table has"
                                            : "implausible specular reflectance");
    double points = 0;
    for (uint64_t i = 0, last = 0; r->ok && i < done; i++) {
        uint64_t call = le_get_u32(r);
        if (r->ok && (call >= (uint64_t)t->calls || (i > 0 && call <= last)))
            le_bad(r, "the calls done are not in order");
        if (!r->ok)
            break;
        get_call(r, t, (int)call, (uint64_t)spec->photons);
        t->done[call] = 1;
        points += lut_table_span(t, (int)call).count;
        last = call;
    }
    t->done_count = (int)done;
    /* A point's photons are at most the table's (a precision's most). */
    if (r->ok && (double)t->trapped > points * (double)spec->photons)
        le_bad(r, "more trapped photons than photons simulated");
    if (r->ok && r->left != 0)
        le_bad(r, "data after the last call");
}

bool lut_checkpoint_read(const char *path, const lut_spec *spec, const char *physics, lut_table *t,
                         tm_error *err)
{
    struct stat st;
    errno = 0;
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    if (!f) {
        error_set(err, path, 0, "cannot open the checkpoint (%s)",
                  errno ? strerror(errno) : "not a regular file");
        return false;
    }
    char *identity = lut_checkpoint_identity(spec, t->strategy), *was = NULL, *made_by = NULL;
    le_reader r = le_reader_start(f, path, "tmcml lut checkpoint", 0, err);
    r.ok = identity != NULL;
    if (!identity)
        error_set(err, path, 0, "out of memory");
    r.ok = r.ok && checksum_ok(f, path, &r.left, err);
    char magic[8];
    le_get(&r, magic, 8);
    if (r.ok && memcmp(magic, MAGIC, 8) != 0)
        le_bad(&r, "wrong magic bytes");
    uint64_t version = le_get_u32(&r);
    if (r.ok && version != VERSION && version != VERSION_ERRORS && version != VERSION_FX) {
        error_set(err, path, 0,
                  "lut checkpoint format version %" PRIu64 ": this tmcml reads %u to %u", version,
                  VERSION, VERSION_FX);
        r.ok = false;
    }
    was = le_get_text(&r, UINT32_MAX);
    made_by = le_get_text(&r, UINT32_MAX);
    if (r.ok && strcmp(was, identity) != 0) {
        identity_differs(path, was, identity, err);
        r.ok = false;
    }
    if (r.ok && version != version_of(spec))
        le_bad(&r, "its format version is not its identity's");
    r.ok = r.ok && physics_matches(path, made_by, physics, err);
    if (r.ok)
        get_calls(&r, spec, t);
    if (r.ok)
        snprintf(t->engine, sizeof t->engine, "%.*s", (int)engine_word(made_by), made_by);
    fclose(f);
    free(identity);
    free(was);
    free(made_by);
    return r.ok;
}
