#include "variant.h"

#include <stdio.h>
#include <string.h>

#include "candidates.h"
#include "run_view.h"

/* The default heuristic (no profile), from what the tuner found on an H200
 * (bench/results_gpu.md, docs/tuning.md):
 *  - blocks of 256 threads, 8 resident per SM (full occupancy; the launch
 *    bound holds the kernel to 32 registers without spilling);
 *  - an A_rz tile of 32-bit entries (flushed exactly on overflow) in the
 *    shared memory a block has at that residency (28 KB of Hopper's 228 KB
 *    per SM, less the last row and column, which are always cached), anchored
 *    at r = 0, z = 0, 128 bins deep (or the whole depth) and as wide as fits:
 *    the high-fluence region under the beam;
 *  - the layer table in shared memory when there are several layers (lanes
 *    in different layers read different constants, which constant memory
 *    serialises: 10 % slower on the skin model), else in constant memory.
 * Optical properties stay kernel data either way. */
#define DEFAULT_BLOCK         256
#define DEFAULT_RESIDENCY     8
#define DEFAULT_TILE_NZ       128
#define DEFAULT_ENTRY_BITS    32
/* Without a device (`tmcml gen` on a machine without a GPU): Hopper's. */
#define DEFAULT_SHARED_PER_SM (228 * 1024)
#define DEFAULT_SHARED_OPTIN  (227 * 1024)

void variant_options_init(variant_options *v)
{
    memset(v, 0, sizeof *v);
    knobs_init(&v->knobs);
}

bool variant_options_set(variant_options *v, const char *option, const char *text, tm_error *err)
{
    const knob *k = knob_by_option(option);
    if (!k) {
        error_set(err, NULL, 0, "unknown kernel option \"%s\"", option);
        return false;
    }
    if (!knob_parse(k, text, &v->knobs, err))
        return false;
    v->given |= 1u << knob_index(k);
    return true;
}

static void default_tile(const mci_run *run, const tune_device *dev, kernel_spec *spec)
{
    candidate_limits lim = {DEFAULT_SHARED_PER_SM, DEFAULT_SHARED_OPTIN, 2048, 65536};
    if (dev && dev->shared_per_sm > 0) {
        lim.shared_per_sm = dev->shared_per_sm;
        lim.shared_per_block_optin = dev->shared_per_block_optin;
    }
    size_t budget = candidates_shared_budget(&lim, DEFAULT_RESIDENCY);
    size_t table = spec_static_shared_bytes(spec); /* the shared layer table, if any */
    budget = budget > table ? budget - table : 0;
    size_t entries = candidates_tile_entries(budget, DEFAULT_ENTRY_BITS, run->nr, run->nz);
    int nz = run->nz < DEFAULT_TILE_NZ ? run->nz : DEFAULT_TILE_NZ;
    int nr = (int)(entries / (size_t)nz);
    spec->knobs.tile_nz = nz;
    spec->knobs.tile_nr = nr < run->nr ? nr : run->nr;
    spec->knobs.entry_bits = DEFAULT_ENTRY_BITS;
}

static bool given(const variant_options *v, const char *name)
{
    return v->given & (1u << knob_index(knob_by_name(name)));
}

static void apply_options(const variant_options *v, kernel_spec *spec)
{
    for (int i = 0; i < knob_count; i++) {
        const knob *k = &knob_table[i];
        for (int f = 0; (v->given & (1u << i)) && f < knob_field_count(k); f++)
            knob_field_set(k, &spec->knobs, f, knob_field_get(k, &v->knobs, f));
    }
    /* The default residency was for the default block: keep occupancy. */
    if (given(v, "block_size") && !given(v, "min_blocks_per_sm")) {
        int block = spec->knobs.block_size;
        spec->knobs.min_blocks_per_sm = block <= 2048 / 32 ? 32 : 2048 / block;
    }
    if (v->arch)
        spec->arch = v->arch;
    spec->debug_out_of_bounds = v->debug_out_of_bounds;
}

bool variant_options_given(const variant_options *v) { return v->given != 0; }

