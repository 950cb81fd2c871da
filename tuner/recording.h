/* A recording of a tune: every measurement a search made through its runner
 * (tuner/runner.h), in order, with what is needed to run the same search
 * again without a GPU: the device's limits, the problem (its .mci text and
 * -A), the search's options, every clock reading and every run (the
 * candidate's spec key, photons, seed, and the answer: digest, steps,
 * timings, registers, spills, blocks per SM, the pilot's deposit map, or
 * the error).  `tmcml tune` writes one beside its CSV (recorder.h); the
 * replay runner (replay_runner.h) answers from one.
 *
 * The file is JSON ("format": "tmcml-tune-recording", "version": 1): 64-bit
 * integers (photons, seeds, digests) as strings, doubles as numbers that
 * read back as the same double, a deposit map as text ("0*K" for K empty
 * bins).  docs/tuning.md describes the fields. */
#ifndef TMCML_RECORDING_H
#define TMCML_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "runner.h"
#include "search.h"

#define TUNE_RECORDING_FORMAT  "tmcml-tune-recording"
#define TUNE_RECORDING_VERSION 1

/* One call of the runner's run. */
typedef struct tune_recorded_run {
    char *key;       /* spec_key of the spec run (malloc'd) */
    char *candidate; /* its knobs as text, for messages (malloc'd) */
    uint64_t photons, seed;
    bool ok;
    char *error;        /* !ok: the message (malloc'd) */
    tune_measurement m; /* ok: the answer (m.deposits owned here) */
    bool usable;        /* the runner's usable() after the run */
} tune_recorded_run;

typedef struct tune_recording {
    tune_device device;
    char *mci;             /* the run as .mci text (mci_format, malloc'd) */
    bool score_absorption; /* false: -A */
    /* The search's options that change what it asks (log and debug output
     * aside): seed, budget, min_kernel_seconds, repeats, the wrong
     * candidate. */
    tune_options options;
    double *clock; /* every now() reading, in order */
    int clocks, clock_capacity;
    tune_recorded_run *runs; /* every run, in order */
    int count, capacity;
} tune_recording;

void tune_recording_init(tune_recording *r);
void tune_recording_free(tune_recording *r);

/* Appends a clock reading or a run (the run's strings and deposits move
 * into r); false when out of memory. */
bool tune_recording_add_clock(tune_recording *r, double t);
bool tune_recording_add_run(tune_recording *r, tune_recorded_run *run);

/* Where the recording of a tune whose CSV is csv_path goes: "X.csv" ->
 * "X.replay.json", anything else + ".replay.json".  malloc'd; NULL when out
 * of memory. */
char *tune_recording_path(const char *csv_path);

/* The file, written atomically. */
bool tune_recording_write(const char *path, const tune_recording *r, tm_error *err);

/* Reads a file (strict: every field present and typed, the message names
 * the file and the field).  On failure *r is left empty. */
bool tune_recording_read(const char *path, tune_recording *r, tm_error *err);

#endif
