/* The GPU engine's host side: spec -> source -> cubin -> module (kept while
 * the spec stays the same), layer table upload, and a loop of bounded
 * launches whose integer tallies are added on the host.
 *
 * Stream discipline (DESIGN.md section 11).  One stream, eng->stream, owns
 * every operation on the engine's device memory: the uploads of the
 * multiplier and layer tables, the zeroing of a run's tallies, the launches
 * and the downloads, in the order they are queued; so each sees the one
 * before it finished, whatever else runs on the GPU.  The host reads tallies
 * only through cuda_download on that stream, which returns after everything
 * queued before it, the kernel included.  The only other stream,
 * eng->monitor, reads nothing but the photon counter while a kernel runs,
 * for the progress line and the tuner's rate: its value never reaches a
 * tally.  Each gpu_simulate call allocates its own device tallies (gpu_run)
 * and frees them at its end, so no buffer is shared between runs.
 *
 * Why: until 2026-11 the tallies were zeroed with cuMemsetD8 on the legacy
 * stream 0, which returns before the device has done it and is not ordered
 * with a non-blocking stream.  Alone on the GPU the memset always finished
 * before the next launch began; with another process on the GPU the context
 * got its time slice with both pending, the kernel started first and its
 * first deposits were wiped (missing weight in Rd and A, different tallies
 * for every launch split: issue 8, tests/test_gpu_stress.sh). */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "fixed_point.h"
#include "optics.h"
#include "render.h"
#include "rng.h"

#define KERNEL_NAME         "tmcml_kernel"
/* One launch per batch of photons: every launch ends with a tail of a few
 * long-lived photons on an otherwise idle GPU (on the intralipid slab a lone
 * photon can take 10^6 steps, ~1 s), so launches are few and long. */
#define POLL_SECONDS        0.002
#define STEADY_POLL_SECONDS 0.0002
#define STEADY_FROM         0.2
#define STEADY_TO           0.8
#define PROGRESS_SECONDS    0.1

/* Mirrors layer_t in templates/layers.cu, field for field. */
typedef struct gpu_layer {
    float n, mua_over_mut, mut, inv_mut, g, z0, z1, cos_crit0, cos_crit1;
    int glass;
} gpu_layer;

/* The kernel's scalar tallies (counts[], templates/score.cu): steps, then
 * trapped photons and their weight in units. */
enum { COUNT_STEPS, COUNT_TRAPPED_PHOTONS, COUNT_TRAPPED_UNITS, RUN_COUNTS };

/* The device tallies of one gpu_simulate call, and its photon counter. */
typedef struct gpu_run {
    cuda_ptr a_rz, rd_ra, tt_ra, counts;
    cuda_ptr next; /* photon indices handed out by the current launch */
    cuda_ptr stop; /* set (by the monitor stream) to stop handing them out */
    size_t rz_bytes, ra_bytes;
} gpu_run;

struct gpu_engine {
    cuda_driver *drv;
    cuda_context *ctx;
    cuda_device_info dev;
    cuda_stream *stream;        /* owns all device memory traffic (see the top) */
    cuda_stream *monitor;       /* reads the photon counter while a kernel runs */
    cuda_event *counter_zeroed; /* recorded after a launch's counter is zeroed */
    cuda_event *launch_done;    /* recorded after each launch */
    cuda_ptr multipliers;
    cuda_module *mod; /* module of spec `key`, or NULL */
    char *key;        /* spec_key of the loaded module (malloc'd), or NULL */
    int registers, spill_bytes;
};

const cuda_device_info *gpu_engine_device(const gpu_engine *eng) { return &eng->dev; }

