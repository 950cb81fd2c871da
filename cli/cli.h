/* The command line: one options struct that flows from main to the modules
 * that need it. */
#ifndef TMCML_CLI_H
#define TMCML_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "plan.h"
#include "source.h"
#include "variant.h"

/* Seed used when none is given, so two runs of one file are identical. */
#define CLI_DEFAULT_SEED               UINT64_C(1)
/* A run checkpoints every 10 minutes: a run shorter than that never writes
 * one unless a signal stops it (issue 12). */
#define CLI_DEFAULT_CHECKPOINT_SECONDS 600.0

typedef enum cli_command {
    CLI_RUN,
    CLI_GEN,
    CLI_DEVICES,
    CLI_PROFILES,
    CLI_TUNE,
    CLI_SWEEP,
    CLI_PLOT,
    CLI_CONV,
    CLI_LUT,
    CLI_HELP,
    CLI_VERSION
} cli_command;
/* GPUs one run may use (gpu_pool.h's GPU_POOL_MAX), and the GPU numbers
 * accepted. */
#define CLI_MAX_GPUS       64
#define CLI_MAX_GPU_NUMBER 1024

/* The GPUs the options name, into devices[CLI_MAX_GPUS]: --gpus LIST, or
 * -G N (0 .. N-1), or --gpu K; returns how many. */
struct cli_options;
int cli_gpu_devices(const struct cli_options *opt, int *devices);

typedef enum cli_engine { CLI_ENGINE_AUTO, CLI_ENGINE_CPU, CLI_ENGINE_GPU } cli_engine;

typedef struct cli_options {
    cli_command command;
    const char *input; /* the .mci file */
    uint64_t seed;
    bool score_absorption; /* false with -A */
    cli_engine engine;
    int threads;         /* CPU threads; 0 = all cores */
    const char *out_dir; /* NULL: names are relative to the current directory */
    bool
        allow_outside_out_dir; /* --allow-outside-output-dir: -o DIR, yet .mci names may leave it */
    bool quiet;
    int64_t photons;            /* 0: as in the file; else overrides every run */
    int gpus;                   /* -G N: the first N GPUs */
    int gpu_index;              /* --gpu K */
    int gpu_list[CLI_MAX_GPUS]; /* --gpus LIST */
    int gpu_list_count;         /* 0: no --gpus */
    uint64_t gpu_chunk;         /* --gpu-chunk N (0: equal shares, gpu_pool.h) */
    bool gpu_chosen;            /* --gpu, -G or --gpus was given */
    uint64_t launch_photons;    /* --launch-photons N: GPU photons per launch (0: 2^32) */
    uint32_t max_steps;         /* --max-steps N: steps before a photon is trapped (0: default) */
    double checkpoint_every;    /* --checkpoint-every SECONDS (0: only on a signal) */
    bool resume;                /* --resume: continue from the runs' checkpoints */
    bool no_batch;              /* --no-batch: one run at a time (run_batches.c) */
    bool batch_all;             /* --batch-all: big runs batched too (run_batch.h) */
    bool npz;                   /* --npz: NAME.npz, the arrays for NumPy, beside each .mco */
    const char *mua_sets;       /* --mua-sets FILE: absorption sets (run_sets.h), or NULL */
    bool path_lengths;          /* --path-lengths: score the partial path lengths (CPU) */
    source_desc source;         /* --source KIND[:...]: where photons start (pencil: MCML's) */
    /* --time DT:NT: time-resolved escapes, NT bins of DT ns (0: none; CPU) */
    double time_dt;
    int time_nt;
    /* --detector fiber:SEP:RADIUS:NA: a fiber detector (radius 0: none; CPU) */
    double fiber_sep, fiber_radius, fiber_na;
    variant_options variant;  /* --tile, --entry, ... */
    const char *template_dir; /* --templates DIR */
    const char *cache_dir;    /* --cache DIR ("" disables) */
    bool verbose;             /* --verbose: compile and launch details */
    /* gen */
    const char *gen_output; /* -o FILE (default: stdout) */
    bool gen_info;          /* --info: compile and report registers, spills */
    bool gen_batch;         /* --batch: the batch kernel of the run's shape */
    int run_number;         /* --run K (1-based) */
    /* profiles and tuning (run, tune, sweep) */
    const char *profile_dir;         /* --profiles DIR: searched first, tuners store there */
    const char *profile_file;        /* --profile FILE: this file only */
    bool no_profile;                 /* --no-profile: the heuristic (and explicit options) */
    plan_tune_mode tune_mode;        /* --tune never|auto|always: whether `run` tunes first */
    double budget;                   /* --budget SECONDS (0: the command's default) */
    int repeats;                     /* --repeats N (0: default) */
    const char *csv_path;            /* tune --csv FILE */
    const char *sweep_nr, *sweep_nz; /* sweep --nr A:B:STEP --nz A:B:STEP */
    const char *sweep_entries;       /* sweep --entry 32,64 */
    const char *sweep_clusters;      /* sweep --clusters 1,2,4 */
    bool debug_wrong_candidate;      /* tune, test-only: a kernel the gate must reject */
} cli_options;

/* Parses argv into *opt.  Accepts `tmcml run FILE [options]`, `tmcml gen
 * FILE [options]`, `tmcml devices`, `tmcml profiles ...` (its words left to
 * profiles_command), `tmcml plot ...` (its words left to plot_command), `tmcml conv ...` and
 * `tmcml lut ...` (theirs to conv_command and lut_command) and the classic form of CUDAMCML/GPU-MCML,
 * `tmcml FILE [options]` with `-S12`, `-A`, `-G1` attached or separate. */
bool cli_parse(int argc, char **argv, cli_options *opt, tm_error *err);

void cli_print_usage(FILE *stream);

/* A long option with a value, as `--name VALUE` or `--name=VALUE`: 1 when
 * argv[*i] is that option (*value set, *i past it), 0 when it is not, -1
 * when its value is missing (*err: "--name: expected WHAT"). */
int cli_long_value(int argc, char **argv, int *i, const char *name, const char *what,
                   const char **value, tm_error *err);

/* The planner's share of the options (tuner/plan.h). */
void cli_plan_options(const cli_options *opt, plan_options *plan);

/* Before the first kernel is compiled: a warning on stderr (unless --quiet)
 * when the cubin cache is not used because other users could write it
 * (compile_cache_check); the commands then compile every kernel. */
void cli_warn_cache(const cli_options *opt);

#endif
