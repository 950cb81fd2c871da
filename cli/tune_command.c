/* `tmcml tune` and `tmcml sweep` (cli/tune_command.h). */
#include "tune_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "mua_sets.h"
#include "optics_sets.h"
#include "profile.h"
#include "run.h"
#include "sweep.h"
#include "tune.h"
#include "tune_job.h"

/* --mua-sets FILE [-A] [--path-lengths] [--jacobian]: the kernel of the
 * file's absorption sets is tuned, for their shape (with -A their escapes,
 * else their absorption too); --jacobian alone: the kernel of the run's own
 * mua as its one set, which scores the derivatives. */
static bool tune_sets(const cli_options *opt, tune_job *job, mua_sets *sets, plan_options *plan,
                      tm_error *err)
{
    memset(sets, 0, sizeof *sets);
    if (!opt->run.mua_sets && !opt->run.jacobian) {
        if (opt->run.path_lengths)
            error_set(err, NULL, 0,
                      "--path-lengths: a GPU kernel scores them with absorption sets: add "
                      "--mua-sets FILE");
        return !opt->run.path_lengths;
    }
    if (!opt->run.mua_sets && !mua_sets_own(job->run, sets)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (opt->run.mua_sets &&
        !(opt->run.optics_sets ? optics_sets_read(opt->run.mua_sets, job->run, sets, err)
                               : mua_sets_read(opt->run.mua_sets, job->run->num_layers, sets, err)))
        return false;
    plan->num_sets = sets->count;
    plan->sets_paths = opt->run.path_lengths;
    plan->sets_jacobian = opt->run.jacobian;
    plan->sets_optics = optics_sets_level(job->run, sets->count, sets->mus, sets->g);
    plan->set_mus = sets->mus;
    plan->set_g = sets->g;
    plan->set_mua = sets->mua;
    gpu_runner_sets(&job->gpu, sets->count, sets->mua, sets->mus, sets->g);
    return true;
}

int tune_command(const cli_options *opt)
{
    tune_job job;
    int status = tune_job_open(&opt->run, opt->run_number, &job);
    if (status != RUN_OK)
        return status;
    char name[300];
    snprintf(name, sizeof name, "tune-%s.csv", job.stem);
    char *csv = opt->csv_path ? strdup(opt->csv_path) : fs_join(opt->run.out_dir, name);
    tm_error err = {0};
    tune_outcome out;
    double budget = opt->run.budget > 0 ? opt->run.budget : PLAN_TUNE_BUDGET;
    plan_options plan;
    driver_plan_options(&opt->run, &plan);
    mua_sets sets;
    if (!tune_sets(opt, &job, &sets, &plan, &err) || !csv || !fs_check_writable(csv, &err) ||
        !plan_tune_and_store(&plan, &job.runner, job.run, budget, csv, true, &out, &err)) {
        error_print(stderr, &err);
        status = RUN_FAILED;
    } else if (out.mismatches > 0) {
        fprintf(stderr,
                "tmcml: error: %d candidate(s) failed the bit-identity gate (tallies differ "
                "from the reference kernel's: a bug; see MISMATCH in the table); the winner "
                "passed it and was stored\n",
                out.mismatches);
        status = RUN_FAILED;
    }
    free(csv);
    mua_sets_free(&sets);
    tune_job_close(&job);
    return status;
}

/* ---- sweep -------------------------------------------------------------------- */

/* A sweep axis given as a list of one knob's values ("32,64", "1,2,4"), each
 * as the knob's own option takes it, at most max of them, none twice;
 * usage and empty say what is expected in the two kinds of error. */
typedef struct knob_list {
    const char *knob, *option;
    int max;
    const char *usage, *empty;
} knob_list;

static bool parse_knob_list(const knob_list *l, const char *text, int *values, int *count,
                            tm_error *err)
{
    const knob *k = knob_by_name(l->knob);
    char list[64];
    snprintf(list, sizeof list, "%s", text);
    char *save = NULL;
    *count = 0;
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        kernel_knobs v;
        knobs_init(&v);
        if (!knob_parse(k, w, &v, err))
            return false;
        bool seen = false;
        for (int i = 0; i < *count; i++)
            seen = seen || values[i] == knob_get(k, &v);
        if (seen || *count == l->max) {
            error_set(err, NULL, 0, "%s: expected %s (got \"%s\")", l->option, l->usage, text);
            return false;
        }
        values[(*count)++] = knob_get(k, &v);
    }
    if (*count == 0) {
        error_set(err, NULL, 0, "%s: expected %s (got \"%s\")", l->option, l->empty, text);
        return false;
    }
    return true;
}

