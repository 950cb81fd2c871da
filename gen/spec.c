/* KernelSpec: defaults, validation, canonical key (gen/spec.h). */
#include "spec.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "layer_record.h"
#include "textbuf.h"

/* Floats in each layer of the shared-memory layer table: n, mua, mus, g,
 * z0, z1, cos_crit0, cos_crit1 (the fields of spec_layer). */
#define SPEC_LAYER_FLOATS 8

void spec_init(kernel_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->score_absorption = true;
    knobs_init(&spec->knobs);
    spec->arch = 90;
}

/* The kernel caches the A_rz tile and, whenever it scores absorption, the
 * last row and column of A_rz (the clamped out-of-grid bins,
 * templates/score.cu) in shared memory. */
size_t spec_sets_g_pairs_at(const kernel_spec *spec)
{
    size_t before = (size_t)spec->num_layers * (size_t)spec->num_sets *
                    (size_t)(2 + (spec->sets_absorb ? 1 : 0));
    return before + (before & 1u);
}

/* The sets' tables, num_layers x num_sets each: the extra mut, with
 * sets_absorb each set's mua over the reference's mut, with optics sets
 * the logarithm of an interaction's ratio and with their g changed the
 * pairs (-2 g_k, 1 + g_k^2) at an even word (spec_sets_g_pairs_at), then
 * whether a layer's g is changed; then per thread its path in every layer, its escape
 * waiting to be scored (two words), with sets_absorb each set's deposit
 * residue, with sets_jacobian or optics sets its interactions in every
 * layer, with sets_jacobian its score in every layer, with their g
 * changed each set's deflections' ratio, with time bins its escape's time
 * bin and with fiber detectors each one's share of it, 4 bytes each
 * (templates/sets.cu). */
static size_t sets_shared_bytes(const kernel_spec *spec)
{
    size_t layers = (size_t)spec->num_layers, sets = (size_t)spec->num_sets;
    int optics = spec->sets_optics;
    size_t tables = 1 + (spec->sets_absorb ? 1 : 0) + (optics > 0 ? 1 : 0);
    size_t table = optics > 1 ? spec_sets_g_pairs_at(spec) + 2 * layers * sets + layers /* flags */
                              : layers * sets * tables;
    size_t detectors = spec->fibers > 0 ? (size_t)spec->fibers : spec->fiber ? 1 : 0;
    size_t rows = layers + 2 + (spec->sets_absorb ? sets : 0) +
                  (spec->sets_jacobian || optics > 0 ? layers : 0) +
                  (spec->sets_jacobian ? layers : 0) + (optics > 1 ? sets : 0) +
                  (spec->time_bins ? 1 : 0) + detectors;
    return (table + rows * (size_t)spec->knobs.block_size) * sizeof(float);
}

size_t spec_dynamic_shared_bytes(const kernel_spec *spec)
{
    if (spec->num_sets > 0 && !spec->batch)
        return sets_shared_bytes(spec);
    if (spec->batch || !spec->score_absorption || spec->knobs.entry_bits <= 0)
        return 0;
    size_t entries = spec->knobs.edge_cache ? (size_t)spec->nr + (size_t)spec->nz - 1 : 0;
    return (entries + spec_tile_slots(spec)) * (size_t)(spec->knobs.entry_bits / 8);
}

int spec_cluster_blocks(const kernel_spec *spec)
{
    bool tiled = spec->score_absorption && spec->knobs.tile_nr > 0 && spec->knobs.tile_nz > 0;
    return tiled && spec->knobs.cluster_size > 1 ? spec->knobs.cluster_size : 1;
}

size_t spec_tile_slots(const kernel_spec *spec)
{
    if (!spec->score_absorption || spec->knobs.tile_nr <= 0 || spec->knobs.tile_nz <= 0)
        return 0;
    size_t bins = (size_t)spec->knobs.tile_nr * (size_t)spec->knobs.tile_nz;
    size_t cluster = (size_t)spec_cluster_blocks(spec);
    return (bins + cluster - 1) / cluster;
}

/* layer_t of templates/layers.cu (layer_record.h). */
#define SPEC_GPU_LAYER_BYTES sizeof(layer_record)

