/* The GPU engine's host side: spec -> source -> cubin -> module (kept while
 * the spec stays the same), layer table upload, and a loop of bounded
 * launches whose integer tallies are added on the host.
 *
 * Stream discipline (docs/design.md, "Sharing a GPU").  One stream, eng->queue.stream,
 * owns every operation on the engine's device memory: the uploads of the
 * multiplier and layer tables, the zeroing of a run's tallies, the launches
 * and the downloads, in the order they are queued; so each sees the one
 * before it finished, whatever else runs on the GPU.  The host reads tallies
 * only through cuda_download on that stream, which returns after everything
 * queued before it, the kernel included.  The only other stream,
 * eng->monitor, reads nothing but the photon counter while a kernel runs,
 * for the progress line, the tuner's rate and the feed's view of a launch
 * (its value never reaches a tally), and writes the stop word.  The device
 * tallies (gpu_run) are kept from call to call, so that a loop of small runs
 * (the library) does not pay a dozen allocations each time; every call
 * zeroes them on the stream before its first launch.
 *
 * Why: until 2026-11 the tallies were zeroed with cuMemsetD8 on the legacy
 * stream 0, which returns before the device has done it and is not ordered
 * with a non-blocking stream.  Alone on the GPU the memset always finished
 * before the next launch began; with another process on the GPU the context
 * got its time slice with both pending, the kernel started first and its
 * first deposits were wiped (missing weight in Rd and A, different tallies
 * for every launch split: issue 8, tests/test_gpu_stress.sh). */
#include "gpu.h"

#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "compile.h"
#include "detector.h"
#include "fixed_point.h"
#include "kernel_param.h"
#include "launch_plan.h"
#include "layer_record.h"
#include "optics.h"
#include "render.h"
#include "rng.h"
#include "run_options.h"
#include "run_view.h"
#include "time_bins.h"

#define KERNEL_NAME         "tmcml_kernel"
/* Every launch ends with a tail: each block keeps its SM until its slowest
 * photon ends, so the GPU empties slowly (on the intralipid slab this costs
 * ~0.6 s per launch on an H100, measured; a photon can take 10^6 steps) and
 * a launch queued behind it cannot start in the SMs it frees block by
 * block.  So launches are few and long. */
#define POLL_SECONDS        0.002
#define FIRST_POLL_SECONDS  0.00005
#define STEADY_POLL_SECONDS 0.0002
#define STEADY_FROM         0.2
#define STEADY_TO           0.8
#define PROGRESS_SECONDS    0.1

/* The kernel's scalar tallies (counts[], templates/score.cu): steps, then
 * trapped photons and their weight in units. */
enum { COUNT_STEPS, COUNT_TRAPPED_PHOTONS, COUNT_TRAPPED_UNITS, RUN_COUNTS };

/* The engine's stream and the events of the launches queued on it. */
typedef struct gpu_queue {
    cuda_stream *stream;        /* owns the device tallies (see the top) */
    cuda_event *counter_zeroed; /* recorded after a launch's counter is zeroed */
    cuda_event *launch_done;    /* recorded after each launch */
} gpu_queue;

/* The device tallies of one gpu_simulate_feed call (each slot's arrays one
 * after the other: templates/batch.cu), a batch kernel's tables, and the
 * photon counter and stop word of the launch running.  The tally arrays are
 * output_table's (runtime/io/output_arrays.h), in its order: every run's,
 * then the path and derivative tallies when the kernel scores them (spec
 * sets_paths, sets_jacobian). */
typedef struct gpu_run {
    gpu_queue *queue; /* the engine's: its stream owns these buffers */
    const photon_batch *batch;
    bool sets_absorb; /* each absorption set its A_rz (else one a slot, zero with sets) */
    cuda_ptr tally[OUTPUT_TALLIES_ALL], counts; /* optional ones: those the kernel scores */
    cuda_ptr parts, layers; /* a batch kernel's: batch_part_t and layer_t per slot */
    cuda_ptr set_extra;     /* absorption sets: the kernel's table (templates/sets.cu) */
    int sets;               /* tally sets a slot: the absorption sets, or 1 */
    cuda_ptr next;          /* photon indices handed out by the current launch */
    cuda_ptr stop;          /* set (by the monitor stream) to stop handing them out */
    cuda_ptr slot_done;     /* a batch kernel's: photons of each slot ended in the launch */
    size_t tally_bytes[OUTPUT_TALLIES_ALL], counts_bytes; /* of all the slots; 0: none */
    size_t slot_done_bytes;
    cuda_ptr time_n;   /* time bins or a fiber: each layer's n (templates/timed.cu) */
    cuda_ptr fx_omega; /* spatial frequencies: 2 pi fx each (templates/fx.cu) */
} gpu_run;

/* A device buffer kept from call to call, grown when a call needs more. */
typedef struct kept_buffer {
    cuda_ptr ptr;
    size_t bytes;
} kept_buffer;

/* The buffers of gpu_run, in one order (free_kept, run_open): the tally
 * arrays first (kept[k] is tally k), then the others. */
enum {
    KEPT_COUNTS = OUTPUT_TALLIES_ALL,
    KEPT_PARTS,
    KEPT_LAYERS,
    KEPT_SETS,
    KEPT_TIME,
    KEPT_FX,
    KEPT_DONE,
    KEPT_COUNT
};

struct gpu_engine {
    cuda_driver *drv;
    cuda_context *ctx;
    cuda_device_info dev;
    gpu_queue queue;
    cuda_stream *monitor; /* reads photon counters while kernels run */
    cuda_ptr multipliers;
    kept_buffer kept[KEPT_COUNT]; /* device tallies and tables, kept for the next call */
    cuda_ptr next, stop;          /* the launches' photon counter and stop word */
    cuda_module *mod;             /* module of spec `key`, or NULL */
    char *key;                    /* spec_key of the loaded module (malloc'd), or NULL */
    int registers, spill_bytes;
};

const cuda_device_info *gpu_engine_device(const gpu_engine *eng) { return &eng->dev; }

void gpu_engine_number(gpu_engine *eng, int number)
{
    eng->dev.index = number;
    cuda_context_number(eng->ctx, number);
}

bool gpu_engine_usable(const gpu_engine *eng) { return !cuda_context_broken(eng->ctx); }

static void free_kept(gpu_engine *eng)
{
    for (int i = 0; i < KEPT_COUNT; i++)
        if (eng->kept[i].ptr)
            cuda_free(eng->ctx, eng->kept[i].ptr);
    memset(eng->kept, 0, sizeof eng->kept);
}

/* Kept buffer i with at least bytes (its contents are not kept). */
static bool kept_at_least(gpu_engine *eng, int i, size_t bytes, cuda_ptr *ptr, tm_error *err)
{
    kept_buffer *k = &eng->kept[i];
    if (k->ptr && k->bytes >= bytes) {
        *ptr = k->ptr;
        return true;
    }
    if (k->ptr)
        cuda_free(eng->ctx, k->ptr);
    k->ptr = 0;
    k->bytes = 0;
    if (!cuda_alloc(eng->ctx, bytes ? bytes : 1, &k->ptr, err))
        return false;
    k->bytes = bytes;
    *ptr = k->ptr;
    return true;
}

int gpu_device_count(tm_error *err)
{
    cuda_driver *drv = NULL;
    if (!cuda_open(&drv, err))
        return 0;
    int n = cuda_device_count(drv);
    cuda_close(drv);
    return n;
}

bool gpu_engine_open(int device, gpu_engine **out, tm_error *err)
{
    gpu_engine *eng = calloc(1, sizeof *eng);
    if (!eng) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    size_t table = sizeof rng_mwc_multipliers;
    bool ok = cuda_open(&eng->drv, err);
    if (ok && (device < 0 || device >= cuda_device_count(eng->drv))) {
        error_set(err, NULL, 0,
                  "GPU %d: no such GPU (the driver sees %d; tmcml devices lists them)", device,
                  cuda_device_count(eng->drv));
        ok = false;
    }
    /* The context first: the query then reuses it instead of creating and
     * destroying one of its own. */
    ok = ok && cuda_context_open(eng->drv, device, &eng->ctx, err) &&
         cuda_device_query(eng->drv, device, &eng->dev, err) &&
         cuda_stream_create(eng->ctx, &eng->monitor, err);
    ok = ok && cuda_stream_create(eng->ctx, &eng->queue.stream, err) &&
         cuda_event_create(eng->ctx, &eng->queue.counter_zeroed, err) &&
         cuda_event_create(eng->ctx, &eng->queue.launch_done, err) &&
         cuda_alloc(eng->ctx, table, &eng->multipliers, err) &&
         cuda_upload(eng->queue.stream, eng->multipliers, rng_mwc_multipliers, table, err) &&
         cuda_alloc(eng->ctx, sizeof(uint64_t), &eng->next, err) &&
         cuda_alloc(eng->ctx, sizeof(uint32_t), &eng->stop, err);
    if (!ok) {
        gpu_engine_close(eng);
        return false;
    }
    *out = eng;
    return true;
}

