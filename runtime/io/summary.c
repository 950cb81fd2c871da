#include "summary.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optics_sets.h"
#include "fs.h"
#include "output_arrays.h"
#include "time_bins.h"
#include "tm_limits.h"
#include "tmcml_config.h"

/* Every item is attached to a parent owned by the root, so one
 * cJSON_Delete(root) frees everything.  cJSON's Add functions return NULL when
 * out of memory (and accept a NULL parent), so each call goes through a
 * helper that records the failure in *ok instead of dropping a key. */

/* cJSON 1.7 prints a double with %1.15g whenever that reads back within
 * DBL_EPSILON *relative* (not exactly), so it can lose the last bit
 * (0.1 + 0.2 comes out as 0.3).  Numbers are therefore formatted here, with
 * the fewest digits that read back to the identical double, and attached as
 * raw JSON.  JSON has no NaN or infinity: those become null. */
static cJSON *summary_number(double v)
{
    char buf[32];
    if (!isfinite(v))
        return cJSON_CreateNull();
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(buf);
}

static void summary_num(bool *ok, cJSON *o, const char *key, double v)
{
    cJSON *item = summary_number(v);
    if (!item || !o || !cJSON_AddItemToObject(o, key, item)) {
        cJSON_Delete(item);
        *ok = false;
    }
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_length(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
            : p[0] >= 0xe0 && p[0] <= 0xef ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                           : 0;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (n == 0 || p[1] < lo || p[1] > hi)
        return 0;
    for (int k = 2; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xbf)
            return 0;
    return n;
}

/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD: an
 * output name or path may hold any bytes, JSON must be UTF-8.  Malloc'd. */
static char *utf8_clean(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int k = utf8_length(p);
        if (k > 0) {
            memcpy(o, p, (size_t)k);
            o += k;
            p += k;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    return out;
}

static void summary_str(bool *ok, cJSON *o, const char *key, const char *v)
{
    char *clean = utf8_clean(v ? v : "");
    if (!clean || !cJSON_AddStringToObject(o, key, clean))
        *ok = false;
    free(clean);
}

static void summary_add_layers(bool *ok, cJSON *input, const mci_run *run)
{
    cJSON *layers = cJSON_AddArrayToObject(input, "layers");
    for (int i = 1; i <= run->num_layers; i++) {
        const mci_layer *l = &run->layers[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !layers) {
            cJSON_Delete(o);
            *ok = false;
            return;
        }
        cJSON_AddItemToArray(layers, o);
        summary_num(ok, o, "n", l->n);
        summary_num(ok, o, "mua", l->mua);
        summary_num(ok, o, "mus", l->mus);
        summary_num(ok, o, "g", l->g);
        summary_num(ok, o, "d", l->d);
    }
}

/* "source": its kind, its text as --source takes it, its parameters. */
static void summary_add_source(bool *ok, cJSON *input, const source_desc *source)
{
    cJSON *o = cJSON_AddObjectToObject(input, "source");
    if (!o) {
        *ok = false;
        return;
    }
    char text[160];
    source_text(source, text, sizeof text);
    summary_str(ok, o, "kind", source_kind_name(source->kind));
    summary_str(ok, o, "text", text);
    const source_kind_row *k = source_kind_of(source->kind);
    for (int i = 0; k && i < k->params; i++)
        summary_num(ok, o, k->param[i].key, source_value(source, i));
}

/* A detector's geometry as an object. */
static cJSON *summary_detector(bool *ok, const fiber_detector *f)
{
    cJSON *d = cJSON_CreateObject();
    *ok = *ok && d;
    summary_num(ok, d, "separation", f->sep);
    summary_num(ok, d, "radius", f->radius);
    summary_num(ok, d, "na", f->na);
    return d;
}

/* "fiber_detector": one detector's object, as before there could be
 * more; a list of them, in their order, for several (as Rd_fiber is a
 * number or a list). */
static void summary_add_detectors(bool *ok, cJSON *in, const mci_run *run)
{
    if (run->fiber_count == 1) {
        cJSON *d = summary_detector(ok, &run->fibers[0]);
        if (!d || !cJSON_AddItemToObject(in, "fiber_detector", d)) {
            cJSON_Delete(d);
            *ok = false;
        }
        return;
    }
    cJSON *list = cJSON_AddArrayToObject(in, "fiber_detector");
    *ok = *ok && list;
    for (int k = 0; list && k < run->fiber_count; k++) {
        cJSON *d = summary_detector(ok, &run->fibers[k]);
        if (!d || !cJSON_AddItemToArray(list, d)) {
            cJSON_Delete(d);
            *ok = false;
        }
    }
}

/* n numbers v[0..n-1] as a JSON array. */
static void summary_array(bool *ok, cJSON *root, const char *name, const double *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(root, name);
    for (int i = 0; i < n; i++) {
        cJSON *x = summary_number(v[i]);
        if (!x || !a || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            *ok = false;
            return;
        }
    }
}

/* What the run asked for besides MCML's outputs: "time_bins",
 * "fiber_detector", "spatial_frequencies" (1/cm),
 * "modulation_frequencies" (Hz) and "xy" (the Cartesian grid's cell side
 * dx, cm, and cells nx), only when it did (a plain run's JSON is as
 * before). */
static void summary_add_options(bool *ok, cJSON *in, const mci_run *run)
{
    if (run->time_nt > 0) {
        cJSON *t = cJSON_AddObjectToObject(in, "time_bins");
        *ok = *ok && t;
        summary_num(ok, t, "dt", run->time_dt);
        summary_num(ok, t, "nt", run->time_nt);
        summary_num(ok, t, "c", TIME_LIGHT_CM_PER_NS);
    }
    if (run->fiber_count > 0)
        summary_add_detectors(ok, in, run);
    if (run->fx_count > 0)
        summary_array(ok, in, "spatial_frequencies", run->fx, run->fx_count);
    if (run->mod_count > 0)
        summary_array(ok, in, "modulation_frequencies", run->mod_hz, run->mod_count);
    if (run->xy_nx > 0) {
        cJSON *g = cJSON_AddObjectToObject(in, "xy");
        *ok = *ok && g;
        summary_num(ok, g, "dx", run->xy_dx);
        summary_num(ok, g, "nx", run->xy_nx);
    }
}

static void summary_add_input(bool *ok, cJSON *root, const run_report *r)
{
    const mci_run *run = r->run;
    cJSON *in = cJSON_AddObjectToObject(root, "input");
    if (!in) {
        *ok = false;
        return;
    }
    summary_str(ok, in, "file", r->input_path);
    summary_num(ok, in, "run", r->run_index);
    summary_str(ok, in, "out_name", run->out_name);
    summary_num(ok, in, "photons", (double)run->photons);
    summary_num(ok, in, "dz", run->dz);
    summary_num(ok, in, "dr", run->dr);
    summary_num(ok, in, "nz", run->nz);
    summary_num(ok, in, "nr", run->nr);
    summary_num(ok, in, "na", run->na);
    summary_add_layers(ok, in, run);
    summary_num(ok, in, "n_above", run->layers[0].n);
    summary_num(ok, in, "n_below", run->layers[run->num_layers + 1].n);
    summary_add_source(ok, in, &run->source);
    summary_add_options(ok, in, run);
}

/* The arrays the output table shows in the summary (output_array.json),
 * each where res has it, in the table's order: A_l, and the 1-D totals of
 * the optional groups a run asked for.  A layer array's entries are layers
 * 1..num_layers, without the two ambient media of MCML's A_l. */
static void summary_add_arrays(bool *ok, cJSON *root, const mcml_result *res)
{
    output_grid grid = result_grid(res);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        const output_array *o = &output_table[i];
        const double *v = res->array[i];
        if (!v || o->json == OUTPUT_JSON_NONE)
            continue;
        v += output_first(o);
        if (o->json == OUTPUT_JSON_NUMBER && output_bins(o, &grid) == 1)
            summary_num(ok, root, o->name, v[0]);
        else
            summary_array(ok, root, o->name, v, (int)output_bins(o, &grid));
    }
}

static void summary_add_results(bool *ok, cJSON *root, const run_report *r)
{
    const mcml_result *res = r->result;
    double photons = (double)res->photons;
    summary_num(ok, root, "photons", photons);
    summary_num(ok, root, "photons_per_second",
                r->wall_seconds > 0 ? photons / r->wall_seconds : 0.0);
    summary_num(ok, root, "steps_per_photon", photons > 0 ? r->steps / photons : 0.0);
    summary_num(ok, root, "steps_per_second",
                r->wall_seconds > 0 ? r->steps / r->wall_seconds : 0.0);
    cJSON *rat = cJSON_AddObjectToObject(root, "RAT");
    summary_num(ok, rat, "Rsp", res->rsp);
    summary_num(ok, rat, "Rd", res->rd);
    summary_num(ok, rat, "A", res->a);
    summary_num(ok, rat, "Tt", res->tt);
    if (res->stderr_groups > 0) {
        /* Rsp is exact; the arrays' errors are NAME_stderr in the .npz. */
        cJSON *se = cJSON_AddObjectToObject(root, "stderr");
        summary_num(ok, se, "Rd", res->rd_stderr);
        summary_num(ok, se, "A", res->a_stderr);
        summary_num(ok, se, "Tt", res->tt_stderr);
        summary_num(ok, se, "groups", res->stderr_groups);
        if (r->stderr_arrays) /* the library writes no .npz */
            summary_str(ok, se, "arrays", r->stderr_arrays);
    }
    if (!isnan(res->ess)) { /* an optics set's: docs/physics.md, "Optics sets" */
        cJSON *e = cJSON_AddObjectToObject(root, "effective_sample_size");
        summary_num(ok, e, "fraction", res->ess);
        summary_num(ok, e, "low_below", OPTICS_SETS_LOW_ESS);
        if (!cJSON_AddBoolToObject(e, "low", res->ess < OPTICS_SETS_LOW_ESS))
            *ok = false;
    }
    if (r->precision) {
        const summary_precision *pr = r->precision;
        cJSON *p = cJSON_AddObjectToObject(root, "precision");
        summary_str(ok, p, "of", pr->of);
        summary_num(ok, p, "asked", pr->asked);
        summary_num(ok, p, "reached", pr->reached);
        summary_num(ok, p, "max_photons", (double)pr->max_photons);
        if (!cJSON_AddBoolToObject(p, "met", pr->met))
            *ok = false;
    }
    if (r->partial_of) {
        cJSON *partial = cJSON_AddObjectToObject(root, "partial");
        summary_num(ok, partial, "photons_done", photons);
        summary_num(ok, partial, "photons_total", (double)r->partial_of);
        summary_str(ok, partial, "checkpoint", r->checkpoint);
    }
    cJSON *trapped = cJSON_AddObjectToObject(root, "trapped");
    summary_num(ok, trapped, "photons", (double)r->trapped_photons);
    summary_num(ok, trapped, "weight", r->trapped_weight);
    summary_add_arrays(ok, root, res);
}

/* "gpus": each GPU's share of the run. */
static void summary_add_gpus(bool *ok, cJSON *root, const run_report *r)
{
    if (r->gpu_count < 1)
        return;
    cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
    for (int i = 0; *ok && i < r->gpu_count; i++) {
        cJSON *g = cJSON_CreateObject();
        if (!gpus || !g || !cJSON_AddItemToArray(gpus, g)) {
            cJSON_Delete(g);
            *ok = false;
            return;
        }
        summary_num(ok, g, "device", r->gpus[i].device);
        summary_str(ok, g, "name", r->gpus[i].name);
        summary_num(ok, g, "photons", (double)r->gpus[i].photons);
        summary_num(ok, g, "chunks", (double)r->gpus[i].chunks);
    }
}

/* "identity": what the tallies depend on besides the seed, as strings (64-bit
 * numbers survive JSON readers that hold doubles). */
static void summary_add_identity(bool *ok, cJSON *root, const run_report *r)
{
    if (!r->physics)
        return;
    cJSON *id = cJSON_AddObjectToObject(root, "identity");
    if (!id) {
        *ok = false;
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "fnv1a64:%016" PRIx64, r->input_digest);
    summary_str(ok, id, "input_digest", text);
    snprintf(text, sizeof text, "%" PRId64, r->run->photons);
    summary_str(ok, id, "photons", text);
    summary_str(ok, id, "physics", r->physics);
}

/* The units of the source's parameters, as summary_add_source names them
 * (its kind's row). */
static void summary_add_source_units(bool *ok, cJSON *u, const source_desc *source)
{
    const source_kind_row *k = source_kind_of(source->kind);
    for (int i = 0; k && i < k->params; i++) {
        char path[64];
        snprintf(path, sizeof path, "input.source.%s", k->param[i].key);
        summary_str(ok, u, path, k->param[i].unit);
    }
}

/* Whether res has the arrays of option's group (every run has
 * OUTPUT_OPTION_NONE's): a group's arrays come together. */
static bool summary_has_option(const mcml_result *res, output_option option)
{
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].option == option && res->array[i])
            return true;
    return false;
}

