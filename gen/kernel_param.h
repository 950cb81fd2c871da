/* The kernel's parameters, declared once (issue 43): the rows of
 * kernel_param_table[] (gen/kernel_param.c) in the order of tmcml_kernel's
 * parameter list, each with its CUDA type and name, the kernels that take
 * it (a condition on the KernelSpec) and the value the host passes for it.
 * Both sides walk the rows with the same condition: the renderer hands the
 * template the rows a spec's kernel takes (`spec.params`, gen/render.c),
 * from which templates/kernel.cu writes the signature, and the GPU engine
 * puts each one's value in the launch's argument list
 * (runtime/engine/gpu.c, launch_args_fill); so the two lists cannot
 * disagree.
 *
 * Adding a parameter: a row, in its place among the others (the kernels
 * without it keep their parameters, so their source and cubin stay as
 * they were); a kernel_arg for its value when no other row passes it,
 * with where the host takes that value (gpu.c, launch_value, which the
 * compiler holds to every kernel_arg); and the template code that reads
 * it, by the row's name.  The rows are part of the generator hash
 * (render_generator_hash): a changed row makes the shipped profiles
 * stale, as a changed template does. */
#ifndef TMCML_KERNEL_PARAM_H
#define TMCML_KERNEL_PARAM_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* The kernels that take a parameter (kernel_param_taken).  spec_validate
 * keeps the batch kernel, the absorption sets' and the timed one apart:
 * a kernel takes the rows of at most one of the three. */
typedef enum kernel_param_when {
    KERNEL_PARAM_ALWAYS,              /* every kernel */
    KERNEL_PARAM_RUN,                 /* a run's own kernel (not spec->batch) */
    KERNEL_PARAM_BATCH,               /* the batch kernel (spec->batch) */
    KERNEL_PARAM_RUN_TILES,           /* the batch kernel with run tiles (spec_batch_tiled) */
    KERNEL_PARAM_SETS,                /* absorption sets (num_sets > 0) */
    KERNEL_PARAM_SETS_PATHS,          /* the sets' path lengths (sets_paths) */
    KERNEL_PARAM_SETS_JACOBIAN,       /* the sets' derivatives (sets_jacobian) */
    KERNEL_PARAM_SETS_OPTICS,         /* optics sets' weight sums (sets_optics > 0) */
    KERNEL_PARAM_SETS_JACOBIAN_TIME,  /* those of their time bins (and time_bins) */
    KERNEL_PARAM_SETS_JACOBIAN_FIBER, /* those of their fiber detectors (and fiber) */
    KERNEL_PARAM_TIMED,               /* time bins or a fiber detector (templates/timed.cu) */
    KERNEL_PARAM_FX,                  /* spatial frequencies (templates/fx.cu) */
    KERNEL_PARAM_MOD,                 /* modulation frequencies (templates/timed.cu) */
    KERNEL_PARAM_XY                   /* the Cartesian grid (templates/xy.cu) */
} kernel_param_when;

/* The values the host passes, one of each a launch (runtime/engine/gpu.c,
 * launch_args; the tallies are output_table's, runtime/io/output_arrays.h,
 * which this room cannot see: gpu.c names each one's). */
typedef enum kernel_arg {
    KERNEL_ARG_FIRST,        /* the launch's first index (photon, or batch index) */
    KERNEL_ARG_COUNT,        /* its indices */
    KERNEL_ARG_SEED,         /* the run's seed */
    KERNEL_ARG_PARTS,        /* a batch's part records (batch_part_t) */
    KERNEL_ARG_NUM_PARTS,    /* their count */
    KERNEL_ARG_LAYERS,       /* a batch's layer tables, one a slot */
    KERNEL_ARG_NUM_SLOTS,    /* its slots */
    KERNEL_ARG_START_WEIGHT, /* a run's photon weight after the specular reflection */
    KERNEL_ARG_FIRST_LAYER,  /* the layer a run's photons start in */
    KERNEL_ARG_MAX_STEPS,    /* the steps a photon may take */
    KERNEL_ARG_MULTIPLIERS,  /* the random generator's multipliers */
    KERNEL_ARG_NEXT,         /* the launch's photon counter */
    KERNEL_ARG_STOP,         /* its stop word */
    KERNEL_ARG_A_RZ,         /* the tallies of every run ... */
    KERNEL_ARG_RD_RA,
    KERNEL_ARG_TT_RA,
    KERNEL_ARG_COUNTS,    /* ... and the scalar ones (steps, trapped photons) */
    KERNEL_ARG_SLOT_DONE, /* a batch's photons ended, a slot */
    KERNEL_ARG_TILE_NR,   /* a batch's run tiles in this launch */
    KERNEL_ARG_TILE_NZ,
    KERNEL_ARG_EDGE_BINS,
    KERNEL_ARG_SET_EXTRA, /* the absorption sets' tables (templates/sets.cu) */
    KERNEL_ARG_RD_PATH,   /* the sets' optional tallies ... */
    KERNEL_ARG_TT_PATH,
    KERNEL_ARG_RD_JR,
    KERNEL_ARG_RD_JA,
    KERNEL_ARG_TT_JR,
    KERNEL_ARG_TT_JA,
    KERNEL_ARG_SET_W,
    KERNEL_ARG_RD_JT, /* the sets' derivatives of the time bins ... */
    KERNEL_ARG_TT_JT,
    KERNEL_ARG_RD_JF, /* ... and of the fiber detectors */
    KERNEL_ARG_RD_RT, /* ... and the time bins' and the fiber's */
    KERNEL_ARG_TT_RT,
    KERNEL_ARG_RD_FIBER,
    KERNEL_ARG_TIME_N,     /* each layer's n */
    KERNEL_ARG_TIME_START, /* the flight through the glass above the first layer */
    KERNEL_ARG_INV_C_DT,   /* 1 / (c dt) */
    KERNEL_ARG_NT,         /* time bins */
    KERNEL_ARG_FIBER_SEP,  /* the fiber's geometry */
    KERNEL_ARG_FIBER_RADIUS,
    KERNEL_ARG_FIBER_COS_ACCEPT, /* its least exit cosine */
    KERNEL_ARG_FX_OMEGA,         /* 2 pi fx at each spatial frequency */
    KERNEL_ARG_RD_FX,            /* their tallies */
    KERNEL_ARG_TT_FX,
    KERNEL_ARG_RD_MOD, /* the modulations' tally */
    KERNEL_ARG_RD_XY,  /* the Cartesian grid's tallies */
    KERNEL_ARG_TT_XY,
    KERNEL_ARG_A_XZ,
    KERNEL_ARG_XY_INV_DX, /* 1 / its cell's side */
    KERNEL_ARGS
} kernel_arg;

typedef struct kernel_param {
    const char *type; /* CUDA, as the signature spells it: "float", "unsigned long long *" */
    const char *name; /* in the kernel, where the templates' code reads it */
    kernel_param_when when;
    kernel_arg arg;
    /* The signature's text starts a line with it (a layout alone: the
     * source stays what it was when the list was written by hand). */
    bool new_line;
} kernel_param;

/* Rows of kernel_param_table[]: the most parameters a kernel takes. */
#define KERNEL_PARAM_ROWS 54
extern const kernel_param kernel_param_table[KERNEL_PARAM_ROWS];

/* Whether the kernel of spec (validated: spec_validate) takes parameter p. */
bool kernel_param_taken(const kernel_param *p, const kernel_spec *spec);

/* h (FNV-1a 64) continued over every row's type, name, condition and
 * layout: what the rows give the source (render_generator_hash). */
uint64_t kernel_param_hash(uint64_t h);

#endif
