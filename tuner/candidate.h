/* What the tuner's search measures and how (types only, below the search,
 * the measurement and the report that share them): the search's options,
 * a candidate variant and what its measurement found. */
#ifndef TMCML_CANDIDATE_H
#define TMCML_CANDIDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "knob.h"
#include "tm_limits.h"

typedef struct tune_options {
    uint64_t seed;
    double budget_seconds;      /* wall time for the whole search (compiles included) */
    double min_kernel_seconds;  /* a timing's kernel time at least this (0.1) */
    int repeats;                /* timings per candidate, median taken (3, <= TUNE_MAX_REPEATS) */
    bool debug_wrong_candidate; /* test-only: one candidate with a wrong kernel */
    FILE *log;                  /* a line per candidate as it is measured; NULL: quiet */
    /* The kernel of num_sets absorption sets (0: a run's own) and whether it
     * scores their path lengths and derivatives (spec_for_sets): the runner
     * knows their mua. */
    int num_sets;
    bool sets_paths, sets_jacobian;
    int sets_optics; /* optics sets: shape.h's sets_optics */
} tune_options;

typedef enum tune_status {
    TUNE_MEASURED, /* timed, tallies identical to the reference's */
    TUNE_SKIPPED,  /* invalid: too much shared memory, spills, no launch */
    TUNE_FAILED,   /* compile or launch error */
    TUNE_MISMATCH  /* tallies differ from the reference's: a bug, reported */
} tune_status;

typedef struct tune_candidate {
    kernel_knobs config;
    const char *stage;
    tune_status status;
    char why[512];                    /* for the ones not measured */
    double seconds[TUNE_MAX_REPEATS]; /* whole kernel time of each timing */
    double rates[TUNE_MAX_REPEATS];   /* steady-state photons/s of each (runner.h) */
    int timings;
    double median_seconds;     /* kernel time of the pilot (median) */
    double photons_per_second; /* the median steady-state rate: what a long run gets */
    double compile_seconds;    /* 0 from the cubin cache */
    int registers, blocks_per_sm;
    double captured; /* fraction of pilot deposit events in shared memory */
} tune_candidate;

#endif