/* timed_t of templates/timed.cu: three pointers (four with modulations),
 * six 4-byte values, three floats a detector of several, a float a layer
 * and one a modulation, rounded up to its 8-byte alignment. */
static size_t spec_timed_bytes(const kernel_spec *spec)
{
    if (spec->batch || !(spec->time_bins || spec->fiber || spec->mod > 0) || spec->num_layers <= 0)
        return 0;
    size_t bytes = (spec->mod > 0 ? 4 : 3) * 8 + 6 * 4 + (size_t)spec->fibers * 3 * 4 +
                   (size_t)(spec->num_layers + 2) * 4 + (size_t)spec->mod * 4;
    return (bytes + 7) / 8 * 8;
}

/* templates/fx.cu's block sums, four 8-byte words a frequency (a side by
 * a sign), its frequencies, a float each, and each thread's escape waiting
 * to be scored, two floats. */
static size_t spec_fx_bytes(const kernel_spec *spec)
{
    if (spec->batch || spec->num_sets > 0 || spec->fx <= 0)
        return 0;
    return (size_t)spec->fx * (4 * 8 + 4) + (size_t)spec->knobs.block_size * 8;
}

/* xy_t of templates/xy.cu: three pointers and a float, rounded up to its
 * 8-byte alignment. */
static size_t spec_xy_bytes(const kernel_spec *spec)
{
    return spec->batch || spec->xy <= 0 ? 0 : 3 * 8 + 8;
}

size_t spec_static_shared_bytes(const kernel_spec *spec)
{
    size_t scored = spec_timed_bytes(spec) + spec_fx_bytes(spec) + spec_xy_bytes(spec);
    if (spec->batch || spec->knobs.layer_placement != SPEC_LAYERS_SHARED || spec->num_layers <= 0)
        return scored;
    return (size_t)(spec->num_layers + 2) * SPEC_GPU_LAYER_BYTES + scored;
}

size_t spec_shared_bytes(const kernel_spec *spec)
{
    return spec_dynamic_shared_bytes(spec) + spec_static_shared_bytes(spec);
}

int spec_largest_fitting_block(const kernel_spec *spec, size_t shared_bytes_max)
{
    kernel_spec at = *spec;
    for (int block = spec->knobs.block_size / 32 * 32; block >= 32; block -= 32) {
        at.knobs.block_size = block;
        if (spec_shared_bytes(&at) <= shared_bytes_max)
            return block;
    }
    return 0;
}

size_t spec_batch_bytes(const kernel_spec *spec, int slots, int parts)
{
    size_t words = spec_batch_tiled(spec) ? SPEC_BATCH_SLOT_WORD_BYTES : 0;
    return (size_t)slots * ((size_t)(spec->num_layers + 2) * SPEC_GPU_LAYER_BYTES + words) +
           (size_t)parts * SPEC_BATCH_PART_BYTES;
}

size_t spec_batch_budget(const kernel_spec *spec, size_t shared_per_sm, int max_threads_per_sm)
{
    if (max_threads_per_sm <= 0 || spec->knobs.block_size <= 0)
        return 0;
    size_t share = shared_per_sm * (size_t)spec->knobs.block_size / (size_t)max_threads_per_sm;
    return share > SPEC_RESERVED_SHARED_PER_BLOCK ? share - SPEC_RESERVED_SHARED_PER_BLOCK : 0;
}

void spec_for_sets(kernel_spec *spec, sets_scoring sets)
{
    problem_shape_for_sets(&spec->shape, sets);
    if (!spec->sets_absorb)
        return;
    /* The run's A_rz tile and caches are not the sets' (templates/sets.cu
     * deposits each set's in global memory): off, so that one sets' shape
     * has one key. */
    kernel_knobs neutral;
    knobs_init(&neutral);
    spec->knobs.tile_nr = spec->knobs.tile_nz = 0;
    spec->knobs.edge_cache = false;
    spec->knobs.cluster_size = 1;
    spec->knobs.last_bin_cache = false;
    spec->knobs.entry_bits = neutral.entry_bits;
}

