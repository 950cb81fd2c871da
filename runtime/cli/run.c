/* The run command: read and check the whole input, check every output
 * location, choose the engine, then simulate the runs in order.  A run that
 * fails is reported and the next one still runs. */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu.h"
#include "fs.h"
#include "gpu.h"
#include "mci.h"
#include "mco.h"
#include "progress.h"
#include "resources.h"
#include "result.h"
#include "summary.h"
#include "tally.h"
#include "tmcml_config.h"
#include "plan.h"

#define PROFILE_SOURCE_MAX 5000

#define RNG_NAME "mwc-per-photon"

/* The engine every run of the file uses: the GPU when one was opened. */
typedef struct engine {
    gpu_engine *gpu; /* NULL: the CPU engine */
    const char *name;
    char *kernel; /* spec key of the last GPU kernel (malloc'd), or NULL */
    int threads;  /* CPU threads of the run being simulated (resources_check) */
} engine;

typedef struct run_paths {
    char *mco;
    char *json;
} run_paths;

/* "skin.mco" -> "skin.json"; other names get ".json" appended. */
static char *summary_path(const char *mco_path)
{
    size_t n = strlen(mco_path);
    size_t stem = n >= 4 && strcmp(mco_path + n - 4, ".mco") == 0 ? n - 4 : n;
    char *p = malloc(stem + 6);
    if (p) {
        memcpy(p, mco_path, stem);
        memcpy(p + stem, ".json", 6);
    }
    return p;
}

static void free_paths(run_paths *paths, int count)
{
    for (int i = 0; paths && i < count; i++) {
        free(paths[i].mco);
        free(paths[i].json);
    }
    free(paths);
}

/* One file a run writes: slot 2i is run i's .mco, 2i + 1 its JSON. */
typedef struct output_file {
    char *resolved;
    int slot;
} output_file;

static int by_path_then_slot(const void *pa, const void *pb)
{
    const output_file *a = pa, *b = pb;
    int c = strcmp(a->resolved, b->resolved);
    return c ? c : a->slot - b->slot;
}

static const char *slot_kind(int slot) { return slot % 2 ? "JSON summary" : ".mco"; }

/* No two files a run writes may be one file, and none may be the input:
 * "x" and "x.mco", "y.mco" and "y.json" of another run, "o.mco" and
 * "./o.mco" would silently overwrite each other.  Paths are compared
 * resolved (fs_resolve), sorted, so a file of many runs costs n log n. */
static bool check_collisions(const mci_file *file, const run_paths *paths, tm_error *err)
{
    int count = 2 * file->num_runs, made = 0;
    output_file *out = calloc((size_t)count, sizeof *out);
    bool ok = out != NULL;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (; ok && made < count; made++) {
        const run_paths *p = &paths[made / 2];
        out[made].slot = made;
        ok = (out[made].resolved = fs_resolve(made % 2 ? p->json : p->mco, err)) != NULL;
    }
    tm_error ignored;
    char *input = ok ? fs_resolve(file->path, &ignored) : NULL;
    for (int k = 0; ok && input && k < count; k++)
        if (strcmp(out[k].resolved, input) == 0) {
            error_set(err, file->path, 0,
                      "run %d would write its %s over the input file itself (%s)", k / 2 + 1,
                      slot_kind(k), k % 2 ? paths[k / 2].json : paths[k / 2].mco);
            ok = false;
        }
    if (ok)
        qsort(out, (size_t)count, sizeof *out, by_path_then_slot);
    for (int k = 0; ok && k + 1 < count; k++)
        if (strcmp(out[k].resolved, out[k + 1].resolved) == 0) {
            int a = out[k].slot, b = out[k + 1].slot;
            error_set(err, file->path, 0,
                      "runs %d and %d would write the same file %s (run %d's %s, run %d's %s): "
                      "give them different output names",
                      a / 2 + 1, b / 2 + 1, out[k].resolved, a / 2 + 1, slot_kind(a), b / 2 + 1,
                      slot_kind(b));
            ok = false;
        }
    for (int k = 0; k < made; k++)
        free(out[k].resolved);
    free(out);
    free(input);
    return ok;
}

/* Every output of every run must be creatable, and distinct, before anything
 * is simulated. */
