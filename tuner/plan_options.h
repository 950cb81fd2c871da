/* The planner's options (types only): what the commands and the library
 * fill in, read by the planner (plan.c) and by the tuning it may start
 * (tune.c), which stands below it. */
#ifndef TMCML_PLAN_OPTIONS_H
#define TMCML_PLAN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "variant.h"

typedef enum plan_tune_mode { PLAN_TUNE_AUTO, PLAN_TUNE_NEVER, PLAN_TUNE_ALWAYS } plan_tune_mode;

typedef struct plan_options {
    uint64_t seed;
    bool score_absorption; /* false: -A */
    bool quiet, verbose;
    const char *template_dir; /* NULL: embedded templates */
    const char *cache_dir;    /* NULL: the default cubin cache; "": none */
    const char *profile_dir;  /* searched first; tuners store there (NULL: default) */
    const char *profile_file; /* this profile file only (NULL: the search path) */
    bool no_profile;          /* the heuristic and the explicit options only */
    plan_tune_mode tune_mode;
    double budget;              /* tuning seconds (0: the default of the caller) */
    int repeats;                /* timings per candidate (0: default) */
    bool debug_wrong_candidate; /* test-only: a kernel the bit-identity gate must reject */
    variant_options variant;    /* explicit knobs, --arch */
    /* The kernel of num_sets absorption sets (0: the run's own), with their
     * path lengths (sets_paths) and derivatives (sets_jacobian), optics
     * sets (sets_optics, gen/shape.h): a shape of its own, whose profile
     * entry is looked up (and tuned for) as any other's; the runner knows
     * their optics (gpu_runner_sets). */
    int num_sets;
    bool sets_paths, sets_jacobian;
    int sets_optics;
    const double *set_mua;         /* set k's mua of layer i at [k * layers + i - 1] */
    const double *set_mus, *set_g; /* optics sets': indexed as set_mua (else NULL) */
} plan_options;

#endif
