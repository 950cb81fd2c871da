/* Results: MCML's arrays and scalars, the integer tallies, the record of
 * the run, and .mco files out and in (tmcml.h). */
#include "api.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "mco.h"
#include "output_arrays.h"
#include "rng.h"
#include "summary.h"

void api_result_clear(tmcml_result *r)
{
    mci_run_free(&r->problem.run);
    result_free(&r->res);
    if (r->has_tallies)
        tally_set_free(&r->tallies);
    free(r->variant);
    free(r->kernel);
    free(r->comment);
}

void tmcml_result_delete(tmcml_result *r)
{
    if (!r)
        return;
    api_result_clear(r);
    free(r);
}

const tmcml_problem *tmcml_result_problem(const tmcml_result *r) { return r ? &r->problem : NULL; }

void tmcml_result_rat(const tmcml_result *r, tmcml_rat *rat)
{
    if (rat)
        *rat =
            r ? (tmcml_rat){r->res.rsp, r->res.rd, r->res.a, r->res.tt} : (tmcml_rat){0, 0, 0, 0};
}

/* ORDER OUTPUT: tmcml_array is output_table's order (runtime/io/output_arrays.h),
 * and tmcml_axis output_axis's; tests/test_api.c checks every name. */
_Static_assert(TMCML_A_XZ + 1 == OUTPUT_ARRAYS, "tmcml_array: one constant per output_table row");
_Static_assert(TMCML_AXIS_LAYER == (int)OUTPUT_AXIS_LAYER && TMCML_AXIS_R == (int)OUTPUT_AXIS_R &&
                   TMCML_AXIS_Z == (int)OUTPUT_AXIS_Z && TMCML_AXIS_A == (int)OUTPUT_AXIS_A &&
                   TMCML_AXIS_T == (int)OUTPUT_AXIS_T &&
                   TMCML_AXIS_DETECTOR == (int)OUTPUT_AXIS_DETECTOR &&
                   TMCML_AXIS_PARAM == (int)OUTPUT_AXIS_PARAM &&
                   TMCML_AXIS_FX == (int)OUTPUT_AXIS_FX &&
                   TMCML_AXIS_MODULATION == (int)OUTPUT_AXIS_MOD &&
                   TMCML_AXIS_XY == (int)OUTPUT_AXIS_XY,
               "tmcml_axis: output_axis's values");
_Static_assert(OUTPUT_MAX_RANK <= TMCML_ARRAY_MAX_DIMS, "TMCML_ARRAY_MAX_DIMS");

/* The row of which, or NULL for an unknown array. */
static const output_array *row_of(tmcml_array which)
{
    return (unsigned)which < OUTPUT_ARRAYS ? &output_table[which] : NULL;
}

int tmcml_array_count(void) { return OUTPUT_ARRAYS; }

const char *tmcml_array_name(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o ? o->name : NULL;
}

const char *tmcml_array_unit(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o ? o->unit : NULL;
}

int tmcml_array_dims(tmcml_array which, tmcml_axis axes[TMCML_ARRAY_MAX_DIMS])
{
    const output_array *o = row_of(which);
    if (!o)
        return 0;
    for (int d = 0; axes && d < o->rank; d++)
        axes[d] = (tmcml_axis)o->axes[d];
    return o->rank;
}

int tmcml_array_has_tallies(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o && o->tallied;
}

int tmcml_array_absorption(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o && o->absorption;
}

int tmcml_array_path_lengths(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o && o->option == OUTPUT_OPTION_PATHS;
}

int tmcml_array_option(tmcml_array which)
{
    const output_array *o = row_of(which);
    return o ? (int)o->option : -1;
}

int tmcml_result_array_shape(const tmcml_result *r, tmcml_array which,
                             size_t shape[TMCML_ARRAY_MAX_DIMS])
{
    const output_array *o = row_of(which);
    if (!r || !o)
        return 0;
    output_grid g = result_grid(&r->res);
    for (int d = 0; shape && d < o->rank; d++)
        shape[d] = (size_t)output_axis_length(o->axes[d], &g);
    return o->rank;
}

const double *tmcml_result_array(const tmcml_result *r, tmcml_array which, size_t *count)
{
    if (count)
        *count = 0;
    const output_array *o = row_of(which);
    if (!r || !o || !r->res.array[which])
        return NULL; /* unknown, or optional and not scored */
    output_grid g = result_grid(&r->res);
    if (count)
        *count = (size_t)output_bins(o, &g);
    /* a_l[0]: the medium above (output_first) */
    return r->res.array[which] + output_first(o);
}

