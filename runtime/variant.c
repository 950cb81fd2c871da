#include "variant.h"

#include <stdlib.h>
#include <string.h>

#include "candidates.h"

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
#define DEFAULT_BLOCK 256
#define DEFAULT_RESIDENCY 8
#define DEFAULT_TILE_NZ 128
#define DEFAULT_ENTRY_BITS 32
/* Without a device (`tmcml gen` on a machine without a GPU): Hopper's. */
#define DEFAULT_SHARED_PER_SM (228 * 1024)
#define DEFAULT_SHARED_OPTIN (227 * 1024)

const char variant_usage[] =
    "kernel variant (GPU engine, `gen`):\n"
    "  --tile NRxNZ          A_rz bins cached in shared memory (0x0: none)\n"
    "  --entry 32|64         shared tile entry width in bits\n"
    "  --block N             threads per block (multiple of 32)\n"
    "  --min-blocks N        __launch_bounds__ minimum resident blocks per SM\n"
    "  --layers constant|shared|immediate\n"
    "                        where the layer table lives (immediate bakes the optics\n"
    "                        into the kernel: one compile per optical properties)\n"
    "  --last-bin on|off     sum consecutive deposits into one A_rz bin in a register\n"
    "  --arch sm_XY          compile for this architecture (default: the GPU's, else sm_90)\n";

void variant_options_init(variant_options *v)
{
    memset(v, 0, sizeof *v);
    v->min_blocks_per_sm = -1;
    v->layer_placement = -1;
    v->last_bin_cache = -1;
}

static bool parse_int(const char *text, int lo, int hi, int *out)
{
    if (!text || !*text)
        return false;
    char *end;
    long x = strtol(text, &end, 10);
    if (*end || x < lo || x > hi)
        return false;
    *out = (int)x;
    return true;
}

static int bad(tm_error *err, const char *opt, const char *want, const char *got)
{
    error_set(err, NULL, 0, "%s: expected %s (got \"%s\")", opt, want, got ? got : "");
    return -1;
}

static int parse_layers(const char *text, variant_options *v, tm_error *err)
{
    for (int k = SPEC_LAYERS_CONSTANT; k <= SPEC_LAYERS_IMMEDIATE; k++)
        if (text && strcmp(text, spec_placement_name((spec_layer_placement)k)) == 0) {
            v->layer_placement = k;
            return 1;
        }
    return bad(err, "--layers", "constant, shared or immediate", text);
}

int variant_parse_option(int argc, char **argv, int *i, variant_options *v, tm_error *err)
{
    const char *a = argv[*i];
    static const char *const with_value[] = {"--tile", "--entry", "--block", "--min-blocks",
                                             "--layers", "--last-bin", "--arch"};
    bool known = false;
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
        known = known || strcmp(a, with_value[k]) == 0;
    if (!known && strcmp(a, "--debug-out-of-bounds") == 0) {
        v->debug_out_of_bounds = true; /* test-only variant (tests/test_gpu.c fault) */
        return 1;
    }
    if (!known)
        return 0;
    const char *val = *i + 1 < argc ? argv[++*i] : NULL;
    if (strcmp(a, "--tile") == 0) {
        if (!val || !spec_parse_tile(val, &v->tile_nr, &v->tile_nz))
            return bad(err, a, "NRxNZ, e.g. 48x128 (0x0: no tile)", val);
        v->tile_given = true;
    } else if (strcmp(a, "--entry") == 0) {
        if (!parse_int(val, 32, 64, &v->entry_bits) || (v->entry_bits != 32 && v->entry_bits != 64))
            return bad(err, a, "32 or 64", val);
    } else if (strcmp(a, "--block") == 0) {
        if (!parse_int(val, 32, 1024, &v->block_size) || v->block_size % 32)
            return bad(err, a, "a multiple of 32 from 32 to 1024", val);
    } else if (strcmp(a, "--min-blocks") == 0) {
        if (!parse_int(val, 0, 32, &v->min_blocks_per_sm))
            return bad(err, a, "0 to 32", val);
    } else if (strcmp(a, "--layers") == 0) {
        return parse_layers(val, v, err);
    } else if (strcmp(a, "--last-bin") == 0) {
        if (!val || (strcmp(val, "on") != 0 && strcmp(val, "off") != 0))
            return bad(err, a, "on or off", val);
        v->last_bin_cache = strcmp(val, "on") == 0;
    } else if (!val || strncmp(val, "sm_", 3) != 0 || !parse_int(val + 3, 50, 200, &v->arch)) {
        return bad(err, a, "sm_XY, e.g. sm_90", val);
    }
    return 1;
}

