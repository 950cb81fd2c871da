/* The tuner without a GPU (tuner/replay_runner.h): every recording in a
 * folder (tests/data/tune/: real `tmcml tune --csv` recordings from the
 * GPUs, and the hand-made synthetic_* of make_tune_synthetic.c) replayed
 * through the staged search, the bit-identity gate and the profile store.
 *
 *   test_tune_replay DIR
 *
 * For each DIR/STEM.replay.json (beside DIR/STEM.csv, the CSV of the same
 * tune):
 *   search  the search run again from the recorded options gives the
 *           recorded CSV byte for byte and asks for every recorded run;
 *   record  the replayed search recorded again (tuner/recorder.h) gives the
 *           recording byte for byte;
 *   unknown a query the recording has no answer for (another seed) stops
 *           the search with an error naming the candidate;
 *   gate    a measured refine candidate given another digest and a 1000x
 *           rate is reported as MISMATCH and does not win: the recorded
 *           winner still does;
 *   store   plan_tune_and_store writes the winner into a profile in a
 *           temporary folder, read back with the same class and knobs
 *           (needs NVRTC for the toolchain's version: said and skipped
 *           without it).
 * And once: a recording with a field missing or mistyped is refused with
 * the file and the field named. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compile.h"
#include "fs.h"
#include "measure.h"
#include "plan.h"
#include "recorder.h"
#include "report.h"
#include "replay_runner.h"
#include "tune.h"
#include "run_view.h"

static const char suffix[] = ".replay.json";

static char tmp[] = "/tmp/tmcml_replay_XXXXXX";

static bool replay_search(const char *path, const tune_options *opt, tune_result *res, int *unused,
                          tm_error *err)
{
    replay_runner rr;
    tune_runner runner;
    if (!replay_runner_open(&rr, path, &runner, err))
        return false;
    bool ok =
        tune_search(&runner, replay_runner_problem(&rr), rr.rec.score_absorption, opt, res, err);
    if (unused)
        *unused = replay_runner_unused(&rr);
    replay_runner_close(&rr);
    return ok;
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    tm_error err;
    char *x = fs_read_text(a, &na, &err), *y = fs_read_text(b, &nb, &err);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* The search again: the recorded CSV, every recorded run asked for. */
static void check_search(const char *path, const char *csv, const tune_options *opt,
                         tune_result *res)
{
    tm_error err = {0};
    int unused = -1;
    bool ok = replay_search(path, opt, res, &unused, &err);
    CHECK_MSG(ok, "%s: %s", path, err.message);
    if (!ok)
        return;
    char out[sizeof tmp + 16];
    snprintf(out, sizeof out, "%s/replayed.csv", tmp);
    CHECK(tune_write_csv(out, res, &err));
    CHECK_MSG(same_file(out, csv), "%s: the replayed search's CSV differs from %s", path, csv);
    CHECK_MSG(unused == 0, "%s: %d recorded runs never asked for", path, unused);
    CHECK_MSG(res->winner >= 0 && res->candidates[res->winner].status == TUNE_MEASURED, "%s", path);
}

/* The replay recorded again: the same file. */
static void check_record(const char *path)
{
    replay_runner rr;
    tune_runner runner, recorded;
    tm_error err = {0};
    if (!replay_runner_open(&rr, path, &runner, &err)) {
        CHECK_MSG(false, "%s", err.message);
        return;
    }
    tune_recorder rec;
    tune_recorder_init(&rec, &runner, &recorded);
    tune_options opt = rr.rec.options;
    tune_result res;
    char out[sizeof tmp + 32];
    snprintf(out, sizeof out, "%s/again.replay.json", tmp);
    const mci_run *run = replay_runner_problem(&rr);
    CHECK_MSG(tune_search(&recorded, run, rr.rec.score_absorption, &opt, &res, &err) &&
                  tune_recorder_write(&rec, out, run, rr.rec.score_absorption, &opt, &err),
              "%s: %s", path, err.message);
    CHECK_MSG(same_file(out, path), "%s: recorded again, it differs (%s)", path, out);
    tune_result_free(&res);
    tune_recorder_free(&rec);
    replay_runner_close(&rr);
}