static run_paths *prepare_outputs(const cli_options *opt, const mci_file *file, tm_error *err)
{
    if (opt->out_dir && !fs_make_dirs(opt->out_dir, err)) /* created when missing */
        return NULL;
    run_paths *paths = calloc((size_t)file->num_runs, sizeof *paths);
    if (!paths) {
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    bool ok = true;
    for (int i = 0; ok && i < file->num_runs; i++) {
        paths[i].mco = fs_join(opt->out_dir, file->runs[i].out_name);
        paths[i].json = paths[i].mco ? summary_path(paths[i].mco) : NULL;
        if (!paths[i].json) {
            error_set(err, NULL, 0, "out of memory");
            ok = false;
        }
        ok = ok && fs_check_output(paths[i].mco, err) && fs_check_output(paths[i].json, err);
    }
    if (ok && check_collisions(file, paths, err))
        return paths;
    free_paths(paths, file->num_runs);
    return NULL;
}

static bool simulate_gpu(const cli_options *opt, engine *eng, const mci_run *run,
                         progress_meter *meter, tally_set *tallies, tm_error *err)
{
    kernel_spec spec;
    char source[PROFILE_SOURCE_MAX];
    plan_options plan;
    cli_plan_options(opt, &plan);
    if (!plan_choose(&plan, eng->gpu, run, &spec, source, sizeof source, err))
        return false;
    if (!opt->quiet)
        fprintf(stderr, "tmcml: kernel variant: %s\n", source);
    free(eng->kernel);
    eng->kernel = spec_key(&spec);
    if (!eng->kernel) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    gpu_options gopt = {.seed = opt->seed,
                        .template_dir = opt->template_dir,
                        .cache_dir = opt->cache_dir,
                        .verbose = opt->verbose,
                        .max_launch_photons = opt->launch_photons,
                        .max_steps = opt->max_steps,
                        .progress = meter};
    gpu_stats stats;
    bool ok =
        gpu_simulate(eng->gpu, run, &spec, &gopt, 0, (uint64_t)run->photons, tallies, &stats, err);
    if (ok && opt->verbose)
        fprintf(stderr, "tmcml: %llu launches of %u x %u threads (%d blocks/SM), kernel %.3f s\n",
                (unsigned long long)stats.launches, stats.grid, stats.block, stats.blocks_per_sm,
                stats.kernel_seconds);
    return ok;
}

static bool simulate(const cli_options *opt, engine *eng, const mci_run *run, int index, int count,
                     tally_set *tallies, tm_error *err)
{
    char label[64] = "";
    if (count > 1)
        snprintf(label, sizeof label, "run %d/%d: ", index, count);
    progress_meter meter;
    progress_start(&meter, !opt->quiet, (uint64_t)run->photons, label);
    bool ok;
    if (eng->gpu) {
        ok = simulate_gpu(opt, eng, run, &meter, tallies, err);
    } else {
        cpu_options copt = {.seed = opt->seed,
                            .threads = eng->threads,
                            .score_absorption = opt->score_absorption,
                            .progress = &meter,
                            .max_steps = opt->max_steps};
        ok = cpu_simulate(run, &copt, 0, (uint64_t)run->photons, tallies, err);
    }
    progress_finish(&meter);
    return ok;
}

static void report_run(const cli_options *opt, const run_paths *paths, const mcml_result *res,
                       double seconds)
{
    if (opt->quiet)
        return;
    printf("%s: %llu photons in %.2f s (%.3g photons/s): Rsp %.6g  Rd %.6g  A %.6g  Tt %.6g\n",
           paths->mco, (unsigned long long)res->photons, seconds,
           seconds > 0 ? (double)res->photons / seconds : 0.0, res->rsp, res->rd, res->a, res->tt);
}

/* Trapped photons are a property of the input (or of a --max-steps too
 * small for it): said even with -q, since the .mco cannot show them. */
static void warn_trapped(const cli_options *opt, const run_paths *paths, const tally_set *t)
{
    if (t->trapped_photons == 0)
        return;
    fprintf(stderr,
            "tmcml: warning: %s: %llu photons never ended (still alive after %lu steps, or "
            "parallel to a glass layer) and were stopped; their weight, %.3g per launched "
            "photon, is in neither Rd, A nor Tt (\"trapped\" in %s; docs/physics.md)\n",
            paths->mco, (unsigned long long)t->trapped_photons,
            (unsigned long)(opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON),
            tally_weight(t->trapped_units) / (double)(t->photons ? t->photons : 1),
            fs_base_name(paths->json));
}

static bool write_outputs(const cli_options *opt, const engine *eng, const mci_file *file,
                          int index, const run_paths *paths, const tally_set *tallies,
                          const mcml_result *res, double seconds, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    /* No time and no thread count here: equal seeds give identical files. */
    char comment[256];
    snprintf(comment, sizeof comment, "tmcml %s, %s engine, seed %llu, %s. Timings: %s.",
             TMCML_VERSION, eng->name, (unsigned long long)opt->seed,
             opt->score_absorption ? "absorption scored" : "-A: absorption not scored",
             fs_base_name(paths->json));
    if (!mco_write(paths->mco, run, res, comment, err))
        return false;
    run_report rep = {.input_path = file->path,
                      .run_index = index + 1,
                      .run = run,
                      .result = res,
                      .seed = opt->seed,
                      .engine = eng->name,
                      .threads = eng->gpu ? 0 : eng->threads,
                      .wall_seconds = seconds,
                      .score_absorption = opt->score_absorption,
                      .rng = RNG_NAME,
                      .steps = tally_count(tallies->steps),
                      .trapped_photons = tallies->trapped_photons,
                      .trapped_weight = tally_weight(tallies->trapped_units) /
                                        (res->photons ? (double)res->photons : 1.0),
                      .tallies_digest = tally_set_digest(tallies),
                      .device = eng->gpu ? gpu_engine_device(eng->gpu)->name : NULL,
                      .kernel = eng->gpu ? eng->kernel : NULL};
    return summary_write(paths->json, &rep, err);
}

static bool do_run(const cli_options *opt, engine *eng, const mci_file *file, int index,
                   const run_paths *paths, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    tally_set tallies;
    if (!tally_set_init(&tallies, run->nr, run->nz, run->na)) {
        error_set(err, NULL, 0, "out of memory for the tallies of a %dx%d grid", run->nr, run->nz);
        return false;
    }
    double start = progress_now();
    mcml_result res = {0};
    bool ok = simulate(opt, eng, run, index + 1, file->num_runs, &tallies, err) &&
              result_from_tallies(run, &tallies, &res, err);
    double seconds = progress_now() - start;
    ok = ok && write_outputs(opt, eng, file, index, paths, &tallies, &res, seconds, err);
    if (ok)
        report_run(opt, paths, &res, seconds);
    if (ok)
        warn_trapped(opt, paths, &tallies);
    result_free(&res);
    tally_set_free(&tallies);
    return ok;
}

/* --engine auto takes the GPU when one can be opened and says so when it
 * falls back; --engine gpu insists. */
static bool choose_engine(const cli_options *opt, engine *eng, tm_error *err)
{
    eng->gpu = NULL;
    eng->name = "cpu";
    eng->kernel = NULL;
    if (opt->gpus > 1) {
        error_set(err, NULL, 0, "-G %d: several GPUs are not supported by this version", opt->gpus);
        return false;
    }
    if (opt->engine == CLI_ENGINE_CPU)
        return true;
    tm_error why = {0};
    double t0 = progress_now();
    if (gpu_engine_open(opt->gpu_index, &eng->gpu, &why)) {
        eng->name = "gpu";
        if (opt->verbose)
            fprintf(stderr,
                    "tmcml: GPU engine opened in %.3f s (driver, context, multiplier table)\n",
                    progress_now() - t0);
        if (!opt->quiet)
            fprintf(stderr, "tmcml: GPU engine on %s\n", gpu_engine_device(eng->gpu)->name);
        return true;
    }
    if (opt->engine == CLI_ENGINE_GPU) {
        char text[2048];
        error_set(err, NULL, 0, "--engine gpu: no usable GPU: %s",
                  error_format(&why, text, sizeof text));
        return false;
    }
    if (!opt->quiet) {
        char text[2048];
        fprintf(stderr, "tmcml: no usable GPU (%s): using the CPU engine\n",
                error_format(&why, text, sizeof text));
    }
    return true;
}

/* Every run's memory and the outputs' disk space against the machine,
 * before anything is allocated: the CPU threads each run may use (malloc'd),
 * or NULL with *err. */
static int *check_resources(const cli_options *opt, const engine *eng, const mci_file *file,
                            const run_paths *paths, tm_error *err)
{
    int n = file->num_runs;
    int *threads = calloc((size_t)n, sizeof *threads);
    const char **mco = calloc((size_t)n, sizeof *mco);
    bool ok = threads && mco;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int i = 0; ok && i < n; i++)
        mco[i] = paths[i].mco;
    resource_request req = {.file = file,
                            .mco_paths = mco,
                            .threads =
                                eng->gpu ? 0 : (opt->threads > 0 ? opt->threads : cpu_count()),
                            .gpu_index = opt->gpu_index,
                            .gpu_free = eng->gpu ? gpu_engine_device(eng->gpu)->free_memory : 0,
                            .notes = opt->quiet ? NULL : stderr};
    ok = ok && resources_check(&req, threads, err);
    free(mco);
    if (!ok) {
        free(threads);
        return NULL;
    }
    return threads;
}

