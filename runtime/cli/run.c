/* The run command: read and check the whole input, check every output
 * location, choose the engine, then simulate the runs in order.  A run that
 * fails is reported and the next one still runs. */
#include "run.h"
#include "text_escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "cpu.h"
#include "finished.h"
#include "fs.h"
#include "gpu.h"
#include "gpu_pool.h"
#include "session.h"
#include "interrupt.h"
#include "mci.h"
#include "mco.h"
#include "outputs.h"
#include "progress.h"
#include "ranks.h"
#include "resources.h"
#include "result.h"
#include "resume.h"
#include "rng.h"
#include "run_lock.h"
#include "stopper.h"
#include "summary.h"
#include "tally.h"
#include "tmcml_config.h"
#include "plan.h"

#define RNG_NAME RNG_MWC_NAME

/* The engine every run of the file uses (the session layer, as the library
 * uses it: runtime/api/session.h): the GPUs when they were opened. */
typedef struct engine {
    session ses;
    gpu_pool *pool;           /* the session's GPUs; NULL: the CPU engine */
    gpu_engine *gpu;          /* the pool's first GPU (it names the run's device), or NULL */
    const kernel_spec *specs; /* each GPU's kernel variant for the current run (session_plan) */
    run_gpu *shares;          /* what each GPU did in the current run */
    const char *name;
    char *kernel;      /* spec key of the first GPU's kernel (malloc'd), or NULL */
    int threads;       /* CPU threads of the run being simulated (resources_check) */
    char physics[256]; /* resume_physics: what checkpoints and summaries record */
} engine;

static int gpu_count(const engine *eng) { return eng->pool ? gpu_pool_size(eng->pool) : 0; }

/* Each GPU's kernel variant for a run (a profile, the heuristic or a
 * tuning; GPUs of different models each get their own), said on stderr. */
static bool plan_gpus(const cli_options *opt, engine *eng, const mci_run *run, tm_error *err)
{
    plan_options plan;
    cli_plan_options(opt, &plan);
    if (!session_plan(&eng->ses, &plan, run, &eng->specs, err))
        return false;
    for (int i = 0; i < gpu_count(eng); i++) {
        eng->shares[i] = (run_gpu){.device = gpu_pool_device(eng->pool, i),
                                   .name = gpu_engine_device(gpu_pool_engine(eng->pool, i))->name};
        if (!opt->quiet && gpu_count(eng) > 1)
            text_printf(stderr, "tmcml: kernel variant for GPU %d: %s\n",
                        gpu_pool_device(eng->pool, i), eng->ses.sources[i]);
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

/* The photon ranges an engine call simulated go to a checkpoint's list. */
static bool add_range(void *ctx, uint64_t first, uint64_t n, tm_error *err)
{
    return resume_add(ctx, first, first + n, err);
}

/* What each GPU did in an engine call: into the run's report, and with
 * --verbose on stderr. */
static void note_shares(const cli_options *opt, engine *eng, const session_run_stats *st)
{
    for (int i = 0; i < gpu_count(eng); i++) {
        const gpu_share *g = &st->shares[i];
        eng->shares[i].photons += g->photons;
        eng->shares[i].chunks += g->chunks;
        if (opt->verbose)
            fprintf(stderr,
                    "tmcml: GPU %d: %llu photons in %llu chunks, %llu launches of %u x %u threads "
                    "(%d blocks/SM), kernel %.3f s\n",
                    gpu_pool_device(eng->pool, i), (unsigned long long)g->photons,
                    (unsigned long long)g->chunks, (unsigned long long)g->stats.launches,
                    g->stats.grid, g->stats.block, g->stats.blocks_per_sm, g->stats.kernel_seconds);
    }
}

/* One engine call over photons [first, first + count) into *tallies, which
 * the pause flag may cut short; the ranges simulated go into *ranges.
 * meter may be NULL. */
static bool simulate_photons(const cli_options *opt, engine *eng, const mci_run *run,
                             progress_meter *meter, stopper *st, uint64_t first, uint64_t count,
                             tally_set *tallies, checkpoint *ranges, tm_error *err)
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
                       .done = add_range,
                       .done_ctx = ranges};
    session_run_stats stats;
    bool ok = session_simulate(&eng->ses, &sim, run, eng->pool ? eng->specs : NULL, first, count,
                               tallies, &stats, err);
    if (ok && eng->pool)
        note_shares(opt, eng, &stats);
    return ok;
}