/* Another seed: the first query has no recorded answer. */
static void check_unknown(const char *path, const tune_options *opt)
{
    tune_options other = *opt;
    other.seed = opt->seed + 1;
    tune_result res;
    tm_error err = {0};
    CHECK_MSG(!replay_search(path, &other, &res, NULL, &err), "%s", path);
    CHECK_CONTAINS(err.message, "no recorded run of candidate");
    CHECK_CONTAINS(err.message, "block_size=");
    tune_result_free(&res);
}

/* The last measured refine candidate that did not win (its result decides
 * no later candidate of the search), or -1. */
static int gate_target(const tune_result *res)
{
    int target = -1;
    for (int i = 0; i < res->count; i++)
        if (strcmp(res->candidates[i].stage, "refine") == 0 &&
            res->candidates[i].status == TUNE_MEASURED && i != res->winner)
            target = i;
    return target;
}

static void check_gate(const char *path, const tune_options *opt, const tune_result *recorded)
{
    int target = gate_target(recorded);
    if (target < 0) {
        printf("%s: no measured refine candidate to break: gate case skipped\n", path);
        return;
    }
    replay_runner rr;
    tune_runner runner;
    tm_error err = {0};
    CHECK_MSG(replay_runner_open(&rr, path, &runner, &err), "%s", err.message);
    const tune_candidate *t = &recorded->candidates[target];
    measure_setup m = {.runner = &runner,
                       .run = replay_runner_problem(&rr),
                       .score_absorption = rr.rec.score_absorption,
                       .opt = opt};
    kernel_spec spec;
    CHECK(measure_spec(&m, &t->config, false, &spec, &err));
    char *key = spec_key(&spec);
    CHECK(key && replay_runner_corrupt(&rr, key, 1000) >= 1);
    free(key);
    tune_result res;
    CHECK_MSG(tune_search(&runner, m.run, m.score_absorption, opt, &res, &err), "%s: %s", path,
              err.message);
    CHECK(res.count == recorded->count);
    CHECK(res.candidates[target].status == TUNE_MISMATCH);
    CHECK(res.mismatches == recorded->mismatches + 1);
    CHECK(res.winner == recorded->winner);
    CHECK(res.winner != target);
    tune_result_free(&res);
    replay_runner_close(&rr);
}

static void check_store(const char *path, const tune_options *opt, const tune_result *recorded)
{
    if (!compile_nvrtc_available(NULL, 0, &(tm_error){0})) {
        printf("%s: no NVRTC here (a profile names its version): store case skipped\n", path);
        return;
    }
    replay_runner rr;
    tune_runner runner;
    tm_error err = {0};
    CHECK_MSG(replay_runner_open(&rr, path, &runner, &err), "%s", err.message);
    char dir[sizeof tmp + 16];
    snprintf(dir, sizeof dir, "%s/profiles", tmp);
    plan_options plan = {.seed = opt->seed,
                         .score_absorption = rr.rec.score_absorption,
                         .quiet = true,
                         .profile_dir = dir,
                         .repeats = opt->repeats,
                         .debug_wrong_candidate = opt->debug_wrong_candidate,
                         .num_sets = opt->num_sets,
                         .sets_paths = opt->sets_paths,
                         .sets_jacobian = opt->sets_jacobian,
                         .sets_optics = opt->sets_optics};
    variant_options_init(&plan.variant);
    tune_options made;
    plan_tune_options(&plan, opt->budget_seconds, &made);
    CHECK(made.min_kernel_seconds == opt->min_kernel_seconds);
    tune_outcome out;
    const mci_run *run = replay_runner_problem(&rr);
    bool ok =
        plan_tune_and_store(&plan, &runner, run, opt->budget_seconds, NULL, false, &out, &err);
    CHECK_MSG(ok, "%s: %s", path, err.message);
    profile p;
    if (ok && profile_read(out.profile_path, &p, &err)) {
        profile_class cls = run_view_shape(run, rr.rec.score_absorption);
        problem_shape_for_sets(&cls, (sets_scoring){opt->num_sets, opt->sets_paths,
                                                    opt->sets_jacobian, opt->sets_optics});
        const profile_entry *e;
        CHECK(profile_lookup(&p, &cls, &e) == PROFILE_MATCH_EXACT);
        CHECK(knobs_equal(&e->config, &recorded->candidates[recorded->winner].config));
        CHECK(strcmp(p.device.name, rr.rec.device.name) == 0);
        profile_free(&p);
    } else {
        CHECK_MSG(false, "%s: %s", out.profile_path, err.message);
    }
    replay_runner_close(&rr);
}

