/* The run command: read and check the whole input, check every output
 * location, choose the engine, then simulate the runs in order.  A run that
 * fails is reported and the next one still runs. */
#include "run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "clock.h"
#include "compile.h"
#include "cpu.h"
#include "driver_queues.h"
#include "gpu.h"
#include "gpu_pool.h"
#include "gpu_view.h"
#include "interrupt.h"
#include "mci.h"
#include "outputs.h"
#include "progress.h"
#include "ranks.h"
#include "resources.h"
#include "resume.h"
#include "run_batch.h"
#include "run_lock.h"
#include "run_sets.h"
#include "run_source.h"
#include "run_precision.h"
#include "run_steps.h"
#include "run_modulation.h"
#include "run_spatial.h"
#include "run_timed.h"
#include "run_xy.h"
#include "session.h"
#include "session_groups.h"
#include "stopper.h"
#include "tally.h"
#include "text_escape.h"

/* The photon ranges an engine call simulated go to a checkpoint's list (one
 * run: part 0). */
static bool add_range(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)part;
    return resume_add(ctx, first, first + n, err);
}

/* One engine call over photons [first, first + count) into into's tallies
 * (and, with --stderr, its groups), which the pause flag may cut short;
 * the ranges simulated go into *ranges (into itself, or under MPI the
 * rank's own list).  meter may be NULL. */
static bool simulate_photons(const driver_options *opt, engine *eng, const mci_run *run,
                             progress_meter *meter, stopper *st, uint64_t first, uint64_t count,
                             checkpoint *into, checkpoint *ranges, precision_stop *rp,
                             tm_error *err)
{
    session_sim sim = run_session_sim(opt, eng, meter, st, add_range, ranges);
    if (opt->stderr_groups)
        sim.uncertainty = &into->unc;
    precision_stop_sim(&sim, opt->precision > 0.0 ? rp : NULL);
    session_run_stats stats;
    bool ok = session_simulate(&eng->ses, &sim, run, eng->pool ? eng->specs : NULL, first, count,
                               &into->tallies, &stats, err);
    if (ok && eng->pool)
        run_note_shares(opt, eng, &stats);
    return ok;
}

/* A run's gaps (run_gaps' calls): its checkpoint and where it is written. */
typedef struct run_gap {
    const driver_options *opt;
    engine *eng;
    const mci_run *run;
    const run_paths *paths;
    checkpoint *ck;
    precision_stop *rp; /* --precision: the run's decisions (else unused) */
} run_gap;

/* photons [begin, end) into ck, its ranges too. */
static bool simulate_range(void *ctx, progress_meter *meter, stopper *st, uint64_t begin,
                           uint64_t end, tm_error *err)
{
    run_gap *g = ctx;
    return simulate_photons(g->opt, g->eng, g->run, meter, st, begin, end - begin, g->ck, g->ck,
                            g->rp, err);
}

static void save_range(void *ctx)
{
    run_gap *g = ctx;
    run_periodic_checkpoint(g->opt, g->paths->ckpt, g->ck);
}

/* Simulates what is left of the run into ck, writing ck to the checkpoint
 * file whenever --checkpoint-every says so; SIM_STOPPED when a signal
 * stopped it (ck then holds exactly what was done). */
static sim_status simulate(const driver_options *opt, engine *eng, const mci_run *run, int index,
                           int count, const run_paths *paths, checkpoint *ck, tm_error *err)
{
    if (eng->pool && !run_plan_gpus(opt, eng, run, err))
        return SIM_FAILED;
    char label[64] = "";
    if (count > 1)
        snprintf(label, sizeof label, "run %d/%d: ", index, count);
    precision_stop rp;
    if (!run_precision_target(opt, run, ck, &rp, err))
        return SIM_FAILED;
    run_gap g = {opt, eng, run, paths, ck, &rp};
    run_gap_calls calls = {simulate_range, save_range, &g};
    return run_gaps(opt, ck, (uint64_t)run->photons, label, &calls, err);
}

/* A run simulated and written while its output lock is held; a stop
 * releases the lock before the process exits. */
