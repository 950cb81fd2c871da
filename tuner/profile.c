#include "profile.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "render.h"
#include "runner.h"

void profile_init(profile *p) { memset(p, 0, sizeof *p); }

void profile_free(profile *p)
{
    free(p->entries);
    profile_init(p);
}

bool profile_put(profile *p, const profile_entry *e)
{
    for (int i = 0; i < p->num_entries; i++)
        if (problem_shape_equal(&p->entries[i].cls, &e->cls)) {
            p->entries[i] = *e;
            return true;
        }
    profile_entry *grown = realloc(p->entries, ((size_t)p->num_entries + 1) * sizeof *grown);
    if (!grown)
        return false;
    p->entries = grown;
    p->entries[p->num_entries++] = *e;
    return true;
}

static bool profile_name_char_ok(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

bool profile_file_name(const profile_device *dev, char *buf, size_t size)
{
    if (size == 0)
        return false;
    buf[0] = '\0';
    size_t n = strnlen(dev->name, sizeof dev->name);
    char suffix[48];
    int s = snprintf(suffix, sizeof suffix, ".sm_%d%d.json", dev->cc_major, dev->cc_minor);
    if (n == 0 || s < 0 || n + (size_t)s + 1 > size)
        return false;
    for (size_t i = 0; i < n; i++)
        buf[i] = profile_name_char_ok(dev->name[i]) ? dev->name[i] : '_';
    memcpy(buf + n, suffix, (size_t)s + 1);
    return true;
}

void profile_device_from_info(const tune_device *info, profile_device *dev)
{
    memset(dev, 0, sizeof *dev);
    TUNE_DEVICE_IDENTITY_COPY(dev, info);
}

bool profile_toolchain_current(profile_toolchain *tc, tm_error *err)
{
    memset(tc, 0, sizeof *tc);
    snprintf(tc->generator, sizeof tc->generator, "%016" PRIx64, compile_generator_hash());
    return compile_nvrtc_available(tc->nvrtc_version, sizeof tc->nvrtc_version, err);
}

bool profile_toolchain_equal(const profile_toolchain *a, const profile_toolchain *b)
{
    return strcmp(a->nvrtc_version, b->nvrtc_version) == 0 &&
           strcmp(a->generator, b->generator) == 0;
}

bool profile_is_current(const profile *p, const profile_device *dev, const profile_toolchain *tc)
{
    return tc->nvrtc_version[0] && profile_toolchain_equal(&p->toolchain, tc) &&
           strcmp(p->device.name, dev->name) == 0 && p->device.cc_major == dev->cc_major &&
           p->device.cc_minor == dev->cc_minor;
}

void profile_date_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm utc;
    if (size == 0)
        return;
    if (!gmtime_r(&now, &utc) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        buf[0] = '\0';
}

/* ---- validation ------------------------------------------------------------ */

/* "YYYY-MM-DDTHH:MM:SSZ" with plausible field values. */
static bool profile_date_ok(const char *d)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(d) != sizeof pattern - 1)
        return false;
    for (size_t i = 0; pattern[i]; i++)
        if (pattern[i] == 'd' ? !isdigit((unsigned char)d[i]) : d[i] != pattern[i])
            return false;
    int mon = atoi(d + 5), day = atoi(d + 8), h = atoi(d + 11), m = atoi(d + 14), s = atoi(d + 17);
    return mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && h <= 23 && m <= 59 && s <= 60;
}

/* Like error_set with file, prefixing the message with "<where>.<field>: ". */
#define PROFILE_FAIL(file, where, field, ...)                                                      \
    do {                                                                                           \
        char msg_[512];                                                                            \
        snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                  \
        error_set(err, file, 0, "%s%s%s: %s", where, *(where) ? "." : "", field, msg_);            \
        return false;                                                                              \
    } while (0)

static bool profile_check_range(const char *file, const char *where, const char *field, long long v,
                                long long lo, long long hi, tm_error *err)
{
    if (v < lo || v > hi)
        PROFILE_FAIL(file, where, field, "%lld is out of range (%lld..%lld)", v, lo, hi);
    return true;
}

