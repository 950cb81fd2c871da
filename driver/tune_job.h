/* One run of an input on one GPU, for the tuner's commands (`tmcml tune`,
 * `tmcml sweep`): the input read with the driver's --source, --time and
 * --detector applied (the kernel of the run that asks for them is tuned, as
 * `run --tune always` tunes it), the GPU opened, and the tuner's runner over
 * it.  Errors are said on stderr. */
#ifndef TMCML_TUNE_JOB_H
#define TMCML_TUNE_JOB_H

#include "driver_options.h"
#include "gpu.h"
#include "gpu_runner.h"
#include "mci.h"
#include "runner.h"

typedef struct tune_job {
    mci_file file;
    const mci_run *run;
    gpu_engine *eng;
    gpu_runner gpu;     /* the tuner's runner over eng */
    tune_runner runner; /* ctx: &gpu (the job stays where tune_job_open filled it) */
    char stem[256];     /* the input's name without directory and .mci */
} tune_job;

/* Run run_number (1-based) of opt->input on GPU opt->gpu_index: RUN_OK,
 * RUN_BAD_INPUT (the input, said) or RUN_FAILED (no GPU, said). */
int tune_job_open(const driver_options *opt, int run_number, tune_job *job);
void tune_job_close(tune_job *job);

/* The name of the job's GPU. */
const char *tune_job_device(const tune_job *job);

#endif
