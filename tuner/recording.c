/* A recording of a tune: the model and its JSON file (tuner/recording.h). */
#include "recording.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "textbuf.h"

void tune_recording_init(tune_recording *r)
{
    memset(r, 0, sizeof *r);
    tune_options_init(&r->options);
}

static void run_free(tune_recorded_run *run)
{
    free(run->key);
    free(run->candidate);
    free(run->error);
    tune_measurement_free(&run->m);
}

void tune_recording_free(tune_recording *r)
{
    for (int i = 0; i < r->count; i++)
        run_free(&r->runs[i]);
    free(r->runs);
    free(r->clock);
    free(r->mci);
    tune_recording_init(r);
}

/* Room for one more element of size `size` in *items (count, capacity). */
static bool grow(void **items, int count, int *capacity, size_t size)
{
    if (count < *capacity)
        return true;
    int cap = *capacity ? 2 * *capacity : 64;
    void *more = realloc(*items, (size_t)cap * size);
    if (!more)
        return false;
    *items = more;
    *capacity = cap;
    return true;
}

bool tune_recording_add_clock(tune_recording *r, double t)
{
    if (!grow((void **)&r->clock, r->clocks, &r->clock_capacity, sizeof *r->clock))
        return false;
    r->clock[r->clocks++] = t;
    return true;
}

bool tune_recording_add_run(tune_recording *r, tune_recorded_run *run)
{
    if (!grow((void **)&r->runs, r->count, &r->capacity, sizeof *r->runs))
        return false;
    r->runs[r->count++] = *run;
    memset(run, 0, sizeof *run);
    return true;
}

char *tune_recording_path(const char *csv_path)
{
    static const char suffix[] = ".replay.json";
    size_t n = strlen(csv_path);
    if (n > 4 && strcmp(csv_path + n - 4, ".csv") == 0)
        n -= 4;
    char *path = malloc(n + sizeof suffix);
    if (path) {
        memcpy(path, csv_path, n);
        memcpy(path + n, suffix, sizeof suffix);
    }
    return path;
}

/* ---- writing ------------------------------------------------------------------ */

static bool put_u64(cJSON *o, const char *name, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return cJSON_AddStringToObject(o, name, text) != NULL;
}

static bool put_number(cJSON *o, const char *name, double v)
{
    return cJSON_AddNumberToObject(o, name, v) != NULL;
}

/* A deposit map as text: counts separated by spaces, "0*K" for a run of K
 * empty bins (most of a grid is empty far from the beam). */
static char *deposits_text(const uint64_t *events, size_t bins)
{
    textbuf t = TEXTBUF_INIT;
    for (size_t i = 0; i < bins;) {
        const char *sep = i ? " " : "";
        size_t zeros = 0;
        while (i + zeros < bins && events[i + zeros] == 0)
            zeros++;
        if (zeros > 1) {
            textbuf_add(&t, "%s0*%zu", sep, zeros);
            i += zeros;
        } else {
            textbuf_add(&t, "%s%" PRIu64, sep, events[i++]);
        }
    }
    return textbuf_take(&t);
}

static bool put_measurement(cJSON *o, const tune_measurement *m)
{
    char digest[32];
    snprintf(digest, sizeof digest, "fnv1a64:%016" PRIx64, m->digest);
    bool ok = cJSON_AddStringToObject(o, "digest", digest) && put_number(o, "steps", m->steps) &&
              put_number(o, "kernel_seconds", m->kernel_seconds) &&
              put_number(o, "steady_photons_per_second", m->steady_photons_per_second) &&
              put_number(o, "compile_seconds", m->compile_seconds) &&
              put_number(o, "registers", m->registers) &&
              put_number(o, "spill_bytes", m->spill_bytes) &&
              put_number(o, "blocks_per_sm", m->blocks_per_sm);
    if (!ok || !m->deposits)
        return ok;
    cJSON *d = cJSON_AddObjectToObject(o, "deposits");
    char *text = deposits_text(m->deposits, (size_t)m->nr * (size_t)m->nz);
    ok = d && text && put_number(d, "nr", m->nr) && put_number(d, "nz", m->nz) &&
         cJSON_AddStringToObject(d, "events", text);
    free(text);
    return ok;
}