/* The units of option's group where res has it: those of the input
 * summary_add_options writes for it, then those of its arrays in the
 * summary (summary_add_arrays), each the output table's. */
static void summary_add_option_units(bool *ok, cJSON *u, output_option option,
                                     const mcml_result *res)
{
    if (!summary_has_option(res, option))
        return;
    if (option == OUTPUT_OPTION_TIME) {
        summary_str(ok, u, "input.time_bins.dt", "ns");
        summary_str(ok, u, "input.time_bins.c", "cm/ns");
    }
    if (option == OUTPUT_OPTION_FIBER) {
        /* "input.fiber_detector[].separation": each of a list's */
        bool list = res->detectors > 1;
        summary_str(ok, u,
                    list ? "input.fiber_detector[].separation" : "input.fiber_detector.separation",
                    "cm");
        summary_str(ok, u, list ? "input.fiber_detector[].radius" : "input.fiber_detector.radius",
                    "cm");
        summary_str(ok, u, list ? "input.fiber_detector[].na" : "input.fiber_detector.na", "-");
    }
    if (option == OUTPUT_OPTION_FX)
        summary_str(ok, u, "input.spatial_frequencies[]", "1/cm");
    if (option == OUTPUT_OPTION_MOD)
        summary_str(ok, u, "input.modulation_frequencies[]", "Hz");
    if (option == OUTPUT_OPTION_XY)
        summary_str(ok, u, "input.xy.dx", "cm");
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        const output_array *o = &output_table[i];
        if (o->option == option && o->json != OUTPUT_JSON_NONE && res->array[i])
            summary_str(ok, u, o->name, o->unit);
    }
}