int tmcml_result_stderr_groups(const tmcml_result *r) { return r ? r->res.stderr_groups : 0; }

const double *tmcml_result_stderr(const tmcml_result *r, tmcml_array which, size_t *count)
{
    if (count)
        *count = 0;
    const output_array *o = row_of(which);
    if (!r || !o || !r->res.stderr_array[which])
        return NULL; /* unknown, not in the run, or no standard errors */
    output_grid g = result_grid(&r->res);
    if (count)
        *count = (size_t)output_bins(o, &g);
    return r->res.stderr_array[which] + output_first(o); /* as tmcml_result_array */
}

tmcml_status tmcml_result_rat_stderr(const tmcml_result *r, tmcml_rat *out)
{
    if (!r || !out)
        return TMCML_ERR_ARGUMENT;
    if (r->res.stderr_groups == 0) {
        *out = (tmcml_rat){0, NAN, NAN, NAN};
        return TMCML_ERR_STATE;
    }
    *out = (tmcml_rat){0, r->res.rd_stderr, r->res.a_stderr, r->res.tt_stderr}; /* Rsp: exact */
    return TMCML_OK;
}

/* The constants of the arrays with tallies, as "TMCML_X, TMCML_Y and
 * TMCML_Z". */
static void tallied_names(char *buf, size_t size)
{
    char name[OUTPUT_ARRAYS][32];
    int n = 0;
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!output_table[i].tallied)
            continue;
        snprintf(name[n], sizeof name[n], "TMCML_%s", output_table[i].name);
        for (char *c = name[n]; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        n++;
    }
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s",
                               k == 0       ? ""
                               : k == n - 1 ? " and "
                                            : ", ",
                               name[k]);
}

static tmcml_status copy_tallies(tmcml_session *s, const tmcml_result *r, tmcml_array which,
                                 uint64_t *low, uint64_t *high, size_t count)
{
    const output_array *o = row_of(which);
    if (!o || !o->tallied) {
        char names[256];
        tallied_names(names, sizeof names);
        return api_failf(s, TMCML_ERR_ARGUMENT, "which: the tallies are %s (got %d)", names,
                         (int)which);
    }
    if (!r->has_tallies)
        return api_failf(s, TMCML_ERR_STATE, "this result has no tallies (read from an .mco)");
    if (!r->tallies.tally[o->tally])
        return api_failf(
            s, TMCML_ERR_STATE, "this run scored no %s",
            o->option == OUTPUT_OPTION_PATHS  ? "path lengths (tmcml_problem_set_path_lengths)"
            : o->option == OUTPUT_OPTION_TIME ? "time bins (tmcml_problem_set_time_bins)"
            : o->option == OUTPUT_OPTION_XY   ? "Cartesian grid (tmcml_problem_set_xy)"
                                            : "fiber detector (tmcml_problem_set_fiber_detector)");
    const tally_acc_t *src = r->tallies.tally[o->tally];
    size_t n;
    tmcml_result_array(r, which, &n);
    if (count != n)
        return api_failf(s, TMCML_ERR_ARGUMENT, "count: the array has %zu entries (got %zu)", n,
                         count);
    if (!low || !high)
        return api_failf(s, TMCML_ERR_ARGUMENT, "low, high: NULL");
    for (size_t i = 0; i < n; i++) {
        low[i] = (uint64_t)src[i];
        high[i] = (uint64_t)(src[i] >> 64);
    }
    return TMCML_OK;
}