/* photons [begin, end) into ck, its ranges too. */
static bool simulate_range(const cli_options *opt, engine *eng, const mci_run *run,
                           progress_meter *meter, stopper *st, checkpoint *ck, uint64_t begin,
                           uint64_t end, tm_error *err)
{
    return simulate_photons(opt, eng, run, meter, st, begin, end - begin, &ck->tallies, ck, err);
}

typedef enum sim_status { SIM_DONE, SIM_STOPPED, SIM_FAILED } sim_status;

/* A periodic checkpoint.  One that cannot be written (a disk full for a
 * moment) is said and tried again a period later: the run goes on, and the
 * previous checkpoint, if any, stays as it was. */
static void periodic_checkpoint(const cli_options *opt, const char *path, const checkpoint *ck)
{
    tm_error err = {0};
    if (checkpoint_write(path, ck, &err))
        return;
    char text[2048];
    fprintf(stderr, "tmcml: warning: checkpoint not written: %s; retrying in %g s\n",
            error_format(&err, text, sizeof text), opt->checkpoint_every);
}

/* Simulates what is left of the run into ck, writing ck to the checkpoint
 * file whenever --checkpoint-every says so; SIM_STOPPED when a signal
 * stopped it (ck then holds exactly what was done). */
static sim_status simulate(const cli_options *opt, engine *eng, const mci_run *run, int index,
                           int count, const run_paths *paths, checkpoint *ck, tm_error *err)
{
    if (eng->pool && !plan_gpus(opt, eng, run, err))
        return SIM_FAILED;
    char label[64] = "";
    if (count > 1)
        snprintf(label, sizeof label, "run %d/%d: ", index, count);
    progress_meter meter;
    progress_start(&meter, !opt->quiet, (uint64_t)run->photons, label);
    progress_add(&meter, checkpoint_done(ck));
    stopper st;
    stopper_start(&st, opt->checkpoint_every);
    interrupt_graceful(true);
    sim_status status = SIM_DONE;
    uint64_t begin, end;
    while (status == SIM_DONE && resume_next_gap(ck, &begin, &end)) {
        if (!simulate_range(opt, eng, run, &meter, &st, ck, begin, end, err))
            status = SIM_FAILED;
        else if (interrupt_requested())
            status = SIM_STOPPED;
        else if (st.flag) {
            periodic_checkpoint(opt, paths->ckpt, ck);
            stopper_rearm(&st);
        }
    }
    interrupt_graceful(false);
    stopper_end(&st);
    progress_finish(&meter);
    if (status == SIM_STOPPED && !resume_next_gap(ck, &begin, &end))
        status = SIM_DONE; /* the signal came as the last photons ended */
    return status;
}

static void report_run(const cli_options *opt, const run_paths *paths, const mcml_result *res,
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
static void warn_trapped(const cli_options *opt, const run_paths *paths, const tally_set *t)
{
    if (t->trapped_photons == 0)
        return;
    text_printf(stderr,
                "tmcml: warning: %s: %llu photons never ended (still alive after %lu steps, or "
                "parallel to a glass layer) and were stopped; their weight, %.3g per launched "
                "photon, is in neither Rd, A nor Tt (\"trapped\" in %s; docs/physics.md)\n",
                paths->mco, (unsigned long long)t->trapped_photons,
                (unsigned long)(opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON),
                tally_weight(t->trapped_units) / (double)(t->photons ? t->photons : 1),
                fs_base_name(paths->json));
}

/* The .mco and JSON of a run: the final ones, or (partial set) the partial
 * ones of a stopped run, normalised by the photons done and saying so. */
static bool write_outputs(const cli_options *opt, const engine *eng, const mci_file *file,
                          int index, const run_paths *paths, bool partial, const tally_set *tallies,
                          const mcml_result *res, double seconds, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    const char *mco = partial ? paths->partial_mco : paths->mco;
    const char *json = partial ? paths->partial_json : paths->json;
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
    if (!mco_write(mco, run, res, comment, err))
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
                      .tallies_digest = digest,
                      .device = eng->gpu ? gpu_engine_device(eng->gpu)->name : NULL,
                      .kernel = eng->gpu ? eng->kernel : NULL,
                      .gpus = eng->shares,
                      .gpu_count = gpu_count(eng),
                      .partial_of = partial ? (uint64_t)run->photons : 0,
                      .checkpoint = partial ? fs_base_name(paths->ckpt) : NULL,
                      .physics = eng->physics,
                      .input_digest = id.input_digest};
    return summary_write(json, &rep, err);
}