/* The batch kernel of a variant (measured on an H100, lut100: 100 runs of
 * 10^5 photons of one low-absorbing layer, bench/results_gpu.md):
 *  - its deposits outside its run's tile go to global memory, so
 *    consecutive ones into one bin are summed in a register first
 *    (last_bin_cache): without tiles 1.30 -> 0.24 s of kernel; -A, no
 *    deposits at all, took 0.17 s;
 *  - no minimum residency: the register cache needs 38 registers, and held
 *    to 32 (8 blocks of 256) it spilled and took 0.32 s; -A keeps 8 blocks
 *    of 256 at 32 registers (34 without the bound);
 *  - blocks of 1024 (one an SM) with absorption: lut100 0.212-0.224 s
 *    against 0.234-0.240 s at 256 (six an SM) and 0.230-0.239 s at 512;
 *    examples/lookup_table.mci 0.012-0.013 against 0.014 s; luthi100
 *    (0.042-0.047 s) and 16 runs of skin (0.157-0.169 s) the same at
 *    every size (fourteenth session, one H100, two calls).  -A keeps blocks
 *    of 256;
 *  - a tile a run, at most the grid, fitted per launch to the shared
 *    memory the tables leave (plan_batch_tiles in launch_plan.c): the kernel of 8
 *    runs on a 50x50 grid 0.240 -> 0.058 s, 16 runs of skin 0.29 -> 0.20 s,
 *    luthi100 0.048 -> 0.040 s; lut100 (23x23 of its 100x100 bins a run)
 *    unchanged (sixteenth session, one H100);
 *  - each run's edge bins (the last row and column of A_rz) after its tile
 *    (edge_cache): 8 runs of 1.25e7 photons of lut100's first medium, whose
 *    light spreads past the grid, 4.50 -> 1.26 s, lut100 0.22 -> 0.20 s,
 *    16 runs of skin (light within the grid, tiles 59x59 -> 52x54)
 *    0.207 -> 0.213 s (seventeenth session, one H100).
 * Of the explicit options, those a batch kernel has keep their values. */
#define BATCH_BLOCK_WITH_ABSORPTION 1024