static void apply_photon_override(const cli_options *opt, mci_file *file)
{
    if (opt->photons > 0)
        for (int i = 0; i < file->num_runs; i++)
            file->runs[i].photons = opt->photons;
}

int run_input_file(const cli_options *opt)
{
    tm_error err = {0};
    mci_file file;
    if (!mci_read(opt->input, &file, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    apply_photon_override(opt, &file);
    run_paths *paths = prepare_outputs(opt, &file, &err);
    engine eng = {0};
    int *threads = NULL;
    if (!paths || !choose_engine(opt, &eng, &err) ||
        !(threads = check_resources(opt, &eng, &file, paths, &err))) {
        error_print(stderr, &err);
        gpu_engine_close(eng.gpu);
        free_paths(paths, file.num_runs);
        mci_free(&file);
        return RUN_BAD_INPUT;
    }
    int status = RUN_OK;
    for (int i = 0; i < file.num_runs; i++) {
        eng.threads = threads[i];
        if (!do_run(opt, &eng, &file, i, &paths[i], &err)) {
            fprintf(stderr, "tmcml: run %d of %s failed: ", i + 1, file.path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
    }
    double t0 = progress_now();
    gpu_engine_close(eng.gpu);
    free(eng.kernel);
    free(threads);
    if (eng.gpu && opt->verbose)
        fprintf(stderr, "tmcml: GPU engine closed in %.3f s\n", progress_now() - t0);
    free_paths(paths, file.num_runs);
    mci_free(&file);
    return status;
}