/* The outputs of ck's tallies: final, or partial. */
static bool write_result(const cli_options *opt, const engine *eng, const mci_file *file, int index,
                         const run_paths *paths, bool partial, const checkpoint *ck, double seconds,
                         tm_error *err)
{
    const mci_run *run = &file->runs[index];
    mcml_result res = {0};
    bool ok =
        result_from_tallies(run, &ck->tallies, &res, err) &&
        write_outputs(opt, eng, file, index, paths, partial, &ck->tallies, &res, seconds, err);
    if (ok && !partial) {
        report_run(opt, paths, &res, seconds);
        warn_trapped(opt, paths, &ck->tallies);
    }
    result_free(&res);
    return ok;
}

/* A run stopped by a signal: its checkpoint and partial outputs; *kept says
 * what the exit message should. */
static void save_stopped(const cli_options *opt, const engine *eng, const mci_file *file, int index,
                         const run_paths *paths, const checkpoint *ck, double seconds, char *kept,
                         size_t size)
{
    tm_error err = {0};
    if (!checkpoint_write(paths->ckpt, ck, &err) ||
        !write_result(opt, eng, file, index, paths, true, ck, seconds, &err)) {
        error_print(stderr, &err);
        snprintf(kept, size, "the checkpoint could not be written: the last one, if any, is kept");
        return;
    }
    snprintf(kept, size,
             "run %d stopped after %llu of %llu photons; kept %s, %s and %s (continue with "
             "--resume)",
             index + 1, (unsigned long long)checkpoint_done(ck), (unsigned long long)ck->photons,
             paths->ckpt, paths->partial_mco, paths->partial_json);
}

/* A run done: its checkpoint and partial outputs are of the past. */
static void remove_leftovers(const run_paths *paths)
{
    const char *gone[] = {paths->ckpt, paths->partial_mco, paths->partial_json};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        if (unlink(gone[i]) != 0 && errno != ENOENT)
            text_printf(stderr, "tmcml: warning: cannot remove %s: %s\n", gone[i], strerror(errno));
}

/* --resume without a checkpoint: *done when the run's finished outputs are
 * there and are this run's; false when they are another run's (finished.h). */
static bool already_finished(const cli_options *opt, const engine *eng, const mci_run *run,
                             const run_paths *paths, bool *done, tm_error *err)
{
    *done = false;
    if (!opt->resume || output_exists(paths->ckpt))
        return true;
    summary_identity id;
    return finished_identity(opt, run, eng->physics, &id, err) &&
           finished_check(paths, &id, opt->quiet ? NULL : stderr, done, err);
}

static void say_skipped(const cli_options *opt, int index, const run_paths *paths)
{
    if (!opt->quiet)
        text_printf(stderr, "tmcml: run %d: %s is complete (no checkpoint): skipped\n", index + 1,
                    paths->mco);
}

static void say_resumed(const cli_options *opt, int index, const run_paths *paths,
                        const checkpoint *ck)
{
    if (!opt->quiet)
        text_printf(stderr, "tmcml: run %d: resuming from %s, %llu of %llu photons done\n",
                    index + 1, paths->ckpt, (unsigned long long)checkpoint_done(ck),
                    (unsigned long long)ck->photons);
}

/* The final outputs of a run done; its checkpoint and partial outputs go. */
static bool finish_run(const cli_options *opt, const engine *eng, const mci_file *file, int index,
                       const run_paths *paths, const checkpoint *ck, double seconds, tm_error *err)
{
    if (!write_result(opt, eng, file, index, paths, false, ck, seconds, err))
        return false;
    remove_leftovers(paths);
    return true;
}

/* A run simulated and written while its output lock is held; a stop
 * releases the lock before the process exits. */
static bool do_locked_run(const cli_options *opt, engine *eng, const mci_file *file, int index,
                          const run_paths *paths, run_lock *lock, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    bool done;
    if (!already_finished(opt, eng, run, paths, &done, err))
        return false;
    if (done) {
        say_skipped(opt, index, paths);
        return true;
    }
    checkpoint ck;
    bool resumed;
    if (!resume_begin(&ck, opt, run, index + 1, eng->physics, paths->ckpt, &resumed, err))
        return false;
    if (resumed)
        say_resumed(opt, index, paths, &ck);
    double start = progress_now();
    sim_status status = simulate(opt, eng, run, index + 1, file->num_runs, paths, &ck, err);
    double seconds = progress_now() - start;
    if (status == SIM_STOPPED) {
        char kept[1024];
        save_stopped(opt, eng, file, index, paths, &ck, seconds, kept, sizeof kept);
        run_lock_release(lock);
        interrupt_exit(interrupt_requested(), kept);
    }
    bool ok = status == SIM_DONE && finish_run(opt, eng, file, index, paths, &ck, seconds, err);
    checkpoint_free(&ck);
    return ok;
}