bool variant_batch_spec(kernel_spec *spec, const variant_options *v, const tune_device *dev,
                        tm_error *err)
{
    spec->knobs.block_size = spec->score_absorption ? BATCH_BLOCK_WITH_ABSORPTION : DEFAULT_BLOCK;
    spec->knobs.min_blocks_per_sm = spec->score_absorption ? 0 : DEFAULT_RESIDENCY;
    spec->knobs.last_bin_cache = spec->score_absorption;
    /* each run's tile as large as the launch's shared memory allows, up to
     * the grid (plan_batch_tiles in launch_plan.c fits it per launch) */
    spec->knobs.tile_nr = spec->nr;
    spec->knobs.tile_nz = spec->nz;
    spec->knobs.edge_cache = spec->score_absorption;
    static const char *const kept[] = {"block_size", "min_blocks_per_sm", "last_bin_cache", "tile",
                                       "edge_cache"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        if (given(v, kept[i])) {
            const knob *k = knob_by_name(kept[i]);
            for (int f = 0; f < knob_field_count(k); f++)
                knob_field_set(k, &spec->knobs, f, knob_field_get(k, &v->knobs, f));
        }
    if (!spec->score_absorption)
        knobs_without_absorption(&spec->knobs);
    spec_for_batch(spec);
    return spec_validate(spec, dev ? dev->shared_per_block_optin : 0, err);
}

/* The most sets of spec's kind that fit limit bytes in blocks of 32
 * threads, below spec's own count; 0 when not even one does. */
static int sets_fitting_count(const kernel_spec *spec, size_t limit)
{
    kernel_spec fewer = *spec;
    fewer.knobs.block_size = 32;
    for (fewer.num_sets = spec->num_sets - 1; fewer.num_sets > 0; fewer.num_sets--)
        if (spec_shared_bytes(&fewer) <= limit)
            return fewer.num_sets;
    return 0;
}

/* No block holds the sets: what the user can change from every front end
 * (the command line, the library, Python), never a launch parameter. */
static void sets_too_large(const kernel_spec *spec, const tune_device *dev, tm_error *err)
{
    size_t limit = dev->shared_per_block_optin;
    kernel_spec least = *spec;
    least.knobs.block_size = 32;
    kernel_spec escapes = least;
    escapes.sets_absorb = false;
    int fewer = sets_fitting_count(spec, limit);
    char split[160] = "", minus_a[160] = "";
    if (fewer > 0)
        snprintf(split, sizeof split, "give at most %d sets a call (split the table into runs), ",
                 fewer);
    if (spec->sets_absorb && spec_shared_bytes(&escapes) <= limit)
        snprintf(minus_a, sizeof minus_a,
                 "score the sets without absorption (-A; absorption=False in Python), ");
    error_set(err, NULL, 0,
              "%d absorption sets%s of %d layers: their GPU kernel needs %zu bytes of shared "
              "memory even in blocks of 32 threads, and %s allows %zu a block: %s%sor run them "
              "on the CPU engine (--engine cpu; engine=\"cpu\" in Python)",
              spec->num_sets, spec->sets_absorb ? " with absorption" : "", spec->num_layers,
              spec_shared_bytes(&least), dev->name, limit, split, minus_a);
}

/* The sets' kernel keeps in shared memory, besides its table of the sets'
 * mua, a 4-byte word per thread for each layer's path, its waiting escape
 * and, with absorption, each set's deposit residue (templates/sets.cu): 64
 * sets with absorption on the 7 layers of skin take 292 bytes a thread, and
 * in the blocks of 1024 that a run of skin is tuned to (profiles/) 303024
 * bytes, where Hopper allows 232448 a block.  The block is then the largest
 * multiple of 32 that fits, at most the variant's (768 there): a variant
 * that fits keeps its block, and its kernel byte for byte.  A block given
 * explicitly is kept, and refused with what fits when it does not.  Without
 * a device (`tmcml gen` without a GPU) the block is fitted to Hopper's
 * limit, as the heuristic's tile is, and nothing is refused. */
static bool sets_fit_block(kernel_spec *spec, const variant_options *v, const tune_device *dev,
                           tm_error *err)
{
    bool known = dev && dev->shared_per_block_optin > 0;
    size_t limit = known ? dev->shared_per_block_optin : DEFAULT_SHARED_OPTIN;
    int block = spec_largest_fitting_block(spec, limit);
    bool explicit = given(v, "block_size");
    if (block == spec->knobs.block_size || (!known && (block == 0 || explicit)))
        return true;
    if (block > 0 && !explicit) {
        spec->knobs.block_size = block;
        return true;
    }
    if (block == 0) {
        sets_too_large(spec, dev, err);
        return false;
    }
    error_set(err, NULL, 0,
              "--block %d: %d absorption sets%s of %d layers need %zu bytes of shared memory in "
              "blocks of %d threads, and %s allows %zu a block: blocks of at most %d threads fit "
              "(leave --block out, and the planner chooses one that fits)",
              spec->knobs.block_size, spec->num_sets, spec->sets_absorb ? " with absorption" : "",
              spec->num_layers, spec_shared_bytes(spec), spec->knobs.block_size, dev->name, limit,
              block);
    return false;
}

/* The sets' kernel drops the launch bound: their scoring (templates/sets.cu)
 * needs registers.  Measured on an H100 (skin 10^8, -A, 64 sets, the
 * heuristic's blocks of 256): 0.86-0.91 s of kernel at 32 registers (8
 * blocks an SM), 200 bytes spilled; 0.43-0.48 s with no bound (48-52
 * registers) or 6 blocks an SM (40); the run without sets 0.30 s.  Its
 * block is fitted to the device's shared memory (sets_fit_block). */
bool variant_sets_spec(kernel_spec *spec, sets_scoring sets, const variant_options *v,
                       const tune_device *dev, tm_error *err)
{
    if (!given(v, "min_blocks_per_sm"))
        spec->knobs.min_blocks_per_sm = 0;
    spec_for_sets(spec, sets);
    return sets_fit_block(spec, v, dev, err) &&
           spec_validate(spec, dev ? dev->shared_per_block_optin : 0, err);
}

bool variant_sets_tuned(kernel_spec *spec, sets_scoring sets, const tune_device *dev, tm_error *err)
{
    spec_for_sets(spec, sets);
    return spec_validate(spec, dev ? dev->shared_per_block_optin : 0, err);
}

static void apply_tuned(const kernel_knobs *c, const mci_run *run, kernel_spec *spec)
{
    spec->knobs = *c;
    if (spec->knobs.tile_nr > run->nr)
        spec->knobs.tile_nr = run->nr;
    if (spec->knobs.tile_nz > run->nz)
        spec->knobs.tile_nz = run->nz;
}

/* A layer thinner than float32 can resolve at the depths its photons come
 * from would vanish in the kernel (GPU_MIN_LAYER_FRACTION): its own depth,
 * or that of the deepest glass layer, which photons cross without
 * interaction and come back from with the rounding error of its depth (the
 * kernel does not yet snap depths to boundaries as the CPU engine does; in
 * scattering layers photons do not stray that deep).  The CPU engine, in
 * double, can run such stacks. */
static bool gpu_resolves_layers(const mci_run *run, tm_error *err)
{
    double glass_depth = 0;
    for (int i = 1; i <= run->num_layers; i++)
        if (mci_layer_is_glass(&run->layers[i]) && run->layers[i].z1 > glass_depth)
            glass_depth = run->layers[i].z1;
    for (int i = 1; i <= run->num_layers; i++) {
        const mci_layer *l = &run->layers[i];
        double reach = l->z1 > glass_depth ? l->z1 : glass_depth;
        if (l->d > 0 && l->d < reach * GPU_MIN_LAYER_FRACTION) {
            error_set(err, NULL, 0,
                      "layer %d (%g cm thick, photons coming from a depth of %g cm) is thinner "
                      "than the GPU's float32 depths can resolve (2^-20 of that depth): the GPU "
                      "kernels would lose it; the CPU engine (--engine cpu) can run this stack",
                      i, l->d, reach);
            return false;
        }
    }
    return true;
}

bool variant_spec_for_run(const mci_run *run, bool score_absorption, const tune_device *dev,
                          const variant_options *v, kernel_spec *spec, tm_error *err)
{
    return variant_spec_tuned(run, score_absorption, dev, NULL, v, spec, err);
}

bool variant_spec_tuned(const mci_run *run, bool score_absorption, const tune_device *dev,
                        const kernel_knobs *tuned, const variant_options *v, kernel_spec *spec,
                        tm_error *err)
{
    if (!gpu_resolves_layers(run, err))
        return false;
    if (run->num_layers > SPEC_MAX_LAYERS) {
        error_set(err, NULL, 0, "%d layers: the GPU kernels support at most %d", run->num_layers,
                  SPEC_MAX_LAYERS);
        return false;
    }
    spec_init(spec);
    spec->shape = run_view_shape(run, score_absorption);
    spec->dr = run->dr;
    spec->dz = run->dz;
    spec->da = run->da;
    spec->knobs.block_size = DEFAULT_BLOCK;
    spec->knobs.min_blocks_per_sm = DEFAULT_RESIDENCY;
    spec->knobs.layer_placement = run->num_layers > 1 ? SPEC_LAYERS_SHARED : SPEC_LAYERS_CONSTANT;
    if (dev)
        spec->arch = dev->cc_major * 10 + dev->cc_minor;
    if (score_absorption)
        default_tile(run, dev, spec);
    if (tuned)
        apply_tuned(tuned, run, spec);
    else if (spec->time_bins || spec->fiber || spec->fx > 0 || spec->mod > 0)
        spec->knobs.min_blocks_per_sm = 0; /* the flight, detector and J0 spilled at 32 registers */
    apply_options(v, spec);
    if (!score_absorption) /* -A: nothing to cache, whatever the options said */
        knobs_without_absorption(&spec->knobs);
    if (spec->knobs.layer_placement == SPEC_LAYERS_IMMEDIATE)
        run_view_layers(run, spec->layers);
    return spec_validate(spec, dev ? dev->shared_per_block_optin : 0, err);
}
