/* A result convolved with a broad beam (tmcml.h: tmcml_result_convolve), by
 * runtime/io/conv.c, as `tmcml conv` does for an .mco. */
#include "api.h"

#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "mco.h"

_Static_assert(TMCML_BEAM_GAUSSIAN == (int)CONV_BEAM_GAUSSIAN &&
                   TMCML_BEAM_FLAT == (int)CONV_BEAM_FLAT,
               "tmcml_beam_kind: conv_beam_kind's values");

/* The pencil's comment line: an .mco's own, else (a run of the library)
 * the provenance its .mco would carry. */
static void pencil_comment(const tmcml_result *r, char *buf, size_t size)
{
    const tmcml_info *in = &r->info;
    if (!r->has_tallies)
        snprintf(buf, size, "%s", r->comment ? r->comment : "");
    else
        mco_provenance(buf, size, in->engine, in->seed, in->absorption, in->tallies_digest, NULL,
                       "not written");
}

/* The new result: r's problem (without its detector and spatial
 * frequencies) and record, the
 * convolved arrays, no tallies, the comment naming the beam. */
static tmcml_status convolve(tmcml_session *s, const tmcml_result *r, const conv_beam *beam,
                             tmcml_result **out)
{
    tm_error err = {0};
    if (!conv_check_input(&r->problem.run, r->comment, "result", &err))
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    tmcml_result *c = calloc(1, sizeof *c);
    if (!c)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    if (!conv_result(&r->res, r->problem.run.dr, beam, &c->res, &err)) {
        free(c);
        return api_fail(s, TMCML_ERR_MEMORY, &err);
    }
    char pencil[1024], comment[2048];
    pencil_comment(r, pencil, sizeof pencil);
    conv_comment(beam, pencil, comment, sizeof comment);
    bool ok = mci_run_copy(&c->problem.run, &r->problem.run);
    c->problem.run.source = conv_beam_source(beam);
    /* no detector: its reading is not convolved (conv.c); nor are the
     * spatial frequencies' transforms, nor the frequency domain's
     * amplitudes and phases (no sum of rings gives them) */
    c->problem.run.fiber_count = 0;
    free(c->problem.run.fx);
    free(c->problem.run.mod_hz);
    c->problem.run.fx = c->problem.run.mod_hz = NULL;
    c->problem.run.fx_count = c->problem.run.mod_count = 0;
    c->problem.run.xy_nx = 0; /* nor the Cartesian grid: no sum of rings */
    c->problem.run.xy_dx = 0.0;
    c->comment = strdup(comment);
    c->variant = strdup("");
    c->kernel = strdup("");
    if (!ok || !c->comment || !c->variant || !c->kernel) {
        tmcml_result_delete(c);
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    }
    memcpy(c->engine, r->engine, sizeof c->engine);
    memcpy(c->device, r->device, sizeof c->device);
    c->info = (tmcml_info){.photons = r->info.photons,
                           .seed = r->info.seed,
                           .absorption = r->info.absorption,
                           .engine = c->engine,
                           .device = c->device,
                           .variant = c->variant,
                           .kernel = c->kernel,
                           .steps = r->info.steps,
                           .trapped_photons = r->info.trapped_photons,
                           .trapped_weight = r->info.trapped_weight,
                           .comment = c->comment};
    *out = c;
    return TMCML_OK;
}

tmcml_status tmcml_result_convolve(tmcml_session *s, const tmcml_result *r, const tmcml_beam *beam,
                                   tmcml_result **out)
{
    if (out)
        *out = NULL;
    tmcml_status entered = api_begin(s, API_ARGS({r, "result"}, {beam, "beam"}, {out, "out"}));
    if (entered != TMCML_OK)
        return entered;
    conv_beam b = {(conv_beam_kind)beam->kind, beam->radius};
    tm_error err = {0};
    if (!conv_beam_check(&b, &err))
        return api_leave(s, api_fail(s, TMCML_ERR_ARGUMENT, &err));
    return api_leave(s, convolve(s, r, &b, out));
}
