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
#include "fsutil.h"
#include "mci.h"
#include "mco.h"
#include "progress.h"
#include "result.h"
#include "summary.h"
#include "tally.h"
#include "tmcml_config.h"

#define RNG_NAME "mwc-per-photon"

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

/* mkdir -p: the output directory is created when missing. */
static bool make_dirs(const char *dir, tm_error *err)
{
    char *path = strdup(dir);
    if (!path) {
        error_set(err, dir, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (char *p = path + 1; ok; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end)
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            error_set(err, path, 0, "cannot create the output directory: %s", strerror(errno));
            ok = false;
        }
        if (end)
            break;
        *p = '/';
    }
    free(path);
    return ok;
}

static void free_paths(run_paths *paths, int count)
{
    for (int i = 0; paths && i < count; i++) {
        free(paths[i].mco);
        free(paths[i].json);
    }
    free(paths);
}

/* Every output of every run must be creatable before anything is simulated. */
static run_paths *prepare_outputs(const cli_options *opt, const mci_file *file, tm_error *err)
{
    if (opt->out_dir && !make_dirs(opt->out_dir, err))
        return NULL;
    run_paths *paths = calloc((size_t)file->num_runs, sizeof *paths);
    if (!paths) {
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (int i = 0; i < file->num_runs; i++) {
        paths[i].mco = fs_join(opt->out_dir, file->runs[i].out_name);
        paths[i].json = paths[i].mco ? summary_path(paths[i].mco) : NULL;
        if (!paths[i].json) {
            error_set(err, NULL, 0, "out of memory");
            break;
        }
        if (!fs_check_writable(paths[i].mco, err))
            break;
        if (i + 1 == file->num_runs)
            return paths;
    }
    free_paths(paths, file->num_runs);
    return NULL;
}

static bool simulate(const cli_options *opt, const mci_run *run, int index, int count,
                     tally_set *tallies, tm_error *err)
{
    char label[64] = "";
    if (count > 1)
        snprintf(label, sizeof label, "run %d/%d: ", index, count);
    progress_meter meter;
    progress_start(&meter, !opt->quiet, (uint64_t)run->photons, label);
    cpu_options copt = {.seed = opt->seed,
                        .threads = opt->threads > 0 ? opt->threads : cpu_count(),
                        .score_absorption = opt->score_absorption,
                        .progress = &meter};
    bool ok = cpu_simulate(run, &copt, 0, (uint64_t)run->photons, tallies, err);
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

static bool write_outputs(const cli_options *opt, const mci_file *file, int index,
                          const run_paths *paths, const mcml_result *res, double seconds,
                          tm_error *err)
{
    const mci_run *run = &file->runs[index];
    /* No time and no thread count here: equal seeds give identical files. */
    char comment[256];
    snprintf(comment, sizeof comment,
             "tmcml %s, %s engine, seed %llu, %s. Timings: %s.", TMCML_VERSION, "cpu",
             (unsigned long long)opt->seed,
             opt->score_absorption ? "absorption scored" : "-A: absorption not scored",
             fs_base_name(paths->json));
    if (!mco_write(paths->mco, run, res, comment, err))
        return false;
    run_report rep = {.input_path = file->path,
                      .run_index = index + 1,
                      .run = run,
                      .result = res,
                      .seed = opt->seed,
                      .engine = "cpu",
                      .threads = opt->threads > 0 ? opt->threads : cpu_count(),
                      .wall_seconds = seconds,
                      .score_absorption = opt->score_absorption,
                      .rng = RNG_NAME};
    return summary_write(paths->json, &rep, err);
}

static bool do_run(const cli_options *opt, const mci_file *file, int index,
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
    bool ok = simulate(opt, run, index + 1, file->num_runs, &tallies, err) &&
              result_from_tallies(run, &tallies, &res, err);
    double seconds = progress_now() - start;
    ok = ok && write_outputs(opt, file, index, paths, &res, seconds, err);
    if (ok)
        report_run(opt, paths, &res, seconds);
    result_free(&res);
    tally_set_free(&tallies);
    return ok;
}

static bool choose_engine(const cli_options *opt, tm_error *err)
{
    if (opt->engine == CLI_ENGINE_GPU) {
        error_set(err, NULL, 0,
                  "--engine gpu: this version of tmcml has no GPU engine yet; "
                  "use --engine cpu (or auto)");
        return false;
    }
    if (opt->gpus > 1) {
        error_set(err, NULL, 0, "-G %d: several GPUs are not supported by this version", opt->gpus);
        return false;
    }
    return true;
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
    if (!choose_engine(opt, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    mci_file file;
    if (!mci_read(opt->input, &file, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    apply_photon_override(opt, &file);
    run_paths *paths = prepare_outputs(opt, &file, &err);
    if (!paths) {
        error_print(stderr, &err);
        mci_free(&file);
        return RUN_BAD_INPUT;
    }
    int status = RUN_OK;
    for (int i = 0; i < file.num_runs; i++) {
        if (!do_run(opt, &file, i, &paths[i], &err)) {
            fprintf(stderr, "tmcml: run %d of %s failed: ", i + 1, file.path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
    }
    free_paths(paths, file.num_runs);
    mci_free(&file);
    return status;
}