void spec_for_batch(kernel_spec *spec)
{
    spec->batch = true;
    spec->knobs.layer_placement = SPEC_LAYERS_SHARED;
    spec->knobs.cluster_size = 1;
    spec->knobs.launch_blocks_per_sm = 0; /* the run tiles' plan counts the blocks that fit */
    if (spec_batch_tiled(spec)) {
        /* each run's tile: at most the grid, of 32-bit entries, and its edge
         * bins after it when edge_cache is on */
        if (spec->knobs.tile_nr > spec->nr)
            spec->knobs.tile_nr = spec->nr;
        if (spec->knobs.tile_nz > spec->nz)
            spec->knobs.tile_nz = spec->nz;
        spec->knobs.entry_bits = 32;
        return;
    }
    spec->knobs.tile_nr = spec->knobs.tile_nz = 0;
    spec->knobs.edge_cache = false;
    /* nothing in shared memory uses the entry width: the neutral one, so
     * that one batch shape has one key */
    kernel_knobs neutral;
    knobs_init(&neutral);
    spec->knobs.entry_bits = neutral.entry_bits;
}

bool spec_batch_tiled(const kernel_spec *spec)
{
    return spec->score_absorption && spec->knobs.tile_nr > 0 && spec->knobs.tile_nz > 0;
}

/* ---- validation ---------------------------------------------------------- */

static bool int_in(int value, int lo, int hi) { return value >= lo && value <= hi; }

static bool positive_finite(double x) { return isfinite(x) && x > 0; }

static bool validate_problem(const kernel_spec *spec, tm_error *err)
{
    if (!int_in(spec->num_layers, 1, SPEC_MAX_LAYERS)) {
        error_set(err, NULL, 0, "num_layers %d: must be 1..%d", spec->num_layers, SPEC_MAX_LAYERS);
        return false;
    }
    const struct {
        const char *name;
        int value;
    } counts[] = {{"nr", spec->nr}, {"nz", spec->nz}, {"na", spec->na}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (counts[i].value <= 0) {
            error_set(err, NULL, 0, "%s %d: grid counts must be > 0", counts[i].name,
                      counts[i].value);
            return false;
        }
    }
    const struct {
        const char *name;
        double value;
    } steps[] = {{"dr", spec->dr}, {"dz", spec->dz}, {"da", spec->da}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (!positive_finite(steps[i].value)) {
            error_set(err, NULL, 0, "%s %g: grid steps must be finite and > 0", steps[i].name,
                      steps[i].value);
            return false;
        }
    }
    return true;
}

/* The tile lies within the grid (the ranges of every knob are the table's:
 * knobs_check). */
static bool validate_tile(const kernel_spec *spec, tm_error *err)
{
    int tnr = spec->knobs.tile_nr, tnz = spec->knobs.tile_nz;
    if (tnr > spec->nr) {
        error_set(err, NULL, 0, "tile %dx%d: tile_nr %d exceeds nr %d", tnr, tnz, tnr, spec->nr);
        return false;
    }
    if (tnz > spec->nz) {
        error_set(err, NULL, 0, "tile %dx%d: tile_nz %d exceeds nz %d", tnr, tnz, tnz, spec->nz);
        return false;
    }
    if (spec->arch < 50) {
        error_set(err, NULL, 0, "arch %d: must be >= 50 (sm_50)", spec->arch);
        return false;
    }
    if (spec->knobs.cluster_size > 1 && (tnr == 0 || !spec->score_absorption)) {
        error_set(err, NULL, 0, "cluster_size %d: a cluster shares an A_rz tile, and there is none",
                  spec->knobs.cluster_size);
        return false;
    }
    if (spec->knobs.cluster_size > 1 && spec->arch < 90) {
        error_set(err, NULL, 0, "cluster_size %d: thread-block clusters need sm_90 (this is sm_%d)",
                  spec->knobs.cluster_size, spec->arch);
        return false;
    }
    return true;
}

/* What a batch kernel does not do (spec_for_batch makes a spec so). */
/* Absorption sets score escapes only, in a run's own kernel: the kernel
 * keeps no A_rz of its own beside the sets' paths (templates/sets.cu). */