void gpu_engine_close(gpu_engine *eng)
{
    if (!eng)
        return;
    if (eng->ctx) {
        /* Streams first: destroying one waits for its work. */
        cuda_stream_destroy(eng->queue.stream);
        cuda_stream_destroy(eng->monitor);
        cuda_event_destroy(eng->queue.counter_zeroed);
        cuda_event_destroy(eng->queue.launch_done);
        free_kept(eng);
        if (eng->next)
            cuda_free(eng->ctx, eng->next);
        if (eng->stop)
            cuda_free(eng->ctx, eng->stop);
        if (eng->mod)
            cuda_module_unload(eng->mod);
        free(eng->key);
        if (eng->multipliers)
            cuda_free(eng->ctx, eng->multipliers);
        cuda_context_close(eng->ctx);
    }
    if (eng->drv)
        cuda_close(eng->drv);
    free(eng);
}

/* Renders, compiles (or finds in the cache) and loads the kernel of spec,
 * unless it is the module already loaded. */
static bool load_module(gpu_engine *eng, const kernel_spec *spec, const gpu_options *opt,
                        gpu_stats *stats, tm_error *err)
{
    char *key = spec_key(spec);
    if (!key) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    /* The whole key: a module is reused only for the very same source. */
    if (eng->mod && strcmp(key, eng->key) == 0) {
        stats->cubin_cached = true;
        stats->registers = eng->registers;
        stats->spill_bytes = eng->spill_bytes;
        free(key);
        return true;
    }
    if (eng->mod) {
        cuda_module_unload(eng->mod);
        eng->mod = NULL;
    }
    free(eng->key);
    eng->key = NULL;
    render_output src = {0};
    compile_result cubin = {0};
    compile_options copt = {
        .arch = spec->arch, .cache_dir = opt->cache_dir, .verbose = opt->verbose};
    double t0 = clock_now();
    bool ok = render_kernel(spec, opt->template_dir, &src, err);
    double t1 = clock_now();
    ok = ok && compile_cubin(&src, &copt, &cubin, err);
    double t2 = clock_now();
    ok = ok && cuda_module_load(eng->ctx, cubin.cubin, &eng->mod, err);
    double t3 = clock_now();
    if (!ok) {
        /* Name the variant: the message alone does not say which kernel. */
        char msg[sizeof err->message];
        int n = snprintf(msg, sizeof msg, "kernel %.300s: %s", key, err->message);
        if (n > 0) /* a message cut short is still worth having */
            memcpy(err->message, msg, sizeof msg);
    }
    if (ok) {
        eng->key = key;
        key = NULL;
        eng->registers = cubin.registers;
        eng->spill_bytes = cubin.spill_stores + cubin.spill_loads;
        stats->spill_bytes = eng->spill_bytes;
        stats->compile_seconds = cubin.seconds;
        stats->cubin_cached = cubin.from_cache;
        stats->registers = cubin.registers;
        if (opt->verbose)
            fprintf(stderr,
                    "tmcml: kernel %s: %s, %d registers (render %.3f s, %s %.3f s, "
                    "module load %.3f s)\n",
                    eng->key, cubin.from_cache ? "from the cubin cache" : "compiled",
                    cubin.registers, t1 - t0, cubin.from_cache ? "cache lookup" : "compile",
                    t2 - t1, t3 - t2);
    }
    compile_result_free(&cubin);
    render_output_free(&src);
    free(key);
    return ok;
}

bool gpu_prepare(gpu_engine *eng, const kernel_spec *spec, const gpu_options *opt, gpu_stats *stats,
                 tm_error *err)
{
    memset(stats, 0, sizeof *stats);
    return load_module(eng, spec, opt, stats, err);
}

/* The kernel's layer records of run: table[0 .. num_layers + 1]. */
static void run_records(const mci_run *run, layer_record *table)
{
    spec_layer layers[SPEC_MAX_LAYERS + 2];
    run_view_layers(run, layers);
    layer_records_fill(layers, run->num_layers + 2, table);
}

/* The optical properties are data: uploaded for every run. */
static bool upload_layers(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                          tm_error *err)
{
    if (spec->knobs.layer_placement == SPEC_LAYERS_IMMEDIATE)
        return true;
    int count = run->num_layers + 2;
    layer_record table[SPEC_MAX_LAYERS + 2];
    run_records(run, table);
    size_t bytes = (size_t)count * sizeof *table;
    cuda_ptr ptr;
    size_t size;
    if (!cuda_module_global(eng->mod, "tmcml_layers", &ptr, &size, err))
        return false;
    if (size != bytes) {
        error_set(err, NULL, 0,
                  "kernel layer table is %zu bytes, the host's %zu: templates/layers.cu "
                  "and runtime/engine/gpu.c disagree",
                  size, bytes);
        return false;
    }
    return cuda_upload(eng->queue.stream, ptr, table, bytes, err);
}

/* batch_part_t of templates/batch.cu, field for field. */
typedef struct gpu_batch_part {
    uint64_t offset, base;
    float start_weight;
    int32_t first_layer;
    uint32_t slot, pad;
} gpu_batch_part;
_Static_assert(sizeof(gpu_batch_part) == SPEC_BATCH_PART_BYTES,
               "templates/batch.cu's batch_part_t");

/* A batch kernel's tables: each slot's layer records and each part's
 * record, uploaded on the stream. */
static bool upload_batch(gpu_engine *eng, const photon_batch *b, const gpu_run *r, tm_error *err)
{
    int per_slot = b->parts[0].run->num_layers + 2;
    size_t layer_bytes = (size_t)b->slots * (size_t)per_slot * sizeof(layer_record);
    layer_record *layers = calloc((size_t)b->slots * (size_t)per_slot, sizeof *layers);
    gpu_batch_part *parts = calloc((size_t)b->count, sizeof *parts);
    bool ok = layers && parts;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int s = 0; ok && s < b->slots; s++)
        if (photon_batch_slot_run(b, s)) /* else no part scores into it: zeros */
            run_records(photon_batch_slot_run(b, s), &layers[(size_t)s * (size_t)per_slot]);
    for (int k = 0; ok && k < b->count; k++) {
        const batch_part *p = &b->parts[k];
        parts[k] = (gpu_batch_part){.offset = b->offsets[k],
                                    .base = p->first - b->offsets[k], /* mod 2^64 */
                                    .start_weight = (float)(1.0 - optics_specular(p->run)),
                                    .first_layer = optics_first_layer(p->run),
                                    .slot = (uint32_t)p->slot};
    }
    ok = ok && cuda_upload(eng->queue.stream, r->layers, layers, layer_bytes, err) &&
         cuda_upload(eng->queue.stream, r->parts, parts, (size_t)b->count * sizeof *parts, err);
    /* The copies are queued: cuda_upload returns once the host buffers may go
     * (cuda_driver.h). */
    free(layers);
    free(parts);
    return ok;
}

/* Optics set k's scattering tables for layer i (templates/sets.cu): the
 * logarithm of what each interaction multiplies its weight by,
 * ln(mus_k / mus_ref) (0 where either does not scatter: such a layer stays
 * so, optics_sets_check), with g changed plus ln((1 - g_k^2) /
 * (1 - g_ref^2)) (0 where the set keeps g); and with g changed -2 g_k and
 * 1 + g_k^2, rounded as the kernel's hg_base rounds the reference's (an
 * exact product, one fmaf), so that a set of the reference's g has its
 * base bit for bit. */
static void optics_tables(const mci_layer *l, double mus, double g, int optics, float *log_ratio,
                          float *minus_2g, float *one_plus_g2)
{
    double log_mus = l->mus > 0.0 && mus > 0.0 ? log(mus / l->mus) : 0.0;
    if (optics < 2) {
        *log_ratio = (float)log_mus;
        return;
    }
    double log_hg = g != l->g ? log1p(-g * g) - log1p(-l->g * l->g) : 0.0;
    *log_ratio = (float)(log_mus + log_hg);
    float gk = (float)g;
    *minus_2g = -2.0f * gk;
    *one_plus_g2 = fmaf(gk, gk, 1.0f);
}