static bool do_locked_run(const driver_options *opt, engine *eng, const mci_file *file, int index,
                          const run_paths *paths, run_lock *lock, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    bool done;
    if (!run_already_finished(opt, eng, run, paths, &done, err))
        return false;
    if (done) {
        run_say_skipped(opt, index, paths);
        return true;
    }
    checkpoint ck;
    bool resumed;
    if (!resume_begin(&ck, opt, run, index + 1, eng->physics, paths->ckpt, &resumed, err))
        return false;
    if (resumed)
        run_say_resumed(opt, index, paths, &ck);
    double start = clock_now();
    sim_status status = simulate(opt, eng, run, index + 1, file->num_runs, paths, &ck, err);
    double seconds = clock_now() - start;
    if (eng->last_runs)
        run_release_gpus(eng);
    if (status == SIM_STOPPED) {
        char kept[1024];
        run_save_stopped(opt, eng, file, index, paths, &ck, seconds, kept, sizeof kept);
        run_lock_release(lock);
        interrupt_exit(interrupt_requested(), kept);
    }
    bool ok = status == SIM_DONE && run_finish(opt, eng, file, index, paths, &ck, seconds, err) &&
              run_precision_met(opt, run, &ck, paths->mco, err);
    checkpoint_free(&ck);
    return ok;
}

/* One run, its outputs locked against other processes from its start until
 * they, its checkpoint and partial outputs are settled (run_lock.h). */
static bool do_run(const driver_options *opt, engine *eng, const mci_file *file, int index,
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
    const driver_options *opt;
    engine *eng;
    const mci_run *run;
    checkpoint *ck;   /* the rank's tallies and groups, which ranks_gather sums */
    checkpoint *mine; /* the ranges this rank simulated */
    stopper *st;
} rank_chunk;

/* With --stderr, a chunk ends at a bound of the run's 64 groups (ranks_cuts):
 * the first after photon x. */
static uint64_t group_after(void *ctx, uint64_t x)
{
    const groups_plan *plan = ctx;
    return groups_bound(plan, groups_of(plan, x) + 1);
}

static bool simulate_chunk(uint64_t first, uint64_t count, uint64_t *done, void *ctx, tm_error *err)
{
    rank_chunk *c = ctx;
    uint64_t before = c->ck->tallies.photons;
    bool ok = simulate_photons(c->opt, c->eng, c->run, NULL, c->st, first, count, c->ck, c->mine,
                               NULL, err);
    *done = c->ck->tallies.photons - before;
    return ok;
}

/* The gaps of ck's photon ranges, shared by every rank in order, until they
 * are done or a pause stops every rank (*paused): a signal to any rank, or
 * rank 0's checkpoint timer.  *mine: the ranges this rank simulated. */
static bool share_gaps(const driver_options *opt, const ranks *world, engine *eng,
                       const mci_run *run, stopper *st, checkpoint *ck, checkpoint *mine,
                       bool *paused, tm_error *err)
{
    rank_chunk ctx = {opt, eng, run, ck, mine, st};
    groups_plan plan = {.photons = (uint64_t)run->photons};
    ranks_cuts cuts = {group_after, &plan};
    bool ok = true;
    uint64_t begin = 0, end = 0;
    *paused = false;
    while (ok && !*paused && resume_gap_after(ck, end, &begin, &end)) {
        bool stopped = false;
        ok = ranks_share_range(world, begin, end, eng->pool != NULL,
                               opt->stderr_groups ? &cuts : NULL, simulate_chunk, &ctx, &stopped,
                               err);
        *paused = ranks_any(world, stopped);
    }
    return ok;
}

/* A periodic checkpoint under MPI: rank 0's ck, which the gathering made
 * hold every rank's tallies, groups and ranges, is written (or said not to
 * be); the other ranks start their tallies again from zero (so nothing is
 * summed twice; their groups went to rank 0's), and every rank learns the
 * gaps left. */
static void checkpoint_ranks(const driver_options *opt, const ranks *world, const run_paths *paths,
                             checkpoint *ck, checkpoint *mine)
{
    if (world->rank == 0)
        run_periodic_checkpoint(opt, paths->ckpt, ck);
    else
        tally_set_clear(&ck->tallies);
    mine->range_count = 0;
    ranks_share_ranges(world, ck);
}

/* The photons of a run under MPI, with the periodic checkpoints: *paused
 * when a signal stopped the ranks, ck (on rank 0) holding what was done. */
