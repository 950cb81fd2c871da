/* One run on one GPU for the tuner's commands (tune_job.h). */
#include "tune_job.h"

#include <stdio.h>
#include <string.h>

#include "fs.h"
#include "run.h"
#include "run_source.h"
#include "run_timed.h"

/* The input's runs read, run_number checked, the run's options applied. */
static int read_input(const driver_options *opt, int run_number, tune_job *job)
{
    tm_error err = {0};
    if (!mci_read(opt->input, &job->file, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    if (run_number > job->file.num_runs) {
        error_set(&err, job->file.path, 0, "--run %d: the file has %d runs", run_number,
                  job->file.num_runs);
        error_print(stderr, &err);
        mci_free(&job->file);
        return RUN_BAD_INPUT;
    }
    if (!run_source_runs(opt, &job->file, &err) || !run_timed_runs(opt, &job->file, &err)) {
        error_print(stderr, &err);
        mci_free(&job->file);
        return RUN_BAD_INPUT;
    }
    job->run = &job->file.runs[run_number - 1];
    return RUN_OK;
}

int tune_job_open(const driver_options *opt, int run_number, tune_job *job)
{
    memset(job, 0, sizeof *job);
    int status = read_input(opt, run_number, job);
    if (status != RUN_OK)
        return status;
    snprintf(job->stem, sizeof job->stem, "%s", fs_base_name(opt->input));
    char *dot = strrchr(job->stem, '.');
    if (dot && dot != job->stem)
        *dot = '\0';
    tm_error err = {0};
    if (!gpu_engine_open(opt->gpu_index, &job->eng, &err)) {
        char text[2048];
        fprintf(stderr, "tmcml: tune and sweep need a GPU: %s\n",
                error_format(&err, text, sizeof text));
        mci_free(&job->file);
        return RUN_FAILED;
    }
    gpu_runner_init(&job->gpu, job->eng, opt->template_dir, opt->cache_dir, opt->verbose,
                    &job->runner);
    if (!opt->quiet)
        fprintf(stderr, "tmcml: tuning on %s\n", gpu_engine_device(job->eng)->name);
    driver_warn_cache(opt);
    return RUN_OK;
}

void tune_job_close(tune_job *job)
{
    gpu_engine_close(job->eng);
    mci_free(&job->file);
}

const char *tune_job_device(const tune_job *job) { return gpu_engine_device(job->eng)->name; }
