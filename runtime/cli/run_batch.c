/* `tmcml run`'s batches (run_batch.h). */
#include "run_batch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "footprint.h"
#include "interrupt.h"
#include "optics.h"
#include "progress.h"
#include "resume.h"
#include "run_lock.h"
#include "stopper.h"
#include "text_escape.h"
#include "tm_limits.h"
#include "variant.h"

/* Runs share a kernel shape when they share the layer count and the grid;
 * the variant, chosen by shape (tuner/plan.h), follows. */
static bool same_shape(const mci_run *a, const mci_run *b)
{
    return a->num_layers == b->num_layers && a->nr == b->nr && a->nz == b->nz && a->na == b->na &&
           a->dr == b->dr && a->dz == b->dz;
}

void run_batch_groups(const mci_file *file, int *group)
{
    for (int i = 0; i < file->num_runs; i++) {
        const mci_run *run = &file->runs[i];
        group[i] = optics_first_layer(run) > run->num_layers ? -1 : i;
        for (int j = 0; group[i] == i && j < i; j++)
            if (group[j] == j && same_shape(&file->runs[j], run))
                group[i] = j;
    }
}

/* ---- the runs of a batch ---------------------------------------------------- */

/* One run of a batch: its place in the file, its output lock (held from
 * its start until its outputs are settled: run_lock.h) and its checkpoint,
 * whose tallies the engine adds to. */
typedef struct batch_run {
    int index; /* in the file */
    run_lock lock;
    checkpoint ck;
} batch_run;

/* Run i locked and opened into *r: false with *err, or *open false when its
 * finished outputs are there (--resume: skipped, unlocked). */
static bool open_run(const cli_options *opt, engine *eng, const mci_file *file, int i,
                     const run_paths *paths, batch_run *r, bool *open, tm_error *err)
{
    const mci_run *run = &file->runs[i];
    bool done = false, resumed = false;
    *open = false;
    r->index = i;
    if (!run_lock_take(&r->lock, paths[i].lock, paths[i].mco, err))
        return false;
    if (!run_already_finished(opt, eng, run, &paths[i], &done, err) ||
        (!done &&
         !resume_begin(&r->ck, opt, run, i + 1, eng->physics, paths[i].ckpt, &resumed, err))) {
        run_lock_release(&r->lock);
        return false;
    }
    if (done) {
        run_say_skipped(opt, i, &paths[i]);
        run_lock_release(&r->lock);
        return true;
    }
    if (resumed)
        run_say_resumed(opt, i, &paths[i], &r->ck);
    *open = true;
    return true;
}

/* The runs of runs[] not yet finished, each locked with its checkpoint:
 * fresh, or resumed (--resume).  *open: how many. */
static bool open_runs(const cli_options *opt, engine *eng, const mci_file *file, const int *runs,
                      int n, const run_paths *paths, batch_run *br, int *open, tm_error *err)
{
    *open = 0;
    for (int k = 0; k < n; k++) {
        bool opened;
        if (!open_run(opt, eng, file, runs[k], paths, &br[*open], &opened, err))
            return false;
        *open += opened;
    }
    return true;
}

static void close_runs(batch_run *br, int n)
{
    for (int k = 0; k < n; k++) {
        checkpoint_free(&br[k].ck);
        run_lock_release(&br[k].lock);
    }
}

static uint64_t photons_left(const batch_run *br, int n)
{
    uint64_t left = 0;
    for (int k = 0; k < n; k++)
        left += br[k].ck.photons - checkpoint_done(&br[k].ck);
    return left;
}

/* The gaps of runs br[0 .. n-1] as the parts of a batch, run k in slot k,
 * the longest-lived runs first.  *count 0: nothing left. */
static batch_part *gaps_as_parts(const mci_file *file, const batch_run *br, int n, int *count)
{
    int cap = 0;
    for (int k = 0; k < n; k++)
        cap += br[k].ck.range_count + 1; /* gaps <= ranges + 1 */
    batch_part *parts = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *parts);
    *count = 0;
    for (int k = 0; parts && k < n; k++) {
        uint64_t begin = 0, end = 0;
        while (resume_gap_after(&br[k].ck, end, &begin, &end))
            parts[(*count)++] = (batch_part){&file->runs[br[k].index], begin, end - begin, k};
    }
    if (parts)
        batch_order_longest_first(parts, *count);
    return parts;
}