static bool put_run(cJSON *runs, const tune_recorded_run *run)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(runs, o))
        return false;
    bool ok = cJSON_AddStringToObject(o, "candidate", run->candidate) &&
              cJSON_AddStringToObject(o, "key", run->key) && put_u64(o, "photons", run->photons) &&
              put_u64(o, "seed", run->seed) && cJSON_AddBoolToObject(o, "ok", run->ok) &&
              cJSON_AddBoolToObject(o, "usable", run->usable);
    if (!ok)
        return false;
    return run->ok ? put_measurement(o, &run->m)
                   : cJSON_AddStringToObject(o, "error", run->error ? run->error : "") != NULL;
}

static bool put_device(cJSON *root, const tune_device *d)
{
    cJSON *o = cJSON_AddObjectToObject(root, "device");
    return o && cJSON_AddStringToObject(o, "name", d->name) &&
           put_number(o, "cc_major", d->cc_major) && put_number(o, "cc_minor", d->cc_minor) &&
           put_number(o, "sm_count", d->sm_count) &&
           put_number(o, "shared_per_block_optin", (double)d->shared_per_block_optin) &&
           put_number(o, "shared_per_sm", (double)d->shared_per_sm) &&
           put_number(o, "max_threads_per_sm", d->max_threads_per_sm) &&
           put_number(o, "regs_per_sm", d->regs_per_sm) &&
           put_number(o, "driver_version", d->driver_version);
}

/* The absorption sets' shape (tune_options num_sets, sets_paths) only when
 * a sets' kernel was tuned, sets_jacobian and sets_optics only when it
 * scores the derivatives or optics sets: recordings of the kernels before
 * them stay as they were. */
static bool put_options(cJSON *root, const tune_options *t)
{
    cJSON *o = cJSON_AddObjectToObject(root, "options");
    bool ok = o && put_u64(o, "seed", t->seed) &&
              put_number(o, "budget_seconds", t->budget_seconds) &&
              put_number(o, "min_kernel_seconds", t->min_kernel_seconds) &&
              put_number(o, "repeats", t->repeats) &&
              cJSON_AddBoolToObject(o, "debug_wrong_candidate", t->debug_wrong_candidate);
    return ok &&
           (t->num_sets == 0 || (put_number(o, "num_sets", t->num_sets) &&
                                 cJSON_AddBoolToObject(o, "sets_paths", t->sets_paths))) &&
           (!t->sets_jacobian || cJSON_AddBoolToObject(o, "sets_jacobian", true)) &&
           (t->sets_optics == 0 || put_number(o, "sets_optics", t->sets_optics));
}

static cJSON *recording_json(const tune_recording *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *clock = NULL, *runs = NULL;
    bool ok = root && cJSON_AddStringToObject(root, "format", TUNE_RECORDING_FORMAT) &&
              put_number(root, "version", TUNE_RECORDING_VERSION) && put_device(root, &r->device) &&
              cJSON_AddStringToObject(root, "mci", r->mci ? r->mci : "") &&
              cJSON_AddBoolToObject(root, "score_absorption", r->score_absorption) &&
              put_options(root, &r->options) &&
              (clock = cJSON_AddArrayToObject(root, "clock")) != NULL &&
              (runs = cJSON_AddArrayToObject(root, "runs")) != NULL;
    for (int i = 0; ok && i < r->clocks; i++) {
        cJSON *t = cJSON_CreateNumber(r->clock[i]);
        ok = t && cJSON_AddItemToArray(clock, t);
    }
    for (int i = 0; ok && i < r->count; i++)
        ok = put_run(runs, &r->runs[i]);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static bool write_text(FILE *f, void *ctx, tm_error *err)
{
    (void)err;
    return fputs(ctx, f) >= 0 && fputc('\n', f) != EOF;
}

bool tune_recording_write(const char *path, const tune_recording *r, tm_error *err)
{
    cJSON *root = recording_json(r);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        error_set(err, path, 0, "out of memory for the tune's recording");
        return false;
    }
    bool ok = fs_write_atomic(path, write_text, text, err);
    free(text);
    return ok;
}

