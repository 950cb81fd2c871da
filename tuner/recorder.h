/* A runner that records: every call goes to the runner it wraps and is
 * kept in a tune_recording (tuner/recording.h), so that a real tune can be
 * replayed without a GPU (replay_runner.h).  `tmcml tune` records through
 * it (plan_tune_and_store with a CSV). */
#ifndef TMCML_RECORDER_H
#define TMCML_RECORDER_H

#include <stdbool.h>

#include "recording.h"
#include "runner.h"

typedef struct tune_recorder {
    const tune_runner *inner;
    tune_recording rec;
    bool out_of_memory; /* a call could not be recorded: the recording is incomplete */
} tune_recorder;

/* Records every call of inner made through *outer (whose ctx is r: keep r
 * where it is while outer is used).  The recording's device is inner's. */
void tune_recorder_init(tune_recorder *r, const tune_runner *inner, tune_runner *outer);
void tune_recorder_free(tune_recorder *r);

/* Writes what was recorded, with the problem and the search's options
 * (the run's .mci text is made here), to path. */
bool tune_recorder_write(tune_recorder *r, const char *path, const mci_run *run,
                         bool score_absorption, const tune_options *opt, tm_error *err);

#endif