/* "units": the unit of each quantity above that has one, by its path
 * ("input.layers[].mua": every layer's mua), "-" for a fraction or ratio;
 * counts (photons, bins, threads) have none.  The arrays' are the output
 * table's, group by group; the source's parameters come between the path
 * lengths' and the time bins' (the order they were added in: a summary's
 * text stays as it was). */
static void summary_add_units(bool *ok, cJSON *root, const source_desc *source,
                              const mcml_result *res)
{
    static const char *const units[][2] = {
        {"input.dz", "cm"},
        {"input.dr", "cm"},
        {"input.layers[].n", "-"},
        {"input.layers[].mua", "1/cm"},
        {"input.layers[].mus", "1/cm"},
        {"input.layers[].g", "-"},
        {"input.layers[].d", "cm"},
        {"input.n_above", "-"},
        {"input.n_below", "-"},
        {"wall_seconds", "s"},
        {"photons_per_second", "1/s"},
        {"steps_per_photon", "-"},
        {"steps_per_second", "1/s"},
        {"RAT.Rsp", "-"},
        {"RAT.Rd", "-"},
        {"RAT.A", "-"},
        {"RAT.Tt", "-"},
        {"trapped.weight", "-"},
    };
    cJSON *u = cJSON_AddObjectToObject(root, "units");
    if (!u) {
        *ok = false;
        return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        summary_str(ok, u, units[i][0], units[i][1]);
    for (int option = 0; option < OUTPUT_OPTIONS; option++) {
        if (option == OUTPUT_OPTION_TIME)
            summary_add_source_units(ok, u, source);
        summary_add_option_units(ok, u, (output_option)option, res);
    }
}

/* The whole summary as text (free with cJSON_free), or NULL. */
static char *summary_render(const run_report *r)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    bool ok = true;
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    summary_str(&ok, root, "tmcml_version", TMCML_VERSION);
    summary_add_input(&ok, root, r);
    summary_str(&ok, root, "rng", r->rng);
    /* A string: JSON numbers are read as doubles, which lose 64-bit seeds. */
    summary_str(&ok, root, "seed", seed);
    summary_str(&ok, root, "engine", r->engine);
    summary_num(&ok, root, "threads", r->threads);
    if (r->device)
        summary_str(&ok, root, "device", r->device);
    if (r->kernel)
        summary_str(&ok, root, "kernel", r->kernel);
    summary_add_gpus(&ok, root, r);
    if (!cJSON_AddBoolToObject(root, "score_absorption", r->score_absorption))
        ok = false;
    summary_num(&ok, root, "wall_seconds", r->wall_seconds);
    summary_add_results(&ok, root, r);
    char digest[32];
    snprintf(digest, sizeof digest, "fnv1a64:%016" PRIx64, r->tallies_digest);
    summary_str(&ok, root, "tallies_digest", digest);
    summary_add_identity(&ok, root, r);
    summary_add_units(&ok, root, &r->run->source, r->result);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

static bool summary_write_cb(FILE *stream, void *ctx, tm_error *err)
{
    (void)err;
    fputs(ctx, stream);
    fputc('\n', stream);
    return !ferror(stream);
}

bool summary_write(const char *path, const run_report *report, tm_error *err)
{
    char *text = summary_render(report);
    if (!text) {
        error_set(err, path, 0, "out of memory building the JSON summary");
        return false;
    }
    bool ok = fs_write_atomic(path, summary_write_cb, text, err);
    cJSON_free(text);
    return ok;
}

/* ---- reading back --------------------------------------------------------- */

/* A decimal or "fnv1a64:"-prefixed hex string member of o as a number. */
static bool summary_get_u64(const cJSON *o, const char *key, const char *prefix, int base,
                            uint64_t *v)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *s = cJSON_IsString(item) ? item->valuestring : NULL;
    size_t n = prefix ? strlen(prefix) : 0;
    if (!s || (n && strncmp(s, prefix, n) != 0) || !isxdigit((unsigned char)s[n]))
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s + n, &end, base);
    *v = (uint64_t)x;
    return errno == 0 && *end == '\0';
}