/* ---- reading: typed fields, the message naming the field ---------------------- */

typedef struct reader {
    const char *file;
    tm_error *err;
} reader;

static const cJSON *field(reader *rd, const cJSON *o, const char *where, const char *name,
                          cJSON_bool (*is)(const cJSON *), const char *what)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (v && is(v))
        return v;
    error_set(rd->err, rd->file, 0, "%s%s%s: %s", where, *where ? "." : "", name,
              v ? what : "missing");
    return NULL;
}

static bool get_number(reader *rd, const cJSON *o, const char *where, const char *name, double *out)
{
    const cJSON *v = field(rd, o, where, name, cJSON_IsNumber, "expected a number");
    if (v)
        *out = v->valuedouble;
    return v != NULL;
}

static bool get_int(reader *rd, const cJSON *o, const char *where, const char *name, int *out)
{
    double d;
    if (!get_number(rd, o, where, name, &d))
        return false;
    if (!isfinite(d) || floor(d) != d || d < 0 || d > 1e9) {
        error_set(rd->err, rd->file, 0, "%s.%s: expected an integer 0..1e9, got %g", where, name,
                  d);
        return false;
    }
    *out = (int)d;
    return true;
}

static bool get_size(reader *rd, const cJSON *o, const char *where, const char *name, size_t *out)
{
    int v;
    if (!get_int(rd, o, where, name, &v))
        return false;
    *out = (size_t)v;
    return true;
}

static bool get_bool(reader *rd, const cJSON *o, const char *where, const char *name, bool *out)
{
    const cJSON *v = field(rd, o, where, name, cJSON_IsBool, "expected true or false");
    if (v)
        *out = cJSON_IsTrue(v);
    return v != NULL;
}

static const char *get_string(reader *rd, const cJSON *o, const char *where, const char *name)
{
    const cJSON *v = field(rd, o, where, name, cJSON_IsString, "expected a string");
    return v ? v->valuestring : NULL;
}

static char *get_copy(reader *rd, const cJSON *o, const char *where, const char *name)
{
    const char *s = get_string(rd, o, where, name);
    char *copy = s ? strdup(s) : NULL;
    if (s && !copy)
        error_set(rd->err, rd->file, 0, "out of memory");
    return copy;
}

/* A decimal 64-bit integer, or with prefix ("fnv1a64:") 16 hex digits. */
static bool get_u64(reader *rd, const cJSON *o, const char *where, const char *name,
                    const char *prefix, uint64_t *out)
{
    const char *s = get_string(rd, o, where, name);
    if (!s)
        return false;
    size_t skip = prefix ? strlen(prefix) : 0;
    char *end = NULL;
    errno = 0;
    if (!prefix || strncmp(s, prefix, skip) == 0)
        *out = strtoull(s + skip, &end, prefix ? 16 : 10);
    if (!end || end == s + skip || *end || errno || s[skip] == '-') {
        error_set(rd->err, rd->file, 0, "%s.%s: expected %s (got \"%s\")", where, name,
                  prefix ? "fnv1a64:<16 hex digits>" : "a decimal integer", s);
        return false;
    }
    return true;
}