/* ---- how many runs a batch takes ---------------------------------------------- */

/* Runs br[first ..] that one engine call takes: their tables fit a block's
 * shared memory (each GPU's batch kernel), their tallies the host bound. */
static int batch_size(const mci_file *file, const engine *eng, const kernel_spec *specs,
                      const batch_run *br, int first, int n)
{
    uint64_t bytes = 0;
    int parts = 0, k = first;
    for (; k < n && k - first < TM_BATCH_MAX_RUNS; k++) {
        run_footprint fp;
        footprint_of_run(&file->runs[br[k].index], file->path, &fp);
        parts += br[k].ck.range_count + 1;
        bytes += fp.tallies;
        bool fits = bytes <= TM_BATCH_MAX_TALLY_BYTES;
        for (int g = 0; fits && eng->pool && g < gpu_pool_size(eng->pool); g++)
            fits = gpu_batch_fits(gpu_pool_engine(eng->pool, g), &specs[g], k - first + 1, parts);
        if (!fits)
            break;
    }
    return k > first ? k - first : 1; /* one run always goes, alone if need be */
}

/* ---- simulating a batch ------------------------------------------------------- */

/* Where the engine's photon ranges go: the checkpoint of the part's run. */
typedef struct range_sink {
    const photon_batch *batch;
    batch_run *br;
} range_sink;

static bool add_part_range(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    range_sink *s = ctx;
    return resume_add(&s->br[s->batch->parts[part].slot].ck, first, first + n, err);
}

/* One engine call over every gap of br[0 .. n-1] (a pause or a signal may cut
 * it short: the checkpoints then hold what was done). */
static bool simulate_once(const cli_options *opt, engine *eng, const mci_file *file,
                          const kernel_spec *specs, batch_run *br, int n, progress_meter *meter,
                          stopper *st, run_batch_totals *totals, tm_error *err)
{
    int count;
    batch_part *parts = gaps_as_parts(file, br, n, &count);
    tally_set *acc = calloc((size_t)n, sizeof *acc);
    photon_batch batch;
    bool ok = parts && acc && photon_batch_init(&batch, parts, count, err);
    if (!parts || !acc)
        error_set(err, NULL, 0, "out of memory");
    free(parts);
    if (!ok) {
        free(acc);
        return false;
    }
    /* The engines add into an array of tally sets: the runs' own, lent. */
    for (int k = 0; k < n; k++)
        acc[k] = br[k].ck.tallies;
    range_sink sink = {&batch, br};
    session_sim sim = run_session_sim(opt, eng, meter, st, add_part_range, &sink);
    session_run_stats stats;
    ok =
        session_simulate_batch(&eng->ses, &sim, &batch, eng->pool ? specs : NULL, acc, &stats, err);
    for (int k = 0; k < n; k++)
        br[k].ck.tallies = acc[k];
    if (ok && eng->pool) {
        run_note_shares(opt, eng, &stats);
        for (int g = 0; g < gpu_pool_size(eng->pool); g++)
            totals->launches += stats.shares[g].stats.launches;
    }
    free(acc);
    photon_batch_free(&batch);
    return ok;
}

typedef enum batch_status { BATCH_DONE, BATCH_STOPPED, BATCH_FAILED } batch_status;

static bool any_left(const batch_run *br, int n)
{
    uint64_t begin, end;
    for (int k = 0; k < n; k++)
        if (resume_next_gap(&br[k].ck, &begin, &end))
            return true;
    return false;
}

/* Every run's checkpoint (a periodic one: a failure is said and the batch
 * goes on, its runs' earlier checkpoints kept). */
static void write_checkpoints(const run_paths *paths, const batch_run *br, int n)
{
    for (int k = 0; k < n; k++) {
        tm_error err = {0};
        if (!checkpoint_write(paths[br[k].index].ckpt, &br[k].ck, &err)) {
            char text[2048];
            fprintf(stderr, "tmcml: warning: checkpoint not written: %s\n",
                    error_format(&err, text, sizeof text));
        }
    }
}