/* The absorption sets' tables of templates/sets.cu, each layer i's
 * (1-based) set k at (i - 1) * num_sets + k: the extra mut, mut_k,i -
 * mut_ref,i (mua's alone for absorption sets), with sets_absorb the set's
 * share of an interaction, with optics sets their scattering's
 * (optics_tables: with g changed its pairs at spec_sets_g_pairs_at, entry
 * (i - 1) * num_sets + k of them), then with g changed a flag a layer (1:
 * some set's g is not the layer's); run is the sets' reference
 * (mua_sets_reference). */
static bool upload_sets(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                        const gpu_options *opt, gpu_run *r, tm_error *err)
{
    int sets = opt->num_sets, layers = run->num_layers, optics = spec->sets_optics;
    if (sets != r->sets || !opt->set_mua || (optics > 0) != (opt->set_mus != NULL)) {
        error_set(err, NULL, 0, "a kernel of %d %s sets given %d %s sets", r->sets,
                  optics > 0 ? "optics" : "absorption", sets,
                  opt->set_mus ? "optics" : "absorption");
        return false;
    }
    size_t per_table = (size_t)sets * (size_t)layers;
    size_t absorbed = r->sets_absorb ? per_table : 0, scattering = absorbed + per_table;
    size_t tables = 1 + (r->sets_absorb ? 1 : 0) + (optics > 0 ? 1 : 0);
    size_t pairs = spec_sets_g_pairs_at(spec), flags = pairs + 2 * per_table;
    size_t entries = optics > 1 ? flags + (size_t)layers : per_table * tables;
    float *table = calloc(entries, sizeof *table); /* a pad word before the pairs stays 0 */
    if (!table) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    for (int i = 1; i <= layers; i++)
        for (int k = 0; k < sets; k++) {
            const mci_layer *l = &run->layers[i];
            size_t from = (size_t)k * (size_t)layers + (size_t)i - 1;
            double mua = opt->set_mua[from];
            double mus = optics > 0 ? opt->set_mus[from] : l->mus;
            size_t at = (size_t)(i - 1) * (size_t)sets + (size_t)k;
            table[at] =
                optics > 0 ? (float)((mua - l->mua) + (mus - l->mus)) : (float)(mua - l->mua);
            /* with sets_absorb, the set's share of an interaction (0 in glass) */
            if (r->sets_absorb)
                table[absorbed + at] = l->mua + l->mus > 0 ? (float)(mua / (l->mua + l->mus)) : 0;
            if (optics > 0)
                optics_tables(l, mus, opt->set_g[from], optics, &table[scattering + at],
                              &table[pairs + 2 * at], &table[pairs + 2 * at + 1]);
            if (optics > 1 && opt->set_g[from] != l->g)
                table[flags + (size_t)i - 1] = 1.0f;
        }
    bool ok = kept_at_least(eng, KEPT_SETS, entries * sizeof *table, &r->set_extra, err) &&
              cuda_upload(eng->queue.stream, r->set_extra, table, entries * sizeof *table, err);
    free(table);
    return ok;
}

/* Whether a kernel of the sets with derivatives (sets_jacobian) scores
 * derivative tally k: those of the escapes by ring and by angle, with time
 * bins those of the time bins, with fiber detectors theirs. */
static bool gpu_jacobian_tally(const kernel_spec *spec, int k)
{
    switch (k) {
    case OUTPUT_TALLY_RD_JR:
    case OUTPUT_TALLY_RD_JA:
    case OUTPUT_TALLY_TT_JR:
    case OUTPUT_TALLY_TT_JA: return true;
    case OUTPUT_TALLY_RD_JT:
    case OUTPUT_TALLY_TT_JT: return spec->time_bins;
    case OUTPUT_TALLY_RD_JF: return spec->fiber;
    default: return false;
    }
}

/* Whether a kernel of spec scores optional tally k (the sets' path lengths
 * and derivatives: templates/sets.cu; the time bins' and the fibers', in a
 * run's own kernel or the sets': templates/timed.cu). */
static bool spec_scores(const kernel_spec *spec, int k)
{
    output_option g = output_tally(k)->option;
    return k < OUTPUT_TALLIES || (g == OUTPUT_OPTION_PATHS && spec->sets_paths) ||
           (spec->sets_jacobian && gpu_jacobian_tally(spec, k)) ||
           (spec->sets_optics > 0 && k == OUTPUT_TALLY_SET_WEIGHTS) ||
           (g == OUTPUT_OPTION_TIME && spec->time_bins) ||
           (g == OUTPUT_OPTION_FIBER && spec->fiber) || (g == OUTPUT_OPTION_FX && spec->fx > 0) ||
           (g == OUTPUT_OPTION_MOD && spec->mod > 0);
}

/* The least exit cosine fiber detector d accepts, as the kernel has it
 * (2: none, for a kernel without a detector). */
static float fiber_cos_accept(const fiber_detector *d, const mci_run *run)
{
    return d ? (float)detector_cos_accept(d->na, run->layers[0].n) : 2.0f;
}

/* Each layer's refractive index for the time of flight (a run's kernel
 * with time bins, a fiber or modulations), then, with several fibers (the
 * shape's fibers: run_view_shape), each one's separation, radius and least
 * exit cosine (templates/timed.cu's timed.fibers), as the kernel of one
 * fiber takes its own in parameters (timed_values); then each modulation's
 * 2 pi f / c in rad per cm of optical path (timed.mod_k), the product in
 * double rounded once. */
static bool upload_time(gpu_engine *eng, const mci_run *run, gpu_run *r, tm_error *err)
{
    float n[SPEC_MAX_LAYERS + 2 + 3 * TM_MAX_DETECTORS + TM_MAX_GPU_MODULATIONS];
    size_t count = 0;
    if (run->mod_count > TM_MAX_GPU_MODULATIONS) {
        error_set(err, NULL, 0, "%d modulation frequencies: a GPU kernel scores at most %d",
                  run->mod_count, TM_MAX_GPU_MODULATIONS);
        return false;
    }
    for (int i = 0; i < run->num_layers + 2; i++)
        n[count++] = (float)run->layers[i].n;
    for (int k = 0; run->fiber_count > 1 && k < run->fiber_count; k++) {
        const fiber_detector *d = &run->fibers[k];
        n[count++] = (float)d->sep;
        n[count++] = (float)d->radius;
        n[count++] = fiber_cos_accept(d, run);
    }
    for (int f = 0; f < run->mod_count; f++) /* 2 pi f [1/s] x 1e-9 [s/ns] / c [cm/ns] */
        n[count++] = (float)(6.283185307179586 * run->mod_hz[f] * 1e-9 / TIME_LIGHT_CM_PER_NS);
    return kept_at_least(eng, KEPT_TIME, count * sizeof *n, &r->time_n, err) &&
           cuda_upload(eng->queue.stream, r->time_n, n, count * sizeof *n, err);
}

/* 2 pi fx at each of the run's spatial frequencies (1/cm), the product in
 * double rounded once (a run's kernel with them: templates/fx.cu). */
static bool upload_fx(gpu_engine *eng, const mci_run *run, gpu_run *r, tm_error *err)
{
    size_t count = (size_t)run->fx_count;
    float omega[TM_MAX_GPU_SPATIAL_FREQUENCIES];
    if (count > TM_MAX_GPU_SPATIAL_FREQUENCIES) {
        error_set(err, NULL, 0, "%zu spatial frequencies: a GPU kernel scores at most %d", count,
                  TM_MAX_GPU_SPATIAL_FREQUENCIES);
        return false;
    }
    for (size_t f = 0; f < count; f++)
        omega[f] = (float)(6.283185307179586 * run->fx[f]); /* 2 pi */
    return kept_at_least(eng, KEPT_FX, count * sizeof *omega, &r->fx_omega, err) &&
           cuda_upload(eng->queue.stream, r->fx_omega, omega, count * sizeof *omega, err);
}

/* Queues the zeroing of the run's tallies on the stream: the next launch
 * there, queued after it, cannot start before it is done. */
static bool zero_tallies(const gpu_run *r, tm_error *err)
{
    cuda_stream *st = r->queue->stream;
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (r->tally_bytes[k] && !cuda_memset_zero(st, r->tally[k], r->tally_bytes[k], err))
            return false;
    return cuda_memset_zero(st, r->counts, r->counts_bytes, err);
}

/* The device tallies of every slot of the batch (and a batch kernel's
 * tables): the kept buffers when they are large enough, else new ones kept
 * in their place; the tallies zeroed on the stream. */
