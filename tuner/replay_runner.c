/* The replay runner (tuner/replay_runner.h). */
#include "replay_runner.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The first unused recorded answer of (key, photons, seed), or -1. */
static int find(const replay_runner *rr, const char *key, uint64_t photons, uint64_t seed)
{
    for (int i = 0; i < rr->rec.count; i++) {
        const tune_recorded_run *r = &rr->rec.runs[i];
        if (!rr->used[i] && r->photons == photons && r->seed == seed && strcmp(r->key, key) == 0)
            return i;
    }
    return -1;
}

static bool answer(replay_runner *rr, int i, tune_measurement *out, tm_error *err)
{
    const tune_recorded_run *r = &rr->rec.runs[i];
    rr->used[i] = true;
    rr->usable = r->usable;
    if (!r->ok) {
        error_set(err, NULL, 0, "%s", r->error);
        return false;
    }
    *out = r->m;
    out->deposits = NULL;
    if (!r->m.deposits)
        return true;
    size_t bytes = (size_t)r->m.nr * (size_t)r->m.nz * sizeof *out->deposits;
    if (!(out->deposits = malloc(bytes))) {
        error_set(err, NULL, 0, "out of memory for the pilot's deposit map");
        return false;
    }
    memcpy(out->deposits, r->m.deposits, bytes);
    return true;
}

static bool replay_run(void *ctx, const mci_run *run, const kernel_spec *spec, uint64_t photons,
                       uint64_t seed, tune_measurement *out, tm_error *err)
{
    (void)run;
    replay_runner *rr = ctx;
    memset(out, 0, sizeof *out);
    char *key = spec_key(spec);
    int i = key ? find(rr, key, photons, seed) : -1;
    free(key);
    if (i >= 0)
        return answer(rr, i, out, err);
    char candidate[KNOBS_TEXT_MAX];
    knobs_text(&spec->knobs, candidate, sizeof candidate);
    error_set(err, rr->path, 0,
              "no recorded run of candidate %s%s%s (%" PRIu64 " photons, seed %" PRIu64
              "): the search asked what the recorded one did not",
              candidate, spec->count_deposits ? " counting deposits" : "",
              spec->debug_bias ? " with the test bias" : "", photons, seed);
    rr->usable = false;
    return false;
}

static bool replay_usable(void *ctx) { return ((const replay_runner *)ctx)->usable; }

static double replay_now(void *ctx)
{
    replay_runner *rr = ctx;
    if (rr->rec.clocks == 0)
        return 0;
    int i = rr->clock_next < rr->rec.clocks ? rr->clock_next++ : rr->rec.clocks - 1;
    return rr->rec.clock[i];
}

bool replay_runner_open(replay_runner *rr, const char *path, tune_runner *runner, tm_error *err)
{
    memset(rr, 0, sizeof *rr);
    if (!tune_recording_read(path, &rr->rec, err))
        return false;
    rr->path = strdup(path);
    rr->used = calloc((size_t)(rr->rec.count ? rr->rec.count : 1), sizeof *rr->used);
    if (!rr->path || !rr->used) {
        error_set(err, path, 0, "out of memory");
        replay_runner_close(rr);
        return false;
    }
    if (!mci_parse(rr->rec.mci, path, &rr->problem, err) || rr->problem.num_runs != 1) {
        if (rr->problem.num_runs > 1)
            error_set(err, path, 0, "mci: %d runs recorded, expected one", rr->problem.num_runs);
        replay_runner_close(rr);
        return false;
    }
    rr->usable = true;
    *runner = (tune_runner){.device = &rr->rec.device,
                            .run = replay_run,
                            .usable = replay_usable,
                            .now = replay_now,
                            .ctx = rr};
    return true;
}

void replay_runner_close(replay_runner *rr)
{
    free(rr->path);
    free(rr->used);
    mci_free(&rr->problem);
    tune_recording_free(&rr->rec);
    memset(rr, 0, sizeof *rr);
}

const mci_run *replay_runner_problem(const replay_runner *rr) { return &rr->problem.runs[0]; }

int replay_runner_unused(const replay_runner *rr)
{
    int n = 0;
    for (int i = 0; i < rr->rec.count; i++)
        n += !rr->used[i];
    return n;
}

int replay_runner_corrupt(replay_runner *rr, const char *key, double speedup)
{
    int n = 0;
    for (int i = 0; i < rr->rec.count; i++) {
        tune_measurement *m = &rr->rec.runs[i].m;
        if (!rr->rec.runs[i].ok || strcmp(rr->rec.runs[i].key, key) != 0)
            continue;
        m->digest ^= 1;
        m->steady_photons_per_second *= speedup;
        m->kernel_seconds /= speedup;
        n++;
    }
    return n;
}