static bool read_deposits(reader *rd, const cJSON *d, const char *where, tune_measurement *m)
{
    const char *text = get_string(rd, d, where, "events");
    if (!text || !get_int(rd, d, where, "nr", &m->nr) || !get_int(rd, d, where, "nz", &m->nz))
        return false;
    size_t bins = (size_t)m->nr * (size_t)m->nz, n = 0;
    m->deposits = calloc(bins ? bins : 1, sizeof *m->deposits);
    if (!m->deposits) {
        error_set(rd->err, rd->file, 0, "out of memory");
        return false;
    }
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        uint64_t v = strtoull(p, &end, 10);
        uint64_t repeat = 1;
        if (end != p && *end == '*' && v == 0)
            repeat = strtoull(end + 1, &end, 10);
        if (end == p || errno || repeat == 0 || repeat > bins - n || (*end && *end != ' ')) {
            error_set(rd->err, rd->file, 0, "%s.events: bad or too many counts at \"%.20s\"", where,
                      p);
            return false;
        }
        for (uint64_t k = 0; k < repeat; k++)
            m->deposits[n++] = v;
        p = *end ? end + 1 : end;
    }
    if (n != bins) {
        error_set(rd->err, rd->file, 0, "%s.events: %zu counts for %dx%d bins", where, n, m->nr,
                  m->nz);
        return false;
    }
    return true;
}

static bool read_measurement(reader *rd, const cJSON *o, const char *w, tune_measurement *m)
{
    if (!get_u64(rd, o, w, "digest", "fnv1a64:", &m->digest) ||
        !get_number(rd, o, w, "steps", &m->steps) ||
        !get_number(rd, o, w, "kernel_seconds", &m->kernel_seconds) ||
        !get_number(rd, o, w, "steady_photons_per_second", &m->steady_photons_per_second) ||
        !get_number(rd, o, w, "compile_seconds", &m->compile_seconds) ||
        !get_int(rd, o, w, "registers", &m->registers) ||
        !get_int(rd, o, w, "spill_bytes", &m->spill_bytes) ||
        !get_int(rd, o, w, "blocks_per_sm", &m->blocks_per_sm))
        return false;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "deposits");
    if (!d)
        return true;
    char where[64];
    snprintf(where, sizeof where, "%s.deposits", w);
    return cJSON_IsObject(d)
               ? read_deposits(rd, d, where, m)
               : (error_set(rd->err, rd->file, 0, "%s: expected an object", where), false);
}

static bool read_run(reader *rd, const cJSON *o, int i, tune_recording *r)
{
    char w[48];
    snprintf(w, sizeof w, "runs[%d]", i);
    tune_recorded_run run;
    memset(&run, 0, sizeof run);
    bool ok = cJSON_IsObject(o);
    if (!ok)
        error_set(rd->err, rd->file, 0, "%s: expected an object", w);
    ok = ok && (run.candidate = get_copy(rd, o, w, "candidate")) != NULL &&
         (run.key = get_copy(rd, o, w, "key")) != NULL &&
         get_u64(rd, o, w, "photons", NULL, &run.photons) &&
         get_u64(rd, o, w, "seed", NULL, &run.seed) && get_bool(rd, o, w, "ok", &run.ok) &&
         get_bool(rd, o, w, "usable", &run.usable);
    if (ok)
        ok = run.ok ? read_measurement(rd, o, w, &run.m)
                    : (run.error = get_copy(rd, o, w, "error")) != NULL;
    if (ok && !(ok = tune_recording_add_run(r, &run)))
        error_set(rd->err, rd->file, 0, "out of memory");
    if (!ok)
        run_free(&run);
    return ok;
}

static bool read_device(reader *rd, const cJSON *root, tune_device *d)
{
    const cJSON *o = field(rd, root, "", "device", cJSON_IsObject, "expected an object");
    const char *name = o ? get_string(rd, o, "device", "name") : NULL;
    if (!name)
        return false;
    snprintf(d->name, sizeof d->name, "%s", name);
    return get_int(rd, o, "device", "cc_major", &d->cc_major) &&
           get_int(rd, o, "device", "cc_minor", &d->cc_minor) &&
           get_int(rd, o, "device", "sm_count", &d->sm_count) &&
           get_size(rd, o, "device", "shared_per_block_optin", &d->shared_per_block_optin) &&
           get_size(rd, o, "device", "shared_per_sm", &d->shared_per_sm) &&
           get_int(rd, o, "device", "max_threads_per_sm", &d->max_threads_per_sm) &&
           get_int(rd, o, "device", "regs_per_sm", &d->regs_per_sm) &&
           get_int(rd, o, "device", "driver_version", &d->driver_version);
}

