/* The steps of `tmcml run` that a run alone (run.c) and a batch of runs
 * (run_batch.c) share (driver/run_steps.h): the GPUs' variants for a run and
 * what each did, the engine call's options, a run's outputs written and
 * reported, its skip, resume and stop, and the GPUs released. */
#include "run_steps.h"
#include "optics_sets.h"
#include "run_precision.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "finished.h"
#include "fs.h"
#include "gpu_pool.h"
#include "gpu_runner.h"
#include "interrupt.h"
#include "mci.h"
#include "mco.h"
#include "npz.h"
#include "outputs.h"
#include "parallel.h"
#include "progress.h"
#include "result.h"
#include "resume.h"
#include "rng.h"
#include "session.h"
#include "stopper.h"
#include "summary.h"
#include "tally.h"
#include "text_escape.h"

#define RNG_NAME RNG_MWC_NAME

static int gpu_count(const engine *eng) { return eng->gpus; }

bool run_plan_gpus(const driver_options *opt, engine *eng, const mci_run *run, tm_error *err)
{
    if (!run->jacobian)
        return run_plan_gpus_sets(opt, eng, run, 0, NULL, NULL, NULL, err);
    for (int i = 1; i <= run->num_layers; i++)
        eng->jacobian_mua[i - 1] = run->layers[i].mua;
    return run_plan_gpus_sets(opt, eng, run, 1, eng->jacobian_mua, NULL, NULL, err);
}

bool run_plan_gpus_sets(const driver_options *opt, engine *eng, const mci_run *run, int num_sets,
                        const double *set_mua, const double *set_mus, const double *set_g,
                        tm_error *err)
{
    plan_options plan;
    driver_plan_options(opt, &plan);
    plan.num_sets = num_sets;
    plan.sets_paths = num_sets > 0 && opt->path_lengths;
    plan.sets_jacobian = num_sets > 0 && run->jacobian;
    plan.sets_optics = optics_sets_level(run, num_sets, set_mus, set_g);
    plan.set_mua = set_mua;
    plan.set_mus = set_mus;
    plan.set_g = set_g;
    if (!session_plan(&eng->ses, &plan, run, &eng->specs, err))
        return false;
    for (int i = 0; i < gpu_count(eng); i++) {
        eng->shares[i] = (run_gpu){.device = eng->ordinals[i], .name = eng->device_names[i]};
        if (!opt->quiet && gpu_count(eng) > 1)
            text_printf(stderr, "tmcml: kernel variant for GPU %d: %s\n", eng->ordinals[i],
                        eng->ses.sources[i]);
        else if (!opt->quiet)
            text_printf(stderr, "tmcml: kernel variant: %s\n", eng->ses.sources[i]);
    }
    free(eng->kernel);
    eng->kernel = spec_key(&eng->specs[0]);
    if (!eng->kernel) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    return true;
}