/* The photons of br[0 .. n-1], paused for the periodic checkpoints. */
static batch_status simulate_batch(const cli_options *opt, engine *eng, const mci_file *file,
                                   const kernel_spec *specs, const run_paths *paths, batch_run *br,
                                   int n, run_batch_totals *totals, tm_error *err)
{
    char label[64];
    snprintf(label, sizeof label, "batch of %d runs: ", n);
    uint64_t left = photons_left(br, n);
    progress_meter meter;
    progress_start(&meter, !opt->quiet, left, label);
    stopper st;
    stopper_start(&st, opt->checkpoint_every);
    interrupt_graceful(true);
    batch_status status = BATCH_DONE;
    while (status == BATCH_DONE && any_left(br, n)) {
        if (!simulate_once(opt, eng, file, specs, br, n, &meter, &st, totals, err))
            status = BATCH_FAILED;
        else if (interrupt_requested())
            status = BATCH_STOPPED;
        else if (st.flag) {
            write_checkpoints(paths, br, n);
            stopper_rearm(&st);
        }
    }
    interrupt_graceful(false);
    stopper_end(&st);
    progress_finish(&meter);
    if (status == BATCH_STOPPED && !any_left(br, n))
        status = BATCH_DONE; /* the signal came as the last photons ended */
    return status;
}

/* A signal stopped the batch br[0 .. n-1]: every run's checkpoint and
 * partial outputs, every lock of the open runs (all[0 .. count-1]) released,
 * then the exit of a stopped run. */
static void stop_batch(const cli_options *opt, const engine *eng, const mci_file *file,
                       const run_paths *paths, const batch_run *br, int n, batch_run *all,
                       int count, double seconds)
{
    char kept[1024] = "", said[1024];
    for (int k = 0; k < n; k++)
        run_save_stopped(opt, eng, file, br[k].index, &paths[br[k].index], &br[k].ck, seconds, said,
                         sizeof said);
    snprintf(kept, sizeof kept,
             "a batch of %d runs stopped; each run's checkpoint and partial outputs are kept "
             "beside its outputs (continue with --resume)",
             n);
    for (int k = 0; k < count; k++)
        run_lock_release(&all[k].lock);
    interrupt_exit(interrupt_requested(), kept);
}

/* The batch kernel of each GPU's variant for the batch's shape. */
static kernel_spec *batch_specs(const cli_options *opt, engine *eng, const mci_run *run,
                                tm_error *err)
{
    if (!eng->pool)
        return NULL;
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
        const cuda_device_info *dev = gpu_engine_device(gpu_pool_engine(eng->pool, g));
        if (!variant_batch_spec(&specs[g], &opt->variant, dev, err)) {
            free(specs);
            return NULL;
        }
    }
    free(eng->kernel);
    eng->kernel = spec_key(&specs[0]);
    return specs;
}

/* A run or a batch that failed, said once; the next one still runs. */
static void say_failed(const mci_file *file, const batch_run *br, int n, const tm_error *err)
{
    if (n == 1)
        text_printf(stderr, "tmcml: run %d of %s failed: ", br[0].index + 1, file->path);
    else
        text_printf(stderr, "tmcml: a batch of %d runs of %s (runs %d, %d, ...) failed: ", n,
                    file->path, br[0].index + 1, br[1].index + 1);
    error_print(stderr, err);
}

/* ---- the outputs of a batch ---------------------------------------------- */

/* Threads that write a batch's outputs: each output's fsync waits for the
 * disk (two per run), so a batch of small runs finished one by one spent
 * most of its time there (100 runs of luthi100: 0.6 s of 1.0 s on an H100
 * host); writers in parallel share the file system's journal commits.  At
 * most 8, as fs_write_atomic keeps 16 temp files for a signal to remove. */
#define FINISH_THREADS 8

typedef struct finishing {
    const cli_options *opt;
    const engine *eng;
    const mci_file *file;
    const run_paths *paths;
    const batch_run *br;
    run_final *final;
    int n;
    double seconds;
    atomic_int next;
} finishing;