/* One run, its outputs locked against other processes from its start until
 * they, its checkpoint and partial outputs are settled (run_lock.h). */
static bool do_run(const cli_options *opt, engine *eng, const mci_file *file, int index,
                   const run_paths *paths, tm_error *err)
{
    run_lock lock;
    if (!run_lock_take(&lock, paths->lock, paths->mco, err))
        return false;
    bool ok = do_locked_run(opt, eng, file, index, paths, &lock, err);
    run_lock_release(&lock);
    return ok;
}

/* One chunk of a run shared by MPI ranks (ranks_share_range). */
typedef struct rank_chunk {
    const cli_options *opt;
    engine *eng;
    const mci_run *run;
    tally_set *tallies;
    checkpoint *mine; /* the ranges this rank simulated */
    stopper *st;
} rank_chunk;

static bool simulate_chunk(uint64_t first, uint64_t count, uint64_t *done, void *ctx, tm_error *err)
{
    rank_chunk *c = ctx;
    uint64_t before = c->tallies->photons;
    bool ok = simulate_photons(c->opt, c->eng, c->run, NULL, c->st, first, count, c->tallies,
                               c->mine, err);
    *done = c->tallies->photons - before;
    return ok;
}

/* The gaps of ck's photon ranges, shared by every rank in order, until they
 * are done or a pause stops every rank (*paused): a signal to any rank, or
 * rank 0's checkpoint timer.  *mine: the ranges this rank simulated. */
static bool share_gaps(const cli_options *opt, const ranks *world, engine *eng, const mci_run *run,
                       stopper *st, checkpoint *ck, checkpoint *mine, bool *paused, tm_error *err)
{
    rank_chunk ctx = {opt, eng, run, &ck->tallies, mine, st};
    bool ok = true;
    uint64_t begin = 0, end = 0;
    *paused = false;
    while (ok && !*paused && resume_gap_after(ck, end, &begin, &end)) {
        bool stopped = false;
        ok = ranks_share_range(world, begin, end, eng->pool != NULL, simulate_chunk, &ctx, &stopped,
                               err);
        *paused = ranks_any(world, stopped);
    }
    return ok;
}

/* A periodic checkpoint under MPI: rank 0's ck, which the gathering made
 * hold every rank's tallies and ranges, is written (or said not to be); the
 * other ranks start their tallies again from zero (so nothing is summed
 * twice), and every rank learns the gaps left. */
static void checkpoint_ranks(const cli_options *opt, const ranks *world, const run_paths *paths,
                             checkpoint *ck, checkpoint *mine)
{
    if (world->rank == 0)
        periodic_checkpoint(opt, paths->ckpt, ck);
    else
        tally_set_clear(&ck->tallies);
    mine->range_count = 0;
    ranks_share_ranges(world, ck);
}

/* The photons of a run under MPI, with the periodic checkpoints: *paused
 * when a signal stopped the ranks, ck (on rank 0) holding what was done. */
static bool simulate_ranks(const cli_options *opt, const ranks *world, engine *eng,
                           const mci_run *run, const run_paths *paths, checkpoint *ck,
                           checkpoint *mine, bool *paused, tm_error *err)
{
    stopper st; /* rank 0's timer pauses every rank (share_gaps) */
    stopper_start(&st, world->rank == 0 ? opt->checkpoint_every : 0);
    interrupt_graceful(true);
    bool ok = true;
    for (;;) {
        ok = share_gaps(opt, world, eng, run, &st, ck, mine, paused, err) &&
             ranks_gather(world, ck, mine, err);
        if (!ok || !*paused || ranks_max(world, interrupt_requested()))
            break;
        checkpoint_ranks(opt, world, paths, ck, mine);
        stopper_rearm(&st);
    }
    interrupt_graceful(false);
    stopper_end(&st);
    return ok;
}

/* A run under MPI: every rank simulates chunks of it, rank 0 sums and
 * writes, and writes a checkpoint every --checkpoint-every seconds.  A
 * signal to the ranks pauses them all: rank 0 writes the checkpoint and the
 * partial outputs, which --resume continues with any number of ranks. */
