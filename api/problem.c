/* Problems: from arrays, from and to .mci files (tmcml.h).
 *
 * A problem given as arrays is checked by the .mci reader itself: it is
 * written as the text of a .mci file (mci_format) and read back
 * (mci_parse), so that arrays and files obey the same rules with the same
 * messages, and the run is the very one a .mci of these values gives the
 * run command (the same doubles, depths and critical angles). */
#include "api.h"

#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "modulation.h"
#include "spatial_frequencies.h"
#include "time_bins.h"

/* The name a problem without one is checked under, and the photons. */
#define UNNAMED "tmcml.mco"

/* raw (fields as given) checked as a .mci run: *out gets the run read back,
 * with photons 0 and out_name NULL where raw had none. */
static tmcml_status check_run(tmcml_session *s, const mci_run *raw, mci_run *out)
{
    /* The caller's lists, copied first: out takes their copies. */
    double *fx, *mod_hz;
    int fx_count, mod_count;
    bool copied = mci_list_copy(raw->fx, raw->fx_count, &fx, &fx_count);
    copied = mci_list_copy(raw->mod_hz, raw->mod_count, &mod_hz, &mod_count) && copied;
    if (!copied) {
        free(fx);
        free(mod_hz);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    mci_run probe = *raw;
    probe.out_name = raw->out_name ? raw->out_name : UNNAMED;
    probe.photons = raw->photons ? raw->photons : 1;
    char *text = mci_format(&probe, 1);
    if (!text) {
        free(fx);
        free(mod_hz);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    mci_file file;
    tm_error err = {0};
    bool ok = mci_parse(text, "", &file, &err);
    free(text);
    if (!ok) {
        /* The parameter is named by the message; the line of a text nobody
         * wrote would only confuse. */
        err.file[0] = '\0';
        err.line = 0;
        free(fx);
        free(mod_hz);
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    }
    *out = file.runs[0];
    memset(&file.runs[0], 0, sizeof file.runs[0]);
    mci_free(&file);
    if (!raw->out_name) {
        free(out->out_name);
        out->out_name = NULL;
    }
    out->photons = raw->photons;
    out->line = 0;
    /* The caller's requests, which the .mci text does not hold: a problem
     * given its photons or name after them keeps them (time bins and the
     * detector were dropped so, before issue 43). */
    out->path_lengths = raw->path_lengths;
    out->jacobian = raw->jacobian;
    out->source = raw->source;
    out->time_dt = raw->time_dt;
    out->time_nt = raw->time_nt;
    out->fiber_count = raw->fiber_count;
    memcpy(out->fibers, raw->fibers, sizeof out->fibers);
    out->fx = fx;
    out->fx_count = fx_count;
    out->mod_hz = mod_hz;
    out->mod_count = mod_count;
    out->xy_dx = raw->xy_dx;
    out->xy_nx = raw->xy_nx;
    return TMCML_OK;
}

static tmcml_problem *problem_alloc(tmcml_session *s)
{
    tmcml_problem *p = calloc(1, sizeof *p);
    if (!p)
        api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    return p;
}

tmcml_status api_problem_new(tmcml_session *s, const tmcml_layer *layers, int num_layers,
                             double n_above, double n_below, const tmcml_grid *grid,
                             tmcml_problem **out)
{
    if (!grid)
        return api_failf(s, TMCML_ERR_ARGUMENT, "grid: NULL");
    if (num_layers > 0 && !layers)
        return api_failf(s, TMCML_ERR_ARGUMENT, "layers: NULL for %d layers", num_layers);
    size_t count = (size_t)(num_layers > 0 ? num_layers : 0) + 2;
    mci_run raw = {.out_format = 'A',
                   .dz = grid->dz,
                   .dr = grid->dr,
                   .nz = grid->nz,
                   .nr = grid->nr,
                   .na = grid->na,
                   .num_layers = num_layers};
    raw.layers = calloc(count, sizeof *raw.layers);
    tmcml_problem *p = raw.layers ? problem_alloc(s) : NULL;
    if (!p) {
        free(raw.layers);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    raw.layers[0].n = n_above;
    raw.layers[count - 1].n = n_below;
    for (int i = 0; i < num_layers; i++)
        raw.layers[i + 1] = (mci_layer){.n = layers[i].n,
                                        .mua = layers[i].mua,
                                        .mus = layers[i].mus,
                                        .g = layers[i].g,
                                        .d = layers[i].d};
    tmcml_status status = check_run(s, &raw, &p->run);
    free(raw.layers);
    if (status != TMCML_OK) {
        free(p);
        return status;
    }
    *out = p;
    return TMCML_OK;
}

tmcml_status tmcml_problem_new(tmcml_session *s, const tmcml_layer *layers, int num_layers,
                               double n_above, double n_below, const tmcml_grid *grid,
                               tmcml_problem **out)
{
    if (out)
        *out = NULL;
    tmcml_status entered = api_begin(s, API_ARGS({out, "out"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, api_problem_new(s, layers, num_layers, n_above, n_below, grid, out));
}

void tmcml_problem_delete(tmcml_problem *p)
{
    if (!p)
        return;
    mci_run_free(&p->run);
    free(p);
}

void tmcml_problems_delete(tmcml_problem **runs, int count)
{
    for (int i = 0; runs && i < count; i++)
        tmcml_problem_delete(runs[i]);
    free(runs);
}

static tmcml_status read_problems(tmcml_session *s, const char *path, tmcml_problem ***runs,
                                  int *count)
{
    mci_file file;
    tm_error err = {0};
    if (!mci_read(path, &file, &err))
        return api_fail(s, TMCML_ERR_FILE, &err);
    int n = file.num_runs;
    tmcml_problem **list = calloc((size_t)n, sizeof *list);
    bool ok = list != NULL;
    for (int i = 0; ok && i < n; i++) {
        list[i] = calloc(1, sizeof *list[i]);
        ok = list[i] != NULL;
        if (ok) { /* moved: the file keeps nothing of it */
            list[i]->run = file.runs[i];
            memset(&file.runs[i], 0, sizeof file.runs[i]);
        }
    }
    mci_free(&file);
    if (!ok) {
        tmcml_problems_delete(list, n);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    *runs = list;
    *count = n;
    return TMCML_OK;
}

tmcml_status tmcml_mci_read(tmcml_session *s, const char *path, tmcml_problem ***runs, int *count)
{
    if (runs)
        *runs = NULL;
    if (count)
        *count = 0;
    tmcml_status entered = api_begin(s, API_ARGS({runs, "runs"}, {count, "count"}, {path, "path"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, read_problems(s, path, runs, count));
}

static tmcml_status write_problems(tmcml_session *s, const char *path,
                                   const tmcml_problem *const *runs, int count)
{
    if (!path)
        return api_failf(s, TMCML_ERR_ARGUMENT, "path: NULL");
    if (count < 1 || !runs)
        return api_failf(s, TMCML_ERR_ARGUMENT, "runs: expected at least one problem");
    mci_run *list = calloc((size_t)count, sizeof *list);
    if (!list)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    tmcml_status status = TMCML_OK;
    for (int i = 0; i < count && status == TMCML_OK; i++) {
        if (!runs[i])
            status = api_failf(s, TMCML_ERR_ARGUMENT, "run %d: NULL", i + 1);
        else if (runs[i]->run.photons < 1)
            status = api_failf(s, TMCML_ERR_ARGUMENT,
                               "run %d: no photons (tmcml_problem_set_photons)", i + 1);
        else if (!runs[i]->run.out_name)
            status = api_failf(s, TMCML_ERR_ARGUMENT,
                               "run %d: no output name (tmcml_problem_set_name)", i + 1);
        else
            list[i] = runs[i]->run; /* shallow: only read */
    }
    /* Read back before writing: two runs of one output name are refused as
     * a .mci reader would. */
    char *text = status == TMCML_OK ? mci_format(list, count) : NULL;
    if (status == TMCML_OK && !text)
        status = api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    mci_file back;
    tm_error err = {0};
    if (status == TMCML_OK && !mci_parse(text, path, &back, &err))
        status = api_fail(s, TMCML_ERR_ARGUMENT, &err);
    else if (status == TMCML_OK)
        mci_free(&back);
    if (status == TMCML_OK && !mci_write(path, list, count, &err))
        status = api_fail(s, TMCML_ERR_FILE, &err);
    free(text);
    free(list);
    return status;
}

tmcml_status tmcml_mci_write(tmcml_session *s, const char *path, const tmcml_problem *const *runs,
                             int count)
{
    tmcml_status entered = api_begin(s, NULL);
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, write_problems(s, path, runs, count));
}

/* p's run with photons and name replaced, checked again. */
static tmcml_status set_run(tmcml_session *s, tmcml_problem *p, int64_t photons, const char *name)
{
    mci_run raw = p->run, checked;
    raw.photons = photons;
    raw.out_name = (char *)name;
    tmcml_status status = check_run(s, &raw, &checked);
    if (status == TMCML_OK) {
        mci_run_free(&p->run);
        p->run = checked;
    }
    return status;
}

tmcml_status tmcml_problem_set_photons(tmcml_session *s, tmcml_problem *p, int64_t photons)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    if (photons < 1)
        return api_arg_error(s, "photons: expected 1 to 2^63-1 (got %lld)", (long long)photons);
    return api_leave(s, set_run(s, p, photons, p->run.out_name));
}

tmcml_status tmcml_problem_set_path_lengths(tmcml_session *s, tmcml_problem *p, int on)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    if (on && p->run.num_layers > TM_MAX_PATH_LAYERS)
        return api_arg_error(s, "path lengths: at most %d layers (the problem has %d)",
                             TM_MAX_PATH_LAYERS, p->run.num_layers);
    p->run.path_lengths = on != 0;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_path_lengths(const tmcml_problem *p) { return p && p->run.path_lengths; }

tmcml_status tmcml_problem_set_jacobian(tmcml_session *s, tmcml_problem *p, int on)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    if (on && p->run.num_layers > TM_MAX_PATH_LAYERS)
        return api_arg_error(s, "jacobian: at most %d layers (the problem has %d)",
                             TM_MAX_PATH_LAYERS, p->run.num_layers);
    p->run.jacobian = on != 0;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_jacobian(const tmcml_problem *p) { return p && p->run.jacobian; }

tmcml_status tmcml_problem_set_stderr(tmcml_session *s, tmcml_problem *p, int on)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    p->stderr_groups = on != 0;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_stderr(const tmcml_problem *p) { return p && p->stderr_groups; }

/* The library's numbering of the kinds is source.h's. */
_Static_assert(TMCML_SOURCE_FIBER == (int)SOURCE_FIBER &&
                   TMCML_SOURCE_OBLIQUE == (int)SOURCE_OBLIQUE && SOURCE_KINDS == 6,
               "tmcml_source_kind and source_kind differ");
/* A kind has at most the library's two parameters, a and b. */
_Static_assert(SOURCE_MAX_PARAMS == 2, "tmcml_problem_set_source takes a and b");

tmcml_status tmcml_problem_set_source(tmcml_session *s, tmcml_problem *p, int kind, double a,
                                      double b)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    if (kind < 0 || kind >= SOURCE_KINDS)
        return api_arg_error(s,
                             "source: unknown kind %d (TMCML_SOURCE_PENCIL to "
                             "TMCML_SOURCE_OBLIQUE)",
                             kind);
    const double values[] = {a, b}; /* the kind's parameters in order (source_kind_table) */
    source_desc src = source_make((source_kind)kind, values);
    tm_error err = {0};
    if (!source_check_run(&src, &p->run, "source", &err))
        return api_leave(s, api_fail(s, TMCML_ERR_ARGUMENT, &err));
    p->run.source = src;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_source(const tmcml_problem *p, double *a, double *b)
{
    const source_desc none = {0}, *src = p ? &p->run.source : &none;
    if (a)
        *a = source_value(src, 0);
    if (b)
        *b = source_value(src, 1);
    return (int)src->kind;
}

tmcml_status tmcml_problem_set_time_bins(tmcml_session *s, tmcml_problem *p, double dt, int nt)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    tm_error err = {0};
    if (nt != 0 && !time_bins_check_asked("time bins", dt, nt, p->run.nr, &err))
        return api_arg_error(s, "%s", err.message);
    p->run.time_nt = nt;
    p->run.time_dt = nt != 0 ? dt : 0.0;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_time_bins(const tmcml_problem *p, double *dt)
{
    if (dt)
        *dt = p ? p->run.time_dt : 0.0;
    return p ? p->run.time_nt : 0;
}

_Static_assert(TMCML_MAX_FIBER_DETECTORS == TM_MAX_DETECTORS, "tmcml.h's limit is the run's");

tmcml_status tmcml_problem_set_fiber_detector(tmcml_session *s, tmcml_problem *p, double separation,
                                              double radius, double na)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    tm_error err = {0};
    fiber_detector d = {separation, radius, na};
    if (radius != 0.0 && !detector_check("fiber detector", &d, p->run.layers[0].n, &err))
        return api_arg_error(s, "%s", err.message);
    /* this one in place of every detector p had, or none */
    p->run.fiber_count = radius != 0.0 ? 1 : 0;
    memset(p->run.fibers, 0, sizeof p->run.fibers);
    if (radius != 0.0)
        p->run.fibers[0] = d;
    return api_leave(s, TMCML_OK);
}

tmcml_status tmcml_problem_add_fiber_detector(tmcml_session *s, tmcml_problem *p, double separation,
                                              double radius, double na)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    int k = p->run.fiber_count + 1;
    if (k > TM_MAX_DETECTORS)
        return api_arg_error(s, "fiber detector %d: at most %d detectors on a problem", k,
                             TM_MAX_DETECTORS);
    tm_error err = {0};
    char name[48];
    fiber_detector d = {separation, radius, na};
    if (!detector_check(detector_name("fiber detector", k, k, name, sizeof name), &d,
                        p->run.layers[0].n, &err))
        return api_arg_error(s, "%s", err.message);
    p->run.fibers[k - 1] = d;
    p->run.fiber_count = k;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_fiber_detector_at(const tmcml_problem *p, int k, double *separation,
                                    double *radius, double *na)
{
    int count = p ? p->run.fiber_count : 0;
    const fiber_detector *d = k >= 0 && k < count ? &p->run.fibers[k] : NULL;
    if (separation)
        *separation = d ? d->sep : 0.0;
    if (radius)
        *radius = d ? d->radius : 0.0;
    if (na)
        *na = d ? d->na : 0.0;
    return count;
}

/* A problem's list (its frequencies: *values, *count) replaced by a copy
 * of count values (0: none). */
static tmcml_status set_list(tmcml_session *s, const double *v, int count, double **values,
                             int *values_count)
{
    double *own;
    int own_count;
    if (!mci_list_copy(v, count, &own, &own_count))
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    free(*values);
    *values = own;
    *values_count = own_count;
    return TMCML_OK;
}

/* A list's count, and its first `most` values into out (may be NULL). */
static int get_list(const double *values, int count, double *out, int most)
{
    for (int k = 0; out && k < count && k < most; k++)
        out[k] = values[k];
    return count;
}

tmcml_status api_problem_spatial_frequencies(tmcml_session *s, tmcml_problem *p, const double *fx,
                                             int count)
{
    tm_error err = {0};
    if (count != 0 && !spatial_frequencies_check("spatial frequencies", fx, count, &err))
        return api_failf(s, TMCML_ERR_ARGUMENT, "%s", err.message);
    return set_list(s, fx, count, &p->run.fx, &p->run.fx_count);
}

tmcml_status tmcml_problem_set_spatial_frequencies(tmcml_session *s, tmcml_problem *p,
                                                   const double *fx, int count)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, api_problem_spatial_frequencies(s, p, fx, count));
}

int tmcml_problem_spatial_frequencies(const tmcml_problem *p, double *fx, int most)
{
    return p ? get_list(p->run.fx, p->run.fx_count, fx, most) : 0;
}

tmcml_status tmcml_problem_set_modulation(tmcml_session *s, tmcml_problem *p, const double *hz,
                                          int count)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    tm_error err = {0};
    if (count != 0 && !modulation_check("modulation frequencies", hz, count, &err))
        return api_arg_error(s, "%s", err.message);
    return api_leave(s, set_list(s, hz, count, &p->run.mod_hz, &p->run.mod_count));
}

int tmcml_problem_modulation(const tmcml_problem *p, double *hz, int most)
{
    return p ? get_list(p->run.mod_hz, p->run.mod_count, hz, most) : 0;
}

int tmcml_problem_fiber_detector(const tmcml_problem *p, double *separation, double *radius,
                                 double *na)
{
    return tmcml_problem_fiber_detector_at(p, 0, separation, radius, na) > 0;
}

tmcml_status tmcml_problem_set_name(tmcml_session *s, tmcml_problem *p, const char *name)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    if (!name || !*name)
        return api_arg_error(s, "name: empty");
    return api_leave(s, set_run(s, p, p->run.photons, name));
}

int tmcml_problem_num_layers(const tmcml_problem *p) { return p ? p->run.num_layers : 0; }

int tmcml_problem_layer(const tmcml_problem *p, int i, tmcml_layer *layer)
{
    if (!p || !layer || i < 0 || i > p->run.num_layers + 1)
        return 0;
    const mci_layer *l = &p->run.layers[i];
    *layer = (tmcml_layer){l->n, l->mua, l->mus, l->g, l->d};
    return 1;
}

void tmcml_problem_grid(const tmcml_problem *p, tmcml_grid *grid)
{
    if (!grid)
        return;
    if (!p) {
        *grid = (tmcml_grid){0, 0, 0, 0, 0};
        return;
    }
    const mci_run *r = &p->run;
    *grid = (tmcml_grid){r->dz, r->dr, r->nz, r->nr, r->na};
}

int64_t tmcml_problem_photons(const tmcml_problem *p) { return p ? p->run.photons : 0; }

const char *tmcml_problem_name(const tmcml_problem *p)
{
    return p && p->run.out_name ? p->run.out_name : "";
}
