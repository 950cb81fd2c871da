/* `tmcml tune` and `tmcml sweep` (runtime/tune_command.h). */
#include "tune_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "profile.h"
#include "run.h"
#include "sweep.h"

static void options_for(const cli_options *opt, double budget, tune_options *t)
{
    tune_options_init(t);
    t->seed = opt->seed;
    t->budget_seconds = budget;
    if (opt->repeats > 0)
        t->repeats = opt->repeats;
    t->template_dir = opt->template_dir;
    t->cache_dir = opt->cache_dir;
    t->verbose = opt->verbose;
    t->debug_wrong_candidate = opt->debug_wrong_candidate;
}

static bool store_entry(const cli_options *opt, gpu_engine *eng, const profile_entry *e,
                        char *path, size_t size, tm_error *err)
{
    profile_device dev;
    profile_device_from_info(gpu_engine_device(eng), &dev);
    profile_toolchain tc;
    tm_error why = {0};
    if (!profile_toolchain_current(&tc, &why)) {
        *err = why;
        return false;
    }
    char dir[PROFILE_PATH_MAX], name[512], note[1024] = "";
    if (!profile_write_dir(opt->profile_dir, dir, sizeof dir, err))
        return false;
    if (!profile_file_name(&dev, name, sizeof name)) {
        error_set(err, NULL, 0, "no profile file name for the device \"%s\"", dev.name);
        return false;
    }
    int n = snprintf(path, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) {
        error_set(err, dir, 0, "profile path too long");
        return false;
    }
    if (!profile_store_entry(path, &dev, &tc, e, note, sizeof note, err))
        return false;
    if (note[0] && !opt->quiet)
        fprintf(stderr, "tmcml: %s\n", note);
    return true;
}

static void summary_line(FILE *f, const tune_result *res, const profile_entry *e)
{
    char text[256], cls[128];
    knobs_text(&e->config, text, sizeof text);
    profile_class_text(&e->cls, cls, sizeof cls);
    fprintf(f, "tmcml: tuned %s in %.1f s: %d candidates measured (pilot %llu photons); winner %s, "
               "%.4g photons/s = %.3fx the heuristic's %.4g\n",
            cls, res->seconds, e->candidates, (unsigned long long)res->pilot_photons, text,
            e->photons_per_second,
            e->heuristic_photons_per_second > 0 ? e->photons_per_second / e->heuristic_photons_per_second : 0.0,
            e->heuristic_photons_per_second);
}

bool tune_and_store(const cli_options *opt, gpu_engine *eng, const mci_run *run, double budget,
                    const char *csv_path, bool print_table, tune_outcome *out, tm_error *err)
{
    memset(out, 0, sizeof *out);
    tune_options t;
    options_for(opt, budget, &t);
    t.log = print_table && !opt->quiet ? stdout : NULL;
    tune_result res;
    bool ok = tune_search(eng, run, opt->score_absorption, &t, &res, err);
    if (ok && res.winner < 0) {
        error_set(err, NULL, 0, "no kernel variant could be measured");
        ok = false;
    }
    if (ok) {
        tune_result_entry(&res, run, opt->score_absorption, &out->entry);
        out->mismatches = res.mismatches;
        if (print_table && !opt->quiet) {
            printf("\n");
            tune_print_table(stdout, &res);
        }
        ok = (!csv_path || tune_write_csv(csv_path, &res, err)) &&
             store_entry(opt, eng, &out->entry, out->profile_path, sizeof out->profile_path, err);
    }
    if (ok && !opt->quiet) {
        summary_line(print_table ? stdout : stderr, &res, &out->entry);
        if (csv_path)
            fprintf(print_table ? stdout : stderr, "tmcml: measurements in %s\n", csv_path);
        fprintf(print_table ? stdout : stderr, "tmcml: profile entry stored in %s\n",
                out->profile_path);
    }
    tune_result_free(&res);
    return ok;
}

/* ---- shared by both commands ------------------------------------------------ */

typedef struct tuning_job {
    mci_file file;
    const mci_run *run;
    gpu_engine *eng;
    char stem[256];           /* the input's name without directory and .mci */
} tuning_job;