static bool run_open(gpu_engine *eng, const photon_batch *b, const kernel_spec *spec,
                     const gpu_options *opt, gpu_run *r, tm_error *err)
{
    const mci_run *run = b->parts[0].run;
    memset(r, 0, sizeof *r);
    r->queue = &eng->queue;
    r->batch = b;
    r->sets = spec->num_sets > 0 ? spec->num_sets : 1;
    r->sets_absorb = spec->sets_absorb;
    /* A slot's absorption sets each have their tallies, one after the other,
     * as the slots of a batch; but for A_rz, which a kernel with sets scores
     * only with sets_absorb (else one zero array a slot). */
    size_t slots = (size_t)b->slots * (size_t)r->sets;
    bool ok = true;
    const output_grid grid = run_options_grid(run);
    for (int k = 0; ok && k < OUTPUT_TALLIES_ALL; k++) {
        if (!spec_scores(spec, k))
            continue; /* an optional tally this kernel does not score: no buffer */
        size_t arrays = output_tally(k)->absorption && !r->sets_absorb ? (size_t)b->slots : slots;
        r->tally_bytes[k] = arrays * (size_t)output_tally_grid_bins(k, &grid) * sizeof(uint64_t);
        ok = kept_at_least(eng, k, r->tally_bytes[k], &r->tally[k], err);
    }
    r->counts_bytes = slots * RUN_COUNTS * sizeof(uint64_t);
    r->next = eng->next;
    r->stop = eng->stop;
    size_t parts = spec->batch ? (size_t)b->count * sizeof(gpu_batch_part) : 0;
    size_t layers = spec->batch ? slots * (size_t)(run->num_layers + 2) * sizeof(layer_record) : 0;
    r->slot_done_bytes = spec->batch ? (size_t)b->slots * sizeof(uint64_t) : 0;
    ok = ok && kept_at_least(eng, KEPT_COUNTS, r->counts_bytes, &r->counts, err) &&
         kept_at_least(eng, KEPT_PARTS, parts, &r->parts, err) &&
         kept_at_least(eng, KEPT_LAYERS, layers, &r->layers, err) &&
         kept_at_least(eng, KEPT_DONE, r->slot_done_bytes, &r->slot_done, err);
    return ok && (!spec->batch || upload_batch(eng, b, r, err)) &&
           (spec->num_sets == 0 || upload_sets(eng, run, spec, opt, r, err)) &&
           (!(spec->time_bins || spec->fiber || spec->mod > 0) || upload_time(eng, run, r, err)) &&
           (spec->fx == 0 || upload_fx(eng, run, r, err)) && zero_tallies(r, err);
}

/* The run is over once its stream has finished with its buffers (kept for
 * the next run). */
static void run_close(gpu_run *r)
{
    tm_error ignored;
    cuda_stream_wait(r->queue->stream, "the end of a run", &ignored);
}

/* Host copies of every slot's device tallies. */
typedef struct host_tallies {
    uint64_t *tally[OUTPUT_TALLIES_ALL], *counts; /* optional ones NULL when not scored */
    uint64_t *photons;                            /* per slot: photons of the launch */
} host_tallies;

static void host_tallies_free(host_tallies *h)
{
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        free(h->tally[k]);
    free(h->counts);
    free(h->photons);
    memset(h, 0, sizeof *h);
}

/* Tally set t of the downloaded tallies (slot t / r->sets's absorption set
 * t % r->sets) into acc[t].  Every set of a slot took the steps of its one
 * history, which the kernel counts in the slot's first set. */
static void add_slot(const gpu_run *r, const host_tallies *h, int t, tally_set *acc)
{
    const mci_run *run = r->batch->parts[0].run;
    int slot = t / r->sets;
    const uint64_t *counts = &h->counts[(size_t)t * RUN_COUNTS];
    const output_grid grid = run_options_grid(run);
    tally_batch view = {
        .nr = run->nr,
        .nz = run->nz,
        .na = run->na,
        .num_layers = r->tally_bytes[OUTPUT_TALLY_RD_PATH] ? grid.num_layers : 0,
        .jacobian_layers = r->tally_bytes[OUTPUT_TALLY_RD_JR] ? grid.jacobian_layers : 0,
        .set_weights = r->tally_bytes[OUTPUT_TALLY_SET_WEIGHTS] ? grid.set_weights : 0,
        .nt = grid.nt,
        .detectors = grid.detectors,
        .steps = h->counts[(size_t)slot * (size_t)r->sets * RUN_COUNTS + COUNT_STEPS],
        .trapped_photons = counts[COUNT_TRAPPED_PHOTONS],
        .trapped_units = counts[COUNT_TRAPPED_UNITS]};
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++) {
        if (!h->tally[k])
            continue; /* not scored: NULL in the view, which the sum skips */
        int array = output_tally(k)->absorption && !r->sets_absorb ? slot : t; /* run_open */
        view.tally[k] = &h->tally[k][(size_t)array * (size_t)output_tally_grid_bins(k, &grid)];
    }
    tally_set_add_batch(&acc[t], &view, h->photons[slot]);
}

/* A kernel with absorption sets scores their escape tallies set-minor (bin
 * b of set k at b * sets + k, templates/sets.cu: a warp's atomics to
 * consecutive words), and with sets_absorb their A_rz; each slot's are put
 * back set after set, as acc takes them (add_slot).  A_rz of one a slot is
 * as it is. */
static bool sets_to_set_major(const gpu_run *r, host_tallies *h, tm_error *err)
{
    const output_grid grid = run_options_grid(r->batch->parts[0].run);
    size_t sets = (size_t)r->sets;
    for (int k = 0; sets > 1 && k < OUTPUT_TALLIES_ALL; k++) {
        if (!r->tally_bytes[k] || (output_tally(k)->absorption && !r->sets_absorb))
            continue; /* not scored, or one a slot */
        size_t bins = (size_t)output_tally_grid_bins(k, &grid);
        uint64_t *set_major = malloc(bins * sets * sizeof *set_major);
        if (!set_major) {
            error_set(err, NULL, 0, "out of memory");
            return false;
        }
        for (int slot = 0; slot < r->batch->slots; slot++) {
            uint64_t *minor = h->tally[k] + (size_t)slot * bins * sets;
            for (size_t b = 0; b < bins; b++)
                for (size_t s = 0; s < sets; s++)
                    set_major[s * bins + b] = minor[b * sets + s];
            memcpy(minor, set_major, bins * sets * sizeof *set_major);
        }
        free(set_major);
    }
    return true;
}

/* Host arrays for every slot's device tallies (h->photons zero). */
static bool host_tallies_alloc(const gpu_run *r, host_tallies *h, tm_error *err)
{
    *h = (host_tallies){.counts = malloc(r->counts_bytes),
                        .photons = calloc((size_t)r->batch->slots, sizeof(uint64_t))};
    bool ok = h->counts && h->photons;
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++) {
        if (k >= OUTPUT_TALLIES && !r->tally_bytes[k])
            continue; /* an optional tally the kernel does not score */
        h->tally[k] = malloc(r->tally_bytes[k] ? r->tally_bytes[k] : 1);
        ok = ok && h->tally[k];
    }
    if (!ok) {
        host_tallies_free(h);
        error_set(err, NULL, 0, "out of memory");
    }
    return ok;
}

/* The device tallies of the launch's simulated indices [first, first + n)
 * go into acc[slot] (each download waits for the launch before it), but
 * for the slots taken already (taken[slot], may be NULL: early_take) and
 * those with no photon among them (all zero; the caller may be writing the
 * outputs of a run done before); then they are zeroed for the next
 * launch. */
static bool collect(const gpu_run *r, uint64_t first, uint64_t n, const bool *taken,
                    const gpu_options *opt, tally_set *acc, tm_error *err)
{
    const photon_batch *b = r->batch;
    host_tallies h;
    if (!host_tallies_alloc(r, &h, err))
        return false;
    cuda_stream *st = r->queue->stream;
    bool ok = true;
    for (int k = 0; ok && k < OUTPUT_TALLIES_ALL; k++)
        if (h.tally[k])
            ok = cuda_download(st, h.tally[k], r->tally[k], r->tally_bytes[k], err);
    ok = ok && cuda_download(st, h.counts, r->counts, r->counts_bytes, err) &&
         sets_to_set_major(r, &h, err);
    if (ok) {
        photon_batch_slot_photons(b, first, n, h.photons);
        for (int t = 0; t < b->slots * r->sets; t++) {
            int slot = t / r->sets;
            if (h.photons[slot] > 0 && (!taken || !taken[slot]))
                add_slot(r, &h, t, acc);
        }
        /* Told after every add: the pool may sum a slot from every GPU as
         * soon as it hears of it (gpu_pool.c, slot_ended). */
        for (int slot = 0; ok && opt->slot_ended && slot < b->slots; slot++)
            if (h.photons[slot] > 0 && (!taken || !taken[slot]))
                ok = opt->slot_ended(opt->slot_ctx, slot, h.photons[slot], err);
    }
    host_tallies_free(&h);
    return ok && zero_tallies(r, err);
}