kernel_spec *run_derived_specs(const driver_options *opt, engine *eng, const mci_run *run,
                               run_spec_derive derive, int arg, tm_error *err)
{
    if (!run_plan_gpus(opt, eng, run, err))
        return NULL;
    int gpus = gpu_pool_size(eng->pool);
    kernel_spec *specs = malloc((size_t)gpus * sizeof *specs);
    if (!specs) {
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (int g = 0; g < gpus; g++) {
        specs[g] = eng->specs[g];
        tune_device dev;
        gpu_runner_device(gpu_engine_device(gpu_pool_engine(eng->pool, g)), &dev);
        if (!derive(&specs[g], &opt->variant, &dev, arg, err)) {
            free(specs);
            return NULL;
        }
    }
    char *key = spec_key(&specs[0]);
    if (key) { /* else the variant's key stays (out of memory) */
        free(eng->kernel);
        eng->kernel = key;
    }
    return specs;
}

void run_note_shares(const driver_options *opt, engine *eng, const session_run_stats *st)
{
    for (int i = 0; i < gpu_count(eng); i++) {
        const gpu_share *g = &st->shares[i];
        eng->shares[i].photons += g->photons;
        eng->shares[i].chunks += g->chunks;
        char tiles[64] = "";
        const gpu_run_tiles *t = &g->stats.tiles;
        if (t->nr > 0 || t->edge_bins > 0) /* launch_plan.c */
            snprintf(tiles, sizeof tiles, ", run tiles %ux%u%s", t->nr, t->nz,
                     t->edge_bins > 0 ? " and edge bins" : "");
        if (opt->verbose)
            fprintf(stderr,
                    "tmcml: GPU %d: %llu photons in %llu chunks, %llu launches of %u x %u threads "
                    "(%d blocks/SM%s), kernel %.3f s\n",
                    eng->ordinals[i], (unsigned long long)g->photons, (unsigned long long)g->chunks,
                    (unsigned long long)g->stats.launches, g->stats.grid, g->stats.block,
                    g->stats.blocks_per_sm, tiles, g->stats.kernel_seconds);
    }
}

session_sim run_session_sim(const driver_options *opt, const engine *eng, progress_meter *meter,
                            stopper *st, session_done_fn done, void *done_ctx)
{
    session_sim sim = {.seed = opt->seed,
                       .score_absorption = opt->score_absorption,
                       .threads = eng->threads,
                       .max_steps = opt->max_steps,
                       .cache_dir = opt->cache_dir,
                       .template_dir = opt->template_dir,
                       .verbose = opt->verbose,
                       .launch_photons = opt->launch_photons,
                       .gpu_chunk = opt->gpu_chunk,
                       .progress = meter,
                       .stop = &st->flag,
                       .done = done,
                       .done_ctx = done_ctx};
    /* A run with derivatives on the GPUs: its own one set (run_plan_gpus;
     * the sets' calls give theirs instead). */
    if (eng->pool && eng->specs && eng->specs[0].sets_jacobian) {
        sim.num_sets = 1;
        sim.set_mua = eng->jacobian_mua;
    }
    return sim;
}

sim_status run_gaps(const driver_options *opt, const checkpoint *ranges, uint64_t photons,
                    const char *label, const run_gap_calls *calls, tm_error *err)
{
    progress_meter meter;
    progress_start(&meter, !opt->quiet, photons, label);
    progress_add(&meter, checkpoint_done(ranges));
    stopper st;
    stopper_start(&st, opt->checkpoint_every);
    interrupt_graceful(true);
    sim_status status = SIM_DONE;
    uint64_t begin, end;
    while (status == SIM_DONE && resume_next_gap(ranges, &begin, &end)) {
        if (!calls->simulate(calls->ctx, &meter, &st, begin, end, err))
            status = SIM_FAILED;
        else if (interrupt_requested())
            status = SIM_STOPPED;
        else if (st.flag) {
            calls->save(calls->ctx);
            stopper_rearm(&st);
        }
    }
    interrupt_graceful(false);
    stopper_end(&st);
    progress_finish(&meter);
    if (status == SIM_STOPPED && !resume_next_gap(ranges, &begin, &end))
        status = SIM_DONE; /* the signal came as the last photons ended */
    return status;
}

void run_periodic_checkpoint(const driver_options *opt, const char *path, const checkpoint *ck)
{
    tm_error err = {0};
    if (checkpoint_write(path, ck, &err))
        return;
    char text[2048];
    fprintf(stderr, "tmcml: warning: checkpoint not written: %s; retrying in %g s\n",
            error_format(&err, text, sizeof text), opt->checkpoint_every);
}

static void report_run(const driver_options *opt, const run_paths *paths, const mcml_result *res,
                       double seconds)
{
    if (opt->quiet)
        return;
    text_printf(
        stdout, "%s: %llu photons in %.2f s (%.3g photons/s): Rsp %.6g  Rd %.6g  A %.6g  Tt %.6g\n",
        paths->mco, (unsigned long long)res->photons, seconds,
        seconds > 0 ? (double)res->photons / seconds : 0.0, res->rsp, res->rd, res->a, res->tt);
}

/* Trapped photons are a property of the input (or of a --max-steps too
 * small for it): said even with -q, since the .mco cannot show them. */
static void warn_trapped(const driver_options *opt, const run_paths *paths, const tally_set *t)
{
    if (t->trapped_photons == 0)
        return;
    text_printf(stderr,
                "tmcml: warning: %s: %llu photons never ended (still alive after %lu steps, held "
                "in a glass layer by total reflection, or parallel to one) and were stopped; their "
                "weight, %.3g per launched photon, is in neither Rd, A nor Tt (\"trapped\" in %s; "
                "docs/physics.md)\n",
                paths->mco, (unsigned long long)t->trapped_photons,
                (unsigned long)(opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON),
                tally_weight(t->trapped_units) / (double)(t->photons ? t->photons : 1),
                fs_base_name(paths->json));
}

/* An optics set whose effective sample size is low: its errors rest on a
 * few heavy histories; said, never silently reported as good. */
static void warn_low_ess(const run_paths *paths, const mcml_result *res)
{
    if (!(res->ess < OPTICS_SETS_LOW_ESS))
        return;
    text_printf(stderr,
                "tmcml: warning: %s: the optics set's effective sample size is %.3g of the "
                "reference's (below %g): its values and errors rest on a few heavy histories; "
                "simulate it on its own or nearer the run's optics (docs/physics.md, \"Optics "
                "sets\")\n",
                paths->mco, res->ess, OPTICS_SETS_LOW_ESS);
}

/* The .mco and JSON of a run: the final ones, or (partial set) the partial
 * ones of a stopped run, normalised by the photons done and saying so. */
static bool write_outputs(const driver_options *opt, const engine *eng, const mci_file *file,
                          int index, const run_paths *paths, bool partial, const checkpoint *ck,
                          const mcml_result *res, double seconds, tm_error *err)
{
    const tally_set *tallies = &ck->tallies;
    const mci_run *input = &file->runs[index];
    /* A precision run ended with the photons it took, which its .mco says;
     * --max-photons (its input's count) goes to the JSON. */
    summary_precision precision;
    bool precise = !partial && run_precision_report(opt, input, ck, &precision);
    mci_run taken = *input;
    taken.photons = precise ? (int64_t)tallies->photons : input->photons;
    const mci_run *run = &taken;
    const char *mco = partial ? paths->partial_mco : paths->mco;
    const char *json = partial ? paths->partial_json : paths->json;
    const char *npz = partial ? paths->partial_npz : paths->npz; /* NULL: no --npz */
    /* No time and no thread count here: equal seeds give identical files. */
    char comment[512], part[200] = "";
    if (partial)
        snprintf(part, sizeof part,
                 " PARTIAL: %llu of %llu photons, normalised by those done (--resume goes on "
                 "from %s).",
                 (unsigned long long)tallies->photons, (unsigned long long)run->photons,
                 fs_base_name(paths->ckpt));
    uint64_t digest = tally_set_digest(tallies);
    mco_provenance(comment, sizeof comment, eng->name, opt->seed, opt->score_absorption, digest,
                   part, fs_base_name(json));
    summary_identity id;
    if (!finished_identity(opt, run, eng->physics, &id, err))
        return false;
    /* The JSON is the pair's last word (finished.h): an old one must not
     * stay beside a new .mco if the process dies between the two. */
    if (unlink(json) != 0 && errno != ENOENT) {
        error_set(err, json, 0, "cannot replace: %s", strerror(errno));
        return false;
    }
    if (!mco_write(mco, run, res, comment, err) || (npz && !npz_write(npz, run, res, err)))
        return false;
    run_report rep = {.input_path = file->path,
                      .run_index = index + 1,
                      .run = run,
                      .result = res,
                      .seed = opt->seed,
                      .engine = eng->name,
                      .threads = eng->gpus ? 0 : eng->threads,
                      .wall_seconds = seconds,
                      .score_absorption = opt->score_absorption,
                      .rng = RNG_NAME,
                      .steps = tally_count(tallies->steps),
                      .trapped_photons = tallies->trapped_photons,
                      .trapped_weight = tally_weight(tallies->trapped_units) /
                                        (res->photons ? (double)res->photons : 1.0),
                      .tallies_digest = digest,
                      .device = eng->gpus ? eng->device_names[0] : NULL,
                      .kernel = eng->gpus ? eng->kernel : NULL,
                      .gpus = eng->shares,
                      .gpu_count = gpu_count(eng),
                      .partial_of = partial ? (uint64_t)run->photons : 0,
                      .checkpoint = partial ? fs_base_name(paths->ckpt) : NULL,
                      .stderr_arrays = res->stderr_groups > 0 && npz ? fs_base_name(npz) : NULL,
                      .precision = precise ? &precision : NULL,
                      .physics = eng->physics,
                      .input_digest = id.input_digest};
    return summary_write(json, &rep, err);
}

/* The result of ck's tallies, with their standard errors where every
 * photon of them is in ck's groups (a run begun without --stderr and
 * resumed with it has none: run_say_resumed warned). */
static bool result_of(const mci_run *run, const checkpoint *ck, mcml_result *res, tm_error *err)
{
    if (!result_from_tallies(run, &ck->tallies, res, err))
        return false;
    const uncertainty *u = &ck->unc;
    if (u->groups + u->kept_count == 0 ||
        u->photons + uncertainty_kept_photons(u) != ck->tallies.photons)
        return true;
    /* A stopped run's partial outputs: each group begun counts as one here
     * (its checkpoint keeps them). */
    uncertainty cut;
    uncertainty_init(&cut);
    bool ok = uncertainty_with_kept(u, run, &cut, err) && uncertainty_fill(&cut, res, err);
    uncertainty_free(&cut);
    if (!ok)
        result_free(res);
    return ok;
}

/* The outputs of ck's tallies: final, or partial. */
static bool write_result(const driver_options *opt, const engine *eng, const mci_file *file,
                         int index, const run_paths *paths, bool partial, const checkpoint *ck,
                         double seconds, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    mcml_result res = {0};
    bool ok = result_of(run, ck, &res, err) &&
              write_outputs(opt, eng, file, index, paths, partial, ck, &res, seconds, err);
    if (ok && !partial) {
        report_run(opt, paths, &res, seconds);
        warn_trapped(opt, paths, &ck->tallies);
        warn_low_ess(paths, &res);
    }
    result_free(&res);
    return ok;
}

void run_save_stopped(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                      const run_paths *paths, const checkpoint *ck, double seconds, char *kept,
                      size_t size)
{
    tm_error err = {0};
    /* A run with no photons done (a batch stopped before it reached this
     * run's) has nothing to normalise: its checkpoint alone. */
    bool none = checkpoint_done(ck) == 0;
    if (!checkpoint_write(paths->ckpt, ck, &err) ||
        (!none && !write_result(opt, eng, file, index, paths, true, ck, seconds, &err))) {
        error_print(stderr, &err);
        snprintf(kept, size, "the checkpoint could not be written: the last one, if any, is kept");
        return;
    }
    if (none)
        snprintf(kept, size, "run %d stopped before any of its photons; kept %s", index + 1,
                 paths->ckpt);
    else
        snprintf(kept, size,
                 "run %d stopped after %llu of %llu photons; kept %s, %s and %s (continue with "
                 "--resume)",
                 index + 1, (unsigned long long)checkpoint_done(ck),
                 (unsigned long long)ck->photons, paths->ckpt, paths->partial_mco,
                 paths->partial_json);
}

/* A run done: its checkpoint and partial outputs are of the past. */
static void remove_leftovers(const run_paths *paths)
{
    const char *gone[] = {paths->ckpt, paths->partial_mco, paths->partial_json, paths->partial_npz};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        if (gone[i] && unlink(gone[i]) != 0 && errno != ENOENT)
            text_printf(stderr, "tmcml: warning: cannot remove %s: %s\n", gone[i], strerror(errno));
}

bool run_already_finished(const driver_options *opt, const engine *eng, const mci_run *run,
                          const run_paths *paths, bool *done, tm_error *err)
{
    *done = false;
    if (!opt->resume || output_exists(paths->ckpt))
        return true;
    summary_identity id;
    return finished_identity(opt, run, eng->physics, &id, err) &&
           finished_check(paths, &id, opt->quiet ? NULL : stderr, done, err);
}

void run_say_skipped(const driver_options *opt, int index, const run_paths *paths)
{
    if (!opt->quiet)
        text_printf(stderr, "tmcml: run %d: %s is complete (no checkpoint): skipped\n", index + 1,
                    paths->mco);
}

void run_say_resumed(const driver_options *opt, int index, const run_paths *paths,
                     const checkpoint *ck)
{
    if (!opt->quiet)
        text_printf(stderr, "tmcml: run %d: resuming from %s, %llu of %llu photons done\n",
                    index + 1, paths->ckpt, (unsigned long long)checkpoint_done(ck),
                    (unsigned long long)ck->photons);
    /* Photons done without --stderr are in no group: no error can be
     * estimated over the run's photons (said even with -q: an output the
     * user asked for is missing). */
    uint64_t ungrouped = ck->tallies.photons - ck->unc.photons - uncertainty_kept_photons(&ck->unc);
    if (opt->stderr_groups && ungrouped > 0)
        text_printf(stderr,
                    "tmcml: warning: run %d: %llu of the %llu photons done in %s were simulated "
                    "without --stderr, so the standard errors cannot be given: %s and its JSON "
                    "will have none (remove %s and run again for them)\n",
                    index + 1, (unsigned long long)ungrouped,
                    (unsigned long long)ck->tallies.photons, paths->ckpt, paths->mco, paths->ckpt);
}

/* A run whose final outputs could not be written (a directory where the
 * .mco goes, a full disk) keeps its tallies: its checkpoint, all photons
 * done, is written now, and *err says that --resume writes the outputs
 * from it once the path is free. */
static void keep_unwritten(const run_paths *paths, const checkpoint *ck, tm_error *err)
{
    char said[1024];
    error_format(err, said, sizeof said);
    tm_error kept = {0};
    if (checkpoint_write(paths->ckpt, ck, &kept)) {
        error_set(err, NULL, 0,
                  "%s; the run's tallies are kept in %s: run again with --resume to write its "
                  "outputs once that is mended",
                  said, paths->ckpt);
        return;
    }
    char why[1024];
    error_set(err, NULL, 0, "%s; nor could its tallies be kept: %s", said,
              error_format(&kept, why, sizeof why));
}

bool run_finish(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                const run_paths *paths, const checkpoint *ck, double seconds, tm_error *err)
{
    if (!write_result(opt, eng, file, index, paths, false, ck, seconds, err)) {
        keep_unwritten(paths, ck, err);
        return false;
    }
    remove_leftovers(paths);
    return true;
}

bool run_finish_write(const driver_options *opt, const engine *eng, const mci_file *file, int index,
                      const run_paths *paths, const checkpoint *ck, double seconds, run_final *f)
{
    memset(f, 0, sizeof *f);
    bool written =
        result_of(&file->runs[index], ck, &f->res, &f->err) &&
        write_outputs(opt, eng, file, index, paths, false, ck, &f->res, seconds, &f->err);
    if (written)
        remove_leftovers(paths);
    else
        keep_unwritten(paths, ck, &f->err);
    /* Written, a run that took its most photons short of its precision
     * still fails. */
    f->ok = written && run_precision_met(opt, &file->runs[index], ck, paths->mco, &f->err);
    return f->ok;
}

void run_finish_report(const driver_options *opt, const run_paths *paths, const checkpoint *ck,
                       double seconds, run_final *f)
{
    if (f->ok) {
        report_run(opt, paths, &f->res, seconds);
        warn_trapped(opt, paths, &ck->tallies);
        warn_low_ess(paths, &f->res);
    }
    result_free(&f->res);
}

/* The runs of run_finish_write_all, as parallel_for's items. */
typedef struct finish_all {
    const driver_options *opt;
    const engine *eng;
    const mci_file *file;
    const run_paths *paths;
    const int *index;
    const checkpoint *const *cks;
    double seconds;
    run_final *final;
} finish_all;

static void finish_one(void *ctx, int k)
{
    finish_all *f = ctx;
    int i = f->index[k];
    run_finish_write(f->opt, f->eng, f->file, i, &f->paths[i], f->cks[k], f->seconds, &f->final[k]);
}

void run_finish_write_all(const driver_options *opt, const engine *eng, const mci_file *file,
                          const run_paths *paths, const int *index, const checkpoint *const *cks,
                          int n, int threads, double seconds, run_final *final)
{
    finish_all f = {opt, eng, file, paths, index, cks, seconds, final};
    parallel_for(n, threads, finish_one, &f);
}

static void *close_session(void *arg)
{
    session_close(arg);
    return NULL;
}

void run_release_gpus(engine *eng)
{
    if (!eng->pool || eng->closing)
        return;
    eng->pool = NULL;
    eng->gpu = NULL;
    eng->closing = pthread_create(&eng->closer, NULL, close_session, &eng->ses) == 0;
    if (!eng->closing)
        session_close(&eng->ses);
}
