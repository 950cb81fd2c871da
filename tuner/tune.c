/* Tuning a run and storing the winner in the GPU's profile (tuner/tune.h):
 * the search (search.c), its table and CSV (report.c), the profile store. */
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_target.h"
#include "profile.h"
#include "recorder.h"
#include "report.h"
#include "search.h"
#include "text_escape.h"

void plan_tune_options(const plan_options *opt, double budget, tune_options *t)
{
    tune_options_init(t);
    t->seed = opt->seed;
    t->budget_seconds = budget;
    if (opt->repeats > 0)
        t->repeats = opt->repeats;
    t->debug_wrong_candidate = opt->debug_wrong_candidate;
    t->num_sets = opt->num_sets;
    t->sets_paths = opt->sets_paths;
    t->sets_jacobian = opt->sets_jacobian;
    t->sets_optics = opt->sets_optics;
}

static bool store_entry(const plan_options *opt, const tune_device *device, const profile_entry *e,
                        char *path, size_t size, tm_error *err)
{
    profile_device dev;
    profile_device_from_info(device, &dev);
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
        text_printf(stderr, "tmcml: %s\n", note);
    return true;
}

bool plan_can_store(const plan_options *opt, tm_error *err)
{
    char dir[PROFILE_PATH_MAX];
    tm_error why;
    if (!profile_write_dir(opt->profile_dir, dir, sizeof dir, err))
        return false;
    if (profile_dir_trusted(dir, &why))
        return true;
    error_set(err, dir, 0, "profiles would not be stored here: %s: %s", why.file, why.message);
    return false;
}

static void summary_line(FILE *f, const tune_result *res, const profile_entry *e)
{
    char text[256], cls[128];
    knobs_text(&e->config, text, sizeof text);
    problem_shape_text(&e->cls, cls, sizeof cls);
    fprintf(f,
            "tmcml: tuned %s in %.1f s: %d candidates measured (pilot %llu photons); winner %s, "
            "%.4g photons/s = %.3fx the heuristic's %.4g\n",
            cls, res->seconds, e->candidates, (unsigned long long)res->pilot_photons, text,
            e->photons_per_second,
            e->heuristic_photons_per_second > 0
                ? e->photons_per_second / e->heuristic_photons_per_second
                : 0.0,
            e->heuristic_photons_per_second);
}

/* The recording beside a CSV written to a file (none beside /dev/null or a
 * FIFO, which are written in place). */
static char *recording_path(const char *csv_path, tm_error *err)
{
    fs_target target;
    if (!fs_target_find(csv_path, &target, err))
        return NULL;
    bool through = target.through;
    fs_target_free(&target);
    char *path = through ? strdup("") : tune_recording_path(csv_path);
    if (!path)
        error_set(err, csv_path, 0, "out of memory");
    return path;
}

bool plan_tune_and_store(const plan_options *opt, const tune_runner *runner, const mci_run *run,
                         double budget, const char *csv_path, bool print_table, tune_outcome *out,
                         tm_error *err)
{
    memset(out, 0, sizeof *out);
    tune_options t;
    plan_tune_options(opt, budget, &t);
    t.log = print_table && !opt->quiet ? stdout : NULL;
    if (!plan_can_store(opt, err))
        return false;
    /* With a CSV, every measurement is recorded beside it (recording.h). */
    char *recording = csv_path ? recording_path(csv_path, err) : NULL;
    if (csv_path && !recording)
        return false;
    tune_recorder recorder;
    tune_runner recorded;
    tune_recorder_init(&recorder, runner, &recorded);
    tune_result res;
    bool ok = tune_search(recording && *recording ? &recorded : runner, run, opt->score_absorption,
                          &t, &res, err);
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
             (!recording || !*recording ||
              tune_recorder_write(&recorder, recording, run, opt->score_absorption, &t, err)) &&
             store_entry(opt, runner->device, &out->entry, out->profile_path,
                         sizeof out->profile_path, err);
    }
    if (ok && !opt->quiet) {
        summary_line(print_table ? stdout : stderr, &res, &out->entry);
        if (csv_path)
            text_printf(print_table ? stdout : stderr, "tmcml: measurements in %s\n", csv_path);
        if (recording && *recording)
            text_printf(print_table ? stdout : stderr,
                        "tmcml: their recording (for replay) in %s\n", recording);
        text_printf(print_table ? stdout : stderr, "tmcml: profile entry stored in %s\n",
                    out->profile_path);
    }
    tune_result_free(&res);
    tune_recorder_free(&recorder);
    free(recording);
    return ok;
}