static void default_tile(const mci_run *run, const cuda_device_info *dev, kernel_spec *spec)
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
    spec->tile_nz = nz;
    spec->tile_nr = nr < run->nr ? nr : run->nr;
    spec->entry_bits = DEFAULT_ENTRY_BITS;
}

static void bake_layers(const mci_run *run, kernel_spec *spec)
{
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *l = &run->layers[i];
        spec->layers[i] = (spec_layer){l->n, l->mua, l->mus, l->g,
                                       l->z0, l->z1, l->cos_crit0, l->cos_crit1};
    }
}

static void apply_options(const variant_options *v, kernel_spec *spec)
{
    if (v->tile_given) {
        spec->tile_nr = v->tile_nr;
        spec->tile_nz = v->tile_nz;
    }
    if (v->entry_bits)
        spec->entry_bits = v->entry_bits;
    if (v->block_size) {
        spec->block_size = v->block_size;
        /* The default residency was for the default block: keep occupancy. */
        if (v->min_blocks_per_sm < 0)
            spec->min_blocks_per_sm = v->block_size <= 2048 / 32 ? 32 : 2048 / v->block_size;
    }
    if (v->min_blocks_per_sm >= 0)
        spec->min_blocks_per_sm = v->min_blocks_per_sm;
    if (v->layer_placement >= 0)
        spec->layer_placement = (spec_layer_placement)v->layer_placement;
    if (v->last_bin_cache >= 0)
        spec->last_bin_cache = v->last_bin_cache;
    if (v->arch)
        spec->arch = v->arch;
    spec->debug_out_of_bounds = v->debug_out_of_bounds;
}

bool variant_options_given(const variant_options *v)
{
    return v->tile_given || v->entry_bits || v->block_size || v->min_blocks_per_sm >= 0 ||
           v->layer_placement >= 0 || v->last_bin_cache >= 0;
}

static void apply_tuned(const profile_config *c, const mci_run *run, kernel_spec *spec)
{
    candidates_apply_config(c, spec);
    if (spec->tile_nr > run->nr)
        spec->tile_nr = run->nr;
    if (spec->tile_nz > run->nz)
        spec->tile_nz = run->nz;
}

bool variant_spec_for_run(const mci_run *run, bool score_absorption, const cuda_device_info *dev,
                          const variant_options *v, kernel_spec *spec, tm_error *err)
{
    return variant_spec_tuned(run, score_absorption, dev, NULL, v, spec, err);
}

bool variant_spec_tuned(const mci_run *run, bool score_absorption, const cuda_device_info *dev,
                        const profile_config *tuned, const variant_options *v, kernel_spec *spec,
                        tm_error *err)
{
    if (run->num_layers > SPEC_MAX_LAYERS) {
        error_set(err, NULL, 0, "%d layers: the GPU kernels support at most %d", run->num_layers,
                  SPEC_MAX_LAYERS);
        return false;
    }
    spec_init(spec);
    spec->num_layers = run->num_layers;
    spec->nr = run->nr;
    spec->nz = run->nz;
    spec->na = run->na;
    spec->dr = run->dr;
    spec->dz = run->dz;
    spec->da = run->da;
    spec->score_absorption = score_absorption;
    spec->block_size = DEFAULT_BLOCK;
    spec->min_blocks_per_sm = DEFAULT_RESIDENCY;
    spec->layer_placement = run->num_layers > 1 ? SPEC_LAYERS_SHARED : SPEC_LAYERS_CONSTANT;
    if (dev)
        spec->arch = dev->cc_major * 10 + dev->cc_minor;
    if (score_absorption)
        default_tile(run, dev, spec);
    if (tuned)
        apply_tuned(tuned, run, spec);
    apply_options(v, spec);
    if (!score_absorption) { /* -A: nothing to cache */
        spec->tile_nr = spec->tile_nz = 0;
        spec->last_bin_cache = false;
    }
    if (spec->layer_placement == SPEC_LAYERS_IMMEDIATE)
        bake_layers(run, spec);
    return spec_validate(spec, dev ? dev->shared_per_block_optin : 0, err);
}