static void *finish_some(void *arg)
{
    finishing *f = arg;
    for (int k; (k = atomic_fetch_add(&f->next, 1)) < f->n;) {
        int i = f->br[k].index;
        run_finish_write(f->opt, f->eng, f->file, i, &f->paths[i], &f->br[k].ck, f->seconds,
                         &f->final[k]);
    }
    return NULL;
}

/* Every run's outputs, written in parallel, then said in order; the runs
 * that failed, each said. */
static int finish_runs(const cli_options *opt, const engine *eng, const mci_file *file,
                       const run_paths *paths, const batch_run *br, int n, double seconds)
{
    run_final *final = calloc((size_t)n, sizeof *final);
    if (!final) {
        fprintf(stderr, "tmcml: out of memory for the outputs of a batch\n");
        return n;
    }
    finishing f = {opt, eng, file, paths, br, final, n, seconds, 0};
    pthread_t threads[FINISH_THREADS];
    int started = 0, wanted = n < FINISH_THREADS ? n : FINISH_THREADS;
    while (started < wanted - 1 && pthread_create(&threads[started], NULL, finish_some, &f) == 0)
        started++;
    finish_some(&f); /* this thread too */
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    int failed = 0;
    for (int k = 0; k < n; k++) {
        if (!final[k].ok) {
            say_failed(file, &br[k], 1, &final[k].err);
            failed++;
        }
        run_finish_report(opt, &paths[br[k].index], &br[k].ck, seconds, &final[k]);
    }
    free(final);
    return failed;
}

/* Simulates br[0 .. n-1] in engine calls of batch_size runs and writes each
 * run's outputs once its call is over; *failed counts the runs that failed
 * (each said). */
static void run_open_batches(const cli_options *opt, engine *eng, const mci_file *file,
                             const kernel_spec *specs, const run_paths *paths, batch_run *br, int n,
                             run_batch_totals *totals, int *failed)
{
    for (int first = 0; first < n;) {
        int size = batch_size(file, eng, specs, br, first, n);
        tm_error err = {0};
        double start = progress_now();
        batch_status status =
            simulate_batch(opt, eng, file, specs, paths, &br[first], size, totals, &err);
        double seconds = progress_now() - start;
        if (eng->last_runs && first + size == n)
            run_release_gpus(eng); /* closed while the last outputs are written */
        if (status == BATCH_STOPPED)
            stop_batch(opt, eng, file, paths, &br[first], size, br, n, seconds);
        if (status == BATCH_FAILED) {
            say_failed(file, &br[first], size, &err);
            *failed += size;
        } else {
            totals->batches += size > 1;
            totals->runs += size > 1 ? size : 0;
        }
        if (status == BATCH_DONE) {
            double t0 = progress_now();
            *failed += finish_runs(opt, eng, file, paths, &br[first], size, seconds);
            if (opt->verbose)
                fprintf(stderr,
                        "tmcml: a batch of %d runs simulated in %.3f s, its outputs "
                        "written in %.3f s\n",
                        size, seconds, progress_now() - t0);
        }
        first += size;
    }
}

bool run_batches(const cli_options *opt, engine *eng, const mci_file *file, const int *runs, int n,
                 const run_paths *paths, run_batch_totals *totals, int *failed, tm_error *err)
{
    batch_run *br = calloc((size_t)n, sizeof *br);
    int open = 0;
    *failed = 0;
    if (!br) {
        error_set(err, NULL, 0, "out of memory");
        *failed = n;
        return false;
    }
    kernel_spec *specs = NULL;
    bool ok = open_runs(opt, eng, file, runs, n, paths, br, &open, err) &&
              (open == 0 || !eng->pool ||
               (specs = batch_specs(opt, eng, &file->runs[br[0].index], err)) != NULL);
    if (!ok)
        *failed = n;
    else if (open > 0)
        run_open_batches(opt, eng, file, specs, paths, br, open, totals, failed);
    free(specs);
    close_runs(br, open);
    free(br);
    return ok;
}