static void check_recording(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 8;
    char *path = malloc(n), *csv = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    snprintf(csv, n, "%s/%.*s.csv", dir, (int)(strlen(name) - strlen(suffix)), name);
    replay_runner rr;
    tune_runner runner;
    tm_error err = {0};
    bool ok = replay_runner_open(&rr, path, &runner, &err);
    CHECK_MSG(ok, "%s", err.message);
    if (ok) {
        tune_options opt = rr.rec.options;
        replay_runner_close(&rr);
        tune_result res;
        memset(&res, 0, sizeof res);
        check_search(path, csv, &opt, &res);
        check_record(path);
        if (res.winner >= 0) {
            check_unknown(path, &opt);
            check_gate(path, &opt, &res);
            check_store(path, &opt, &res);
        }
        printf("%s: %d candidates replayed, %d mismatches\n", name, res.count, res.mismatches);
        tune_result_free(&res);
    }
    free(path);
    free(csv);
}

/* A recording with `from` replaced by `to` is refused, naming `field`. */
static void check_bad(const char *path, const char *from, const char *to, const char *field)
{
    size_t size;
    tm_error err = {0};
    char *text = fs_read_text(path, &size, &err);
    char *at = text ? strstr(text, from) : NULL;
    CHECK_MSG(at != NULL, "%s: no \"%s\"", path, from);
    if (!at) {
        free(text);
        return;
    }
    char bad[sizeof tmp + 32];
    snprintf(bad, sizeof bad, "%s/bad.replay.json", tmp);
    FILE *f = fopen(bad, "w");
    CHECK(f && fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) > 0);
    if (f)
        fclose(f);
    free(text);
    replay_runner rr;
    tune_runner runner;
    CHECK(!replay_runner_open(&rr, bad, &runner, &err));
    CHECK_CONTAINS(err.file, "bad.replay.json");
    CHECK_CONTAINS(err.message, field);
}

static void check_bad_recordings(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/synthetic_mcml_example.replay.json", dir);
    check_bad(path, "\"runs\":", "\"rums\":", "runs: missing");
    check_bad(path,
              "\"sm_count\":", "\"sm_count\": \"x\", \"y\":", "device.sm_count: expected a number");
    check_bad(path, "\"digest\":\t\"fnv1a64:", "\"digest\":\t\"fnv1a65:",
              "runs[0].digest: expected fnv1a64");
    check_bad(path, "\"version\":\t1", "\"version\":\t2", "not a tune recording of version 1");
    check_bad(path, "\"events\":\t\"", "\"events\":\t\"7 ", "deposits.events");
}

int main(int argc, char **argv)
{
    if (argc != 2 || !mkdtemp(tmp)) {
        fprintf(stderr, "usage: test_tune_replay DIR\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    CHECK_MSG(d != NULL, "%s", argv[1]);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > strlen(suffix) && strcmp(e->d_name + n - strlen(suffix), suffix) == 0) {
            check_recording(argv[1], e->d_name);
            count++;
        }
    }
    if (d)
        closedir(d);
    CHECK_MSG(count > 0, "no recordings in %s", argv[1]);
    check_bad_recordings(argv[1]);
    char cmd[sizeof tmp + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return check_summary("tune_replay");
}
