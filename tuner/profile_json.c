/* One profile file: JSON in (strict: every field present, typed and in
 * range, errors naming the field) and JSON out (fixed order, atomic). */
#include "profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"

/* ---- reading: typed fields with their path in messages ----------------------- */

typedef struct profile_reader {
    const char *file;
    tm_error *err;
} profile_reader;

static const char *profile_json_type(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an invalid value";
}

static bool profile_reader_fail(profile_reader *rd, const char *where, const char *name,
                                const char *what, const cJSON *v)
{
    error_set(rd->err, rd->file, 0, "%s%s%s: %s%s%s", where, *where ? "." : "", name, what,
              v ? ", got " : "", v ? profile_json_type(v) : "");
    return false;
}

/* The member `name` of obj, or NULL after "where.name: missing". */
static const cJSON *profile_member(profile_reader *rd, const cJSON *obj, const char *where,
                                   const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v)
        profile_reader_fail(rd, where, name, "missing", NULL);
    return v;
}

static const cJSON *profile_object(profile_reader *rd, const cJSON *obj, const char *where,
                                   const char *name)
{
    const cJSON *v = profile_member(rd, obj, where, name);
    if (v && !cJSON_IsObject(v)) {
        profile_reader_fail(rd, where, name, "expected an object", v);
        return NULL;
    }
    return v;
}

static bool profile_get_integer(profile_reader *rd, const cJSON *obj, const char *where,
                                const char *name, double lo, double hi, double *out)
{
    const cJSON *v = profile_member(rd, obj, where, name);
    if (!v)
        return false;
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || !isfinite(d) || floor(d) != d)
        return profile_reader_fail(rd, where, name, "expected an integer",
                                   cJSON_IsNumber(v) ? NULL : v);
    if (d < lo || d > hi) {
        char what[96];
        snprintf(what, sizeof what, "%.17g is out of range (%.17g..%.17g)", d, lo, hi);
        return profile_reader_fail(rd, where, name, what, NULL);
    }
    *out = d;
    return true;
}

static bool profile_get_int(profile_reader *rd, const cJSON *obj, const char *where,
                            const char *name, int *out)
{
    double d;
    if (!profile_get_integer(rd, obj, where, name, INT_MIN, INT_MAX, &d))
        return false;
    *out = (int)d;
    return true;
}

static bool profile_get_double(profile_reader *rd, const cJSON *obj, const char *where,
                               const char *name, double *out)
{
    const cJSON *v = profile_member(rd, obj, where, name);
    if (!v)
        return false;
    if (!cJSON_IsNumber(v))
        return profile_reader_fail(rd, where, name, "expected a number", v);
    *out = v->valuedouble;
    return true;
}

static bool profile_get_bool(profile_reader *rd, const cJSON *obj, const char *where,
                             const char *name, bool *out)
{
    const cJSON *v = profile_member(rd, obj, where, name);
    if (!v)
        return false;
    if (!cJSON_IsBool(v))
        return profile_reader_fail(rd, where, name, "expected true or false", v);
    *out = cJSON_IsTrue(v);
    return true;
}

static bool profile_get_string(profile_reader *rd, const cJSON *obj, const char *where,
                               const char *name, char *buf, size_t size)
{
    const cJSON *v = profile_member(rd, obj, where, name);
    if (!v)
        return false;
    if (!cJSON_IsString(v))
        return profile_reader_fail(rd, where, name, "expected a string", v);
    if (strlen(v->valuestring) >= size) {
        char what[64];
        snprintf(what, sizeof what, "longer than %zu characters", size - 1);
        return profile_reader_fail(rd, where, name, what, NULL);
    }
    memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
    return true;
}

/* ---- reading: the parts of a file ------------------------------------------------ */

static bool profile_read_device(profile_reader *rd, const cJSON *root, profile_device *d)
{
    const cJSON *o = profile_object(rd, root, "", "device");
    double shared;
    if (!o || !profile_get_string(rd, o, "device", "name", d->name, sizeof d->name) ||
        !profile_get_int(rd, o, "device", "cc_major", &d->cc_major) ||
        !profile_get_int(rd, o, "device", "cc_minor", &d->cc_minor) ||
        !profile_get_int(rd, o, "device", "sm_count", &d->sm_count) ||
        !profile_get_integer(rd, o, "device", "shared_per_block_optin", 0, 1 << 30, &shared) ||
        !profile_get_int(rd, o, "device", "driver_version", &d->driver_version))
        return false;
    d->shared_per_block_optin = (size_t)shared;
    return true;
}

static bool profile_read_toolchain(profile_reader *rd, const cJSON *root, profile_toolchain *t)
{
    const cJSON *o = profile_object(rd, root, "", "toolchain");
    return o &&
           profile_get_string(rd, o, "toolchain", "nvrtc_version", t->nvrtc_version,
                              sizeof t->nvrtc_version) &&
           profile_get_string(rd, o, "toolchain", "generator", t->generator, sizeof t->generator);
}

