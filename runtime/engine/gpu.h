/* The GPU engine: a generated kernel (gen/) run through the driver API
 * (runtime/engine/cuda_driver.c).  Tallies come back as integers into the same tally_set,
 * result and writers as the CPU engine's. */
#ifndef TMCML_GPU_H
#define TMCML_GPU_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "error.h"
#include "mci.h"
#include "progress.h"
#include "spec.h"
#include "tally.h"

typedef struct gpu_options {
    uint64_t seed;
    const char *template_dir;    /* NULL: embedded templates */
    const char *cache_dir;       /* NULL: default cubin cache; "": none */
    bool verbose;                /* compile and launch details on stderr */
    uint64_t max_launch_photons; /* photons per launch (0: 2^32, the batch limit) */
    unsigned grid;               /* blocks per launch (0: resident blocks per SM x SMs) */
    progress_meter *progress;    /* may be NULL */
    bool measure_steady;         /* the tuner: steady-state rate of the (first) launch */
    uint32_t max_steps;          /* steps after which a photon is trapped (0: the default) */
    /* May be NULL.  Once *stop is not 0, the launch stops handing out
     * photons: gpu_simulate returns when those handed out are done, having
     * simulated [first, first + k), k <= count (acc->photons grows by k). */
    const volatile sig_atomic_t *stop;
} gpu_options;

typedef struct gpu_stats {
    double compile_seconds; /* 0 when the cubin came from a cache */
    bool cubin_cached;      /* from the disk cache or this engine's last module */
    double kernel_seconds;  /* sum of launch times */
    uint64_t launches;
    unsigned grid, block;
    int blocks_per_sm, registers;
    int spill_bytes; /* local-memory spill stores + loads (ptxas) */
    /* With measure_steady: photons handed out per second while the first
     * launch went from 20 % to 80 % of its photons - the rate of a long run,
     * without the launch's ramp-up and its tail of the longest photons
     * (0 when the launch was too short to tell). */
    double steady_photons_per_second;
} gpu_stats;

typedef struct gpu_engine gpu_engine;

bool gpu_engine_open(int device, gpu_engine **eng, tm_error *err);
void gpu_engine_close(gpu_engine *eng);
const cuda_device_info *gpu_engine_device(const gpu_engine *eng);
/* False once a kernel fault (a sticky error) has made the GPU unusable. */
bool gpu_engine_usable(const gpu_engine *eng);

/* Simulates photons [first, first + count) of run with the kernel of spec and
 * adds their tallies to *acc.  The module of the last spec is kept, so runs
 * that differ only in optical properties do not recompile. */
bool gpu_simulate(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                  const gpu_options *opt, uint64_t first, uint64_t count, tally_set *acc,
                  gpu_stats *stats, tm_error *err);

#endif