static bool do_locked_run_ranks(const cli_options *opt, const ranks *world, engine *eng,
                                const mci_file *file, int index, const run_paths *paths,
                                run_lock *lock, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    bool lead = world->rank == 0, resumed = false, paused = false, done = false;
    checkpoint ck, mine;
    if (!ranks_all_ok(world, !lead || already_finished(opt, eng, run, paths, &done, err)))
        return false;
    if (ranks_any(world, done)) {
        if (lead)
            say_skipped(opt, index, paths);
        return true;
    }
    cli_options rank_opt = *opt;
    rank_opt.resume = lead && opt->resume;
    if (!ranks_all_ok(world, ranks_same_text(world, eng->physics))) {
        error_set(err, NULL, 0, "the MPI ranks run different physics (engines): %s on rank %d",
                  eng->physics, world->rank);
        return false;
    }
    bool ok = resume_begin(&ck, &rank_opt, run, index + 1, eng->physics, lead ? paths->ckpt : "",
                           &resumed, err);
    if (!ranks_all_ok(world, ok)) {
        if (ok)
            checkpoint_free(&ck);
        return false;
    }
    ranks_share_ranges(world, &ck);
    memset(&mine, 0, sizeof mine);
    mine.photons = ck.photons;
    if (resumed)
        say_resumed(opt, index, paths, &ck);
    ok = !eng->pool || plan_gpus(opt, eng, run, err);
    double start = progress_now();
    ok = ranks_all_ok(world, ok) &&
         simulate_ranks(opt, world, eng, run, paths, &ck, &mine, &paused, err);
    int sig = ranks_max(world, interrupt_requested());
    if (ok && paused) {
        char kept[1024] = "";
        if (lead)
            save_stopped(opt, eng, file, index, paths, &ck, progress_now() - start, kept,
                         sizeof kept);
        run_lock_release(lock);
        ranks_exit(world, sig ? sig : SIGTERM, kept);
    }
    if (ok && lead)
        ok = finish_run(opt, eng, file, index, paths, &ck, progress_now() - start, err);
    checkpoint_free(&ck);
    return ok;
}

/* A run under MPI: rank 0, the only writer, holds its output lock. */
static bool do_run_ranks(const cli_options *opt, const ranks *world, engine *eng,
                         const mci_file *file, int index, const run_paths *paths, tm_error *err)
{
    bool lead = world->rank == 0;
    run_lock lock = {.fd = -1};
    if (!ranks_all_ok(world, !lead || run_lock_take(&lock, paths->lock, paths->mco, err)))
        return false;
    bool ok = do_locked_run_ranks(opt, world, eng, file, index, paths, &lock, err);
    run_lock_release(&lock);
    return ok;
}

/* The node-local rank of an MPI process (Open MPI, Slurm, MPICH), or -1. */
static int local_rank(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v >= '0' && *v <= '9')
            return atoi(v);
    }
    return -1;
}

/* The GPUs to open: those the options name; under MPI, without any, the
 * node's GPU of the rank's local number (one rank per GPU, as Slurm's
 * --gpus-per-task and mpirun's --map-by do it). */
static int chosen_gpus(const cli_options *opt, const ranks *world, int *devices)
{
    int n = cli_gpu_devices(opt, devices);
    int local = local_rank(), count = 0;
    if (world->size > 1 && !opt->gpu_chosen && local >= 0) {
        tm_error ignored;
        count = gpu_device_count(&ignored);
        if (count > 0)
            devices[0] = local % count;
    }
    return n;
}

static void say_gpus(const cli_options *opt, const engine *eng, double seconds)
{
    if (opt->verbose)
        fprintf(stderr, "tmcml: GPU engine opened in %.3f s (driver, contexts, multiplier table)\n",
                seconds);
    for (int i = 0; !opt->quiet && i < gpu_count(eng); i++)
        fprintf(stderr, "tmcml: GPU engine on GPU %d, %s\n", gpu_pool_device(eng->pool, i),
                gpu_engine_device(gpu_pool_engine(eng->pool, i))->name);
}

/* --engine auto takes the GPUs when they can be opened and says so when it
 * falls back; --engine gpu insists. */
