/* The engine side of a session (runtime/api/session.h). */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "optics.h"
#include "textbuf.h"
#include "variant.h"

void session_init(session *s)
{
    memset(s, 0, sizeof *s);
    s->refused_index = -1;
}

void session_close(session *s)
{
    gpu_engine_close(s->gpu);
    free(s->plan_shape);
    free(s->kernel);
    session_init(s);
}

static void forget_kernel(session *s)
{
    free(s->kernel);
    s->kernel = NULL;
}

/* The GPU engine on device index, opened once: another index closes the
 * one open (and its module). */
static bool open_gpu(session *s, int index, tm_error *err)
{
    if (s->gpu && s->gpu_index == index)
        return true;
    gpu_engine_close(s->gpu);
    s->gpu = NULL;
    forget_kernel(s);
    free(s->plan_shape);
    s->plan_shape = NULL;
    if (!gpu_engine_open(index, &s->gpu, err)) {
        s->gpu = NULL;
        return false;
    }
    s->gpu_index = index;
    return true;
}

bool session_engine(session *s, session_engine_choice choice, int gpu_index, gpu_engine **gpu,
                    tm_error *err)
{
    *gpu = NULL;
    if (choice == SESSION_CPU)
        return true;
    if (choice == SESSION_AUTO && s->refused_index == gpu_index)
        return true; /* said once; the CPU from then on */
    tm_error why = {0};
    if (open_gpu(s, gpu_index, &why)) {
        *gpu = s->gpu;
        return true;
    }
    if (choice == SESSION_GPU) {
        char text[sizeof why.message + sizeof why.file + 16];
        error_set(err, NULL, 0, "engine gpu: no usable GPU: %s",
                  error_format(&why, text, sizeof text));
        return false;
    }
    s->refused_index = gpu_index;
    s->refused_why = why;
    return true;
}

/* What plan_choose's answer depends on besides the optical properties:
 * the problem's shape, the planner's options and the device. */
static char *plan_shape(const session *s, const plan_options *opt, const mci_run *run)
{
    textbuf t = TEXTBUF_INIT;
    textbuf_add(&t, "L%d nr%d nz%d na%d dr%a dz%a A%d tune%d noprof%d gpu%d", run->num_layers,
                run->nr, run->nz, run->na, run->dr, run->dz, opt->score_absorption,
                (int)opt->tune_mode, opt->no_profile, s->gpu_index);
    const char *dirs[] = {opt->profile_dir, opt->profile_file, opt->cache_dir, opt->template_dir};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        textbuf_add(&t, "\n%d%s", dirs[i] != NULL, dirs[i] ? dirs[i] : "");
    return textbuf_take(&t);
}

bool session_plan(session *s, const plan_options *opt, const mci_run *run, kernel_spec *spec,
                  const char **source, tm_error *err)
{
    char *shape = plan_shape(s, opt, run);
    if (!shape) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    *source = s->plan_source;
    /* The same shape: the variant's knobs again, with this run's layers
     * checked (and baked, for immediate layers, which then recompile). */
    if (s->plan_shape && strcmp(shape, s->plan_shape) == 0) {
        free(shape);
        variant_options none;
        variant_options_init(&none);
        return variant_spec_tuned(run, opt->score_absorption, gpu_engine_device(s->gpu),
                                  &s->plan_spec.knobs, &none, spec, err);
    }
    free(s->plan_shape);
    s->plan_shape = NULL;
    /* A tuning loads its candidates' modules: the engine's module is no
     * longer the last run's. */
    if (!opt->no_profile && opt->tune_mode != PLAN_TUNE_NEVER)
        forget_kernel(s);
    if (!plan_choose(opt, s->gpu, run, spec, s->plan_source, sizeof s->plan_source, err)) {
        free(shape);
        return false;
    }
    s->counts.plans++;
    s->plan_shape = shape;
    s->plan_spec = *spec;
    return true;
}

static bool simulate_gpu(session *s, const session_sim *sim, const mci_run *run,
                         const kernel_spec *spec, uint64_t first, uint64_t count, tally_set *acc,
                         session_run_stats *stats, tm_error *err)
{
    gpu_options g = {.seed = sim->seed,
                     .cache_dir = sim->cache_dir,
                     .max_steps = sim->max_steps,
                     .progress = sim->progress,
                     .stop = sim->stop};
    gpu_stats st;
    char *key = spec_key(spec);
    if (!key) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (!gpu_simulate(s->gpu, run, spec, &g, first, count, acc, &st, err)) {
        forget_kernel(s); /* the engine's module is not known any more */
        free(key);
        return false;
    }
    stats->compile_seconds = st.compile_seconds;
    stats->kernel_seconds = st.kernel_seconds;
    if (optics_first_layer(run) > run->num_layers) { /* glass only: no kernel ran */
        free(key);
        return true;
    }
    if (!st.cubin_cached)
        stats->kernel = SESSION_KERNEL_COMPILED;
    else if (s->kernel && strcmp(s->kernel, key) == 0)
        stats->kernel = SESSION_KERNEL_WARM;
    else
        stats->kernel = SESSION_KERNEL_CACHED;
    s->counts.compiles += stats->kernel == SESSION_KERNEL_COMPILED;
    s->counts.module_loads += stats->kernel != SESSION_KERNEL_WARM;
    free(s->kernel);
    s->kernel = key;
    return true;
}

bool session_simulate(session *s, const session_sim *sim, const mci_run *run,
                      const kernel_spec *spec, uint64_t first, uint64_t count, tally_set *acc,
                      session_run_stats *stats, tm_error *err)
{
    memset(stats, 0, sizeof *stats);
    bool ok;
    if (spec) {
        ok = simulate_gpu(s, sim, run, spec, first, count, acc, stats, err);
        s->counts.gpu_runs += ok;
    } else {
        cpu_options c = {.seed = sim->seed,
                         .threads = sim->threads > 0 ? sim->threads : cpu_count(),
                         .score_absorption = sim->score_absorption,
                         .progress = sim->progress,
                         .max_steps = sim->max_steps,
                         .stop = sim->stop};
        double t0 = progress_now();
        ok = cpu_simulate(run, &c, first, count, acc, err);
        stats->kernel_seconds = progress_now() - t0;
    }
    s->counts.runs += ok;
    return ok;
}