/* A batch kernel's launch, for opt->slot_ended: the slots taken while it
 * runs (early_take). */
typedef struct early_slots {
    bool on;
    int left;           /* slots with photons in the launch, not yet taken */
    uint64_t *expected; /* per slot: its photons in the launch */
    uint64_t *ended;    /* per slot: its photons ended, as last read */
    bool *taken;        /* per slot: its tallies in acc already (collect skips them) */
    host_tallies h;     /* the taken slots' arrays, where collect would put them */
} early_slots;

/* A launch: its photons and what the host knows of them. */
typedef struct launch {
    bool stopping;  /* asked to stop handing out photons */
    uint64_t first; /* photons [first, first + count) */
    uint64_t count;
    uint64_t reported; /* photons handed out, as told to the progress meter */
    early_slots early;
} launch;

/* The values of a launch's kernel arguments, one of each kernel_arg
 * (gen/kernel_param.h), and the argument list of cuLaunchKernel: a pointer
 * to the value of each parameter the kernel takes, the rows of
 * kernel_param_table[] its spec takes in the rows' order, as the template
 * wrote its signature from the same rows (launch_args_fill). */
typedef struct launch_args {
    uint64_t first, count, seed;
    float start_weight;
    int first_layer;
    unsigned num_parts, num_slots, max_steps;
    gpu_run_tiles tiles;
    cuda_ptr parts, layers, multipliers, next, stop, tally[OUTPUT_TALLIES_ALL], counts, set_extra;
    cuda_ptr slot_done;
    /* time bins or a fiber (templates/timed.cu) */
    cuda_ptr time_n;
    float time_start, inv_c_dt, fiber_sep, fiber_radius, fiber_cos_accept;
    cuda_ptr fx_omega; /* spatial frequencies (templates/fx.cu) */
    int nt;
    void *list[KERNEL_PARAM_ROWS];
} launch_args;

/* Where a holds the value of v, of the C type of the parameters that pass
 * it (gen/kernel_param.c: a pointer, unsigned long long, unsigned int,
 * int, float).  The compiler holds the switch to every kernel_arg
 * (-Wswitch); the tallies are output_table's (ORDER OUTPUT). */
static void *launch_value(launch_args *a, kernel_arg v)
{
    switch (v) {
    case KERNEL_ARG_FIRST: return &a->first;
    case KERNEL_ARG_COUNT: return &a->count;
    case KERNEL_ARG_SEED: return &a->seed;
    case KERNEL_ARG_PARTS: return &a->parts;
    case KERNEL_ARG_NUM_PARTS: return &a->num_parts;
    case KERNEL_ARG_LAYERS: return &a->layers;
    case KERNEL_ARG_NUM_SLOTS: return &a->num_slots;
    case KERNEL_ARG_START_WEIGHT: return &a->start_weight;
    case KERNEL_ARG_FIRST_LAYER: return &a->first_layer;
    case KERNEL_ARG_MAX_STEPS: return &a->max_steps;
    case KERNEL_ARG_MULTIPLIERS: return &a->multipliers;
    case KERNEL_ARG_NEXT: return &a->next;
    case KERNEL_ARG_STOP: return &a->stop;
    case KERNEL_ARG_A_RZ: return &a->tally[OUTPUT_TALLY_A_RZ];
    case KERNEL_ARG_RD_RA: return &a->tally[OUTPUT_TALLY_RD_RA];
    case KERNEL_ARG_TT_RA: return &a->tally[OUTPUT_TALLY_TT_RA];
    case KERNEL_ARG_COUNTS: return &a->counts;
    case KERNEL_ARG_SLOT_DONE: return &a->slot_done;
    case KERNEL_ARG_TILE_NR: return &a->tiles.nr;
    case KERNEL_ARG_TILE_NZ: return &a->tiles.nz;
    case KERNEL_ARG_EDGE_BINS: return &a->tiles.edge_bins;
    case KERNEL_ARG_SET_EXTRA: return &a->set_extra;
    case KERNEL_ARG_RD_PATH: return &a->tally[OUTPUT_TALLY_RD_PATH];
    case KERNEL_ARG_TT_PATH: return &a->tally[OUTPUT_TALLY_TT_PATH];
    case KERNEL_ARG_RD_JR: return &a->tally[OUTPUT_TALLY_RD_JR];
    case KERNEL_ARG_RD_JA: return &a->tally[OUTPUT_TALLY_RD_JA];
    case KERNEL_ARG_TT_JR: return &a->tally[OUTPUT_TALLY_TT_JR];
    case KERNEL_ARG_TT_JA: return &a->tally[OUTPUT_TALLY_TT_JA];
    case KERNEL_ARG_SET_W: return &a->tally[OUTPUT_TALLY_SET_WEIGHTS];
    case KERNEL_ARG_RD_JT: return &a->tally[OUTPUT_TALLY_RD_JT];
    case KERNEL_ARG_TT_JT: return &a->tally[OUTPUT_TALLY_TT_JT];
    case KERNEL_ARG_RD_JF: return &a->tally[OUTPUT_TALLY_RD_JF];
    case KERNEL_ARG_RD_RT: return &a->tally[OUTPUT_TALLY_RD_RT];
    case KERNEL_ARG_TT_RT: return &a->tally[OUTPUT_TALLY_TT_RT];
    case KERNEL_ARG_RD_FIBER: return &a->tally[OUTPUT_TALLY_RD_FIBER];
    case KERNEL_ARG_TIME_N: return &a->time_n;
    case KERNEL_ARG_TIME_START: return &a->time_start;
    case KERNEL_ARG_INV_C_DT: return &a->inv_c_dt;
    case KERNEL_ARG_NT: return &a->nt;
    case KERNEL_ARG_FIBER_SEP: return &a->fiber_sep;
    case KERNEL_ARG_FIBER_RADIUS: return &a->fiber_radius;
    case KERNEL_ARG_FIBER_COS_ACCEPT: return &a->fiber_cos_accept;
    case KERNEL_ARG_FX_OMEGA: return &a->fx_omega;
    case KERNEL_ARG_RD_FX: return &a->tally[OUTPUT_TALLY_RD_FX];
    case KERNEL_ARG_TT_FX: return &a->tally[OUTPUT_TALLY_TT_FX];
    case KERNEL_ARG_RD_MOD: return &a->tally[OUTPUT_TALLY_RD_MOD];
    case KERNEL_ARGS: break;
    }
    return NULL;
}

/* The values of templates/timed.cu (the tallies aside): each layer's n,
 * the glass's flight before the first layer, 1 / (c dt), nt, the first
 * fiber's geometry and its least exit cosine (2: no fiber; several
 * fibers' are in time_n: upload_time). */
static void timed_values(launch_args *a, const gpu_run *r, const mci_run *run)
{
    double flight = 0.0;
    for (int i = 1; i < optics_first_layer(run) && i <= run->num_layers; i++)
        flight += run->layers[i].n * (run->layers[i].z1 - run->layers[i].z0);
    a->time_n = r->time_n;
    a->time_start = (float)flight;
    a->inv_c_dt = run->time_nt > 0 ? (float)(1.0 / (TIME_LIGHT_CM_PER_NS * run->time_dt)) : 0.0f;
    a->nt = run->time_nt;
    const fiber_detector *first = run->fiber_count > 0 ? &run->fibers[0] : NULL;
    a->fiber_sep = first ? (float)first->sep : 0.0f;
    a->fiber_radius = first ? (float)first->radius : 0.0f;
    a->fiber_cos_accept = fiber_cos_accept(first, run);
}

/* Every value of the launch, then the list: the value of each parameter
 * of the kernel, walking kernel_param_table[] with the condition the
 * renderer walked it with (a tally the kernel does not score passes a NULL
 * pointer, as the device tallies have none: run_open). */
