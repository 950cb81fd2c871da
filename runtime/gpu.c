/* The GPU engine's host side: spec -> source -> cubin -> module (kept while
 * the spec stays the same), layer table upload, and a loop of bounded
 * launches whose integer tallies are added on the host. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "fixed_point.h"
#include "optics.h"
#include "render.h"
#include "rng.h"

#define KERNEL_NAME "tmcml_kernel"
#define DEFAULT_LAUNCH_SECONDS 0.5
/* Launches alternate between two streams, so the tail of one (the last
 * long-lived photons, a few threads busy) overlaps the start of the next: on
 * the intralipid slab a lone photon can take 10^6 steps. */
#define STREAMS 2

/* Mirrors layer_t in templates/layers.cu, field for field. */
typedef struct gpu_layer {
    float n, mua_over_mut, mut, inv_mut, g, z0, z1, cos_crit0, cos_crit1;
    int glass;
} gpu_layer;

typedef struct gpu_buffers {
    cuda_ptr a_rz, rd_ra, tt_ra, steps;
    cuda_ptr next[STREAMS]; /* each stream's photon counter */
    size_t rz_bytes, ra_bytes;
} gpu_buffers;

struct gpu_engine {
    cuda_driver *drv;
    cuda_context *ctx;
    cuda_device_info dev;
    cuda_ptr multipliers;
    cuda_stream *streams[STREAMS];
    cuda_module *mod;      /* module of spec `key`, or NULL */
    char key[8192];
    int registers;
    gpu_buffers buf;
};

const cuda_device_info *gpu_engine_device(const gpu_engine *eng) { return &eng->dev; }

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
        error_set(err, NULL, 0, "--gpu %d: there are %d GPUs (tmcml devices lists them)", device,
                  cuda_device_count(eng->drv));
        ok = false;
    }
    /* The context first: the query then reuses it instead of creating and
     * destroying one of its own. */
    ok = ok && cuda_context_open(eng->drv, device, &eng->ctx, err) &&
         cuda_device_query(eng->drv, device, &eng->dev, err) &&
         cuda_stream_create(eng->ctx, &eng->streams[0], err) &&
         cuda_stream_create(eng->ctx, &eng->streams[1], err) &&
         cuda_alloc(eng->ctx, table, &eng->multipliers, err) &&
         cuda_upload(eng->ctx, eng->multipliers, rng_mwc_multipliers, table, err);
    if (!ok) {
        gpu_engine_close(eng);
        return false;
    }
    *out = eng;
    return true;
}

static void free_buffers(gpu_engine *eng)
{
    gpu_buffers *b = &eng->buf;
    cuda_ptr *all[] = {&b->a_rz, &b->rd_ra, &b->tt_ra, &b->next[0], &b->next[1], &b->steps};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (*all[i])
            cuda_free(eng->ctx, *all[i]);
    memset(b, 0, sizeof *b);
}

