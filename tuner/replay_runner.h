/* The replay runner (Kernel Tuner's simulation runner): answers a search's
 * queries from a recording of a real tune (tuner/recording.h), so that the
 * staged search, the bit-identity gate and the profile store run in CI
 * without a GPU, on timings measured on real ones.
 *
 * A run is looked up by its spec key, photons and seed; the n-th query of
 * one key gets the n-th recorded answer (repeats time the same kernel
 * again).  A query with no recorded answer is an error naming the
 * candidate, after which the runner says it is not usable (the search
 * stops).  The clock answers the recorded readings in order (the last one
 * again once they run out), so a budget cuts the search where it cut the
 * recorded one. */
#ifndef TMCML_REPLAY_RUNNER_H
#define TMCML_REPLAY_RUNNER_H

#include <stdbool.h>

#include "mci.h"
#include "recording.h"
#include "runner.h"

typedef struct replay_runner {
    char *path; /* for messages */
    tune_recording rec;
    mci_file problem; /* the recorded run (rec.mci) */
    bool *used;       /* rec.runs answered */
    int clock_next;
    bool usable; /* false after a query with no answer, or as the recording says */
} replay_runner;

/* Reads the recording at path and fills *runner (whose ctx is rr: keep rr
 * where it is while runner is used). */
bool replay_runner_open(replay_runner *rr, const char *path, tune_runner *runner, tm_error *err);
void replay_runner_close(replay_runner *rr);

/* The recorded problem and options, for running the same search again. */
const mci_run *replay_runner_problem(const replay_runner *rr);

/* Recorded runs no query asked for (0 after a complete replay). */
int replay_runner_unused(const replay_runner *rr);

/* Test-only: every recorded answer for key (a spec_key) gets a different
 * digest (a kernel that breaks the gate) and its rates multiplied by
 * `speedup` (so that it would win without the gate).  Returns how many
 * answers were changed. */
int replay_runner_corrupt(replay_runner *rr, const char *key, double speedup);

#endif