static bool profile_read_class(profile_reader *rd, const cJSON *entry, const char *where,
                               profile_class *c)
{
    char w[64];
    snprintf(w, sizeof w, "%s.class", where);
    const cJSON *o = profile_object(rd, entry, where, "class");
    for (int i = 0; o && i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        int v = 0;
        bool b = false;
        /* A later member a class does not name is 0 (gen/shape.h). */
        if (i >= PROBLEM_SHAPE_KEYED && !cJSON_GetObjectItemCaseSensitive(o, f->name))
            continue;
        if (f->kind == SHAPE_BOOL ? !profile_get_bool(rd, o, w, f->name, &b)
                                  : !profile_get_int(rd, o, w, f->name, &v))
            return false;
        shape_field_set(f, c, f->kind == SHAPE_BOOL ? b : v);
    }
    return o != NULL;
}

/* One knob of the table from its JSON field(s) (gen/knob.h); its range is
 * checked with the entry (profile_validate_config).  A knob the entry does
 * not name keeps its neutral value (knobs_init), which is what kernels made
 * before the knob existed did. */
static bool profile_read_knob(profile_reader *rd, const cJSON *o, const char *where, const knob *k,
                              kernel_knobs *v)
{
    char name[64], text[64];
    knob_field_name(k, 0, name, sizeof name);
    if (!cJSON_GetObjectItemCaseSensitive(o, name))
        return true;
    for (int f = 0; f < knob_field_count(k); f++) {
        int value = 0;
        bool on = false;
        knob_field_name(k, f, name, sizeof name);
        if (k->kind == KNOB_SWITCH) {
            if (!profile_get_bool(rd, o, where, name, &on))
                return false;
            value = on;
        } else if (k->kind == KNOB_CHOICE) {
            if (!profile_get_string(rd, o, where, name, text, sizeof text))
                return false;
            for (value = 0; k->choices[value] && strcmp(text, k->choices[value]) != 0; value++)
                ;
            if (!k->choices[value]) {
                char what[160];
                snprintf(what, sizeof what, "\"%.60s\" is not one of %s", text, k->value_help);
                return profile_reader_fail(rd, where, name, what, NULL);
            }
        } else if (!profile_get_int(rd, o, where, name, &value)) {
            return false;
        }
        knob_field_set(k, v, f, value);
    }
    return true;
}

static bool profile_read_config(profile_reader *rd, const cJSON *entry, const char *where,
                                kernel_knobs *k)
{
    char w[64];
    snprintf(w, sizeof w, "%s.config", where);
    const cJSON *o = profile_object(rd, entry, where, "config");
    if (!o)
        return false;
    knobs_init(k);
    for (int i = 0; i < knob_count; i++)
        if (!profile_read_knob(rd, o, w, &knob_table[i], k))
            return false;
    return true;
}

static bool profile_read_measures(profile_reader *rd, const cJSON *o, const char *w,
                                  profile_entry *e)
{
    double pilot;
    if (!profile_get_double(rd, o, w, "photons_per_second", &e->photons_per_second) ||
        !profile_get_double(rd, o, w, "steps_per_second", &e->steps_per_second) ||
        !profile_get_double(rd, o, w, "heuristic_photons_per_second",
                            &e->heuristic_photons_per_second) ||
        !profile_get_integer(rd, o, w, "pilot_photons", 0, (double)PROFILE_MAX_PILOT, &pilot) ||
        !profile_get_int(rd, o, w, "candidates", &e->candidates) ||
        !profile_get_double(rd, o, w, "tuning_seconds", &e->tuning_seconds) ||
        !profile_get_string(rd, o, w, "date", e->date, sizeof e->date))
        return false;
    e->pilot_photons = (uint64_t)pilot;
    return true;
}

static bool profile_read_entry(profile_reader *rd, const cJSON *o, int index, profile_entry *e)
{
    char where[32];
    snprintf(where, sizeof where, "entries[%d]", index);
    memset(e, 0, sizeof *e);
    if (!cJSON_IsObject(o))
        return profile_reader_fail(rd, "", where, "expected an object", o);
    return profile_read_class(rd, o, where, &e->cls) &&
           profile_read_config(rd, o, where, &e->config) &&
           profile_read_measures(rd, o, where, e) &&
           profile_validate_entry(e, rd->file, where, rd->err);
}