static bool profile_validate_class(const profile_class *c, const char *file, const char *where,
                                   tm_error *err)
{
    char w[96];
    snprintf(w, sizeof w, "%s.class", where);
    for (int i = 0; i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        if (f->kind == SHAPE_INT &&
            !profile_check_range(file, w, f->name, shape_field_get(f, c), f->lo, f->hi, err))
            return false;
    }
    return true;
}

static bool profile_validate_tile(const profile_entry *e, const char *file, const char *w,
                                  tm_error *err)
{
    const kernel_knobs *k = &e->config;
    if (!profile_check_range(file, w, "tile_nr", k->tile_nr, 0, e->cls.nr, err) ||
        !profile_check_range(file, w, "tile_nz", k->tile_nz, 0, e->cls.nz, err))
        return false;
    if ((k->tile_nr == 0) != (k->tile_nz == 0))
        PROFILE_FAIL(file, w, "tile_nz", "%d with tile_nr %d: both or neither must be 0",
                     k->tile_nz, k->tile_nr);
    return true;
}

static bool profile_validate_config(const profile_entry *e, const char *file, const char *where,
                                    tm_error *err)
{
    char w[96];
    snprintf(w, sizeof w, "%s.config", where);
    if (!profile_validate_tile(e, file, w, err))
        return false;
    char rule[256];
    for (int i = 0; i < knob_count; i++)
        if (knob_violation(&knob_table[i], &e->config, rule, sizeof rule)) {
            error_set(err, file, 0, "%s.%s: %s", w, knob_table[i].name, rule);
            return false;
        }
    return true;
}

static bool profile_check_rate(const char *file, const char *where, const char *field, double v,
                               bool zero_ok, tm_error *err)
{
    if (!isfinite(v) || v < 0 || (!zero_ok && v == 0))
        PROFILE_FAIL(file, where, field, "%g is not a %s number", v,
                     zero_ok ? "finite non-negative" : "finite positive");
    return true;
}

static bool profile_validate_measures(const profile_entry *e, const char *file, const char *w,
                                      tm_error *err)
{
    if (!profile_check_rate(file, w, "photons_per_second", e->photons_per_second, false, err) ||
        !profile_check_rate(file, w, "steps_per_second", e->steps_per_second, true, err) ||
        !profile_check_rate(file, w, "heuristic_photons_per_second",
                            e->heuristic_photons_per_second, true, err) ||
        !profile_check_rate(file, w, "tuning_seconds", e->tuning_seconds, true, err))
        return false;
    if (e->pilot_photons < 1 || e->pilot_photons > PROFILE_MAX_PILOT)
        PROFILE_FAIL(file, w, "pilot_photons", "%" PRIu64 " is out of range (1..10^15)",
                     e->pilot_photons);
    if (!profile_check_range(file, w, "candidates", e->candidates, 1, INT32_MAX, err))
        return false;
    if (!profile_date_ok(e->date))
        PROFILE_FAIL(file, w, "date",
                     "\"%.31s\" is not an ISO 8601 UTC time (YYYY-MM-DDTHH:MM:SSZ)", e->date);
    return true;
}

bool profile_validate_entry(const profile_entry *e, const char *file, const char *where,
                            tm_error *err)
{
    return profile_validate_class(&e->cls, file, where, err) &&
           profile_validate_config(e, file, where, err) &&
           profile_validate_measures(e, file, where, err);
}

static bool profile_hex16(const char *s)
{
    if (strlen(s) != 16)
        return false;
    for (int i = 0; i < 16; i++)
        if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
            return false;
    return true;
}

/* "13.0": digits, one dot, digits. */
static bool profile_version_ok(const char *v)
{
    const char *dot = strchr(v, '.');
    if (!dot || dot == v || !dot[1] || strchr(dot + 1, '.'))
        return false;
    for (const char *c = v; *c; c++)
        if (c != dot && !isdigit((unsigned char)*c))
            return false;
    return true;
}

