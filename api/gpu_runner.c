/* The tuner's runner on a GPU (api/gpu_runner.h). */
#include "gpu_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "tally.h"

void gpu_runner_device(const cuda_device_info *info, tune_device *dev)
{
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "%s", info->name);
    dev->cc_major = info->cc_major;
    dev->cc_minor = info->cc_minor;
    dev->sm_count = info->sm_count;
    dev->shared_per_block_optin = info->shared_per_block_optin;
    dev->shared_per_sm = info->shared_per_sm;
    dev->max_threads_per_sm = info->max_threads_per_sm;
    dev->regs_per_sm = info->regs_per_sm;
    dev->driver_version = info->driver_version;
}

/* The pilot's map: A_rz counted deposit events (spec.count_deposits). */
static bool copy_deposits(const tally_set *t, tune_measurement *out, tm_error *err)
{
    size_t bins = (size_t)t->nr * (size_t)t->nz;
    out->deposits = malloc(bins * sizeof *out->deposits);
    if (!out->deposits) {
        error_set(err, NULL, 0, "out of memory for the pilot's deposit map");
        return false;
    }
    for (size_t i = 0; i < bins; i++)
        out->deposits[i] = (uint64_t)t->a_rz[i];
    out->nr = t->nr;
    out->nz = t->nz;
    return true;
}

static bool run(void *ctx, const mci_run *mrun, const kernel_spec *spec, uint64_t photons,
                uint64_t seed, tune_measurement *out, tm_error *err)
{
    const gpu_runner *g = ctx;
    memset(out, 0, sizeof *out);
    tally_set t;
    if (!tally_set_init(&t, mrun->nr, mrun->nz, mrun->na)) {
        error_set(err, NULL, 0, "out of memory for the pilot's tallies");
        return false;
    }
    gpu_options gopt = {.seed = seed,
                        .template_dir = g->template_dir,
                        .cache_dir = g->cache_dir,
                        .verbose = g->verbose,
                        .measure_steady = true};
    gpu_stats stats;
    bool ok = gpu_simulate(g->eng, mrun, spec, &gopt, 0, photons, &t, &stats, err) &&
              (!spec->count_deposits || copy_deposits(&t, out, err));
    if (ok) {
        out->digest = tally_set_digest(&t);
        out->steps = tally_count(t.steps);
        out->kernel_seconds = stats.kernel_seconds;
        out->steady_photons_per_second = stats.steady_photons_per_second;
        out->compile_seconds = stats.compile_seconds;
        out->registers = stats.registers;
        out->spill_bytes = stats.spill_bytes;
        out->blocks_per_sm = stats.blocks_per_sm;
    }
    tally_set_free(&t);
    return ok;
}

static bool usable(void *ctx) { return gpu_engine_usable(((const gpu_runner *)ctx)->eng); }

static double now(void *ctx)
{
    (void)ctx;
    return progress_now();
}

void gpu_runner_init(gpu_runner *g, gpu_engine *eng, const char *template_dir,
                     const char *cache_dir, bool verbose, tune_runner *runner)
{
    g->eng = eng;
    g->template_dir = template_dir;
    g->cache_dir = cache_dir;
    g->verbose = verbose;
    gpu_runner_device(gpu_engine_device(eng), &g->device);
    *runner =
        (tune_runner){.device = &g->device, .run = run, .usable = usable, .now = now, .ctx = g};
}