bool summary_read_identity(const char *path, summary_identity *id, tm_error *err)
{
    memset(id, 0, sizeof *id);
    char *text = fs_read_file(path, JSON_MAX_FILE_BYTES, true, NULL, err);
    if (!text)
        return false;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) {
        error_set(err, path, 0, "not a JSON file");
        return false;
    }
    const cJSON *ident = cJSON_GetObjectItemCaseSensitive(root, "identity");
    const cJSON *physics = cJSON_GetObjectItemCaseSensitive(ident, "physics");
    bool ok = cJSON_IsObject(ident) && cJSON_IsString(physics) &&
              summary_get_u64(root, "seed", NULL, 10, &id->seed) &&
              summary_get_u64(root, "tallies_digest", "fnv1a64:", 16, &id->tallies_digest) &&
              summary_get_u64(ident, "input_digest", "fnv1a64:", 16, &id->input_digest) &&
              summary_get_u64(ident, "photons", NULL, 10, &id->photons);
    if (ok) {
        snprintf(id->physics, sizeof id->physics, "%s", physics->valuestring);
        id->partial = cJSON_GetObjectItemCaseSensitive(root, "partial") != NULL;
    } else {
        error_set(err, path, 0,
                  "does not say which run made it (no \"identity\", \"seed\" or "
                  "\"tallies_digest\": written by the library or an older tmcml)");
    }
    cJSON_Delete(root);
    return ok;
}