static bool profile_read_entries(profile_reader *rd, const cJSON *root, profile *p)
{
    const cJSON *list = profile_member(rd, root, "", "entries");
    if (!list)
        return false;
    if (!cJSON_IsArray(list))
        return profile_reader_fail(rd, "", "entries", "expected an array", list);
    int n = cJSON_GetArraySize(list);
    if (n > 0 && !(p->entries = calloc((size_t)n, sizeof *p->entries))) {
        error_set(rd->err, rd->file, 0, "out of memory reading %d entries", n);
        return false;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (!profile_read_entry(rd, item, p->num_entries, &p->entries[p->num_entries]))
            return false;
        p->num_entries++;
    }
    return profile_validate(p, rd->file, rd->err); /* duplicates */
}

static bool profile_read_format(profile_reader *rd, const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return profile_reader_fail(rd, "", "(top level)", "expected an object", root);
    int format;
    if (!profile_get_int(rd, root, "", "format", &format))
        return false;
    if (format != PROFILE_FORMAT) {
        error_set(rd->err, rd->file, 0,
                  "format: %d is not supported (this tmcml reads format %d): retune, or use the "
                  "tmcml that wrote it",
                  format, PROFILE_FORMAT);
        return false;
    }
    return true;
}

/* The 1-based line of pos in text. */
static int profile_line_of(const char *text, const char *pos)
{
    int line = 1;
    for (const char *c = text; c < pos && *c; c++)
        line += *c == '\n';
    return line;
}

/* Whether text ends inside a string or with brackets still open: a file cut
 * short (a full disk, an interrupted copy), worth saying so. */
static bool profile_json_truncated(const char *text)
{
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char *c = text; *c; c++) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (*c == '\\')
                escaped = true;
            else if (*c == '"')
                in_string = false;
        } else if (*c == '"') {
            in_string = true;
        } else if (*c == '{' || *c == '[') {
            depth++;
        } else if (*c == '}' || *c == ']') {
            depth--;
        }
    }
    return in_string || depth > 0;
}

static cJSON *profile_parse_text(const char *text, size_t size, const char *path, tm_error *err)
{
    size_t skip = strspn(text, " \t\r\n");
    if (skip == size) {
        error_set(err, path, 0, "empty file");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, size + 1, &end, true);
    if (!root) {
        char near[24] = "";
        size_t k = 0;
        for (const char *c = end ? end : text; *c && k < sizeof near - 1; c++)
            near[k++] = (*c == '\n' || *c == '\t') ? ' ' : *c;
        near[k] = '\0';
        error_set(err, path, end ? profile_line_of(text, end) : 0, "not valid JSON%s (near \"%s\")",
                  profile_json_truncated(text) ? ": truncated" : "", near);
    }
    return root;
}

profile_status profile_load(const char *path, bool header_only, profile *p, tm_error *err)
{
    profile_init(p);
    struct stat st;
    if (stat(path, &st) != 0) {
        error_set(err, path, 0, "%s", strerror(errno));
        return errno == ENOENT || errno == ENOTDIR ? PROFILE_MISSING : PROFILE_UNREADABLE;
    }
    if (S_ISDIR(st.st_mode)) {
        error_set(err, path, 0, "%s", strerror(EISDIR));
        return PROFILE_UNREADABLE;
    }
    size_t size = 0;
    char *text = fs_read_file(path, PROFILE_MAX_FILE_BYTES, true, &size, err);
    if (!text)
        return PROFILE_UNREADABLE;
    cJSON *root = profile_parse_text(text, size, path, err);
    free(text);
    profile_reader rd = {path, err};
    bool ok = root && profile_read_format(&rd, root) &&
              profile_read_device(&rd, root, &p->device) &&
              profile_read_toolchain(&rd, root, &p->toolchain) &&
              profile_validate(p, path, err) /* the header: no entries yet */ &&
              (header_only || profile_read_entries(&rd, root, p));
    cJSON_Delete(root);
    if (!ok) {
        profile_free(p);
        return PROFILE_CORRUPT;
    }
    return PROFILE_OK;
}

bool profile_read(const char *path, profile *p, tm_error *err)
{
    return profile_load(path, false, p, err) == PROFILE_OK;
}

/* ---- writing ------------------------------------------------------------- */

double profile_round_timing(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", x);
    return strtod(buf, NULL);
}

static bool profile_put_number(cJSON *o, const char *key, double v)
{
    return cJSON_AddNumberToObject(o, key, v) != NULL;
}

static bool profile_put_bool(cJSON *o, const char *key, bool v)
{
    return cJSON_AddBoolToObject(o, key, v) != NULL;
}

static bool profile_put_string(cJSON *o, const char *key, const char *v)
{
    return cJSON_AddStringToObject(o, key, v) != NULL;
}