tmcml_status tmcml_result_tallies(tmcml_session *s, const tmcml_result *r, tmcml_array which,
                                  uint64_t *low, uint64_t *high, size_t count)
{
    tmcml_status entered = api_begin(s, API_ARGS({r, "result"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, copy_tallies(s, r, which, low, high, count));
}

void tmcml_result_info(const tmcml_result *r, tmcml_info *info)
{
    if (!info)
        return;
    if (r)
        *info = r->info;
    else /* every string "", as for a result read from an .mco */
        *info =
            (tmcml_info){.engine = "", .device = "", .variant = "", .kernel = "", .comment = ""};
}

/* The .mco and the JSON summary, as the run command writes them.  A
 * problem without a name gets the file's: a .mci of it names its output so. */
static tmcml_status write_run(tmcml_session *s, const tmcml_result *r, const char *path)
{
    const tmcml_info *in = &r->info;
    mci_run run = r->problem.run; /* shallow: the name may be the path's */
    if (!run.out_name)
        run.out_name = (char *)fs_base_name(path);
    char *json = fs_sibling(path, ".json");
    if (!json)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    char comment[512];
    mco_provenance(comment, sizeof comment, in->engine, in->seed, in->absorption,
                   in->tallies_digest, NULL, fs_base_name(json));
    summary_precision prec = {.of = r->problem.precision_of,
                              .asked = r->precision.asked,
                              .reached = r->precision.reached,
                              .max_photons = (uint64_t)r->precision.max_photons,
                              .met = r->precision.met != 0};
    run_report rep = {.run_index = 1,
                      .run = &run,
                      .result = &r->res,
                      .seed = in->seed,
                      .engine = in->engine,
                      .threads = in->threads,
                      .wall_seconds = in->wall_seconds,
                      .score_absorption = in->absorption,
                      .rng = RNG_MWC_NAME,
                      .steps = in->steps,
                      .trapped_photons = in->trapped_photons,
                      .trapped_weight = in->trapped_weight,
                      .tallies_digest = in->tallies_digest,
                      .device = in->device[0] ? in->device : NULL,
                      .kernel = in->kernel[0] ? in->kernel : NULL,
                      .precision = r->problem.precision > 0.0 ? &prec : NULL};
    tm_error err = {0};
    bool ok = mco_write(path, &run, &r->res, comment, &err) && summary_write(json, &rep, &err);
    free(json);
    return ok ? TMCML_OK : api_fail(s, TMCML_ERR_FILE, &err);
}

/* A result read from an .mco: written again with its own comment. */
static tmcml_status write_loaded(tmcml_session *s, const tmcml_result *r, const char *path)
{
    tm_error err = {0};
    return mco_write(path, &r->problem.run, &r->res, r->comment, &err)
               ? TMCML_OK
               : api_fail(s, TMCML_ERR_FILE, &err);
}

tmcml_status tmcml_result_write_mco(tmcml_session *s, const tmcml_result *r, const char *path)
{
    tmcml_status entered = api_begin(s, API_ARGS({r, "result"}, {path, "path"}));
    if (entered != TMCML_OK)
        return entered;
    if (!*path)
        return api_arg_error(s, "path: empty");
    return api_leave(s, r->has_tallies ? write_run(s, r, path) : write_loaded(s, r, path));
}

static tmcml_status read_result(tmcml_session *s, const char *path, tmcml_result **out)
{
    mco_data data;
    tm_error err = {0};
    if (!mco_read(path, &data, &err))
        return api_fail(s, TMCML_ERR_FILE, &err);
    tmcml_result *r = calloc(1, sizeof *r);
    if (!r) {
        mco_free(&data);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    /* Moved out of data, which then keeps nothing. */
    double user_seconds = data.user_seconds;
    r->problem.run = data.run;
    r->res = data.result;
    r->comment = data.comment ? data.comment : strdup("");
    memset(&data.run, 0, sizeof data.run);
    memset(&data.result, 0, sizeof data.result);
    data.comment = NULL;
    mco_free(&data);
    r->variant = strdup("");
    r->kernel = strdup("");
    if (!r->comment || !r->variant || !r->kernel) {
        tmcml_result_delete(r);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    r->info = (tmcml_info){.photons = r->res.photons,
                           .absorption = 1,
                           .engine = r->engine,
                           .device = r->device,
                           .variant = r->variant,
                           .kernel = r->kernel,
                           .wall_seconds = user_seconds,
                           .comment = r->comment};
    *out = r;
    return TMCML_OK;
}

tmcml_status tmcml_result_read_mco(tmcml_session *s, const char *path, tmcml_result **out)
{
    if (out)
        *out = NULL;
    tmcml_status entered = api_begin(s, API_ARGS({out, "out"}, {path, "path"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, read_result(s, path, out));
}

tmcml_status tmcml_result_ess(const tmcml_result *r, double *out)
{
    if (out)
        *out = NAN;
    if (!r || !out)
        return TMCML_ERR_ARGUMENT;
    if (!r->problem.run.optics_set || isnan(r->res.ess))
        return TMCML_ERR_STATE;
    *out = r->res.ess;
    return TMCML_OK;
}