static bool read_options(reader *rd, const cJSON *root, tune_options *t)
{
    const cJSON *o = field(rd, root, "", "options", cJSON_IsObject, "expected an object");
    bool ok = o && get_u64(rd, o, "options", "seed", NULL, &t->seed) &&
              get_number(rd, o, "options", "budget_seconds", &t->budget_seconds) &&
              get_number(rd, o, "options", "min_kernel_seconds", &t->min_kernel_seconds) &&
              get_int(rd, o, "options", "repeats", &t->repeats) &&
              get_bool(rd, o, "options", "debug_wrong_candidate", &t->debug_wrong_candidate);
    if (!ok || !cJSON_GetObjectItemCaseSensitive(o, "num_sets"))
        return ok; /* a run's own kernel (put_options) */
    return get_int(rd, o, "options", "num_sets", &t->num_sets) &&
           get_bool(rd, o, "options", "sets_paths", &t->sets_paths) &&
           (!cJSON_GetObjectItemCaseSensitive(o, "sets_jacobian") ||
            get_bool(rd, o, "options", "sets_jacobian", &t->sets_jacobian)) &&
           (!cJSON_GetObjectItemCaseSensitive(o, "sets_optics") ||
            get_int(rd, o, "options", "sets_optics", &t->sets_optics));
}

static bool read_root(reader *rd, const cJSON *root, tune_recording *r)
{
    const char *format = get_string(rd, root, "", "format");
    double version = 0;
    if (!format || !get_number(rd, root, "", "version", &version))
        return false;
    if (strcmp(format, TUNE_RECORDING_FORMAT) != 0 || version != TUNE_RECORDING_VERSION) {
        error_set(rd->err, rd->file, 0, "not a tune recording of version %d (format \"%s\" %g)",
                  TUNE_RECORDING_VERSION, format, version);
        return false;
    }
    const cJSON *clock = NULL, *runs = NULL;
    if (!read_device(rd, root, &r->device) || !(r->mci = get_copy(rd, root, "", "mci")) ||
        !get_bool(rd, root, "", "score_absorption", &r->score_absorption) ||
        !read_options(rd, root, &r->options) ||
        !(clock = field(rd, root, "", "clock", cJSON_IsArray, "expected an array")) ||
        !(runs = field(rd, root, "", "runs", cJSON_IsArray, "expected an array")))
        return false;
    const cJSON *v;
    cJSON_ArrayForEach(v, clock)
    {
        if (!cJSON_IsNumber(v)) {
            error_set(rd->err, rd->file, 0, "clock: expected numbers");
            return false;
        }
        if (!tune_recording_add_clock(r, v->valuedouble)) {
            error_set(rd->err, rd->file, 0, "out of memory");
            return false;
        }
    }
    int i = 0;
    cJSON_ArrayForEach(v, runs)
    {
        if (!read_run(rd, v, i++, r))
            return false;
    }
    return true;
}

bool tune_recording_read(const char *path, tune_recording *r, tm_error *err)
{
    tune_recording_init(r);
    size_t size;
    char *text = fs_read_text(path, &size, err);
    if (!text)
        return false;
    cJSON *root = cJSON_ParseWithLength(text, size);
    free(text);
    reader rd = {path, err};
    bool ok = root != NULL;
    if (!ok)
        error_set(err, path, 0, "not valid JSON");
    ok = ok && read_root(&rd, root, r);
    cJSON_Delete(root);
    if (!ok)
        tune_recording_free(r);
    return ok;
}