static bool choose_engine(const cli_options *opt, const ranks *world, engine *eng, tm_error *err)
{
    memset(eng, 0, sizeof *eng);
    session_init(&eng->ses);
    eng->name = "cpu";
    static const session_engine_choice choices[] = {[CLI_ENGINE_AUTO] = SESSION_AUTO,
                                                    [CLI_ENGINE_CPU] = SESSION_CPU,
                                                    [CLI_ENGINE_GPU] = SESSION_GPU};
    int devices[CLI_MAX_GPUS];
    int n = chosen_gpus(opt, world, devices);
    tm_error why = {0};
    double t0 = progress_now();
    if (!session_engine(&eng->ses, choices[opt->engine], devices, n, &eng->pool, &why, err)) {
        /* "engine gpu: ...": the option as the user wrote it */
        char said[sizeof err->message];
        memcpy(said, err->message, sizeof said);
        error_set(err, NULL, 0, "--%.1000s", said);
        return false;
    }
    if (!eng->pool) {
        if (opt->engine == CLI_ENGINE_AUTO && !opt->quiet) {
            char text[2048];
            fprintf(stderr, "tmcml: no usable GPU (%s): using the CPU engine\n",
                    error_format(&why, text, sizeof text));
        }
        return true;
    }
    say_gpus(opt, eng, progress_now() - t0);
    cli_warn_cache(opt);
    eng->shares = calloc((size_t)n, sizeof *eng->shares);
    if (!eng->shares) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    eng->gpu = gpu_pool_engine(eng->pool, 0);
    eng->name = "gpu";
    return true;
}

static void engine_close(engine *eng)
{
    session_close(&eng->ses);
    free(eng->shares);
    free(eng->kernel);
    memset(eng, 0, sizeof *eng);
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

/* Under MPI, ranks other than 0 write nothing and check only what they
 * use: their engine and threads. */
static int *rank_threads(const cli_options *opt, const mci_file *file)
{
    int *threads = calloc((size_t)file->num_runs, sizeof *threads);
    for (int i = 0; threads && i < file->num_runs; i++)
        threads[i] = opt->threads > 0 ? opt->threads : cpu_count();
    return threads;
}

/* Everything checked before anything is simulated (all ranks agree). */
static bool prepare(const cli_options *opt, const ranks *world, const mci_file *file,
                    run_paths **paths, engine *eng, int **threads, tm_error *err)
{
    bool lead = world->rank == 0, ok = true;
    ok = ok && (!lead || (*paths = outputs_prepare(opt, file, err)) != NULL) &&
         choose_engine(opt, world, eng, err) &&
         resume_physics(eng->gpu, eng->physics, sizeof eng->physics, err);
    if (ok)
        *threads = lead ? check_resources(opt, eng, file, *paths, err) : rank_threads(opt, file);
    ok = ok && *threads;
    if (!ok && lead)
        error_print(stderr, err);
    return ranks_all_ok(world, ok);
}

int run_input_file(const cli_options *given, const ranks *world)
{
    cli_options rank_opt = *given; /* ranks other than 0 say nothing but errors */
    if (world->rank != 0)
        rank_opt.quiet = true;
    const cli_options *opt = &rank_opt;
    tm_error err = {0};
    mci_file file;
    if (!mci_read(opt->input, &file, &err)) {
        if (world->rank == 0)
            error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    apply_photon_override(opt, &file);
    run_paths *paths = NULL;
    engine eng = {0};
    int *threads = NULL;
    if (!prepare(opt, world, &file, &paths, &eng, &threads, &err)) {
        engine_close(&eng);
        free(threads);
        outputs_free(paths, file.num_runs);
        mci_free(&file);
        return RUN_BAD_INPUT;
    }
    int status = RUN_OK;
    for (int i = 0; i < file.num_runs; i++) {
        eng.threads = threads[i];
        bool ok = world->size > 1
                      ? do_run_ranks(opt, world, &eng, &file, i, paths ? &paths[i] : NULL, &err)
                      : do_run(opt, &eng, &file, i, &paths[i], &err);
        if (!ok) {
            text_printf(stderr, "tmcml: run %d of %s failed: ", i + 1, file.path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
        if (interrupt_requested() && i + 1 < file.num_runs) {
            char kept[256];
            snprintf(kept, sizeof kept,
                     "stopped after run %d of %d (its outputs are written; --resume runs the "
                     "rest)",
                     i + 1, file.num_runs);
            interrupt_exit(interrupt_requested(), kept);
        }
    }
    double t0 = progress_now();
    bool had_gpu = eng.pool != NULL;
    engine_close(&eng);
    free(threads);
    if (had_gpu && opt->verbose)
        fprintf(stderr, "tmcml: GPU engine closed in %.3f s\n", progress_now() - t0);
    outputs_free(paths, file.num_runs);
    mci_free(&file);
    return status;
}