/* sweep --entry W[,W] (default 32). */
static bool parse_entries(const char *text, sweep_options *s, tm_error *err)
{
    static const knob_list entries = {"entry_bits", "--entry", 2,
                                      "one or two different widths, e.g. 32,64", "32, 64 or 32,64"};
    s->entry_count = 1;
    s->entry_bits[0] = 32;
    return !text || parse_knob_list(&entries, text, s->entry_bits, &s->entry_count, err);
}

/* sweep --clusters N[,N...]; without it, the launch's own cluster size (1
 * unless --cluster says otherwise). */
static bool parse_clusters(const char *text, int launch_cluster, sweep_options *s, tm_error *err)
{
    char usage[64];
    snprintf(usage, sizeof usage, "different sizes of 1..%d, e.g. 1,2,4", SPEC_MAX_CLUSTER);
    const knob_list clusters = {"cluster_size", "--clusters", SPEC_MAX_CLUSTER, usage,
                                "sizes such as 1,2,4"};
    s->cluster_count = 1;
    s->clusters[0] = launch_cluster;
    return !text || parse_knob_list(&clusters, text, s->clusters, &s->cluster_count, err);
}

static bool sweep_setup(const cli_options *opt, const tune_job *job, sweep_options *s,
                        tm_error *err)
{
    memset(s, 0, sizeof *s);
    plan_options plan;
    driver_plan_options(&opt->run, &plan);
    plan_tune_options(&plan, 0, &s->tune);
    s->tune.log = opt->run.quiet ? NULL : stdout;
    if (!sweep_parse_range(opt->sweep_nr, &s->nr) || !sweep_parse_range(opt->sweep_nz, &s->nz)) {
        error_set(err, NULL, 0,
                  "--nr/--nz: expected A:B:STEP with 0 <= A <= B and STEP >= 1, or "
                  "one number (got \"%s\" and \"%s\")",
                  opt->sweep_nr, opt->sweep_nz);
        return false;
    }
    if (!parse_entries(opt->sweep_entries, s, err))
        return false;
    if (!opt->run.score_absorption) {
        error_set(err, NULL, 0, "sweep: -A has no tile to sweep");
        return false;
    }
    /* The launch configuration: the heuristic's, with the explicit options. */
    kernel_spec spec;
    if (!variant_spec_for_run(job->run, true, job->runner.device, &opt->run.variant, &spec, err))
        return false;
    s->launch = spec.knobs;
    return parse_clusters(opt->sweep_clusters, spec.knobs.cluster_size, s, err);
}

int sweep_command(const cli_options *opt)
{
    tune_job job;
    int status = tune_job_open(&opt->run, opt->run_number, &job);
    if (status != RUN_OK)
        return status;
    tm_error err = {0};
    sweep_options s;
    char name[300], title[1024];
    snprintf(name, sizeof name, "sweep-%s", job.stem);
    char *prefix = strdup(opt->run.out_dir ? opt->run.out_dir : name); /* -o PREFIX */
    snprintf(title, sizeof title, "%s on %s", job.stem, tune_job_device(&job));
    sweep_result res;
    memset(&res, 0, sizeof res);
    bool ok = prefix && sweep_setup(opt, &job, &s, &err);
    bool bad_input = prefix && !ok;
    if (ok) {
        s.out_prefix = prefix;
        char check[4200];
        snprintf(check, sizeof check, "%s.csv", prefix);
        ok = fs_check_writable(check, &err) && sweep_run(&job.runner, job.run, &s, &res, &err) &&
             sweep_write_outputs(&s, &res, title, &err);
    }
    if (!ok) {
        error_print(stderr, &err);
        status = bad_input ? RUN_BAD_INPUT : RUN_FAILED;
    } else {
        if (res.best_index >= 0 && !opt->run.quiet)
            printf("best %.4g photons/s (tile %dx%d, %d-bit), worst %.4g: best/worst %.3f; "
                   "pilot %llu photons, %.1f s\n",
                   res.best, res.cells.candidates[res.best_index].config.tile_nr,
                   res.cells.candidates[res.best_index].config.tile_nz,
                   res.cells.candidates[res.best_index].config.entry_bits, res.worst,
                   res.best / res.worst, (unsigned long long)res.cells.pilot_photons,
                   res.cells.seconds);
        if (res.cells.mismatches > 0) {
            fprintf(stderr, "tmcml: error: %d shape(s) failed the bit-identity gate\n",
                    res.cells.mismatches);
            status = RUN_FAILED;
        }
    }
    sweep_result_free(&res);
    free(prefix);
    tune_job_close(&job);
    return status;
}
