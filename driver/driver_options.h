/* What the driver is asked to do with the runs of an input: every option a
 * run's simulation, checkpoints and outputs depend on, filled by a front end
 * (the command line parses them into it: cli/cli.h) and read by the driver's
 * steps.  Options of one command alone (gen's output, a sweep's grid) stay
 * with the front end. */
#ifndef TMCML_DRIVER_OPTIONS_H
#define TMCML_DRIVER_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "detector.h"
#include "plan.h"
#include "source.h"
#include "tm_limits.h"
#include "variant.h"

/* Seed used when none is given, so two runs of one file are identical. */
#define DRIVER_DEFAULT_SEED               UINT64_C(1)
/* A run checkpoints every 10 minutes: a run shorter than that never writes
 * one unless a signal stops it (issue 12). */
#define DRIVER_DEFAULT_CHECKPOINT_SECONDS 600.0

/* GPUs one run may use (gpu_pool.h's GPU_POOL_MAX), and the GPU numbers
 * accepted. */
#define DRIVER_MAX_GPUS       64
#define DRIVER_MAX_GPU_NUMBER 1024

typedef enum driver_engine {
    DRIVER_ENGINE_AUTO,
    DRIVER_ENGINE_CPU,
    DRIVER_ENGINE_GPU
} driver_engine;

typedef struct driver_options {
    const char *input; /* the .mci file */
    uint64_t seed;
    bool score_absorption; /* false with -A */
    driver_engine engine;
    int threads;         /* CPU threads; 0 = all cores */
    const char *out_dir; /* NULL: names are relative to the current directory */
    bool
        allow_outside_out_dir; /* --allow-outside-output-dir: -o DIR, yet .mci names may leave it */
    bool quiet;
    int64_t photons;               /* 0: as in the file; else overrides every run */
    int gpus;                      /* -G N: the first N GPUs */
    int gpu_index;                 /* --gpu K */
    int gpu_list[DRIVER_MAX_GPUS]; /* --gpus LIST */
    int gpu_list_count;            /* 0: no --gpus */
    uint64_t gpu_chunk;            /* --gpu-chunk N (0: equal shares, gpu_pool.h) */
    bool gpu_chosen;               /* --gpu, -G or --gpus was given */
    uint64_t launch_photons;       /* --launch-photons N: GPU photons per launch (0: 2^32) */
    uint32_t max_steps;      /* --max-steps N: steps before a photon is trapped (0: default) */
    double checkpoint_every; /* --checkpoint-every SECONDS (0: only on a signal) */
    bool resume;             /* --resume: continue from the runs' checkpoints */
    bool no_batch;           /* --no-batch: one run at a time (run_batch.h) */
    bool batch_all;          /* --batch-all: big runs batched too (run_batch.h) */
    bool npz;                /* --npz: NAME.npz, the arrays for NumPy, beside each .mco */
    const char *mua_sets;    /* --mua-sets FILE: absorption sets (run_sets.h), or NULL */
    bool optics_sets;        /* --optics-sets FILE (in mua_sets): sets of mua, mus and g */
    bool stderr_groups;      /* --stderr: standard errors by batch means (uncertainty.h) */
    /* --precision P [--precision-of Q] [--max-photons N]: each run stops once
     * Q's relative standard error is at most P (0: off; precision.h), after
     * at most N photons (0: the run's own count) */
    double precision;
    const char *precision_of;
    int64_t max_photons;
    bool path_lengths;  /* --path-lengths: score the partial path lengths (CPU) */
    bool jacobian;      /* --jacobian: score the escapes' derivatives (CPU) */
    source_desc source; /* --source KIND[:...]: where photons start (pencil: MCML's) */
    /* --time DT:NT: time-resolved escapes, NT bins of DT ns (0: none) */
    double time_dt;
    int time_nt;
    /* --detector fiber:SEP:RADIUS:NA, once a detector: fiber_count of them
     * (0: none), in the order given */
    int fiber_count;
    fiber_detector fibers[TM_MAX_DETECTORS];
    /* --spatial-frequencies LIST: fx_count frequencies [1/cm] (0: none)
     * (Rd_fx, Tt_fx) */
    double fx[TM_MAX_SPATIAL_FREQUENCIES];
    int fx_count;
    /* --modulation LIST (repeatable): mod_count modulation frequencies
     * [Hz] (0: none), scored by the CPU engine (Rd_r_ac, Rd_r_phase, Rd_ac,
     * Rd_phase) */
    double mod_hz[TM_MAX_MODULATIONS];
    int mod_count;
    /* --xy DX:NX: the Cartesian grid, xy_nx x xy_nx cells of xy_dx cm
     * (0: none), scored by the CPU engine (Rd_xy, Tt_xy, A_xz) */
    double xy_dx;
    int xy_nx;
    variant_options variant;  /* --tile, --entry, ... */
    const char *template_dir; /* --templates DIR */
    const char *cache_dir;    /* --cache DIR ("" disables) */
    bool verbose;             /* --verbose: compile and launch details */
    /* profiles and tuning (run, tune, sweep) */
    const char *profile_dir;    /* --profiles DIR: searched first, tuners store there */
    const char *profile_file;   /* --profile FILE: this file only */
    bool no_profile;            /* --no-profile: the heuristic (and explicit options) */
    plan_tune_mode tune_mode;   /* --tune never|auto|always: whether `run` tunes first */
    double budget;              /* --budget SECONDS (0: the command's default) */
    int repeats;                /* --repeats N (0: default) */
    bool debug_wrong_candidate; /* tune, test-only: a kernel the gate must reject */
} driver_options;

/* The defaults: seed DRIVER_DEFAULT_SEED, absorption scored, the engine
 * chosen automatically, GPU 0, a checkpoint every
 * DRIVER_DEFAULT_CHECKPOINT_SECONDS, the variant options unset. */
void driver_options_init(driver_options *opt);

/* The GPUs the options name, into devices[DRIVER_MAX_GPUS]: --gpus LIST, or
 * -G N (0 .. N-1), or --gpu K; returns how many. */
int driver_gpu_devices(const driver_options *opt, int *devices);

/* The planner's share of the options (tuner/plan.h). */
void driver_plan_options(const driver_options *opt, plan_options *plan);

/* Before the first kernel is compiled: a warning on stderr (unless quiet)
 * when the cubin cache is not used because other users could write it
 * (compile_cache_check); every kernel is then compiled anew. */
void driver_warn_cache(const driver_options *opt);

/* The CPU engine for what only it scores: with --engine gpu false and
 * *err the refusal (what was asked, why, how to go on); with auto it takes
 * the CPU and says so on stderr ("tmcml: " note) unless quiet. */
bool driver_take_cpu(driver_options *opt, const char *refusal, const char *note, tm_error *err);

/* An optional group that a run's own GPU kernel scores, up to gpu_max
 * values (--spatial-frequencies, --modulation, --xy's cells along x:
 * `option`, its `arrays`):
 * runs are not batched; with sets or derivatives, or more values, the CPU
 * engine alone scores them (driver_take_cpu, saying why). */
bool driver_own_kernel_group(driver_options *opt, const char *option, const char *arrays, int count,
                             int gpu_max, tm_error *err);

#endif
