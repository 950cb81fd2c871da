/* The tuner's runner on a GPU (driver/gpu_runner.h). */
#include "gpu_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hash.h"
#include "mua_sets.h"
#include "tally.h"

void gpu_runner_device(const cuda_device_info *info, tune_device *dev)
{
    memset(dev, 0, sizeof *dev);
    TUNE_DEVICE_IDENTITY_COPY(dev, info);
    dev->shared_per_sm = info->shared_per_sm;
    dev->max_threads_per_sm = info->max_threads_per_sm;
    dev->regs_per_sm = info->regs_per_sm;
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

/* The tallies digest of a run: its one tally set's, or the sets' folded in
 * set order. */
static uint64_t digest_of(const tally_set *t, int count)
{
    if (count == 1)
        return tally_set_digest(&t[0]);
    uint64_t h = HASH_FNV1A_START;
    for (int k = 0; k < count; k++) {
        uint64_t d = tally_set_digest(&t[k]);
        h = hash_fnv1a(h, &d, sizeof d);
    }
    return h;
}

/* A sets' kernel (spec num_sets) runs their reference with the runner's
 * sets; a run's own kernel the run. */
static bool run_to_simulate(const gpu_runner *g, const mci_run *mrun, const kernel_spec *spec,
                            mci_run *ref, tm_error *err)
{
    if (spec->num_sets > 0 && g->num_sets != spec->num_sets) {
        error_set(err, NULL, 0, "a kernel of %d absorption sets, the runner has %d", spec->num_sets,
                  g->num_sets);
        return false;
    }
    bool ok = spec->num_sets > 0 ? mua_sets_reference(mrun, g->set_mua, g->num_sets, ref)
                                 : mci_run_copy(ref, mrun);
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    return ok;
}

static bool run(void *ctx, const mci_run *mrun, const kernel_spec *spec, uint64_t photons,
                uint64_t seed, tune_measurement *out, tm_error *err)
{
    const gpu_runner *g = ctx;
    memset(out, 0, sizeof *out);
    int count = spec->num_sets > 0 ? spec->num_sets : 1;
    tally_set *t = calloc((size_t)count, sizeof *t);
    mci_run ref = {0};
    bool ok = t != NULL;
    for (int k = 0; ok && k < count; k++)
        ok = tally_set_init(&t[k], mrun->nr, mrun->nz, mrun->na);
    if (!ok) {
        error_set(err, NULL, 0, "out of memory for the pilot's tallies");
    } else if (!run_to_simulate(g, mrun, spec, &ref, err)) {
        ok = false;
    }
    gpu_options gopt = {.seed = seed,
                        .template_dir = g->template_dir,
                        .cache_dir = g->cache_dir,
                        .verbose = g->verbose,
                        .measure_steady = true,
                        .num_sets = spec->num_sets,
                        .set_mua = g->set_mua,
                        .set_mus = g->set_mus,
                        .set_g = g->set_g};
    gpu_stats stats;
    ok = ok && gpu_simulate(g->eng, &ref, spec, &gopt, 0, photons, t, &stats, err) &&
         (!spec->count_deposits || copy_deposits(&t[0], out, err));
    if (ok) {
        out->digest = digest_of(t, count);
        out->steps = tally_count(t[0].steps);
        out->kernel_seconds = stats.kernel_seconds;
        out->steady_photons_per_second = stats.steady_photons_per_second;
        out->compile_seconds = stats.compile_seconds;
        out->registers = stats.registers;
        out->spill_bytes = stats.spill_bytes;
        out->blocks_per_sm = stats.blocks_per_sm;
    }
    for (int k = 0; t && k < count; k++)
        tally_set_free(&t[k]);
    free(t);
    mci_run_free(&ref);
    return ok;
}

static bool usable(void *ctx) { return gpu_engine_usable(((const gpu_runner *)ctx)->eng); }

static double now(void *ctx)
{
    (void)ctx;
    return clock_now();
}

void gpu_runner_init(gpu_runner *g, gpu_engine *eng, const char *template_dir,
                     const char *cache_dir, bool verbose, tune_runner *runner)
{
    g->eng = eng;
    g->template_dir = template_dir;
    g->cache_dir = cache_dir;
    g->verbose = verbose;
    g->num_sets = 0;
    g->set_mua = g->set_mus = g->set_g = NULL;
    gpu_runner_device(gpu_engine_device(eng), &g->device);
    *runner =
        (tune_runner){.device = &g->device, .run = run, .usable = usable, .now = now, .ctx = g};
}

void gpu_runner_sets(gpu_runner *g, int num_sets, const double *set_mua, const double *set_mus,
                     const double *set_g)
{
    g->num_sets = num_sets;
    g->set_mua = set_mua;
    g->set_mus = set_mus;
    g->set_g = set_g;
}
