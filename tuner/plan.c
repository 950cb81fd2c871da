/* The planner: where a run's GPU kernel variant is chosen (tuner/plan.h). */
#include "plan.h"
#include "text_escape.h"

#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "profile.h"
#include "tune.h"
#include "run_view.h"
#include "variant.h"

typedef struct choice {
    const plan_options *opt;
    const tune_runner *runner; /* NULL for `gen`: lookup only, no tuning */
    const tune_device *info;   /* NULL for `gen` on a machine without a GPU */
    const mci_run *run;
    profile_class cls;
    profile_device dev;
    profile_toolchain tc;
    bool have_tc;
} choice;

static void say(const choice *c, const char *msg)
{
    if (!c->opt->quiet)
        text_printf(stderr, "tmcml: %s\n", msg);
}

static void note(void *ctx, const char *msg) { say(ctx, msg); }

/* --profile FILE: that file only; unreadable or corrupt is an error (the
 * user named it), stale is said and passed over. */
static bool lookup_file(const choice *c, profile_found *found, tm_error *err)
{
    profile p;
    found->match = PROFILE_MATCH_NONE;
    if (!profile_read(c->opt->profile_file, &p, err)) {
        profile_free(&p);
        return false;
    }
    /* Without a GPU (`gen`), only the toolchain can be checked. */
    bool current = c->info ? profile_is_current(&p, &c->dev, &c->tc)
                           : profile_toolchain_equal(&p.toolchain, &c->tc);
    if (!c->have_tc || !current) {
        char msg[PROFILE_PATH_MAX + 256];
        snprintf(msg, sizeof msg,
                 "%s: made for another GPU or by another generator/NVRTC; ignored "
                 "- run `tmcml tune FILE.mci` to retune",
                 c->opt->profile_file);
        say(c, msg);
    } else {
        const profile_entry *e;
        found->match = profile_lookup(&p, &c->cls, &e);
        if (found->match != PROFILE_MATCH_NONE) {
            found->entry = *e;
            snprintf(found->path, sizeof found->path, "%s", c->opt->profile_file);
        }
    }
    profile_free(&p);
    return true;
}

static bool lookup(const choice *c, profile_found *found, tm_error *err)
{
    found->match = PROFILE_MATCH_NONE;
    if (c->opt->profile_file)
        return lookup_file(c, found, err);
    if (!c->have_tc || !c->info)
        return true; /* no NVRTC: nothing is current; no GPU: no file name */
    return profile_find(c->opt->profile_dir, &c->dev, &c->tc, &c->cls, found, note, (void *)c, err);
}

/* The heuristic kernel's time for the whole run, from a pilot of 1 % of its
 * photons (so estimating costs at most 1 % of the run; the kernel is the one
 * the run then uses, compiled once).  *seconds is 0 when the run has fewer
 * than PLAN_AUTO_TUNE_MIN_PHOTONS per thread slot of the GPU: no case
 * measured comes near repaying a tuning at that size (skin would need
 * ~10^5 photons per slot, the intralipid slab ~10^4), and a 1 % pilot of it
 * would be too small to time. */
static bool estimate_seconds(const choice *c, double *seconds, tm_error *err)
{
    const tune_device *dev = c->info;
    double slots =
        (double)dev->sm_count * (dev->max_threads_per_sm > 0 ? dev->max_threads_per_sm : 2048);
    *seconds = 0;
    if ((double)c->run->photons < PLAN_AUTO_TUNE_MIN_PHOTONS * slots)
        return true;
    tune_options t;
    plan_tune_options(c->opt, 0, &t);
    measure_setup m = {.runner = c->runner,
                       .run = c->run,
                       .score_absorption = c->opt->score_absorption,
                       .opt = &t};
    kernel_spec spec;
    variant_options none;
    variant_options_init(&none);
    uint64_t photons = (uint64_t)(c->run->photons / 100);
    tune_measurement stats;
    if (!variant_spec_for_run(c->run, c->opt->score_absorption, dev, &none, &spec, err) ||
        (t.num_sets > 0 &&
         !variant_sets_spec(
             &spec, (sets_scoring){t.num_sets, t.sets_paths, t.sets_jacobian, t.sets_optics}, &none,
             dev, err)) ||
        !measure_run_once(&m, &spec, photons, &stats, err))
        return false;
    tune_measurement_free(&stats);
    *seconds = stats.kernel_seconds * (double)c->run->photons / (double)photons;
    return true;
}

