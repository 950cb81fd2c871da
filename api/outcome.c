/* Results: MCML's arrays and scalars, the integer tallies, the record of
 * the run, and .mco files out and in (tmcml.h). */
#include "api.h"

#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "mco.h"
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

const double *tmcml_result_array(const tmcml_result *r, tmcml_array which, size_t *count)
{
    if (count)
        *count = 0;
    if (!r)
        return NULL;
    const mcml_result *m = &r->res;
    size_t nr = (size_t)m->nr, nz = (size_t)m->nz, na = (size_t)m->na;
    const struct {
        const double *data;
        size_t count;
    } arrays[] = {
        [TMCML_A_L] = {m->a_l + 1, (size_t)m->num_layers}, /* a_l[0]: the medium above */
        [TMCML_A_Z] = {m->a_z, nz},
        [TMCML_RD_R] = {m->rd_r, nr},
        [TMCML_RD_A] = {m->rd_a, na},
        [TMCML_TT_R] = {m->tt_r, nr},
        [TMCML_TT_A] = {m->tt_a, na},
        [TMCML_A_RZ] = {m->a_rz, nr * nz},
        [TMCML_RD_RA] = {m->rd_ra, nr * na},
        [TMCML_TT_RA] = {m->tt_ra, nr * na},
    };
    if ((unsigned)which >= sizeof arrays / sizeof *arrays) {
        if (count)
            *count = 0;
        return NULL;
    }
    if (count)
        *count = arrays[which].count;
    return arrays[which].data;
}

static tmcml_status copy_tallies(tmcml_session *s, const tmcml_result *r, tmcml_array which,
                                 uint64_t *low, uint64_t *high, size_t count)
{
    const tally_set *t = &r->tallies;
    if (which != TMCML_A_RZ && which != TMCML_RD_RA && which != TMCML_TT_RA)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "which: the tallies are TMCML_A_RZ, TMCML_RD_RA and TMCML_TT_RA (got %d)",
                         (int)which);
    if (!r->has_tallies)
        return api_failf(s, TMCML_ERR_STATE, "this result has no tallies (read from an .mco)");
    const tally_acc_t *src = which == TMCML_A_RZ    ? t->a_rz
                             : which == TMCML_RD_RA ? t->rd_ra
                                                    : t->tt_ra;
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
    if (!s)
        return TMCML_ERR_ARGUMENT;
    if (!api_enter(s))
        return TMCML_ERR_CANCELLED;
    if (!r)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "result: NULL"));
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
                      .kernel = in->kernel[0] ? in->kernel : NULL};
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
    if (!s)
        return TMCML_ERR_ARGUMENT;
    if (!api_enter(s))
        return TMCML_ERR_CANCELLED;
    if (!r)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "result: NULL"));
    if (!path || !*path)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "path: %s", path ? "empty" : "NULL"));
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
    if (!s)
        return TMCML_ERR_ARGUMENT;
    if (!api_enter(s))
        return TMCML_ERR_CANCELLED;
    if (!out)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "out: NULL"));
    if (!path)
        return api_leave(s, api_failf(s, TMCML_ERR_ARGUMENT, "path: NULL"));
    return api_leave(s, read_result(s, path, out));
}