bool gpu_engine_usable(const gpu_engine *eng) { return !cuda_context_broken(eng->ctx); }

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
         cuda_stream_create(eng->ctx, &eng->stream, err) &&
         cuda_stream_create(eng->ctx, &eng->monitor, err) &&
         cuda_event_create(eng->ctx, &eng->counter_zeroed, err) &&
         cuda_event_create(eng->ctx, &eng->launch_done, err) &&
         cuda_alloc(eng->ctx, table, &eng->multipliers, err) &&
         cuda_upload(eng->stream, eng->multipliers, rng_mwc_multipliers, table, err);
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
        cuda_stream_destroy(eng->stream);
        cuda_stream_destroy(eng->monitor);
        cuda_event_destroy(eng->counter_zeroed);
        cuda_event_destroy(eng->launch_done);
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
    double t0 = progress_now();
    bool ok = render_kernel(spec, opt->template_dir, &src, err);
    double t1 = progress_now();
    ok = ok && compile_cubin(&src, &copt, &cubin, err);
    double t2 = progress_now();
    ok = ok && cuda_module_load(eng->ctx, cubin.cubin, &eng->mod, err);
    double t3 = progress_now();
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
    if (spec->knobs.layer_placement == SPEC_LAYERS_IMMEDIATE)
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
        error_set(err, NULL, 0,
                  "kernel layer table is %zu bytes, the host's %zu: templates/layers.cu "
                  "and runtime/engine/gpu.c disagree",
                  size, bytes);
        return false;
    }
    return cuda_upload(eng->stream, ptr, table, bytes, err);
}

/* Queues the zeroing of the run's tallies on the engine's stream: the next
 * launch, queued after it, cannot start before it is done. */
static bool zero_tallies(gpu_engine *eng, const gpu_run *r, tm_error *err)
{
    return cuda_memset_zero(eng->stream, r->a_rz, r->rz_bytes, err) &&
           cuda_memset_zero(eng->stream, r->rd_ra, r->ra_bytes, err) &&
           cuda_memset_zero(eng->stream, r->tt_ra, r->ra_bytes, err) &&
           cuda_memset_zero(eng->stream, r->counts, RUN_COUNTS * sizeof(uint64_t), err);
}

static bool run_open(gpu_engine *eng, const mci_run *run, gpu_run *r, tm_error *err)
{
    memset(r, 0, sizeof *r);
    r->rz_bytes = (size_t)run->nr * run->nz * sizeof(uint64_t);
    r->ra_bytes = (size_t)run->nr * run->na * sizeof(uint64_t);
    return cuda_alloc(eng->ctx, r->rz_bytes, &r->a_rz, err) &&
           cuda_alloc(eng->ctx, r->ra_bytes, &r->rd_ra, err) &&
           cuda_alloc(eng->ctx, r->ra_bytes, &r->tt_ra, err) &&
           cuda_alloc(eng->ctx, RUN_COUNTS * sizeof(uint64_t), &r->counts, err) &&
           cuda_alloc(eng->ctx, sizeof(uint64_t), &r->next, err) &&
           cuda_alloc(eng->ctx, sizeof(uint32_t), &r->stop, err) && zero_tallies(eng, r, err);
}

/* Frees the run's buffers once the engine's stream has finished with them. */
static void run_close(gpu_engine *eng, gpu_run *r)
{
    tm_error ignored;
    cuda_stream_wait(eng->stream, "the end of a run", &ignored);
    cuda_ptr all[] = {r->a_rz, r->rd_ra, r->tt_ra, r->counts, r->next, r->stop};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        cuda_free(eng->ctx, all[i]);
    memset(r, 0, sizeof *r);
}

/* The device tallies of `photons` photons go into *acc (each download waits
 * for the launch before it); then they are zeroed for the next launch. */