static bool validate_sets(const kernel_spec *spec, tm_error *err)
{
    if ((spec->sets_paths || spec->sets_absorb || spec->sets_jacobian || spec->sets_optics) &&
        spec->num_sets == 0) {
        error_set(err, NULL, 0,
                  "sets_paths, sets_absorb, sets_jacobian, sets_optics: a GPU kernel scores them "
                  "with absorption sets");
        return false;
    }
    if (spec->num_sets == 0)
        return true;
    if (spec->score_absorption || spec->batch || !spec->sets_2d) {
        error_set(err, NULL, 0,
                  "%d absorption sets: a GPU kernel scores the sets' escapes (Rd_ra, Tt_ra), and "
                  "with sets_absorb their A_rz, in a run's own kernel (A=0: the reference's "
                  "weight is not scored; sets_2d, no batch)",
                  spec->num_sets);
        return false;
    }
    return true;
}

/* Time bins and fiber detectors are scored by a run's own kernel
 * (templates/timed.cu), the absorption sets' too (templates/sets.cu):
 * not by a batch's.  Several detectors (fibers) are a fiber kernel's. */
static bool validate_timed(const kernel_spec *spec, tm_error *err)
{
    if (spec->fibers == 1 || (spec->fibers > 1 && !spec->fiber)) {
        error_set(err, NULL, 0,
                  "fibers=%d: several fiber detectors (2 or more) in a kernel with a fiber",
                  spec->fibers);
        return false;
    }
    if (!spec->time_bins && !spec->fiber)
        return true;
    if (spec->batch) {
        error_set(err, NULL, 0,
                  "time bins and a fiber detector are scored by a run's own kernel on the GPU, "
                  "not by a batch kernel (run it alone, or on the CPU engine)");
        return false;
    }
    return true;
}

/* What a run's own kernel alone scores (asked: the spectrum's count or
 * the grid's cells), `what` saying it: the spatial frequencies
 * (templates/fx.cu), the modulation frequencies (templates/timed.cu), the
 * Cartesian grid (templates/xy.cu); their counts are the shape's ranges. */
static bool validate_own_kernel(const kernel_spec *spec, int asked, const char *what, tm_error *err)
{
    if (asked > 0 && (spec->batch || spec->num_sets > 0)) {
        error_set(err, NULL, 0,
                  "%s scored by a run's own kernel on the GPU, not by a %s kernel (run it alone, "
                  "or on the CPU engine)",
                  what, spec->batch ? "batch" : "absorption sets'");
        return false;
    }
    return true;
}

static bool validate_batch(const kernel_spec *spec, tm_error *err)
{
    if (!spec->batch)
        return true;
    if (spec->knobs.layer_placement != SPEC_LAYERS_SHARED) {
        error_set(err, NULL, 0,
                  "a batch kernel reads its runs' layer tables from shared memory "
                  "(layer_placement shared)");
        return false;
    }
    if (spec->knobs.cluster_size > 1) {
        error_set(err, NULL, 0, "a batch kernel has no clusters (cluster_size 1)");
        return false;
    }
    if (spec->knobs.edge_cache && !spec_batch_tiled(spec)) {
        error_set(err, NULL, 0,
                  "a batch kernel keeps edge bins only after its run tiles (edge_cache on "
                  "needs a tile)");
        return false;
    }
    bool tile = spec->knobs.tile_nr > 0 || spec->knobs.tile_nz > 0;
    if (tile && (!spec_batch_tiled(spec) || spec->knobs.entry_bits != 32)) {
        error_set(err, NULL, 0,
                  "tile %dx%d: a batch kernel's tiles (one a run) have both extents, 32-bit "
                  "entries, and absorption scored",
                  spec->knobs.tile_nr, spec->knobs.tile_nz);
        return false;
    }
    return true;
}

static bool validate_layers(const kernel_spec *spec, tm_error *err)
{
    if (spec->knobs.layer_placement != SPEC_LAYERS_IMMEDIATE)
        return true;
    /* Baked values must be spellable as literals. */
    for (int i = 0; i < spec->num_layers + 2; i++) {
        const double *v = &spec->layers[i].n;
        for (int k = 0; k < SPEC_LAYER_FLOATS; k++) {
            if (!isfinite(v[k])) {
                error_set(err, NULL, 0, "layers[%d] value %d (%g): immediate layers must be finite",
                          i, k, v[k]);
                return false;
            }
        }
    }
    return true;
}

