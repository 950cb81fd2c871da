/* The tuner's runner on a GPU (tuner/runner.h): runs a spec on the GPU
 * engine, the one room that sees both the tuner and the engine.  `tmcml
 * tune`, `tmcml sweep` and the planner's --tune path (session.c) measure
 * through it. */
#ifndef TMCML_GPU_RUNNER_H
#define TMCML_GPU_RUNNER_H

#include <stdbool.h>

#include "cuda_driver.h"
#include "gpu.h"
#include "runner.h"

/* The engine's device as the tuner sees it. */
void gpu_runner_device(const cuda_device_info *info, tune_device *dev);

/* The engine and the options of its compiles; the runner's device and
 * context point into it (keep it where it is while the runner is used). */
typedef struct gpu_runner {
    gpu_engine *eng;
    const char *template_dir; /* NULL: embedded */
    const char *cache_dir;    /* NULL: default cubin cache; "": none */
    bool verbose;
    tune_device device;
    int num_sets; /* absorption sets (gpu_runner_sets), 0 for none */
    const double *set_mua;
    const double *set_mus, *set_g; /* optics sets' (else NULL) */
} gpu_runner;

/* Fills g and *runner (whose ctx is g). */
void gpu_runner_init(gpu_runner *g, gpu_engine *eng, const char *template_dir,
                     const char *cache_dir, bool verbose, tune_runner *runner);

/* The absorption sets a sets' kernel is run with (set k's mua of layer i at
 * set_mua[k * layers + i - 1], kept by the caller; optics sets' mus and g
 * indexed alike, else NULL): the run measured is then the sets' reference
 * (mua_sets_reference), and the digest folds every set's tallies digest in
 * set order. */
void gpu_runner_sets(gpu_runner *g, int num_sets, const double *set_mua, const double *set_mus,
                     const double *set_g);

#endif