static void launch_args_fill(launch_args *a, const gpu_engine *eng, const gpu_run *r,
                             const launch *l, const kernel_spec *spec, const launch_plan *plan,
                             const gpu_options *opt)
{
    const photon_batch *b = r->batch;
    const batch_part *p = &b->parts[0];
    *a = (launch_args){.first = l->first,
                       .count = l->count,
                       .seed = opt->seed,
                       .num_parts = (unsigned)b->count,
                       .num_slots = (unsigned)b->slots,
                       .max_steps = opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON,
                       .parts = r->parts,
                       .layers = r->layers,
                       .multipliers = eng->multipliers,
                       .next = r->next,
                       .stop = r->stop,
                       .counts = r->counts,
                       .set_extra = r->set_extra,
                       .fx_omega = r->fx_omega,
                       .slot_done = r->slot_done,
                       .tiles = plan->tiles};
    memcpy(a->tally, r->tally, sizeof a->tally);
    if (!spec->batch) {       /* a run's own kernel: one part */
        a->first += p->first; /* batch index j is photon first + j */
        a->start_weight = (float)(1.0 - optics_specular(p->run));
        a->first_layer = optics_first_layer(p->run);
        timed_values(a, r, p->run);
    }
    int n = 0;
    for (int i = 0; i < KERNEL_PARAM_ROWS; i++)
        if (kernel_param_taken(&kernel_param_table[i], spec))
            a->list[n++] = launch_value(a, kernel_param_table[i].arg);
}

/* Queues: the photon counter and stop word zeroed, the kernel, the
 * launch_done event.  The monitor stream's reads of the counter
 * wait for its zeroing (counter_zeroed), so progress never shows the last
 * launch's count or uninitialised memory. */
static bool launch_async(gpu_engine *eng, const gpu_run *r, launch *l, const kernel_spec *spec,
                         const launch_plan *plan, const gpu_options *opt, tm_error *err)
{
    gpu_queue *q = r->queue;
    launch_args args;
    launch_args_fill(&args, eng, r, l, spec, plan, opt);
    l->stopping = false;
    l->reported = 0;
    return cuda_memset_zero(q->stream, r->next, sizeof(uint64_t), err) &&
           cuda_memset_zero(q->stream, r->stop, sizeof(uint32_t), err) &&
           (!spec->batch || cuda_memset_zero(q->stream, r->slot_done, r->slot_done_bytes, err)) &&
           cuda_event_record(q->counter_zeroed, q->stream, err) &&
           cuda_stream_wait_event(eng->monitor, q->counter_zeroed, err) &&
           cuda_launch(eng->mod, KERNEL_NAME, plan->grid, plan->block, plan->shared, args.list,
                       q->stream, err) &&
           cuda_event_record(q->launch_done, q->stream, err);
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The steady-state window of a launch: when the photon counter crossed
 * STEADY_FROM and STEADY_TO of the launch's photons (interpolated between
 * polls). */
typedef struct steady_window {
    double t_prev;
    uint64_t n_prev;
    double t_from, t_to; /* < 0 until crossed */
} steady_window;

static double crossing(const steady_window *w, double t, uint64_t n, double target)
{
    if (n == w->n_prev)
        return t;
    return w->t_prev + (t - w->t_prev) * (target - (double)w->n_prev) / (double)(n - w->n_prev);
}

static void steady_sample(steady_window *w, double t, uint64_t handed, uint64_t count)
{
    double from = STEADY_FROM * (double)count, to = STEADY_TO * (double)count;
    if (w->t_from < 0 && (double)handed >= from)
        w->t_from = crossing(w, t, handed, from);
    if (w->t_to < 0 && (double)handed >= to)
        w->t_to = crossing(w, t, handed, to);
    w->t_prev = t;
    w->n_prev = handed;
}

static double steady_rate(const steady_window *w, uint64_t count)
{
    if (w->t_from < 0 || w->t_to <= w->t_from)
        return 0;
    return (STEADY_TO - STEADY_FROM) * (double)count / (w->t_to - w->t_from);
}

/* Asks the launch to stop handing out photons: a copy to device memory on
 * the monitor stream (a copy engine's work, so it does not wait for the
 * kernel, which holds every SM). */
static bool request_stop(gpu_engine *eng, const gpu_run *r, launch *l, tm_error *err)
{
    static const uint32_t one = 1;
    if (l->stopping)
        return true;
    l->stopping = true;
    return cuda_upload(eng->monitor, r->stop, &one, sizeof one, err);
}

/* The launch's photon counter: photons handed out so far (at most count).
 * A read while the kernel adds to it, for display and rates only. */
static bool handed_out(gpu_engine *eng, const gpu_run *r, const launch *l, uint64_t *handed,
                       tm_error *err)
{
    *handed = 0;
    if (!cuda_download(eng->monitor, handed, r->next, sizeof *handed, err))
        return false;
    *handed = *handed < l->count ? *handed : l->count;
    return true;
}

static bool stop_requested(const gpu_options *opt)
{
    return (opt->stop && *opt->stop) || (opt->yield && *opt->yield);
}

/* ---- a batch's runs taken as they finish ------------------------------------ */

static void early_end(early_slots *e)
{
    free(e->expected);
    free(e->ended);
    free(e->taken);
    host_tallies_free(&e->h);
    memset(e, 0, sizeof *e);
}

/* Whether the launch's slots can be taken as they finish, and what each
 * expects: a batch kernel's launch with one tally set a slot, for a caller
 * that asked (slot_ended). */
