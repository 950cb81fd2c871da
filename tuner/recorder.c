/* A runner that records (tuner/recorder.h). */
#include "recorder.h"

#include <stdlib.h>
#include <string.h>

static bool record_run(void *ctx, const mci_run *run, const kernel_spec *spec, uint64_t photons,
                       uint64_t seed, tune_measurement *out, tm_error *err)
{
    tune_recorder *r = ctx;
    bool ok = tune_runner_run(r->inner, run, spec, photons, seed, out, err);
    char candidate[KNOBS_TEXT_MAX], message[sizeof err->file + sizeof err->message + 8];
    knobs_text(&spec->knobs, candidate, sizeof candidate);
    tune_recorded_run rec = {.key = spec_key(spec),
                             .candidate = strdup(candidate),
                             .photons = photons,
                             .seed = seed,
                             .ok = ok,
                             .error =
                                 ok ? NULL : strdup(error_format(err, message, sizeof message)),
                             .usable = tune_runner_usable(r->inner)};
    if (ok) {
        rec.m = *out;
        /* The recording keeps a copy of the map: the caller frees its own. */
        size_t bins = (size_t)out->nr * (size_t)out->nz;
        rec.m.deposits = out->deposits ? malloc(bins * sizeof *out->deposits) : NULL;
        if (rec.m.deposits)
            memcpy(rec.m.deposits, out->deposits, bins * sizeof *out->deposits);
        else if (out->deposits)
            r->out_of_memory = true;
    }
    if (!rec.key || !rec.candidate || (!ok && !rec.error) ||
        !tune_recording_add_run(&r->rec, &rec)) {
        r->out_of_memory = true;
        free(rec.key);
        free(rec.candidate);
        free(rec.error);
        tune_measurement_free(&rec.m);
    }
    return ok;
}

static bool record_usable(void *ctx)
{
    const tune_recorder *r = ctx;
    return tune_runner_usable(r->inner);
}

static double record_now(void *ctx)
{
    tune_recorder *r = ctx;
    double t = tune_runner_now(r->inner);
    if (!tune_recording_add_clock(&r->rec, t))
        r->out_of_memory = true;
    return t;
}

void tune_recorder_init(tune_recorder *r, const tune_runner *inner, tune_runner *outer)
{
    memset(r, 0, sizeof *r);
    r->inner = inner;
    tune_recording_init(&r->rec);
    r->rec.device = *inner->device;
    *outer = (tune_runner){.device = inner->device,
                           .run = record_run,
                           .usable = record_usable,
                           .now = record_now,
                           .ctx = r};
}

void tune_recorder_free(tune_recorder *r) { tune_recording_free(&r->rec); }

bool tune_recorder_write(tune_recorder *r, const char *path, const mci_run *run,
                         bool score_absorption, const tune_options *opt, tm_error *err)
{
    if (r->out_of_memory) {
        error_set(err, path, 0, "out of memory while recording the tune: not written");
        return false;
    }
    free(r->rec.mci);
    r->rec.mci = mci_format(run, 1);
    if (!r->rec.mci) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    r->rec.score_absorption = score_absorption;
    r->rec.options = *opt;
    r->rec.options.log = NULL;
    return tune_recording_write(path, &r->rec, err);
}
