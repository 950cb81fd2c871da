/* The engine side of a session (driver/session.h). */
#include "session.h"
#include "session_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cpu.h"
#include "gpu.h"
#include "gpu_runner.h"
#include "mua_sets.h"
#include "run_view.h"
#include "textbuf.h"
#include "variant.h"

void session_init(session *s) { memset(s, 0, sizeof *s); }

static void forget_kernel(session *s)
{
    free(s->kernel);
    s->kernel = NULL;
}

static void forget_plan(session *s)
{
    free(s->plan_shape);
    s->plan_shape = NULL;
}

static void close_gpus(session *s)
{
    gpu_pool_close(s->pool);
    s->pool = NULL;
    s->gpu_count = 0;
    free(s->plan_specs);
    free(s->sources);
    s->plan_specs = NULL;
    s->sources = NULL;
    forget_kernel(s);
    forget_plan(s);
}

void session_close(session *s)
{
    close_gpus(s);
    session_init(s);
}

static bool same_devices(const int *a, int na, const int *b, int nb)
{
    return na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0;
}

/* The GPUs on devices, opened once: other devices close the ones open (and
 * their modules). */
static bool open_gpus(session *s, const int *devices, int count, tm_error *err)
{
    if (s->pool && same_devices(s->devices, s->gpu_count, devices, count))
        return true;
    close_gpus(s);
    if (count < 1 || count > GPU_POOL_MAX) {
        error_set(err, NULL, 0, "%d GPUs: one process drives 1 to %d", count, GPU_POOL_MAX);
        return false;
    }
    s->plan_specs = calloc((size_t)count, sizeof *s->plan_specs);
    s->sources = calloc((size_t)count, sizeof *s->sources);
    if (!s->plan_specs || !s->sources) {
        close_gpus(s);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (!gpu_pool_open(devices, count, &s->pool, err)) {
        s->pool = NULL;
        close_gpus(s);
        return false;
    }
    memcpy(s->devices, devices, (size_t)count * sizeof *devices);
    s->gpu_count = count;
    return true;
}

bool session_engine(session *s, session_engine_choice choice, const int *devices, int count,
                    gpu_pool **pool, tm_error *fell_back, tm_error *err)
{
    *pool = NULL;
    if (choice == SESSION_CPU)
        return true;
    if (choice == SESSION_AUTO && s->refused &&
        same_devices(s->refused_devices, s->refused_count, devices, count))
        return true; /* said once; the CPU from then on */
    tm_error why = {0};
    if (open_gpus(s, devices, count, &why)) {
        *pool = s->pool;
        return true;
    }
    if (choice == SESSION_GPU) {
        char text[sizeof why.message + sizeof why.file + 16];
        error_set(err, NULL, 0, "engine gpu: no usable GPU: %s",
                  error_format(&why, text, sizeof text));
        return false;
    }
    s->refused = true;
    s->refused_count = count < GPU_POOL_MAX ? count : GPU_POOL_MAX;
    memcpy(s->refused_devices, devices, (size_t)s->refused_count * sizeof *devices);
    s->refused_why = why;
    if (fell_back)
        *fell_back = why;
    return true;
}

/* What plan_choose's answer depends on besides the optical properties:
 * the problem's shape (gen/shape.h), the grid's steps, the planner's
 * options and the devices. */
static char *plan_shape(const session *s, const plan_options *opt, const mci_run *run)
{
    problem_shape shape = run_view_shape(run, opt->score_absorption);
    problem_shape_for_sets(&shape, (sets_scoring){opt->num_sets, opt->sets_paths,
                                                  opt->sets_jacobian, opt->sets_optics});
    char *key = problem_shape_key(&shape);
    if (!key)
        return NULL;
    textbuf t = TEXTBUF_INIT;
    textbuf_add(&t, "%s dr%a dz%a tune%d noprof%d", key, run->dr, run->dz, (int)opt->tune_mode,
                opt->no_profile);
    free(key);
    for (int i = 0; i < s->gpu_count; i++)
        textbuf_add(&t, " gpu%d", s->devices[i]);
    const char *dirs[] = {opt->profile_dir, opt->profile_file, opt->cache_dir, opt->template_dir};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        textbuf_add(&t, "\n%d%s", dirs[i] != NULL, dirs[i] ? dirs[i] : "");
    return textbuf_take(&t);
}

/* An earlier GPU of the same model, whose variant GPU i takes (so a run
 * tunes once per model), or -1. */
static int same_model(const session *s, int i)
{
    const char *name = gpu_engine_device(gpu_pool_engine(s->pool, i))->name;
    for (int j = 0; j < i; j++)
        if (strcmp(gpu_engine_device(gpu_pool_engine(s->pool, j))->name, name) == 0)
            return j;
    return -1;
}

/* Every GPU's variant for a new shape. */
static bool plan_all(session *s, const plan_options *opt, const mci_run *run, tm_error *err)
{
    /* A tuning loads its candidates' modules: the engine's module is no
     * longer the last run's. */
    if (!opt->no_profile && opt->tune_mode != PLAN_TUNE_NEVER)
        forget_kernel(s);
    for (int i = 0; i < s->gpu_count; i++) {
        int j = same_model(s, i);
        if (j >= 0) {
            s->plan_specs[i] = s->plan_specs[j];
            memcpy(s->sources[i], s->sources[j], sizeof s->sources[i]);
        } else {
            gpu_runner g;
            tune_runner runner;
            gpu_runner_init(&g, gpu_pool_engine(s->pool, i), opt->template_dir, opt->cache_dir,
                            opt->verbose, &runner);
            gpu_runner_sets(&g, opt->num_sets, opt->set_mua, opt->set_mus, opt->set_g);
            if (!plan_choose(opt, &runner, run, &s->plan_specs[i], s->sources[i],
                             sizeof s->sources[i], err))
                return false;
        }
    }
    s->counts.plans++;
    return true;
}

bool session_plan(session *s, const plan_options *opt, const mci_run *run,
                  const kernel_spec **specs, tm_error *err)
{
    *specs = s->plan_specs;
    char *shape = plan_shape(s, opt, run);
    if (!shape) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    /* The same shape: the variants' knobs again, with this run's layers
     * checked (and baked, for immediate layers, which then recompile). */
    if (s->plan_shape && strcmp(shape, s->plan_shape) == 0) {
        free(shape);
        variant_options none;
        variant_options_init(&none);
        for (int i = 0; i < s->gpu_count; i++) {
            kernel_knobs knobs = s->plan_specs[i].knobs;
            tune_device dev;
            gpu_runner_device(gpu_engine_device(gpu_pool_engine(s->pool, i)), &dev);
            if (!variant_spec_tuned(run, opt->score_absorption, &dev, &knobs, &none,
                                    &s->plan_specs[i], err) ||
                (opt->num_sets > 0 &&
                 !variant_sets_tuned(&s->plan_specs[i],
                                     (sets_scoring){opt->num_sets, opt->sets_paths,
                                                    opt->sets_jacobian, opt->sets_optics},
                                     &dev, err)))
                return false;
        }
        return true;
    }
    forget_plan(s);
    if (!plan_all(s, opt, run, err)) {
        free(shape);
        return false;
    }
    s->plan_shape = shape;
    return true;
}

/* The first GPU's kernel origin, and the session's counts. */
static void note_kernel(session *s, const kernel_spec *spec, const gpu_share *first,
                        session_run_stats *stats)
{
    char *key = spec_key(spec);
    if (!first->stats.cubin_cached)
        stats->kernel = SESSION_KERNEL_COMPILED;
    else if (key && s->kernel && strcmp(s->kernel, key) == 0)
        stats->kernel = SESSION_KERNEL_WARM;
    else
        stats->kernel = SESSION_KERNEL_CACHED;
    s->counts.compiles += stats->kernel == SESSION_KERNEL_COMPILED;
    s->counts.module_loads += stats->kernel != SESSION_KERNEL_WARM;
    free(s->kernel);
    s->kernel = key;
}

/* The pool's batch index ranges, as sim->done's photon ranges of parts. */
typedef struct done_relay {
    const session_sim *sim;
    const photon_batch *batch;
} done_relay;

static bool relay_part(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    const session_sim *sim = ctx;
    return sim->done(sim->done_ctx, part, first, n, err);
}

static bool relay_done(void *ctx, uint64_t first, uint64_t n, tm_error *err)
{
    done_relay *r = ctx;
    return photon_batch_ranges(r->batch, first, n, relay_part, (void *)r->sim, err);
}

static bool simulate_gpus(session *s, const session_sim *sim, const photon_batch *batch,
                          const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                          tm_error *err)
{
    gpu_options g = {.seed = sim->seed,
                     .template_dir = sim->template_dir,
                     .cache_dir = sim->cache_dir,
                     .verbose = sim->verbose,
                     .max_launch_photons = sim->launch_photons,
                     .max_steps = sim->max_steps,
                     .progress = sim->progress,
                     .stop = sim->stop,
                     .num_sets = sim->num_sets,
                     .set_mua = sim->set_mua,
                     .set_mus = sim->set_mus,
                     .set_g = sim->set_g};
    done_relay relay = {sim, batch};
    gpu_pool_job job = {.batch = batch,
                        .specs = specs,
                        .opt = &g,
                        .first = 0,
                        .count = photon_batch_size(batch),
                        .chunk = sim->gpu_chunk,
                        .done = sim->done ? relay_done : NULL,
                        .done_ctx = &relay,
                        .slot_done = sim->slot_done,
                        .slot_ctx = sim->slot_ctx};
    if (!gpu_pool_simulate(s->pool, &job, acc, stats->shares, err)) {
        forget_kernel(s); /* the engines' modules are not known any more */
        return false;
    }
    const gpu_share *lead = &stats->shares[0];
    stats->compile_seconds = lead->stats.compile_seconds;
    for (int i = 0; i < s->gpu_count; i++)
        if (stats->shares[i].stats.kernel_seconds > stats->kernel_seconds)
            stats->kernel_seconds = stats->shares[i].stats.kernel_seconds;
    const mci_run *run = batch->parts[0].run;
    if (specs[0].batch || !batch_run_glass_only(run))
        note_kernel(s, &specs[0], lead, stats);
    return true;
}

/* The CPU engine: the ranges it simulated (stopped, not always a prefix of
 * the batch) go to sim->done. */
static bool simulate_cpu(const session_sim *sim, const photon_batch *batch, tally_set *acc,
                         session_run_stats *stats, tm_error *err)
{
    done_relay relay = {sim, batch};
    cpu_options c = {.seed = sim->seed,
                     .threads = sim->threads > 0 ? sim->threads : cpu_count(),
                     .score_absorption = sim->score_absorption,
                     .progress = sim->progress,
                     .max_steps = sim->max_steps,
                     .stop = sim->stop,
                     .done = sim->done ? relay_done : NULL,
                     .done_ctx = &relay,
                     .num_sets = sim->num_sets,
                     .set_layers = sim->set_layers,
                     .set_mua = sim->set_mua,
                     .set_mus = sim->set_mus,
                     .set_g = sim->set_g};
    double t0 = clock_now();
    bool ok = cpu_simulate_batch(batch, &c, acc, err);
    stats->kernel_seconds = clock_now() - t0;
    return ok;
}

/* The GPUs with absorption sets: one run, simulated with the sets'
 * reference mua by each GPU's kernel of the sets (specs: variant_sets_spec). */
static bool simulate_gpu_sets(session *s, const session_sim *sim, const photon_batch *batch,
                              const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                              tm_error *err)
{
    if (batch->count != 1) {
        error_set(err, NULL, 0, "absorption sets on the GPU: one run at a time, not a batch");
        return false;
    }
    for (int g = 0; g < s->gpu_count; g++)
        if (specs[g].num_sets != sim->num_sets || specs[g].sets_absorb != sim->score_absorption) {
            error_set(err, NULL, 0, "GPU %d: a kernel of %d absorption sets%s for %d sets%s", g,
                      specs[g].num_sets, specs[g].sets_absorb ? " with absorption" : "",
                      sim->num_sets, sim->score_absorption ? " with absorption" : "");
            return false;
        }
    const batch_part *part = &batch->parts[0];
    mci_run ref = {0};
    photon_batch one = {0};
    bool ok = mua_sets_reference(part->run, sim->set_mua, sim->num_sets, &ref);
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    ok = ok && photon_batch_single(&one, &ref, part->first, part->count, err);
    ok = ok && simulate_gpus(s, sim, &one, specs, acc, stats, err);
    if (one.parts)
        photon_batch_free(&one);
    mci_run_free(&ref);
    return ok;
}

/* One engine call over batch. */
static bool simulate_once(session *s, const session_sim *sim, const photon_batch *batch,
                          const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                          tm_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (specs && sim->num_sets > 0)
        return simulate_gpu_sets(s, sim, batch, specs, acc, stats, err);
    if (specs)
        return simulate_gpus(s, sim, batch, specs, acc, stats, err);
    return simulate_cpu(sim, batch, acc, stats, err);
}

/* ---- in groups, for the standard errors (session_groups.h) ---- */

typedef struct grouped_call {
    session *s;
    const session_sim *sim;
    const kernel_spec *specs;
    groups_ranges *held; /* the round's ranges, until its groups are folded */
} grouped_call;

/* A round's photon ranges, held (the groups report those they take). */
static bool hold_done(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    const grouped_call *c = ctx;
    if (groups_ranges_add(c->held, part, first, n))
        return true;
    error_set(err, NULL, 0, "out of memory for a round's photon ranges");
    return false;
}

/* A range of the batch's part, taken by the groups: sim->done's. */
static bool report_done(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    const grouped_call *c = ctx;
    return c->sim->done(c->sim->done_ctx, part, first, n, err);
}

/* A round of several slots runs the GPUs' batch kernel: whether it fits
 * each GPU's (the CPU engine runs any). */
static bool round_fits(void *ctx, int slots, int parts)
{
    const grouped_call *c = ctx;
    for (int g = 0; c->specs && c->s->pool && g < gpu_pool_size(c->s->pool); g++)
        if (!gpu_batch_fits(gpu_pool_engine(c->s->pool, g), &c->specs[g], slots, parts))
            return false;
    return true;
}

static bool round_call(void *ctx, const photon_batch *round, const int *origin, groups_ranges *held,
                       tally_set *acc, void *stats, tm_error *err)
{
    (void)origin; /* the groups map the ranges they take */
    grouped_call *c = ctx;
    c->held = held;
    session_sim one = *c->sim;
    one.uncertainty = NULL;
    one.slot_done = NULL; /* the groups tell a slot once its last round is folded */
    one.done = hold_done;
    one.done_ctx = c;
    return simulate_once(c->s, &one, round, c->specs, acc, stats, err);
}

static void round_stats_add(void *sum_, const void *round_, bool first)
{
    session_run_stats *sum = sum_;
    const session_run_stats *round = round_;
    if (first) {
        *sum = *round;
        return;
    }
    sum->compile_seconds += round->compile_seconds;
    sum->kernel_seconds += round->kernel_seconds;
    for (int g = 0; g < GPU_POOL_MAX; g++) {
        gpu_share *to = &sum->shares[g];
        const gpu_share *from = &round->shares[g];
        to->photons += from->photons;
        to->chunks += from->chunks;
        to->stats.launches += from->stats.launches;
        to->stats.kernel_seconds += from->stats.kernel_seconds;
        to->stats.compile_seconds += from->stats.compile_seconds;
    }
}

static bool simulate_grouped(session *s, const session_sim *sim, const photon_batch *batch,
                             const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                             tm_error *err)
{
    session_run_stats round;
    grouped_call c = {s, sim, specs, NULL};
    groups_call g = {.call = round_call,
                     .report = sim->done ? report_done : NULL,
                     .fits = round_fits,
                     .add_stats = round_stats_add,
                     .ctx = &c,
                     .stats = stats,
                     .round_stats = &round,
                     .sets = sim->num_sets > 0 ? sim->num_sets : 1,
                     .unc = sim->uncertainty,
                     .stop = sim->stop,
                     .slot_done = sim->slot_done,
                     .slot_ctx = sim->slot_ctx,
                     .chunk = sim->group_chunk,
                     .enough = sim->enough,
                     .enough_ctx = sim->enough_ctx};
    memset(stats, 0, sizeof *stats);
    return groups_simulate(&g, batch, acc, err);
}

bool session_simulate_batch(session *s, const session_sim *sim, const photon_batch *batch,
                            const kernel_spec *specs, tally_set *acc, session_run_stats *stats,
                            tm_error *err)
{
    bool ok = sim->uncertainty ? simulate_grouped(s, sim, batch, specs, acc, stats, err)
                               : simulate_once(s, sim, batch, specs, acc, stats, err);
    if (specs)
        s->counts.gpu_runs += !ok ? 0 : sim->num_sets > 0 ? 1 : (uint64_t)batch->slots;
    s->counts.runs += ok ? (uint64_t)batch->slots : 0;
    s->counts.batches += ok;
    return ok;
}

bool session_simulate(session *s, const session_sim *sim, const mci_run *run,
                      const kernel_spec *specs, uint64_t first, uint64_t count, tally_set *acc,
                      session_run_stats *stats, tm_error *err)
{
    if (count == 0) {
        memset(stats, 0, sizeof *stats);
        return true;
    }
    photon_batch batch;
    if (!photon_batch_single(&batch, run, first, count, err))
        return false;
    bool ok = session_simulate_batch(s, sim, &batch, specs, acc, stats, err);
    photon_batch_free(&batch);
    return ok;
}
