/* The kernel's parameters, their table (gen/kernel_param.h). */
#include "kernel_param.h"

#include <string.h>

#include "hash.h"

/* A row: type, name, the kernels that take it, the host's value; NL when
 * the signature starts a line with it. */
#define NL true

/* In the order of the signature.  A run's own kernel takes the run's
 * start (start_weight, first_layer) and its tallies by their names; the
 * batch kernel its tables, and every slot's tallies one after another
 * (the _all arrays: templates/batch.cu); either ends with the rows of its
 * scoring.  The tally arrays of every run come in output_table's order
 * (ORDER OUTPUT), then the counts. */
const kernel_param kernel_param_table[KERNEL_PARAM_ROWS] = {
    {"unsigned long long", "first", KERNEL_PARAM_ALWAYS, KERNEL_ARG_FIRST, false},
    {"unsigned long long", "count", KERNEL_PARAM_ALWAYS, KERNEL_ARG_COUNT, false},
    {"unsigned long long", "seed", KERNEL_PARAM_ALWAYS, KERNEL_ARG_SEED, false},
    {"const batch_part_t *", "parts_in", KERNEL_PARAM_BATCH, KERNEL_ARG_PARTS, NL},
    {"unsigned int", "num_parts", KERNEL_PARAM_BATCH, KERNEL_ARG_NUM_PARTS, false},
    {"const layer_t *", "batch_layers", KERNEL_PARAM_BATCH, KERNEL_ARG_LAYERS, NL},
    {"unsigned int", "num_slots", KERNEL_PARAM_BATCH, KERNEL_ARG_NUM_SLOTS, false},
    {"float", "start_weight", KERNEL_PARAM_RUN, KERNEL_ARG_START_WEIGHT, NL},
    {"int", "first_layer", KERNEL_PARAM_RUN, KERNEL_ARG_FIRST_LAYER, false},
    {"unsigned int", "max_steps", KERNEL_PARAM_ALWAYS, KERNEL_ARG_MAX_STEPS, false},
    {"const unsigned int *", "multipliers", KERNEL_PARAM_ALWAYS, KERNEL_ARG_MULTIPLIERS, NL},
    {"unsigned long long *", "next", KERNEL_PARAM_ALWAYS, KERNEL_ARG_NEXT, false},
    {"const unsigned int *", "stop", KERNEL_PARAM_ALWAYS, KERNEL_ARG_STOP, NL},
    /* the tallies: a run's own */
    {"unsigned long long *", "a_rz", KERNEL_PARAM_RUN, KERNEL_ARG_A_RZ, NL},
    {"unsigned long long *", "rd_ra", KERNEL_PARAM_RUN, KERNEL_ARG_RD_RA, false},
    {"unsigned long long *", "tt_ra", KERNEL_PARAM_RUN, KERNEL_ARG_TT_RA, false},
    {"unsigned long long *", "counts", KERNEL_PARAM_RUN, KERNEL_ARG_COUNTS, NL},
    /* every slot's, then what the batch kernel counts in a launch */
    {"unsigned long long *", "a_rz_all", KERNEL_PARAM_BATCH, KERNEL_ARG_A_RZ, NL},
    {"unsigned long long *", "rd_ra_all", KERNEL_PARAM_BATCH, KERNEL_ARG_RD_RA, false},
    {"unsigned long long *", "tt_ra_all", KERNEL_PARAM_BATCH, KERNEL_ARG_TT_RA, NL},
    {"unsigned long long *", "counts_all", KERNEL_PARAM_BATCH, KERNEL_ARG_COUNTS, false},
    {"unsigned long long *", "slot_done", KERNEL_PARAM_BATCH, KERNEL_ARG_SLOT_DONE, NL},
    {"unsigned int", "tile_nr", KERNEL_PARAM_RUN_TILES, KERNEL_ARG_TILE_NR, false},
    {"unsigned int", "tile_nz", KERNEL_PARAM_RUN_TILES, KERNEL_ARG_TILE_NZ, false},
    {"unsigned int", "edge_bins", KERNEL_PARAM_RUN_TILES, KERNEL_ARG_EDGE_BINS, NL},
    /* absorption sets (templates/sets.cu): their tables, then the tallies
     * they score besides Rd_ra and Tt_ra */
    {"const float *", "set_extra", KERNEL_PARAM_SETS, KERNEL_ARG_SET_EXTRA, false},
    {"unsigned long long *", "rd_path", KERNEL_PARAM_SETS_PATHS, KERNEL_ARG_RD_PATH, NL},
    {"unsigned long long *", "tt_path", KERNEL_PARAM_SETS_PATHS, KERNEL_ARG_TT_PATH, false},
    {"unsigned long long *", "rd_jr", KERNEL_PARAM_SETS_JACOBIAN, KERNEL_ARG_RD_JR, NL},
    {"unsigned long long *", "rd_ja", KERNEL_PARAM_SETS_JACOBIAN, KERNEL_ARG_RD_JA, false},
    {"unsigned long long *", "tt_jr", KERNEL_PARAM_SETS_JACOBIAN, KERNEL_ARG_TT_JR, NL},
    {"unsigned long long *", "tt_ja", KERNEL_PARAM_SETS_JACOBIAN, KERNEL_ARG_TT_JA, false},
    {"unsigned long long *", "set_w", KERNEL_PARAM_SETS_OPTICS, KERNEL_ARG_SET_W, NL},
    {"unsigned long long *", "rd_jt", KERNEL_PARAM_SETS_JACOBIAN_TIME, KERNEL_ARG_RD_JT, NL},
    {"unsigned long long *", "tt_jt", KERNEL_PARAM_SETS_JACOBIAN_TIME, KERNEL_ARG_TT_JT, false},
    {"unsigned long long *", "rd_jf", KERNEL_PARAM_SETS_JACOBIAN_FIBER, KERNEL_ARG_RD_JF, false},
    /* time bins, a fiber or modulations (templates/timed.cu): their tallies (a NULL
     * pointer for one the kernel does not score), each layer's n, the
     * glass's flight before the first layer, 1 / (c dt), nt, the fiber's
     * geometry and its least exit cosine */
    {"unsigned long long *", "rd_rt", KERNEL_PARAM_TIMED, KERNEL_ARG_RD_RT, NL},
    {"unsigned long long *", "tt_rt", KERNEL_PARAM_TIMED, KERNEL_ARG_TT_RT, false},
    {"unsigned long long *", "rd_fiber", KERNEL_PARAM_TIMED, KERNEL_ARG_RD_FIBER, false},
    {"const float *", "time_n", KERNEL_PARAM_TIMED, KERNEL_ARG_TIME_N, NL},
    {"float", "time_start", KERNEL_PARAM_TIMED, KERNEL_ARG_TIME_START, false},
    {"float", "inv_c_dt", KERNEL_PARAM_TIMED, KERNEL_ARG_INV_C_DT, false},
    {"int", "nt", KERNEL_PARAM_TIMED, KERNEL_ARG_NT, false},
    {"float", "fiber_sep", KERNEL_PARAM_TIMED, KERNEL_ARG_FIBER_SEP, NL},
    {"float", "fiber_radius", KERNEL_PARAM_TIMED, KERNEL_ARG_FIBER_RADIUS, false},
    {"float", "fiber_cos_accept", KERNEL_PARAM_TIMED, KERNEL_ARG_FIBER_COS_ACCEPT, false},
    /* spatial frequencies (templates/fx.cu): 2 pi fx each, then the
     * tallies of their sums' parts */
    {"const float *", "fx_omega", KERNEL_PARAM_FX, KERNEL_ARG_FX_OMEGA, NL},
    {"unsigned long long *", "rd_fx", KERNEL_PARAM_FX, KERNEL_ARG_RD_FX, false},
    {"unsigned long long *", "tt_fx", KERNEL_PARAM_FX, KERNEL_ARG_TT_FX, false},
    /* modulation frequencies (templates/timed.cu: their 2 pi f / c after
     * time_n's layers and detectors): their tally */
    {"unsigned long long *", "rd_mod", KERNEL_PARAM_MOD, KERNEL_ARG_RD_MOD, NL},
    /* the Cartesian grid (templates/xy.cu): its tallies, then 1 / its
     * cell's side */
    {"unsigned long long *", "rd_xy", KERNEL_PARAM_XY, KERNEL_ARG_RD_XY, NL},
    {"unsigned long long *", "tt_xy", KERNEL_PARAM_XY, KERNEL_ARG_TT_XY, false},
    {"unsigned long long *", "a_xz", KERNEL_PARAM_XY, KERNEL_ARG_A_XZ, false},
    {"float", "xy_inv_dx", KERNEL_PARAM_XY, KERNEL_ARG_XY_INV_DX, false},
};