static bool profile_validate_header(const profile *p, const char *file, tm_error *err)
{
    const profile_device *d = &p->device;
    if (!d->name[0])
        PROFILE_FAIL(file, "device", "name", "empty");
    if (!profile_check_range(file, "device", "cc_major", d->cc_major, 1, 99, err) ||
        !profile_check_range(file, "device", "cc_minor", d->cc_minor, 0, 9, err) ||
        !profile_check_range(file, "device", "sm_count", d->sm_count, 1, 1 << 20, err) ||
        !profile_check_range(file, "device", "driver_version", d->driver_version, 0, INT32_MAX,
                             err))
        return false;
    if (!profile_version_ok(p->toolchain.nvrtc_version))
        PROFILE_FAIL(file, "toolchain", "nvrtc_version", "\"%s\" is not a version like \"13.0\"",
                     p->toolchain.nvrtc_version);
    if (!profile_hex16(p->toolchain.generator))
        PROFILE_FAIL(file, "toolchain", "generator", "\"%s\" is not 16 lowercase hex digits",
                     p->toolchain.generator);
    return true;
}

/* Entries in class order, and among equal classes in file order. */
static int profile_index_order(const void *pa, const void *pb, void *ctx)
{
    const profile_entry *e = ctx;
    int a = *(const int *)pa, b = *(const int *)pb;
    int c = problem_shape_compare(&e[a].cls, &e[b].cls);
    return c ? c : (a > b) - (a < b);
}

/* The first entry (in file order) whose class an earlier entry has, into
 * *dup, and the first entry of that class into *first; *dup = -1 when the
 * classes are distinct.  Sorting the indices makes this O(n log n): the
 * pairwise check took 3 s for a profile of 36,000 entries.  False when out
 * of memory. */
static bool profile_find_duplicate(const profile *p, int *dup, int *first)
{
    *dup = *first = -1;
    if (p->num_entries < 2)
        return true;
    int *order = malloc((size_t)p->num_entries * sizeof *order);
    if (!order)
        return false;
    for (int i = 0; i < p->num_entries; i++)
        order[i] = i;
    qsort_r(order, (size_t)p->num_entries, sizeof *order, profile_index_order, p->entries);
    for (int k = 1, start = 0; k < p->num_entries; k++) {
        if (problem_shape_compare(&p->entries[order[k]].cls, &p->entries[order[start]].cls) != 0)
            start = k;
        else if (k == start + 1 && (*dup < 0 || order[k] < *dup)) {
            *dup = order[k]; /* the second of its class in file order */
            *first = order[start];
        }
    }
    free(order);
    return true;
}

bool profile_validate(const profile *p, const char *file, tm_error *err)
{
    if (!profile_validate_header(p, file, err))
        return false;
    int dup, first;
    if (!profile_find_duplicate(p, &dup, &first)) {
        error_set(err, file, 0, "out of memory checking %d entries", p->num_entries);
        return false;
    }
    for (int i = 0; i < p->num_entries; i++) {
        char where[32];
        snprintf(where, sizeof where, "entries[%d]", i);
        if (!profile_validate_entry(&p->entries[i], file, where, err))
            return false;
        if (i == dup) {
            char c[64];
            problem_shape_text(&p->entries[i].cls, c, sizeof c);
            PROFILE_FAIL(file, where, "class", "%s is also the class of entries[%d]", c, first);
        }
    }
    return true;
}

/* ---- lookup -------------------------------------------------------------- */

profile_match profile_lookup(const profile *p, const profile_class *c, const profile_entry **found)
{
    const profile_entry *best = NULL;
    double best_d = INFINITY;
    for (int i = 0; i < p->num_entries; i++) {
        const profile_entry *e = &p->entries[i];
        if (problem_shape_equal(&e->cls, c)) {
            *found = e;
            return PROFILE_MATCH_EXACT;
        }
        double d = problem_shape_distance(&e->cls, c); /* INFINITY: another layer count or mode */
        if (d < best_d) {
            best_d = d;
            best = e;
        }
    }
    *found = best;
    return best ? PROFILE_MATCH_NEAREST : PROFILE_MATCH_NONE;
}

const char *profile_match_name(profile_match m)
{
    switch (m) {
    case PROFILE_MATCH_EXACT: return "exact";
    case PROFILE_MATCH_NEAREST: return "nearest";
    case PROFILE_MATCH_NONE: break;
    }
    return "none";
}