static bool early_begin(const gpu_run *r, launch *l, const kernel_spec *spec,
                        const gpu_options *opt, tm_error *err)
{
    early_slots *e = &l->early;
    const photon_batch *b = r->batch;
    memset(e, 0, sizeof *e);
    if (!opt->slot_ended || !spec->batch || r->sets != 1)
        return true;
    size_t slots = (size_t)b->slots;
    e->expected = calloc(slots, sizeof *e->expected);
    e->ended = calloc(slots, sizeof *e->ended);
    e->taken = calloc(slots, sizeof *e->taken);
    if (!e->expected || !e->ended || !e->taken) {
        early_end(e);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (!host_tallies_alloc(r, &e->h, err)) {
        early_end(e);
        return false;
    }
    photon_batch_slot_photons(b, l->first, l->count, e->expected);
    for (size_t s = 0; s < slots; s++)
        e->left += e->expected[s] > 0;
    e->on = true;
    return true;
}

/* Slot s's tallies into acc[s] while the launch goes on, then the caller
 * told.  Every photon of the slot has ended, and each is counted only once
 * its deposits are visible in global memory (templates/kernel.cu's
 * __threadfence; with run tiles, after its tile's flush:
 * templates/batch_tiles.cu), so no deposit to the slot's arrays is left:
 * the monitor stream copies them whole, as the launch's end would. */
static bool early_take(gpu_engine *eng, const gpu_run *r, early_slots *e, int s, tally_set *acc,
                       const gpu_options *opt, tm_error *err)
{
    size_t slots = (size_t)r->batch->slots;
    bool ok = true;
    for (int k = 0; ok && k < OUTPUT_TALLIES_ALL; k++) {
        if (!e->h.tally[k] || !r->tally_bytes[k])
            continue;
        size_t bytes = r->tally_bytes[k] / slots; /* one set a slot: early_begin */
        ok = cuda_download(eng->monitor, (char *)e->h.tally[k] + (size_t)s * bytes,
                           r->tally[k] + (cuda_ptr)s * bytes, bytes, err);
    }
    size_t count_bytes = RUN_COUNTS * sizeof(uint64_t);
    ok = ok && cuda_download(eng->monitor, e->h.counts + (size_t)s * RUN_COUNTS,
                             r->counts + (cuda_ptr)s * count_bytes, count_bytes, err);
    if (!ok)
        return false;
    e->h.photons[s] = e->expected[s];
    add_slot(r, &e->h, s, acc);
    e->taken[s] = true;
    e->left--;
    return opt->slot_ended(opt->slot_ctx, s, e->expected[s], err);
}

/* The slots whose photons have all ended since the last look, taken. */
static bool early_poll(gpu_engine *eng, const gpu_run *r, launch *l, tally_set *acc,
                       const gpu_options *opt, tm_error *err)
{
    early_slots *e = &l->early;
    if (!e->on || e->left == 0)
        return true;
    if (!cuda_download(eng->monitor, e->ended, r->slot_done, r->slot_done_bytes, err))
        return false;
    for (int s = 0; s < r->batch->slots; s++)
        if (!e->taken[s] && e->expected[s] > 0 && e->ended[s] == e->expected[s] &&
            !early_take(eng, r, e, s, acc, opt, err))
            return false;
    return true;
}

/* Waits for the launch to end, reporting progress from its photon counter
 * while it runs (to the meter and the feed) and taking the slots that
 * finish (early_poll); *steady (may be NULL) gets the steady-state rate. */
static bool await_launch(gpu_engine *eng, const gpu_run *r, launch *l, const gpu_options *opt,
                         const photon_feed *feed, tally_set *acc, double *steady, tm_error *err)
{
    double last = clock_now();
    steady_window w = {last, 0, -1, -1};
    bool done = false;
    bool watched = opt->progress || feed->running;
    /* Polls start at 50 us and double up to POLL_SECONDS: a short launch
     * (a library loop of small runs) is not held for a whole poll. */
    double poll = FIRST_POLL_SECONDS;
    while (!done) {
        sleep_seconds(steady ? STEADY_POLL_SECONDS : poll);
        poll = poll * 2 < POLL_SECONDS ? poll * 2 : POLL_SECONDS;
        if (!cuda_event_done(r->queue->launch_done, &done, err))
            return false;
        if (!done && stop_requested(opt) && !request_stop(eng, r, l, err))
            return false;
        if (!done && !early_poll(eng, r, l, acc, opt, err))
            return false;
        bool due = watched && clock_now() - last >= PROGRESS_SECONDS;
        if (done || (!steady && !due))
            continue;
        uint64_t handed;
        if (!handed_out(eng, r, l, &handed, err))
            return false;
        if (steady)
            steady_sample(&w, clock_now(), handed, l->count);
        if (due && handed > l->reported) {
            progress_add(opt->progress, handed - l->reported);
            l->reported = handed;
        }
        if (due && feed->running)
            feed->running(feed->ctx, handed);
        if (due)
            last = clock_now();
    }
    if (steady)
        *steady = steady_rate(&w, l->count);
    return cuda_event_wait(r->queue->launch_done, "cuLaunchKernel(" KERNEL_NAME ")", err);
}

/* A launch that has ended: its tallies into *acc and its photons to the
 * feed.  Stopped, it simulated the photons its counter had handed out: a
 * prefix of its range. */
static bool finish_launch(const gpu_run *r, launch *l, const gpu_options *opt,
                          const photon_feed *feed, tally_set *acc, tm_error *err)
{
    uint64_t simulated = l->count;
    if (l->stopping) { /* the counter, after the kernel: every index below it was simulated */
        uint64_t handed = 0;
        if (!cuda_download(r->queue->stream, &handed, r->next, sizeof handed, err))
            return false;
        simulated = handed < l->count ? handed : l->count;
    }
    progress_add(opt->progress, simulated - (l->reported < simulated ? l->reported : simulated));
    return collect(r, l->first, simulated, l->early.taken, opt, acc, err) &&
           (!feed->done || feed->done(feed->ctx, l->first, simulated, err));
}

/* The weight of one photon through a stack of glass: its whole weight, for
 * absorption set k (when there are sets) less what the set's mua absorbs on
 * the way (the reference's mua are 0: it is glass), as the CPU engine
 * scores it. */
static double glass_only_weight(const mci_run *run, const gpu_options *opt, int k)
{
    double w = 1.0 - optics_specular(run), extra = 0.0;
    for (int i = 1; opt->num_sets > 0 && i <= run->num_layers; i++)
        extra += opt->set_mua[(size_t)k * (size_t)run->num_layers + (size_t)i - 1] *
                 (run->layers[i].z1 - run->layers[i].z0);
    return opt->num_sets > 0 ? w * exp(-extra) : w;
}

/* The time bin of the straight crossing of a stack of glass (as the CPU
 * engine bins it: runtime/engine/cpu_photon.c). */
static size_t glass_only_time_bin(const mci_run *run)
{
    double flight = 0.0;
    for (int i = 1; i <= run->num_layers; i++)
        flight += (run->layers[i].z1 - run->layers[i].z0) * run->layers[i].n;
    double it = floor(flight / TIME_LIGHT_CM_PER_NS * (1.0 / run->time_dt));
    return it < (double)(run->time_nt - 1) ? (size_t)it : (size_t)(run->time_nt - 1);
}

/* With path lengths, the path of one photon through a stack of glass for
 * set k: its weight times each layer's thickness, in ring 0 of Tt_path, as
 * the CPU engine scores it; with derivatives, the same as each layer's path
 * term in ring 0 and angle 0 of Tt's, and with time bins in ring 0's time
 * bin of the crossing (no interaction: no count, no score). */
static void glass_only_paths(const mci_run *run, double w, uint64_t count, tally_set *acc)
{
    size_t time_row =
        acc->tt_jt ? glass_only_time_bin(run) * (size_t)run->num_layers * OUTPUT_TERMS : 0;
    for (int i = 1; i <= run->num_layers; i++) {
        tally_acc_t units =
            (tally_acc_t)count * tally_path_units(w * (run->layers[i].z1 - run->layers[i].z0));
        size_t term = (size_t)(i - 1) * OUTPUT_TERMS + OUTPUT_TERM_PATH;
        if (acc->tt_path)
            acc->tt_path[i - 1] += units;
        if (acc->tt_jr)
            acc->tt_jr[term] += units;
        if (acc->tt_ja)
            acc->tt_ja[term] += units;
        if (acc->tt_jt)
            acc->tt_jt[time_row + term] += units;
    }
}

/* An optics set's weight sums of count photons through a stack of glass,
 * of reference weight w_ref and the set's w (as the CPU engine sums an
 * escape's). */
static void glass_only_weights(double w_ref, double w, uint64_t count, tally_set *acc)
{
    if (!acc->set_w)
        return;
    acc->set_w[OUTPUT_SET_WEIGHT_SQUARES] += (tally_acc_t)count * tally_path_units(w * w);
    acc->set_w[OUTPUT_REF_WEIGHTS] += (tally_acc_t)count * tally_path_units(w_ref);
    acc->set_w[OUTPUT_REF_WEIGHT_SQUARES] += (tally_acc_t)count * tally_path_units(w_ref * w_ref);
}

/* A stack that is one glass layer: every photon leaves straight through the
 * bottom with weight 1 - Rsp, as the CPU engine scores it.  (A run's kernel
 * only: a batch holds no such run, gpu_simulate_feed.) */
static bool glass_only(const mci_run *run, const gpu_options *opt, const photon_feed *feed,
                       tally_set *acc, tm_error *err)
{
    uint64_t first, count;
    int sets = opt->num_sets > 0 ? opt->num_sets : 1;
    while (!(opt->stop && *opt->stop) && feed->take(feed->ctx, &first, &count)) {
        for (int k = 0; k < sets; k++) {
            double w = glass_only_weight(run, opt, k);
            uint64_t units = fixed_point_from_weight(w);
            acc[k].tt_ra[0] += (tally_acc_t)count * units;
            if (acc[k].tt_rt) /* ring 0, the time of the stack's optical depth */
                acc[k].tt_rt[glass_only_time_bin(run)] += (tally_acc_t)count * units;
            acc[k].photons += count;
            glass_only_paths(run, w, count, &acc[k]);
            glass_only_weights(1.0 - optics_specular(run), w, count, &acc[k]);
        }
        progress_add(opt->progress, count);
        if (feed->done && !feed->done(feed->ctx, first, count, err))
            return false;
    }
    return true;
}

/* The launch loop: a launch per range the feed hands out, each run to its
 * end (or stopped) and collected before the next. */
static bool run_launches(gpu_engine *eng, const gpu_run *r, const kernel_spec *spec,
                         const launch_plan *plan, const gpu_options *opt, const photon_feed *feed,
                         tally_set *acc, gpu_stats *stats, tm_error *err)
{
    launch l;
    memset(&l, 0, sizeof l);
    while (!(opt->stop && *opt->stop) && feed->take(feed->ctx, &l.first, &l.count)) {
        if (l.count > gpu_launch_photons(opt, spec)) {
            error_set(err, NULL, 0,
                      "a launch of %" PRIu64 " photons: this kernel takes at most %" PRIu64,
                      l.count, gpu_launch_photons(opt, spec));
            return false;
        }
        double *steady =
            opt->measure_steady && stats->launches == 0 ? &stats->steady_photons_per_second : NULL;
        bool ok = launch_async(eng, r, &l, spec, plan, opt, err) &&
                  early_begin(r, &l, spec, opt, err) &&
                  await_launch(eng, r, &l, opt, feed, acc, steady, err) &&
                  finish_launch(r, &l, opt, feed, acc, err);
        early_end(&l.early);
        if (!ok)
            return false;
        stats->launches++;
    }
    return true;
}

/* What a batch kernel cannot run, and a run's kernel more than one part
 * of: said before anything is launched. */
static bool check_batch(const photon_batch *b, const kernel_spec *spec, tm_error *err)
{
    if (!spec->batch && b->count != 1) {
        error_set(err, NULL, 0, "%d runs in one launch need a batch kernel (spec_for_batch)",
                  b->count);
        return false;
    }
    for (int k = 0; spec->batch && k < b->count; k++)
        if (batch_run_glass_only(b->parts[k].run)) {
            error_set(err, NULL, 0,
                      "a batch kernel cannot run a stack of glass alone (run it "
                      "by itself)");
            return false;
        }
    return true;
}

output_grid gpu_spec_options(const kernel_spec *spec, const mci_run *run)
{
    return (output_grid){.num_layers = spec->sets_paths ? run->num_layers : 0,
                         .jacobian_layers = spec->sets_jacobian ? run->num_layers : 0,
                         .set_weights = spec->sets_optics > 0 ? OUTPUT_SET_WEIGHTS : 0};
}

bool gpu_acc_add_options(const photon_batch *b, const kernel_spec *spec, const gpu_options *opt,
                         tally_set *acc, tm_error *err)
{
    int sets = b->slots * (opt->num_sets > 0 ? opt->num_sets : 1);
    output_grid options = gpu_spec_options(spec, b->parts[0].run);
    bool any = options.num_layers > 0 || options.jacobian_layers > 0 || options.set_weights > 0;
    for (int t = 0; any && t < sets; t++)
        if (!tally_set_add_options(&acc[t], &options)) {
            error_set(err, NULL, 0, "out of memory for the path and derivative tallies");
            return false;
        }
    return true;
}

/* A run's time bins and fiber: the kernel's must be the run's (a batch
 * kernel has none: spec_validate), and acc gets their tallies. */
static bool timed_prepare(const photon_batch *b, const kernel_spec *spec, tally_set *acc,
                          tm_error *err)
{
    for (int k = 0; k < b->count; k++) {
        const mci_run *run = b->parts[k].run;
        problem_shape own = run_view_shape(run, true);
        if (spec->time_bins != own.time_bins || spec->fiber != own.fiber ||
            spec->fibers != own.fibers) {
            error_set(err, NULL, 0,
                      "the kernel's time bins and fiber detectors (%d, %d) are not the run's (%d, "
                      "%d)",
                      spec->time_bins, spec->fibers > 0 ? spec->fibers : (int)spec->fiber,
                      own.time_bins, run->fiber_count);
            return false;
        }
    }
    if (spec->batch)
        return true;
    const mci_run *run = b->parts[0].run;
    output_grid timed = run_options_lengths(run);
    timed.num_layers = timed.jacobian_layers = timed.set_weights = 0;   /* gpu_acc_add_options' */
    for (int t = 0; t < (spec->num_sets > 0 ? spec->num_sets : 1); t++) /* each set's */
        if (!tally_set_add_options(&acc[t], &timed)) {
            error_set(err, NULL, 0, "out of memory for the time or detector tallies");
            return false;
        }
    return true;
}

/* Spatial frequencies: a run's own kernel scores as many as its shape
 * says (templates/fx.cu; a batch's and the sets' none: spec_validate), so
 * a run whose count is not the kernel's is refused rather than given none;
 * timed_prepare gives acc their tallies. */
static bool check_fx(const photon_batch *b, const kernel_spec *spec, tm_error *err)
{
    for (int k = 0; k < b->count; k++)
        if (b->parts[k].run->fx_count != spec->fx) {
            error_set(err, NULL, 0,
                      "the kernel scores %d spatial frequencies, the run asks for %d (a batch's "
                      "or the sets' kernel scores none: run it alone, or on the CPU engine)",
                      spec->fx, b->parts[k].run->fx_count);
            return false;
        }
    return true;
}

/* Modulation frequencies: a run's own kernel scores as many as its shape
 * says (templates/timed.cu; a batch's and the sets' none: spec_validate),
 * so a run whose count is not the kernel's is refused rather than given
 * none; timed_prepare gives acc their tallies. */
static bool check_mod(const photon_batch *b, const kernel_spec *spec, tm_error *err)
{
    for (int k = 0; k < b->count; k++)
        if (b->parts[k].run->mod_count != spec->mod) {
            error_set(err, NULL, 0,
                      "the kernel scores %d modulation frequencies, the run asks for %d (a "
                      "batch's or the sets' kernel scores none: run it alone, or on the CPU "
                      "engine)",
                      spec->mod, b->parts[k].run->mod_count);
            return false;
        }
    return true;
}

/* The Cartesian grid and the oblique beam: no kernel scores or launches
 * them (the CPU engine does), so a run that asks is refused rather than
 * given none, or another source. */
static bool check_xy(const photon_batch *b, tm_error *err)
{
    for (int k = 0; k < b->count; k++) {
        const mci_run *run = b->parts[k].run;
        if (run->xy_nx > 0 || source_breaks_symmetry(&run->source)) {
            error_set(err, NULL, 0, "%s: the CPU engine alone %s it: run it with the CPU engine",
                      run->xy_nx > 0 ? "the Cartesian grid (Rd_xy, Tt_xy, A_xz)"
                                     : "the oblique beam",
                      run->xy_nx > 0 ? "scores" : "launches");
            return false;
        }
    }
    return true;
}

bool gpu_simulate_feed(gpu_engine *eng, const photon_batch *batch, const kernel_spec *spec,
                       const gpu_options *opt, const photon_feed *feed, tally_set *acc,
                       gpu_stats *stats, tm_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (!check_xy(batch, err) || !check_mod(batch, spec, err) || !check_fx(batch, spec, err) ||
        !check_batch(batch, spec, err) || !gpu_acc_add_options(batch, spec, opt, acc, err) ||
        !timed_prepare(batch, spec, acc, err))
        return false;
    const mci_run *run = batch->parts[0].run;
    if (!spec->batch && batch_run_glass_only(run) && !source_is_pencil(&run->source)) {
        error_set(err, NULL, 0,
                  "a stack of glass alone with a %s source: every photon leaves at once; run it "
                  "on the CPU engine",
                  source_kind_name(run->source.kind));
        return false;
    }
    if (!spec->batch && batch_run_glass_only(run))
        return glass_only(run, opt, feed, acc, err);
    launch_plan plan;
    gpu_run r;
    if (!load_module(eng, spec, opt, stats, err) ||
        (!spec->batch && !upload_layers(eng, run, spec, err)))
        return false;
    launch_target target = {
        .dev = &eng->dev, .mod = eng->mod, .kernel = KERNEL_NAME, .key = eng->key};
    if (!launch_plan_make(&target, spec, batch, opt->grid, stats, &plan, err))
        return false;
    if (!run_open(eng, batch, spec, opt, &r, err))
        return false;
    double start = clock_now();
    bool ok = run_launches(eng, &r, spec, &plan, opt, feed, acc, stats, err);
    stats->kernel_seconds = clock_now() - start;
    run_close(&r);
    return ok;
}

bool gpu_batch_fits(const gpu_engine *eng, const kernel_spec *spec, int slots, int parts)
{
    return spec_batch_bytes(spec, slots, parts) <=
           spec_batch_budget(spec, eng->dev.shared_per_sm, eng->dev.max_threads_per_sm);
}

uint64_t gpu_launch_photons(const gpu_options *opt, const kernel_spec *spec)
{
    bool path_units = spec->sets_paths || spec->sets_jacobian || spec->sets_optics > 0;
    uint64_t most = path_units ? TALLY_PATH_BATCH_MAX_PHOTONS : TALLY_BATCH_MAX_PHOTONS;
    uint64_t n = opt->max_launch_photons ? opt->max_launch_photons : most;
    return n < most ? n : most;
}

/* gpu_simulate's feed: one range, in launches of at most `per_launch`. */
typedef struct range_feed {
    uint64_t next, end, per_launch;
} range_feed;

static bool take_from_range(void *ctx, uint64_t *first, uint64_t *count)
{
    range_feed *f = ctx;
    if (f->next >= f->end)
        return false;
    *first = f->next;
    *count = f->end - f->next < f->per_launch ? f->end - f->next : f->per_launch;
    f->next += *count;
    return true;
}

bool gpu_simulate(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                  const gpu_options *opt, uint64_t first, uint64_t count, tally_set *acc,
                  gpu_stats *stats, tm_error *err)
{
    photon_batch batch;
    if (!photon_batch_single(&batch, run, first, count, err))
        return false;
    range_feed range = {0, count, gpu_launch_photons(opt, spec)};
    photon_feed feed = {.take = take_from_range, .ctx = &range};
    bool ok = gpu_simulate_feed(eng, &batch, spec, opt, &feed, acc, stats, err);
    photon_batch_free(&batch);
    return ok;
}