static int open_job(const cli_options *opt, tuning_job *job)
{
    tm_error err = {0};
    memset(job, 0, sizeof *job);
    if (!mci_read(opt->input, &job->file, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    if (opt->run_number > job->file.num_runs) {
        error_set(&err, job->file.path, 0, "--run %d: the file has %d runs", opt->run_number,
                  job->file.num_runs);
        error_print(stderr, &err);
        mci_free(&job->file);
        return RUN_BAD_INPUT;
    }
    job->run = &job->file.runs[opt->run_number - 1];
    snprintf(job->stem, sizeof job->stem, "%s", fs_base_name(opt->input));
    char *dot = strrchr(job->stem, '.');
    if (dot && dot != job->stem)
        *dot = '\0';
    if (!gpu_engine_open(opt->gpu_index, &job->eng, &err)) {
        char text[2048];
        fprintf(stderr, "tmcml: tune and sweep need a GPU: %s\n", error_format(&err, text, sizeof text));
        mci_free(&job->file);
        return RUN_FAILED;
    }
    if (!opt->quiet)
        fprintf(stderr, "tmcml: tuning on %s\n", gpu_engine_device(job->eng)->name);
    return RUN_OK;
}

static void close_job(tuning_job *job)
{
    gpu_engine_close(job->eng);
    mci_free(&job->file);
}


int tune_command(const cli_options *opt)
{
    tuning_job job;
    int status = open_job(opt, &job);
    if (status != RUN_OK)
        return status;
    char name[300];
    snprintf(name, sizeof name, "tune-%s.csv", job.stem);
    char *csv = opt->csv_path ? strdup(opt->csv_path) : fs_join(opt->out_dir, name);
    tm_error err = {0};
    tune_outcome out;
    double budget = opt->budget > 0 ? opt->budget : TUNE_DEFAULT_BUDGET;
    if (!csv || !fs_check_writable(csv, &err) ||
        !tune_and_store(opt, job.eng, job.run, budget, csv, true, &out, &err)) {
        error_print(stderr, &err);
        status = RUN_FAILED;
    } else if (out.mismatches > 0) {
        fprintf(stderr, "tmcml: error: %d candidate(s) failed the bit-identity gate (tallies differ "
                "from the reference kernel's: a bug; see MISMATCH in the table); the winner "
                "passed it and was stored\n", out.mismatches);
        status = RUN_FAILED;
    }
    free(csv);
    close_job(&job);
    return status;
}

/* ---- sweep -------------------------------------------------------------------- */

/* sweep --entry W[,W]: each width as the knob table's --entry takes it. */
static bool parse_entries(const char *text, sweep_options *s, tm_error *err)
{
    const knob *entry = knob_by_name("entry_bits");
    s->entry_count = 0;
    if (!text) {
        s->entry_bits[s->entry_count++] = 32;
        return true;
    }
    char list[64];
    snprintf(list, sizeof list, "%s", text);
    char *save = NULL;
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        kernel_knobs v;
        knobs_init(&v);
        if (!knob_parse(entry, w, &v, err))
            return false;
        bool seen = false;
        for (int i = 0; i < s->entry_count; i++)
            seen = seen || s->entry_bits[i] == v.entry_bits;
        if (seen || s->entry_count == 2) {
            error_set(err, NULL, 0, "--entry: expected one or two different widths, e.g. 32,64 "
                      "(got \"%s\")", text);
            return false;
        }
        s->entry_bits[s->entry_count++] = v.entry_bits;
    }
    if (s->entry_count == 0) {
        error_set(err, NULL, 0, "--entry: expected 32, 64 or 32,64 (got \"%s\")", text);
        return false;
    }
    return true;
}

static bool sweep_setup(const cli_options *opt, const tuning_job *job, sweep_options *s,
                        tm_error *err)
{
    memset(s, 0, sizeof *s);
    options_for(opt, 0, &s->tune);
    s->tune.log = opt->quiet ? NULL : stdout;
    if (!sweep_parse_range(opt->sweep_nr, &s->nr) || !sweep_parse_range(opt->sweep_nz, &s->nz)) {
        error_set(err, NULL, 0, "--nr/--nz: expected A:B:STEP with 0 <= A <= B and STEP >= 1, or "
                  "one number (got \"%s\" and \"%s\")", opt->sweep_nr, opt->sweep_nz);
        return false;
    }
    if (!parse_entries(opt->sweep_entries, s, err))
        return false;
    if (!opt->score_absorption) {
        error_set(err, NULL, 0, "sweep: -A has no tile to sweep");
        return false;
    }
    /* The launch configuration: the heuristic's, with the explicit options. */
    kernel_spec spec;
    if (!variant_spec_for_run(job->run, true, gpu_engine_device(job->eng), &opt->variant, &spec, err))
        return false;
    s->launch = spec.knobs;
    return true;
}

int sweep_command(const cli_options *opt)
{
    tuning_job job;
    int status = open_job(opt, &job);
    if (status != RUN_OK)
        return status;
    tm_error err = {0};
    sweep_options s;
    char name[300], title[1024];
    snprintf(name, sizeof name, "sweep-%s", job.stem);
    char *prefix = strdup(opt->out_dir ? opt->out_dir : name); /* -o PREFIX */
    snprintf(title, sizeof title, "%s on %s", job.stem, gpu_engine_device(job.eng)->name);
    sweep_result res;
    memset(&res, 0, sizeof res);
    bool ok = prefix && sweep_setup(opt, &job, &s, &err);
    bool bad_input = prefix && !ok;
    if (ok) {
        s.out_prefix = prefix;
        char check[4200];
        snprintf(check, sizeof check, "%s.csv", prefix);
        ok = fs_check_writable(check, &err) && sweep_run(job.eng, job.run, &s, &res, &err) &&
             sweep_write_outputs(&s, &res, title, &err);
    }
    if (!ok) {
        error_print(stderr, &err);
        status = bad_input ? RUN_BAD_INPUT : RUN_FAILED;
    } else {
        if (res.best_index >= 0 && !opt->quiet)
            printf("best %.4g photons/s (tile %dx%d, %d-bit), worst %.4g: best/worst %.3f; "
                   "pilot %llu photons, %.1f s\n", res.best,
                   res.cells.candidates[res.best_index].config.tile_nr,
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
    close_job(&job);
    return status;
}