static bool collect(gpu_engine *eng, const mci_run *run, const gpu_run *r, uint64_t photons,
                    tally_set *acc, tm_error *err)
{
    tally_batch batch;
    if (!tally_batch_init(&batch, run->nr, run->nz, run->na)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    uint64_t counts[RUN_COUNTS];
    bool ok = cuda_download(eng->stream, batch.a_rz, r->a_rz, r->rz_bytes, err) &&
              cuda_download(eng->stream, batch.rd_ra, r->rd_ra, r->ra_bytes, err) &&
              cuda_download(eng->stream, batch.tt_ra, r->tt_ra, r->ra_bytes, err) &&
              cuda_download(eng->stream, counts, r->counts, sizeof counts, err);
    if (ok) {
        batch.steps = counts[COUNT_STEPS];
        batch.trapped_photons = counts[COUNT_TRAPPED_PHOTONS];
        batch.trapped_units = counts[COUNT_TRAPPED_UNITS];
        tally_set_add_batch(acc, &batch, photons);
    }
    tally_batch_free(&batch);
    return ok && zero_tallies(eng, r, err);
}

typedef struct launch_plan {
    unsigned grid, block;
    size_t shared;
} launch_plan;

static bool plan_launches(gpu_engine *eng, const kernel_spec *spec, unsigned grid, gpu_stats *stats,
                          launch_plan *plan, tm_error *err)
{
    plan->block = (unsigned)spec->knobs.block_size;
    /* Dynamic shared memory: the tile and the edge bins (the shared layer
     * table is static). */
    plan->shared = spec_dynamic_shared_bytes(spec);
    int per_sm = 0;
    if (!cuda_occupancy(eng->mod, KERNEL_NAME, plan->block, plan->shared, &per_sm, err))
        return false;
    if (per_sm < 1) {
        error_set(err, NULL, 0,
                  "kernel %s cannot run on %s: no block of %u threads with %zu bytes "
                  "of shared memory fits on an SM",
                  eng->key, eng->dev.name, plan->block, plan->shared);
        return false;
    }
    /* A clustered kernel (__cluster_dims__) runs whole clusters: the grid is
     * a multiple of the cluster size. */
    unsigned cluster = (unsigned)spec_cluster_blocks(spec);
    if (grid)
        plan->grid = (grid + cluster - 1) / cluster * cluster;
    else
        plan->grid = (unsigned)(per_sm * eng->dev.sm_count) / cluster * cluster;
    if (plan->grid < cluster)
        plan->grid = cluster;
    stats->grid = plan->grid;
    stats->block = plan->block;
    stats->blocks_per_sm = per_sm;
    return true;
}

/* Queues: the photon counter zeroed, the kernel, the launch_done event.  The
 * monitor stream's reads of the counter wait for its zeroing (counter_zeroed),
 * so progress never shows the last launch's count or uninitialised memory. */
static bool launch_async(gpu_engine *eng, const mci_run *run, const gpu_run *r,
                         const launch_plan *plan, const gpu_options *opt, uint64_t first,
                         uint64_t count, tm_error *err)
{
    uint64_t seed = opt->seed;
    float start_weight = (float)(1.0 - optics_specular(run));
    int first_layer = optics_first_layer(run);
    unsigned max_steps = opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON;
    cuda_ptr next = r->next, stop = r->stop, a_rz = r->a_rz, rd_ra = r->rd_ra, tt_ra = r->tt_ra,
             counts = r->counts;
    void *args[] = {
        &first, &count, &seed, &start_weight, &first_layer, &max_steps, &eng->multipliers,
        &next,  &stop,  &a_rz, &rd_ra,        &tt_ra,       &counts};
    return cuda_memset_zero(eng->stream, r->next, sizeof(uint64_t), err) &&
           cuda_memset_zero(eng->stream, r->stop, sizeof(uint32_t), err) &&
           cuda_event_record(eng->counter_zeroed, eng->stream, err) &&
           cuda_stream_wait_event(eng->monitor, eng->counter_zeroed, err) &&
           cuda_launch(eng->mod, KERNEL_NAME, plan->grid, plan->block, plan->shared, args,
                       eng->stream, err) &&
           cuda_event_record(eng->launch_done, eng->stream, err);
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

/* Asks the running launch to stop handing out photons: a copy to device
 * memory on the monitor stream (a copy engine's work, so it does not wait
 * for the kernel, which holds every SM). */
static bool request_stop(gpu_engine *eng, const gpu_run *r, tm_error *err)
{
    static const uint32_t one = 1;
    return cuda_upload(eng->monitor, r->stop, &one, sizeof one, err);
}

/* Runs one launch of count photons to its end, reporting progress from the
 * kernel's photon counter (photons handed out) while it runs; *steady (may
 * be NULL) gets the steady-state rate.  *simulated: count, or fewer when
 * opt->stop asked the launch to stop (the photons handed out by then). */
static bool run_launch(gpu_engine *eng, const mci_run *run, const gpu_run *r,
                       const launch_plan *plan, const gpu_options *opt, uint64_t first,
                       uint64_t count, double *steady, uint64_t *simulated, tm_error *err)
{
    if (!launch_async(eng, run, r, plan, opt, first, count, err))
        return false;
    uint64_t reported = 0;
    double last = progress_now();
    steady_window w = {last, 0, -1, -1};
    bool done = false, stopping = false;
    while (!done) {
        sleep_seconds(steady ? STEADY_POLL_SECONDS : POLL_SECONDS);
        if (!cuda_event_done(eng->launch_done, &done, err))
            return false;
        if (!done && !stopping && opt->stop && *opt->stop) {
            if (!request_stop(eng, r, err))
                return false;
            stopping = true;
        }
        bool progress_due = opt->progress && progress_now() - last >= PROGRESS_SECONDS;
        if (done || (!steady && !progress_due))
            continue;
        uint64_t handed = 0;
        /* A read while the kernel adds to it: only for display and rate. */
        if (!cuda_download(eng->monitor, &handed, r->next, sizeof handed, err))
            return false;
        handed = handed < count ? handed : count;
        if (steady)
            steady_sample(&w, progress_now(), handed, count);
        if (progress_due && handed > reported) {
            progress_add(opt->progress, handed - reported);
            reported = handed;
        }
        if (progress_due)
            last = progress_now();
    }
    if (steady)
        *steady = steady_rate(&w, count);
    if (!cuda_event_wait(eng->launch_done, "cuLaunchKernel(" KERNEL_NAME ")", err))
        return false;
    *simulated = count;
    if (stopping) { /* the counter, after the kernel: every index below it was simulated */
        uint64_t handed = 0;
        if (!cuda_download(eng->stream, &handed, r->next, sizeof handed, err))
            return false;
        *simulated = handed < count ? handed : count;
    }
    progress_add(opt->progress, *simulated - reported);
    return true;
}

/* A stack that is one glass layer: every photon leaves straight through the
 * bottom with weight 1 - Rsp, as the CPU engine scores it. */
static void glass_only(const mci_run *run, uint64_t count, tally_set *acc)
{
    acc->tt_ra[0] += (tally_acc_t)count * fixed_point_from_weight(1.0 - optics_specular(run));
    acc->photons += count;
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
    gpu_run r;
    if (!load_module(eng, spec, opt, stats, err) || !upload_layers(eng, run, spec, err) ||
        !plan_launches(eng, spec, opt->grid, stats, &plan, err))
        return false;
    if (!run_open(eng, run, &r, err)) {
        run_close(eng, &r);
        return false;
    }
    /* Launches of at most TALLY_BATCH_MAX_PHOTONS (or max_launch_photons),
     * each collected into the 128-bit tallies: no 64-bit entry can overflow. */
    uint64_t per_launch =
        opt->max_launch_photons ? opt->max_launch_photons : TALLY_BATCH_MAX_PHOTONS;
    if (per_launch > TALLY_BATCH_MAX_PHOTONS)
        per_launch = TALLY_BATCH_MAX_PHOTONS;
    double start = progress_now();
    uint64_t done = 0;
    bool ok = true;
    while (ok && done < count && !(opt->stop && *opt->stop)) {
        uint64_t n = count - done < per_launch ? count - done : per_launch, simulated = 0;
        double *steady =
            opt->measure_steady && done == 0 ? &stats->steady_photons_per_second : NULL;
        ok = run_launch(eng, run, &r, &plan, opt, first + done, n, steady, &simulated, err) &&
             collect(eng, run, &r, simulated, acc, err);
        done += simulated;
        stats->launches++;
        if (simulated < n)
            break; /* stopped */
    }
    stats->kernel_seconds = progress_now() - start;
    run_close(eng, &r);
    return ok;
}