bool spec_validate(const kernel_spec *spec, size_t shared_bytes_max, tm_error *err)
{
    if (!validate_problem(spec, err) || !knobs_check(&spec->knobs, err) ||
        !validate_tile(spec, err) || !validate_batch(spec, err) || !validate_layers(spec, err) ||
        !validate_sets(spec, err) || !validate_timed(spec, err) ||
        !validate_own_kernel(spec, spec->fx, "spatial frequencies are", err) ||
        !validate_own_kernel(spec, spec->mod, "modulation frequencies are", err) ||
        !validate_own_kernel(spec, spec->xy, "the Cartesian grid is", err))
        return false;
    size_t shared = spec_shared_bytes(spec);
    if (shared_bytes_max > 0 && shared > shared_bytes_max && spec->num_sets > 0) {
        /* The planner fits the block (variant_sets_spec); a tuner's
         * candidate that does not fit is passed over with this. */
        error_set(err, NULL, 0,
                  "%d absorption sets%s of %d layers in blocks of %d: need %zu bytes of shared "
                  "memory, the device allows %zu per block",
                  spec->num_sets, spec->sets_absorb ? " with absorption" : "", spec->num_layers,
                  spec->knobs.block_size, shared, shared_bytes_max);
        return false;
    }
    if (shared_bytes_max > 0 && shared > shared_bytes_max) {
        error_set(err, NULL, 0,
                  "tile %dx%d of %d-bit entries%s: needs %zu bytes of shared memory, the device "
                  "allows %zu per block",
                  spec->knobs.tile_nr, spec->knobs.tile_nz, spec->knobs.entry_bits,
                  spec->knobs.layer_placement == SPEC_LAYERS_SHARED ? " with the shared layer table"
                                                                    : "",
                  shared, shared_bytes_max);
        return false;
    }
    return true;
}

/* ---- canonical key --------------------------------------------------------- */

/* The values baked into an immediate layer table. */
static void key_add_layers(textbuf *k, const kernel_spec *spec)
{
    if (spec->knobs.layer_placement != SPEC_LAYERS_IMMEDIATE)
        return;
    textbuf_add(k, " layers=");
    int count = spec->num_layers + 2;
    if (count > SPEC_MAX_LAYERS + 2)
        count = SPEC_MAX_LAYERS + 2;
    textbuf_add(k, "[");
    for (int i = 0; i < count; i++) {
        const double *v = &spec->layers[i].n;
        for (int j = 0; j < SPEC_LAYER_FLOATS; j++) {
            textbuf_add(k, j ? "," : (i ? ";" : ""));
            textbuf_add_double(k, v[j]);
        }
    }
    textbuf_add(k, "]");
}

char *spec_key(const kernel_spec *spec)
{
    textbuf k = TEXTBUF_INIT; /* a key has no length limit: 64 immediate layers take 10 kB */
    textbuf_add(&k, "L%d grid=%dx%dx%d dr=", spec->num_layers, spec->nr, spec->nz, spec->na);
    textbuf_add_double(&k, spec->dr);
    textbuf_add(&k, " dz=");
    textbuf_add_double(&k, spec->dz);
    textbuf_add(&k, " da=");
    textbuf_add_double(&k, spec->da);
    char knobs[KNOBS_TEXT_MAX];
    knobs_text(&spec->knobs, knobs, sizeof knobs);
    textbuf_add(&k, " A=%d %s sm_%d oob=%d", spec->score_absorption ? 1 : 0, knobs, spec->arch,
                spec->debug_out_of_bounds ? 1 : 0);
    key_add_layers(&k, spec);
    /* Shape members after the first PROBLEM_SHAPE_KEYED, by name, when not
     * 0: keys of the shapes that had none stay as they were. */
    for (int i = PROBLEM_SHAPE_KEYED; i < shape_field_count; i++) {
        int v = shape_field_get(&shape_field_table[i], &spec->shape);
        if (v != 0)
            textbuf_add(&k, " %s=%d", shape_field_table[i].name, v);
    }
    /* Pilot and test-only variants only: production keys stay as they were. */
    if (spec->batch)
        textbuf_add(&k, " batch=1");
    if (spec->count_deposits)
        textbuf_add(&k, " count=1");
    if (spec->debug_bias)
        textbuf_add(&k, " bias=1");
    return textbuf_take(&k);
}