void gpu_engine_close(gpu_engine *eng)
{
    if (!eng)
        return;
    if (eng->ctx) {
        free_buffers(eng);
        if (eng->mod)
            cuda_module_unload(eng->mod);
        if (eng->multipliers)
            cuda_free(eng->ctx, eng->multipliers);
        for (int i = 0; i < STREAMS; i++)
            cuda_stream_destroy(eng->streams[i]);
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
    char key[sizeof eng->key];
    spec_key(spec, key, sizeof key);
    if (eng->mod && strcmp(key, eng->key) == 0) {
        stats->cubin_cached = true;
        stats->registers = eng->registers;
        return true;
    }
    if (eng->mod) {
        cuda_module_unload(eng->mod);
        eng->mod = NULL;
    }
    render_output src = {0};
    compile_result cubin = {0};
    compile_options copt = {.arch = spec->arch, .cache_dir = opt->cache_dir, .verbose = opt->verbose};
    bool ok = render_kernel(spec, opt->template_dir, &src, err) &&
              compile_cubin(&src, &copt, &cubin, err) &&
              cuda_module_load(eng->ctx, cubin.cubin, &eng->mod, err);
    if (ok) {
        snprintf(eng->key, sizeof eng->key, "%s", key);
        eng->registers = cubin.registers;
        stats->compile_seconds = cubin.seconds;
        stats->cubin_cached = cubin.from_cache;
        stats->registers = cubin.registers;
        if (opt->verbose)
            fprintf(stderr, "tmcml: kernel %s: %s, %d registers, %.2f s\n", key,
                    cubin.from_cache ? "from the cubin cache" : "compiled", cubin.registers,
                    cubin.seconds);
    }
    compile_result_free(&cubin);
    render_output_free(&src);
    return ok;
}

static void to_gpu_layer(const mci_layer *l, gpu_layer *g)
{
    double mut = l->mua + l->mus;
    g->n = (float)l->n;
    g->mua_over_mut = mut > 0 ? (float)(l->mua / mut) : 0.0f;
    g->mut = (float)mut;
    g->inv_mut = mut > 0 ? (float)(1.0 / mut) : 0.0f;
    g->g = (float)l->g;
    g->z0 = (float)l->z0;
    g->z1 = (float)l->z1;
    g->cos_crit0 = (float)l->cos_crit0;
    g->cos_crit1 = (float)l->cos_crit1;
    g->glass = mci_layer_is_glass(l);
}

/* The optical properties are data: uploaded for every run. */
static bool upload_layers(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                          tm_error *err)
{
    if (spec->layer_placement == SPEC_LAYERS_IMMEDIATE)
        return true;
    gpu_layer table[SPEC_MAX_LAYERS + 2];
    size_t bytes = (size_t)(run->num_layers + 2) * sizeof *table;
    for (int i = 0; i < run->num_layers + 2; i++)
        to_gpu_layer(&run->layers[i], &table[i]);
    cuda_ptr ptr;
    size_t size;
    if (!cuda_module_global(eng->mod, "tmcml_layers", &ptr, &size, err))
        return false;
    if (size != bytes) {
        error_set(err, NULL, 0, "kernel layer table is %zu bytes, the host's %zu: templates/layers.cu "
                  "and runtime/gpu.c disagree", size, bytes);
        return false;
    }
    return cuda_upload(eng->ctx, ptr, table, bytes, err);
}

static bool prepare_buffers(gpu_engine *eng, const mci_run *run, tm_error *err)
{
    gpu_buffers *b = &eng->buf;
    size_t rz = (size_t)run->nr * run->nz * sizeof(uint64_t);
    size_t ra = (size_t)run->nr * run->na * sizeof(uint64_t);
    if (b->steps && (b->rz_bytes != rz || b->ra_bytes != ra))
        free_buffers(eng);
    if (!b->steps) {
        if (!cuda_alloc(eng->ctx, rz, &b->a_rz, err) || !cuda_alloc(eng->ctx, ra, &b->rd_ra, err) ||
            !cuda_alloc(eng->ctx, ra, &b->tt_ra, err) ||
            !cuda_alloc(eng->ctx, sizeof(uint64_t), &b->next[0], err) ||
            !cuda_alloc(eng->ctx, sizeof(uint64_t), &b->next[1], err) ||
            !cuda_alloc(eng->ctx, sizeof(uint64_t), &b->steps, err))
            return false;
        b->rz_bytes = rz;
        b->ra_bytes = ra;
    }
    return cuda_memset_zero(eng->ctx, b->a_rz, rz, err) &&
           cuda_memset_zero(eng->ctx, b->rd_ra, ra, err) &&
           cuda_memset_zero(eng->ctx, b->tt_ra, ra, err) &&
           cuda_memset_zero(eng->ctx, b->steps, sizeof(uint64_t), err);
}

/* The device tallies of `photons` photons go into *acc; the device's are
 * zeroed for the next batch. */
static bool collect(gpu_engine *eng, const mci_run *run, uint64_t photons, tally_set *acc,
                    tm_error *err)
{
    gpu_buffers *b = &eng->buf;
    tally_batch batch;
    if (!tally_batch_init(&batch, run->nr, run->nz, run->na)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    bool ok = cuda_download(eng->ctx, batch.a_rz, b->a_rz, b->rz_bytes, err) &&
              cuda_download(eng->ctx, batch.rd_ra, b->rd_ra, b->ra_bytes, err) &&
              cuda_download(eng->ctx, batch.tt_ra, b->tt_ra, b->ra_bytes, err) &&
              cuda_download(eng->ctx, &batch.steps, b->steps, sizeof batch.steps, err);
    if (ok)
        tally_set_add_batch(acc, &batch, photons);
    tally_batch_free(&batch);
    return ok && prepare_buffers(eng, run, err);
}

typedef struct launch_plan {
    unsigned grid, block;
    size_t shared;
    uint64_t per_launch; /* photons of the next launch, adapted to launch_seconds */
} launch_plan;

static bool plan_launches(gpu_engine *eng, const kernel_spec *spec, unsigned grid,
                          gpu_stats *stats, launch_plan *plan, tm_error *err)
{
    plan->block = (unsigned)spec->block_size;
    /* Dynamic shared memory: the tile and the edge bins (the shared layer
     * table is static). */
    plan->shared = spec_dynamic_shared_bytes(spec);
    int per_sm = 0;
    if (!cuda_occupancy(eng->mod, KERNEL_NAME, plan->block, plan->shared, &per_sm, err))
        return false;
    if (per_sm < 1) {
        error_set(err, NULL, 0, "kernel %s cannot run on %s: no block of %u threads with %zu bytes "
                  "of shared memory fits on an SM", eng->key, eng->dev.name, plan->block,
                  plan->shared);
        return false;
    }
    plan->grid = grid ? grid : (unsigned)(per_sm * eng->dev.sm_count);
    plan->per_launch = (uint64_t)plan->grid * plan->block * 4;
    stats->grid = plan->grid;
    stats->block = plan->block;
    stats->blocks_per_sm = per_sm;
    return true;
}

static bool launch_async(gpu_engine *eng, const mci_run *run, const launch_plan *plan, int stream,
                         uint64_t seed, uint64_t first, uint64_t count, tm_error *err)
{
    gpu_buffers *b = &eng->buf;
    float start_weight = (float)(1.0 - optics_specular(run));
    int first_layer = optics_first_layer(run);
    void *args[] = {&first, &count, &seed, &start_weight, &first_layer, &eng->multipliers,
                    &b->next[stream], &b->a_rz, &b->rd_ra, &b->tt_ra, &b->steps};
    cuda_stream *st = eng->streams[stream];
    return cuda_memset_zero_async(st, b->next[stream], sizeof(uint64_t), err) &&
           cuda_launch_async(eng->mod, KERNEL_NAME, plan->grid, plan->block, plan->shared, args,
                             st, err);
}

/* A stack that is one glass layer: every photon leaves straight through the
 * bottom with weight 1 - Rsp, as the CPU engine scores it. */
static void glass_only(const mci_run *run, uint64_t count, tally_set *acc)
{
    acc->tt_ra[0] += (tally_acc_t)count * fixed_point_from_weight(1.0 - optics_specular(run));
    acc->photons += count;
}

/* Photons per launch: what the GPU does in launch_seconds at the rate seen
 * so far, at least one per resident thread. */
static uint64_t next_launch_size(double rate, double target, const launch_plan *plan)
{
    uint64_t min = (uint64_t)plan->grid * plan->block;
    double n = rate * target;
    if (n < (double)min)
        return min;
    return n > (double)(UINT64_C(1) << 31) ? UINT64_C(1) << 31 : (uint64_t)n;
}

/* Launches in flight, one per stream at most. */
typedef struct launch_queue {
    uint64_t pending[STREAMS]; /* photons of the launch on each stream */
    uint64_t finished;         /* photons whose launches completed */
    int launches;
} launch_queue;

static bool wait_stream(gpu_engine *eng, launch_queue *q, int s, const gpu_options *opt,
                        tm_error *err)
{
    if (!q->pending[s])
        return true;
    if (!cuda_stream_wait(eng->streams[s], "cuLaunchKernel(" KERNEL_NAME ")", err))
        return false;
    progress_add(opt->progress, q->pending[s]);
    q->finished += q->pending[s];
    q->pending[s] = 0;
    return true;
}

static bool wait_all(gpu_engine *eng, launch_queue *q, const gpu_options *opt, tm_error *err)
{
    for (int s = 0; s < STREAMS; s++)
        if (!wait_stream(eng, q, s, opt, err))
            return false;
    return true;
}

bool gpu_simulate(gpu_engine *eng, const mci_run *run, const kernel_spec *spec,
                  const gpu_options *opt, uint64_t first, uint64_t count, tally_set *acc,
                  gpu_stats *stats, tm_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (optics_first_layer(run) > run->num_layers) {
        glass_only(run, count, acc);
        progress_add(opt->progress, count);
        return true;
    }
    launch_plan plan;
    if (!load_module(eng, spec, opt, stats, err) || !upload_layers(eng, run, spec, err) ||
        !prepare_buffers(eng, run, err) || !plan_launches(eng, spec, opt->grid, stats, &plan, err))
        return false;
    double target = opt->launch_seconds > 0 ? opt->launch_seconds : DEFAULT_LAUNCH_SECONDS;
    launch_queue q = {{0}, 0, 0};
    uint64_t done = 0, in_batch = 0;
    double start = progress_now();
    bool ok = true;
    while (ok && done < count) {
        int s = q.launches % STREAMS;
        ok = wait_stream(eng, &q, s, opt, err);
        double elapsed = progress_now() - start;
        uint64_t want = q.finished ? next_launch_size((double)q.finished / elapsed, target, &plan)
                                   : plan.per_launch;
        uint64_t n = count - done < want ? count - done : want;
        if (ok && in_batch + n > TALLY_BATCH_MAX_PHOTONS) {
            ok = wait_all(eng, &q, opt, err) && collect(eng, run, in_batch, acc, err);
            in_batch = 0;
        }
        ok = ok && launch_async(eng, run, &plan, s, opt->seed, first + done, n, err);
        if (ok) {
            q.pending[s] = n;
            q.launches++;
            done += n;
            in_batch += n;
        }
    }
    ok = ok && wait_all(eng, &q, opt, err);
    stats->kernel_seconds = progress_now() - start;
    stats->launches = (uint64_t)q.launches;
    if (!ok) {
        tm_error ignored; /* drain what is still queued before reporting */
        wait_all(eng, &q, opt, &ignored);
        return false;
    }
    return collect(eng, run, in_batch, acc, err);
}