/* No entry applies: tune first, or say why not. */
static bool maybe_tune(const choice *c, profile_found *found, tm_error *err)
{
    const plan_options *opt = c->opt;
    double budget = opt->budget > 0 ? opt->budget : PLAN_AUTO_TUNE_BUDGET;
    char msg[512], cls[128];
    problem_shape_text(&c->cls, cls, sizeof cls);
    if (opt->tune_mode == PLAN_TUNE_AUTO && variant_options_given(&opt->variant)) {
        snprintf(msg, sizeof msg,
                 "no profile entry for %s on this GPU: heuristic variant with "
                 "the explicit options",
                 cls);
        say(c, msg);
        return true;
    }
    if (opt->tune_mode == PLAN_TUNE_NEVER) {
        snprintf(msg, sizeof msg,
                 "no profile entry for %s on this GPU: heuristic variant "
                 "(--tune never)",
                 cls);
        say(c, msg);
        return true;
    }
    tm_error why;
    if (opt->tune_mode == PLAN_TUNE_AUTO && !plan_can_store(opt, &why)) {
        char text[sizeof why.file + sizeof why.message + 8], line[sizeof text + 256];
        snprintf(line, sizeof line,
                 "no profile entry for %s on this GPU: heuristic variant (not tuned: %s)", cls,
                 error_format(&why, text, sizeof text));
        say(c, line);
        return true;
    }
    if (opt->tune_mode == PLAN_TUNE_AUTO) {
        double est;
        if (!estimate_seconds(c, &est, err))
            return false;
        if (est == 0) {
            snprintf(msg, sizeof msg,
                     "no profile entry for %s on this GPU: heuristic variant "
                     "(the run is too short to repay tuning; `tmcml tune` tunes it)",
                     cls);
            say(c, msg);
            return true;
        }
        if (est < PLAN_AUTO_TUNE_PAYBACK * budget) {
            snprintf(msg, sizeof msg,
                     "no profile entry for %s on this GPU: heuristic variant "
                     "(the run, ~%.3g s, is too short to repay %.0f s of tuning; `tmcml tune` "
                     "tunes it)",
                     cls, est, budget);
            say(c, msg);
            return true;
        }
        snprintf(msg, sizeof msg,
                 "no profile entry for %s on this GPU: tuning first (%.0f s; "
                 "the run is estimated at %.3g s on the heuristic variant)",
                 cls, budget, est);
        say(c, msg);
    }
    tune_outcome out;
    if (!plan_tune_and_store(opt, c->runner, c->run, budget, NULL, false, &out, err))
        return false;
    found->match = PROFILE_MATCH_EXACT;
    found->entry = out.entry;
    snprintf(found->path, sizeof found->path, "%s", out.profile_path);
    return true;
}

/* Absorption sets with no entry of their own: the entry of the run's own
 * shape, whose variant the sets' kernel takes less its launch bound
 * (variant_sets_spec), as before the sets had entries. */
static bool lookup_run_own(const choice *c, profile_found *found, tm_error *err)
{
    choice own = *c;
    problem_shape_for_sets(&own.cls, (sets_scoring){0});
    return lookup(&own, found, err);
}

static void describe(const choice *c, const profile_found *found, char *source, size_t size)
{
    if (found->match == PROFILE_MATCH_NONE) {
        snprintf(source, size, c->opt->no_profile ? "heuristic (--no-profile)" : "heuristic");
        return;
    }
    char cls[128], text[256];
    problem_shape_text(&found->entry.cls, cls, sizeof cls);
    knobs_text(&found->entry.config, text, sizeof text);
    snprintf(source, size, "profile %s, %s entry %s (%s)", found->path,
             profile_match_name(found->match), cls, text);
}

static bool choose(choice *c, char *source, size_t source_size, kernel_spec *spec, tm_error *err)
{
    const plan_options *opt = c->opt;
    const mci_run *run = c->run;
    c->cls = run_view_shape(run, opt->score_absorption);
    problem_shape_for_sets(&c->cls, (sets_scoring){opt->num_sets, opt->sets_paths,
                                                   opt->sets_jacobian, opt->sets_optics});
    if (c->info)
        profile_device_from_info(c->info, &c->dev);
    tm_error ignored;
    c->have_tc = profile_toolchain_current(&c->tc, &ignored);
    profile_found found;
    memset(&found, 0, sizeof found);
    found.match = PROFILE_MATCH_NONE;
    if (!opt->no_profile) {
        bool tune_always = c->runner && opt->tune_mode == PLAN_TUNE_ALWAYS;
        if (!tune_always && !lookup(c, &found, err))
            return false;
        if (c->runner && found.match == PROFILE_MATCH_NONE && !maybe_tune(c, &found, err))
            return false;
        if (found.match == PROFILE_MATCH_NONE && opt->num_sets > 0 &&
            !lookup_run_own(c, &found, err))
            return false;
    }
    describe(c, &found, source, source_size);
    if (variant_options_given(&opt->variant) && source_size > 0) {
        size_t n = strlen(source);
        snprintf(source + n, source_size - n, ", with explicit options");
    }
    const kernel_knobs *tuned = found.match != PROFILE_MATCH_NONE ? &found.entry.config : NULL;
    if (!variant_spec_tuned(run, opt->score_absorption, c->info, tuned, &opt->variant, spec, err))
        return false;
    if (opt->num_sets == 0)
        return true;
    /* The sets' own entry as it is; else the run's variant less its bound,
     * in a block that fits (variant_sets_spec), said when it is smaller */
    if (tuned && found.entry.cls.num_sets > 0)
        return variant_sets_tuned(
            spec,
            (sets_scoring){opt->num_sets, opt->sets_paths, opt->sets_jacobian, opt->sets_optics},
            c->info, err);
    int block = spec->knobs.block_size;
    if (!variant_sets_spec(
            spec,
            (sets_scoring){opt->num_sets, opt->sets_paths, opt->sets_jacobian, opt->sets_optics},
            &opt->variant, c->info, err))
        return false;
    if (spec->knobs.block_size != block && source_size > 0) {
        size_t n = strlen(source);
        snprintf(source + n, source_size - n, ", the sets in blocks of %d (of %d: shared memory)",
                 spec->knobs.block_size, block);
    }
    return true;
}

bool plan_choose(const plan_options *opt, const tune_runner *runner, const mci_run *run,
                 kernel_spec *spec, char *source, size_t source_size, tm_error *err)
{
    choice c = {.opt = opt, .runner = runner, .info = runner->device, .run = run};
    return choose(&c, source, source_size, spec, err);
}

bool plan_choose_for_gen(const plan_options *opt, const tune_device *dev, const mci_run *run,
                         kernel_spec *spec, char *source, size_t source_size, tm_error *err)
{
    choice c = {.opt = opt, .runner = NULL, .info = dev, .run = run};
    return choose(&c, source, source_size, spec, err);
}