static bool profile_json_header(cJSON *root, const profile *p)
{
    const profile_device *d = &p->device;
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON *tc = dev ? cJSON_AddObjectToObject(root, "toolchain") : NULL;
    return tc && profile_put_string(dev, "name", d->name) &&
           profile_put_number(dev, "cc_major", d->cc_major) &&
           profile_put_number(dev, "cc_minor", d->cc_minor) &&
           profile_put_number(dev, "sm_count", d->sm_count) &&
           profile_put_number(dev, "shared_per_block_optin", (double)d->shared_per_block_optin) &&
           profile_put_number(dev, "driver_version", d->driver_version) &&
           profile_put_string(tc, "nvrtc_version", p->toolchain.nvrtc_version) &&
           profile_put_string(tc, "generator", p->toolchain.generator);
}

static bool profile_json_knob(cJSON *cfg, const knob *k, const kernel_knobs *v)
{
    bool ok = true;
    for (int f = 0; ok && f < knob_field_count(k); f++) {
        char name[64], text[64];
        knob_field_name(k, f, name, sizeof name);
        if (k->kind == KNOB_SWITCH) {
            ok = profile_put_bool(cfg, name, knob_field_get(k, v, f) != 0);
        } else if (k->kind == KNOB_CHOICE) {
            knob_format(k, v, text, sizeof text);
            ok = profile_put_string(cfg, name, text);
        } else {
            ok = profile_put_number(cfg, name, knob_field_get(k, v, f));
        }
    }
    return ok;
}

static bool profile_json_class_config(cJSON *o, const profile_entry *e)
{
    const profile_class *c = &e->cls;
    cJSON *cls = cJSON_AddObjectToObject(o, "class");
    cJSON *cfg = cls ? cJSON_AddObjectToObject(o, "config") : NULL;
    bool ok = cfg != NULL;
    for (int i = 0; ok && i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        int v = shape_field_get(f, c);
        if (i >= PROBLEM_SHAPE_KEYED && v == 0)
            continue; /* what a class without it means (gen/shape.h) */
        ok = f->kind == SHAPE_BOOL ? profile_put_bool(cls, f->name, v)
                                   : profile_put_number(cls, f->name, v);
    }
    for (int i = 0; ok && i < knob_count; i++)
        ok = profile_json_knob(cfg, &knob_table[i], &e->config);
    return ok;
}

static bool profile_json_entry(cJSON *list, const profile_entry *e)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(list, o)) {
        cJSON_Delete(o);
        return false;
    }
    return profile_json_class_config(o, e) &&
           profile_put_number(o, "photons_per_second",
                              profile_round_timing(e->photons_per_second)) &&
           profile_put_number(o, "steps_per_second", profile_round_timing(e->steps_per_second)) &&
           profile_put_number(o, "heuristic_photons_per_second",
                              profile_round_timing(e->heuristic_photons_per_second)) &&
           profile_put_number(o, "pilot_photons", (double)e->pilot_photons) &&
           profile_put_number(o, "candidates", e->candidates) &&
           profile_put_number(o, "tuning_seconds", profile_round_timing(e->tuning_seconds)) &&
           profile_put_string(o, "date", e->date);
}

/* Layers, then A before -A, then the grid. */
static int profile_class_order(const void *pa, const void *pb)
{
    return problem_shape_compare(&(*(const profile_entry *const *)pa)->cls,
                                 &(*(const profile_entry *const *)pb)->cls);
}

static bool profile_json_entries(cJSON *root, const profile *p)
{
    cJSON *list = cJSON_AddArrayToObject(root, "entries");
    if (!list)
        return false;
    const profile_entry **order = malloc(((size_t)p->num_entries + 1) * sizeof *order);
    if (!order)
        return false;
    for (int i = 0; i < p->num_entries; i++)
        order[i] = &p->entries[i];
    qsort(order, (size_t)p->num_entries, sizeof *order, profile_class_order);
    bool ok = true;
    for (int i = 0; ok && i < p->num_entries; i++)
        ok = profile_json_entry(list, order[i]);
    free(order);
    return ok;
}

/* The whole file as text (malloc'd by cJSON), or NULL when out of memory. */
static char *profile_to_text(const profile *p)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    if (root && profile_put_number(root, "format", PROFILE_FORMAT) &&
        profile_json_header(root, p) && profile_json_entries(root, p))
        text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

static bool profile_write_text(FILE *stream, void *ctx, tm_error *err)
{
    (void)err;
    return fputs(ctx, stream) >= 0 && fputc('\n', stream) != EOF;
}

bool profile_write(const char *path, const profile *p, tm_error *err)
{
    tm_error why;
    if (!profile_validate(p, NULL, &why)) {
        error_set(err, path, 0, "not written: %s", why.message);
        return false;
    }
    char *text = profile_to_text(p);
    if (!text) {
        error_set(err, path, 0, "out of memory formatting the profile");
        return false;
    }
    bool ok = fs_write_atomic(path, profile_write_text, text, err);
    cJSON_free(text);
    return ok;
}
