/* The command line: one options struct that flows from main to the modules
 * that need it, the driver's options (driver/driver_options.h) in it. */
#ifndef TMCML_CLI_H
#define TMCML_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "driver_options.h"
#include "error.h"

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

#define CLI_ONE_ENGINE_MAX 32

struct cli_option;

typedef struct cli_options {
    cli_command command;
    driver_options run; /* what the driver is asked (run, tune, sweep and gen read it too) */
    /* gen */
    const char *gen_output; /* -o FILE (default: stdout) */
    bool gen_info;          /* --info: compile and report registers, spills */
    bool gen_batch;         /* --batch: the batch kernel of the run's shape */
    int run_number;         /* --run K (1-based) */
    /* tune and sweep */
    const char *csv_path;            /* tune --csv FILE */
    const char *sweep_nr, *sweep_nz; /* sweep --nr A:B:STEP --nz A:B:STEP */
    const char *sweep_entries;       /* sweep --entry 32,64 */
    const char *sweep_clusters;      /* sweep --clusters 1,2,4 */
    /* The options given that are one engine's (OPTION_GPU, OPTION_CPU of
     * their rows), for cli_engine_notes. */
    const struct cli_option *one_engine[CLI_ONE_ENGINE_MAX];
    int one_engine_count;
} cli_options;

/* Parses argv into *opt.  Accepts `tmcml run FILE [options]`, `tmcml gen
 * FILE [options]`, `tmcml devices`, `tmcml profiles ...` (its words left to
 * profiles_command), `tmcml plot ...` (its words left to plot_command), `tmcml conv ...` and
 * `tmcml lut ...` (theirs to conv_command and lut_command) and the classic form of CUDAMCML/GPU-MCML,
 * `tmcml FILE [options]` with `-S12`, `-A`, `-G1` attached or separate. */
bool cli_parse(int argc, char **argv, cli_options *opt, tm_error *err);

void cli_print_usage(FILE *stream);

/* A note on out for each option given that is one engine's while the run
 * asks for the other (--engine cpu with --gpu-chunk, --engine gpu with
 * --threads): the run goes on, but the option does nothing.  Nothing for
 * --engine auto, which takes either. */
void cli_engine_notes(const cli_options *opt, FILE *out);

#endif