bool kernel_param_taken(const kernel_param *p, const kernel_spec *spec)
{
    switch (p->when) {
    case KERNEL_PARAM_ALWAYS: return true;
    case KERNEL_PARAM_RUN: return !spec->batch;
    case KERNEL_PARAM_BATCH: return spec->batch;
    case KERNEL_PARAM_RUN_TILES: return spec->batch && spec_batch_tiled(spec);
    case KERNEL_PARAM_SETS: return spec->num_sets > 0;
    case KERNEL_PARAM_SETS_PATHS: return spec->sets_paths;
    case KERNEL_PARAM_SETS_JACOBIAN: return spec->sets_jacobian;
    case KERNEL_PARAM_SETS_OPTICS: return spec->sets_optics > 0;
    case KERNEL_PARAM_SETS_JACOBIAN_TIME: return spec->sets_jacobian && spec->time_bins;
    case KERNEL_PARAM_SETS_JACOBIAN_FIBER: return spec->sets_jacobian && spec->fiber;
    case KERNEL_PARAM_TIMED: return spec->time_bins || spec->fiber || spec->mod > 0;
    case KERNEL_PARAM_FX: return spec->fx > 0;
    case KERNEL_PARAM_MOD: return spec->mod > 0;
    case KERNEL_PARAM_XY: return spec->xy > 0;
    }
    return false;
}

uint64_t kernel_param_hash(uint64_t h)
{
    for (int i = 0; i < KERNEL_PARAM_ROWS; i++) {
        const kernel_param *p = &kernel_param_table[i];
        unsigned char rest[2] = {(unsigned char)p->when, p->new_line ? 1 : 0};
        h = hash_fnv1a(h, p->type, strlen(p->type) + 1);
        h = hash_fnv1a(h, p->name, strlen(p->name) + 1);
        h = hash_fnv1a(h, rest, sizeof rest);
    }
    return h;
}