static bool simulate_ranks(const driver_options *opt, const ranks *world, engine *eng,
                           const mci_run *run, const run_paths *paths, checkpoint *ck,
                           checkpoint *mine, bool *paused, tm_error *err)
{
    stopper st; /* rank 0's timer pauses every rank (share_gaps) */
    stopper_start(&st, world->rank == 0 ? opt->checkpoint_every : 0);
    interrupt_graceful(true);
    bool ok = true;
    for (;;) {
        ok = share_gaps(opt, world, eng, run, &st, ck, mine, paused, err) &&
             ranks_gather(world, run, ck, mine, err);
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
static bool do_locked_run_ranks(const driver_options *opt, const ranks *world, engine *eng,
                                const mci_file *file, int index, const run_paths *paths,
                                run_lock *lock, tm_error *err)
{
    const mci_run *run = &file->runs[index];
    bool lead = world->rank == 0, resumed = false, paused = false, done = false;
    checkpoint ck, mine;
    if (!ranks_all_ok(world, !lead || run_already_finished(opt, eng, run, paths, &done, err)))
        return false;
    if (ranks_any(world, done)) {
        if (lead)
            run_say_skipped(opt, index, paths);
        return true;
    }
    driver_options rank_opt = *opt;
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
    ck.unc.hold = !lead; /* rank 0 folds every rank's groups (ranks_gather) */
    memset(&mine, 0, sizeof mine);
    mine.photons = ck.photons;
    if (resumed)
        run_say_resumed(opt, index, paths, &ck);
    ok = !eng->pool || run_plan_gpus(opt, eng, run, err);
    double start = clock_now();
    ok = ranks_all_ok(world, ok) &&
         simulate_ranks(opt, world, eng, run, paths, &ck, &mine, &paused, err);
    int sig = ranks_max(world, interrupt_requested());
    if (ok && paused) {
        char kept[1024] = "";
        if (lead)
            run_save_stopped(opt, eng, file, index, paths, &ck, clock_now() - start, kept,
                             sizeof kept);
        run_lock_release(lock);
        ranks_exit(world, sig ? sig : SIGTERM, kept);
    }
    if (ok && lead)
        ok = run_finish(opt, eng, file, index, paths, &ck, clock_now() - start, err);
    checkpoint_free(&ck);
    return ok;
}

/* A run under MPI: rank 0, the only writer, holds its output lock. */
static bool do_run_ranks(const driver_options *opt, const ranks *world, engine *eng,
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
static int chosen_gpus(const driver_options *opt, const ranks *world, int *devices,
                       bool *driver_loaded)
{
    int n = driver_gpu_devices(opt, devices);
    int local = local_rank();
    *driver_loaded = false;
    if (world->size > 1 && !opt->gpu_chosen && local >= 0) {
        /* the node's count without the driver where the environment or the
         * node's list says it (gpu_view.h) */
        int count = gpu_view_count();
        if (count <= 0) {
            tm_error ignored;
            count = gpu_device_count(&ignored);
            *driver_loaded = true;
        }
        if (count > 0)
            devices[0] = local % count;
    }
    return n;
}

static void say_gpus(const driver_options *opt, const engine *eng, double seconds)
{
    const char *queues = getenv(DRIVER_QUEUES_VARIABLE);
    if (opt->verbose)
        fprintf(stderr,
                "tmcml: GPU engine opened in %.3f s (driver, contexts, multiplier "
                "table; " DRIVER_QUEUES_VARIABLE "=%s)\n",
                seconds, queues ? queues : "unset");
    for (int i = 0; !opt->quiet && i < eng->gpus; i++)
        fprintf(stderr, "tmcml: GPU engine on GPU %d, %s\n", eng->ordinals[i],
                gpu_engine_device(gpu_pool_engine(eng->pool, i))->name);
}

/* The engine's opening: the GPUs' driver and contexts take ~0.2 s, so a
 * run of one process opens them in a thread of its own while the input is
 * read and its outputs checked (engine_open_start), and says what it opened
 * once it is needed (engine_open_finish). */
typedef struct engine_opening {
    const driver_options *opt;
    const ranks *world;
    engine *eng;
    int gpus;                   /* devices asked for */
    int asked[DRIVER_MAX_GPUS]; /* their numbers, as the user gave them */
    gpu_view view;              /* the driver's view of them */
    bool ok;                    /* session_engine's answer */
    tm_error why;               /* why auto fell back to the CPU */
    tm_error err;
    double seconds;
    pthread_t thread;
    bool threaded;
} engine_opening;

static void *engine_open(void *arg)
{
    engine_opening *o = arg;
    engine *eng = o->eng;
    memset(eng, 0, sizeof *eng);
    session_init(&eng->ses);
    eng->name = "cpu";
    static const session_engine_choice choices[] = {[DRIVER_ENGINE_AUTO] = SESSION_AUTO,
                                                    [DRIVER_ENGINE_CPU] = SESSION_CPU,
                                                    [DRIVER_ENGINE_GPU] = SESSION_GPU};
    double t0 = clock_now();
    o->ok = session_engine(&eng->ses, choices[o->opt->engine], o->view.opened, o->gpus, &eng->pool,
                           &o->why, &o->err);
    o->seconds = clock_now() - t0;
    /* NVRTC too (its version keys the cubin cache): a library of ~100 MB
     * loaded here, not on the way to the first launch. */
    tm_error ignored;
    if (o->ok && eng->pool)
        compile_nvrtc_available(NULL, 0, &ignored);
    return NULL;
}

/* The opening begun, in a thread when one process runs the file (MPI ranks
 * open theirs in step). */
static void engine_open_start(engine_opening *o, const driver_options *opt, const ranks *world,
                              engine *eng)
{
    *o = (engine_opening){.opt = opt, .world = world, .eng = eng};
    bool driver_loaded;
    o->gpus = chosen_gpus(opt, world, o->asked, &driver_loaded);
    /* Before any thread loads the driver: it reads CUDA_VISIBLE_DEVICES once. */
    if (opt->engine != DRIVER_ENGINE_CPU && !driver_loaded)
        gpu_view_apply(o->asked, o->gpus, &o->view);
    else
        gpu_view_plan(NULL, false, &(gpu_node){0}, o->asked, o->gpus, &o->view);
    o->threaded = world->size == 1 && opt->engine != DRIVER_ENGINE_CPU &&
                  pthread_create(&o->thread, NULL, engine_open, o) == 0;
    if (!o->threaded)
        engine_open(o);
}

static void engine_open_join(engine_opening *o)
{
    if (o->threaded)
        pthread_join(o->thread, NULL);
    o->threaded = false;
}

/* --engine auto takes the GPUs when they can be opened and says so when it
 * falls back; --engine gpu insists. */
static bool engine_open_finish(engine_opening *o, tm_error *err)
{
    engine_open_join(o);
    const driver_options *opt = o->opt;
    engine *eng = o->eng;
    int n = o->gpus;
    if (!o->ok) {
        /* "engine gpu: ...": the option as the user wrote it */
        error_set(err, NULL, 0, "--%.1000s", o->err.message);
        return false;
    }
    if (!eng->pool) {
        if (opt->engine == DRIVER_ENGINE_AUTO && !opt->quiet) {
            char text[2048];
            fprintf(stderr, "tmcml: no usable GPU (%s): using the CPU engine\n",
                    error_format(&o->why, text, sizeof text));
        }
        return true;
    }
    for (int i = 0; i < n; i++) {
        eng->ordinals[i] = o->asked[i];
        gpu_engine *gpu = gpu_pool_engine(eng->pool, i);
        if (!gpu_view_check(&o->view, i, o->asked[i], gpu_engine_device(gpu), err))
            return false;
        gpu_engine_number(gpu, o->asked[i]); /* its messages say the user's number */
    }
    if (opt->verbose && o->view.narrowed)
        fprintf(stderr, "tmcml: CUDA_VISIBLE_DEVICES=%s: the driver sees the GPUs asked for\n",
                o->view.visible);
    say_gpus(opt, eng, o->seconds);
    driver_warn_cache(opt);
    eng->shares = calloc((size_t)n, sizeof *eng->shares);
    if (!eng->shares) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    eng->device_names = calloc((size_t)n, sizeof *eng->device_names);
    if (!eng->device_names) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++)
        snprintf(eng->device_names[i], sizeof eng->device_names[i], "%s",
                 gpu_engine_device(gpu_pool_engine(eng->pool, i))->name);
    eng->gpus = n;
    eng->gpu = gpu_pool_engine(eng->pool, 0);
    eng->name = "gpu";
    return true;
}

static void engine_close(engine *eng)
{
    if (eng->closing)
        pthread_join(eng->closer, NULL);
    else
        session_close(&eng->ses);
    free(eng->device_names);
    free(eng->shares);
    free(eng->kernel);
    memset(eng, 0, sizeof *eng);
}

/* Every run's memory and the outputs' disk space against the machine,
 * before anything is allocated: the CPU threads each run may use (malloc'd),
 * or NULL with *err. */
static int *check_resources(const driver_options *opt, const engine *eng, const mci_file *file,
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
                            .npz = opt->npz,
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

static void apply_photon_override(const driver_options *opt, mci_file *file)
{
    if (opt->photons > 0)
        for (int i = 0; i < file->num_runs; i++)
            file->runs[i].photons = opt->photons;
}

/* Under MPI, ranks other than 0 write nothing and check only what they
 * use: their engine and threads. */
static int *rank_threads(const driver_options *opt, const mci_file *file)
{
    int *threads = calloc((size_t)file->num_runs, sizeof *threads);
    for (int i = 0; threads && i < file->num_runs; i++)
        threads[i] = opt->threads > 0 ? opt->threads : cpu_count();
    return threads;
}

/* Between runs: a signal ends the command once the run it came in is done. */
static void exit_if_stopped(int done, int count)
{
    if (!interrupt_requested() || done >= count)
        return;
    char kept[256];
    snprintf(kept, sizeof kept,
             "stopped after %d of %d runs (their outputs are written; --resume runs the rest)",
             done, count);
    interrupt_exit(interrupt_requested(), kept);
}

/* The runs of the file in order, each alone (--no-batch). */
static int run_one_by_one(const driver_options *opt, const ranks *world, engine *eng,
                          const mci_file *file, const run_paths *paths, const int *threads)
{
    int status = RUN_OK;
    for (int i = 0; i < file->num_runs; i++) {
        tm_error err = {0};
        eng->threads = threads[i];
        bool ok = world->size > 1
                      ? do_run_ranks(opt, world, eng, file, i, paths ? &paths[i] : NULL, &err)
                      : do_run(opt, eng, file, i, &paths[i], &err);
        if (!ok) {
            text_printf(stderr, "tmcml: run %d of %s failed: ", i + 1, file->path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
        exit_if_stopped(i + 1, file->num_runs);
    }
    return status;
}

static void say_batches(const engine *eng, const run_batch_totals *t, int runs)
{
    char launches[64] = "";
    if (eng->pool)
        snprintf(launches, sizeof launches, " (%llu kernel launch%s)",
                 (unsigned long long)t->launches, t->launches == 1 ? "" : "es");
    fprintf(stderr, "tmcml: %d of %d runs simulated together in %d batch%s%s\n", t->runs, runs,
            t->batches, t->batches == 1 ? "" : "es", launches);
}

/* Whether the runs of group i are the file's last. */
static bool last_group(const int *group, int i, int n)
{
    for (int j = i + 1; j < n; j++)
        if (group[j] < 0 || group[j] == j)
            return false;
    return true;
}

/* The runs of the file by kernel shape, in the order of each shape's first
 * run: the runs of a shape batched (run_batch.h), a run of its own shape
 * alone. */
static int run_by_shape(const driver_options *opt, const ranks *world, engine *eng,
                        const mci_file *file, const run_paths *paths, const int *threads)
{
    int n = file->num_runs, status = RUN_OK, done = 0;
    int *group = calloc((size_t)n, sizeof *group), *members = calloc((size_t)n, sizeof *members);
    if (!group || !members) {
        free(group);
        free(members);
        fprintf(stderr, "tmcml: out of memory\n");
        return RUN_FAILED;
    }
    uint64_t alone_photons = run_batch_alone_photons(opt, world, eng);
    int big = run_batch_groups(file, alone_photons, group);
    if (big > 0 && !opt->quiet && world->rank == 0)
        fprintf(stderr,
                "tmcml: %d run%s of %llu photons or more simulated alone (each fills the GPUs "
                "by itself; --batch-all batches them too)\n",
                big, big == 1 ? "" : "s", (unsigned long long)alone_photons);
    run_batch_totals totals = {0};
    for (int i = 0; i < n; i++) {
        if (group[i] >= 0 && group[i] != i)
            continue; /* batched with the first run of its shape */
        int count = 0, failed = 0;
        eng->threads = threads[i];
        eng->last_runs = last_group(group, i, n);
        for (int j = i; j < n; j++)
            if (j == i || (group[i] >= 0 && group[j] == i)) {
                members[count++] = j;
                eng->threads = threads[j] < eng->threads ? threads[j] : eng->threads;
            }
        tm_error err = {0};
        if (count == 1 && !(world->size > 1 ? do_run_ranks(opt, world, eng, file, i,
                                                           paths ? &paths[i] : NULL, &err)
                                            : do_run(opt, eng, file, i, &paths[i], &err))) {
            text_printf(stderr, "tmcml: run %d of %s failed: ", i + 1, file->path);
            error_print(stderr, &err);
            failed = 1;
        } else if (count > 1 && !run_batches(opt, world, eng, file, members, count, paths, &totals,
                                             &failed, &err)) {
            text_printf(stderr, "tmcml: runs %d, %d, ... of %s failed: ", members[0] + 1,
                        members[1] + 1, file->path);
            error_print(stderr, &err);
        }
        status = failed ? RUN_FAILED : status;
        done += count;
        exit_if_stopped(done, n);
    }
    if (!opt->quiet && totals.batches > 0)
        say_batches(eng, &totals, n);
    free(group);
    free(members);
    return status;
}

/* Everything checked before anything is simulated (all ranks agree), the
 * engine's opening finished. */
static bool prepare(const driver_options *opt, const ranks *world, const mci_file *file,
                    run_paths **paths, engine_opening *opening, int **threads, tm_error *err)
{
    bool lead = world->rank == 0, ok = true;
    engine *eng = opening->eng;
    ok = !lead || (*paths = outputs_prepare(opt, file, err)) != NULL;
    tm_error engine_err = {0};
    bool opened = engine_open_finish(opening, &engine_err);
    if (ok && !opened) {
        *err = engine_err;
        ok = false;
    }
    ok = ok && resume_physics(eng->gpu, eng->physics, sizeof eng->physics, err);
    if (ok)
        *threads = lead ? check_resources(opt, eng, file, *paths, err) : rank_threads(opt, file);
    ok = ok && *threads;
    if (!ok && lead)
        error_print(stderr, err);
    return ranks_all_ok(world, ok);
}

/* What --mua-sets cannot go with, said before anything is read; and
 * --precision (its groups are not shared between processes yet). */
static bool sets_options(driver_options *opt, const ranks *world, tm_error *err)
{
    if (opt->precision > 0.0 && world->size > 1) {
        error_set(err, NULL, 0, "--precision under MPI: not available yet; run it in one process");
        return false;
    }
    if (!opt->mua_sets)
        return true;
    const char *no =
        world->size > 1 ? "runs with absorption sets run in one process: no MPI" : NULL;
    if (no)
        error_set(err, NULL, 0, "%s: %s", opt->optics_sets ? "--optics-sets" : "--mua-sets", no);
    if (!no && opt->score_absorption && !opt->quiet)
        fprintf(stderr,
                "tmcml: %s with absorption: every set deposits at every interaction (-A scores "
                "their escapes alone, far faster: docs/physics.md, \"Absorption sets\")\n",
                opt->optics_sets ? "--optics-sets" : "--mua-sets");
    return no == NULL;
}

/* --path-lengths: a GPU kernel scores them with absorption sets
 * (templates/sets.cu: --mua-sets); otherwise only the CPU engine does (auto
 * says it takes it). */
static bool paths_options(driver_options *opt, tm_error *err)
{
    if (!opt->path_lengths || opt->mua_sets)
        return true;
    return driver_take_cpu(opt,
                           "--path-lengths: on the GPU, path lengths are scored with absorption "
                           "sets (--mua-sets FILE); else use --engine cpu",
                           "--path-lengths: path lengths are scored by the CPU engine (a GPU "
                           "kernel scores them with --mua-sets)",
                           err);
}

/* --jacobian: on the GPU the absorption sets' kernel scores the
 * derivatives of the escapes by ring, by angle, by time bin and by fiber
 * detector (templates/sets.cu), a run at a time (with path lengths but no
 * --mua-sets, paths_options has taken the CPU). */
static void jacobian_options(driver_options *opt)
{
    if (opt->jacobian)
        opt->no_batch = true;
}

/* Every run of the file scores its path lengths (and its derivatives);
 * more layers than a photon can track are refused as FILE:LINE. */
static bool paths_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    for (int r = 0; opt->jacobian && r < file->num_runs; r++) {
        if (file->runs[r].num_layers > TM_MAX_PATH_LAYERS) {
            error_set(err, file->path, file->runs[r].line,
                      "--jacobian: at most %d layers (this run has %d)", TM_MAX_PATH_LAYERS,
                      file->runs[r].num_layers);
            return false;
        }
        file->runs[r].jacobian = true;
    }
    for (int r = 0; opt->path_lengths && r < file->num_runs; r++) {
        if (file->runs[r].num_layers > TM_MAX_PATH_LAYERS) {
            error_set(err, file->path, file->runs[r].line,
                      "--path-lengths: at most %d layers (this run has %d)", TM_MAX_PATH_LAYERS,
                      file->runs[r].num_layers);
            return false;
        }
        file->runs[r].path_lengths = true;
    }
    return true;
}

int run_input_file(const driver_options *given, const ranks *world)
{
    driver_options rank_opt = *given; /* ranks other than 0 say nothing but errors */
    if (world->rank != 0)
        rank_opt.quiet = true;
    const driver_options *opt = &rank_opt;
    tm_error sets_err = {0};
    if (!sets_options(&rank_opt, world, &sets_err) || !paths_options(&rank_opt, &sets_err) ||
        !run_spatial_options(&rank_opt, &sets_err) ||
        !run_modulation_options(&rank_opt, &sets_err) || !run_xy_options(&rank_opt, &sets_err)) {
        if (world->rank == 0)
            error_print(stderr, &sets_err);
        return RUN_BAD_INPUT;
    }
    jacobian_options(&rank_opt);
    run_timed_options(&rank_opt);
    double started = clock_now();
    tm_error err = {0};
    engine eng = {0};
    engine_opening opening;
    engine_open_start(&opening, opt, world, &eng);
    mci_file file;
    if (!mci_read(opt->input, &file, &err)) {
        engine_open_join(&opening); /* nothing said of an engine not used */
        engine_close(&eng);
        if (world->rank == 0)
            error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    apply_photon_override(opt, &file);
    mua_sets sets = {0};
    if (!paths_runs(opt, &file, &err) || !run_source_runs(opt, &file, &err) ||
        !run_timed_runs(opt, &file, &err) || !run_spatial_runs(opt, &file, &err) ||
        !run_modulation_runs(opt, &file, &err) || !run_xy_runs(opt, &file, &err) ||
        !run_precision_runs(opt, &file, &err) ||
        (opt->mua_sets && !run_sets_expand(opt, &file, &sets, &err))) {
        engine_open_join(&opening);
        engine_close(&eng);
        error_print(stderr, &err);
        mci_free(&file);
        return RUN_BAD_INPUT;
    }
    run_paths *paths = NULL;
    int *threads = NULL;
    if (!prepare(opt, world, &file, &paths, &opening, &threads, &err)) {
        mua_sets_free(&sets);
        engine_close(&eng);
        free(threads);
        outputs_free(paths, file.num_runs);
        mci_free(&file);
        return RUN_BAD_INPUT;
    }
    if (opt->verbose)
        fprintf(stderr, "tmcml: input read, outputs checked and engine ready in %.3f s\n",
                clock_now() - started);
    eng.threads = threads[0];
    int status = opt->mua_sets   ? run_sets_all(opt, &eng, &file, paths, &sets)
                 : opt->no_batch ? run_one_by_one(opt, world, &eng, &file, paths, threads)
                                 : run_by_shape(opt, world, &eng, &file, paths, threads);
    mua_sets_free(&sets);
    double t0 = clock_now();
    bool had_gpu = eng.gpus > 0;
    engine_close(&eng);
    free(threads);
    if (had_gpu && opt->verbose)
        fprintf(stderr, "tmcml: GPU engine closed in %.3f s\n", clock_now() - t0);
    outputs_free(paths, file.num_runs);
    mci_free(&file);
    return status;
}
