/* `tmcml run`'s batches (run_batch.h). */
#include "run_batch.h"
#include "run_precision.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "clock.h"
#include "fd_room.h"
#include "footprint.h"
#include "gpu_runner.h"
#include "interrupt.h"
#include "progress.h"
#include "ranks.h"
#include "resume.h"
#include "run_lock.h"
#include "session_groups.h"
#include "stopper.h"
#include "text_escape.h"
#include "tm_limits.h"
#include "variant.h"
#include "work_queue.h"

/* Runs share a kernel shape when they share the layer count and the grid;
 * the variant, chosen by shape (tuner/plan.h), follows. */
static bool same_shape(const mci_run *a, const mci_run *b)
{
    return a->num_layers == b->num_layers && a->nr == b->nr && a->nz == b->nz && a->na == b->na &&
           a->dr == b->dr && a->dz == b->dz;
}

uint64_t run_batch_alone_photons(const driver_options *opt, const ranks *world, const engine *eng)
{
    /* Every rank must group alike: the largest, as if every rank had it.
     * (At most 64 GPUs of fewer than 2^24 threads each: an int.) */
    int threads = ranks_max(world, eng->pool ? (int)gpu_pool_threads(eng->pool) : 0);
    /* Precision runs are batched whatever their most photons: they start
     * with 64000 and stop where their groups say, and a batch's groups
     * share launches (driver/session_groups.h). */
    bool all = opt->batch_all || opt->precision > 0.0;
    return all ? 0 : batch_alone_photons((uint64_t)threads * (uint64_t)world->size);
}

/* group[i] as run_batch_groups says, for runs whose big flag is `big`
 * simulated alone (a big flag of false: as if none were). */
static void shape_groups(const mci_file *file, uint64_t alone_photons, bool big, int *group)
{
    for (int i = 0; i < file->num_runs; i++) {
        const mci_run *run = &file->runs[i];
        bool alone = batch_run_glass_only(run) || (big && batch_run_alone(run, alone_photons));
        group[i] = alone ? -1 : i;
        for (int j = 0; group[i] == i && j < i; j++)
            if (group[j] == j && same_shape(&file->runs[j], run))
                group[i] = j;
    }
}

/* Whether another run than i has group g. */
static bool shared_group(const int *group, int n, int i, int g)
{
    for (int j = 0; j < n; j++)
        if (j != i && group[j] == g)
            return true;
    return false;
}

int run_batch_groups(const mci_file *file, uint64_t alone_photons, int *group)
{
    int n = file->num_runs, left_out = 0;
    shape_groups(file, alone_photons, false, group);
    for (int i = 0; i < n; i++)
        left_out += group[i] >= 0 && batch_run_alone(&file->runs[i], alone_photons) &&
                    shared_group(group, n, i, group[i]);
    if (left_out > 0)
        shape_groups(file, alone_photons, true, group);
    return left_out;
}

/* ---- one call of run_batches ------------------------------------------------ */

/* What every step of a group's batches shares.  Under MPI the ranks simulate
 * together and rank 0 (the lead), the only one with paths, writes. */
typedef struct batch_call {
    const driver_options *opt;
    const ranks *world;
    engine *eng;
    const mci_file *file;
    const run_paths *paths; /* NULL on the ranks other than 0 */
    const kernel_spec *specs;
    run_batch_totals *totals;
    int writers; /* threads a batch's outputs are written on (fd_room_budget) */
} batch_call;

static bool lead(const batch_call *c) { return c->world->rank == 0; }

/* ---- the runs of a batch ---------------------------------------------------- */

/* One run of a batch: its place in the file, its output lock (held from
 * its start until its outputs are written: run_lock.h; the lead's) and its
 * checkpoint, whose tallies the engine adds to; under MPI, mine holds the
 * photon ranges this rank simulated since they were last gathered. */
typedef struct batch_run {
    int index; /* in the file */
    run_lock lock;
    checkpoint ck;
    checkpoint mine;
    /* Its photons all ended while its batch still simulated, and its
     * outputs were handed to the writers then (run_ended_early); the batch
     * leaves it alone after that. */
    bool early;
    double seconds;          /* early: from its batch's start until its photons ended */
    uint64_t photons_before; /* done before this process (--resume) */
    uint64_t launches;       /* one GPU: the launches that took its photons */
    run_final final;         /* its outputs written, or why not */
} batch_run;

/* The lead's share of opening run i: its lock, and whether its finished
 * outputs are there (--resume). */
static bool lead_opens(const batch_call *c, int i, batch_run *r, bool *done, tm_error *err)
{
    const run_paths *p = &c->paths[i];
    if (!run_lock_take(&r->lock, p->lock, p->mco, err))
        return false;
    if (run_already_finished(c->opt, c->eng, &c->file->runs[i], p, done, err))
        return true;
    run_lock_release(&r->lock);
    return false;
}

/* Run i opened into *r on every rank, or *open false when its finished
 * outputs are there (skipped, unlocked): its checkpoint fresh, or the
 * lead's resumed (--resume) and its gaps shared with the other ranks. */
static bool open_run(const batch_call *c, int i, batch_run *r, bool *open, tm_error *err)
{
    const mci_run *run = &c->file->runs[i];
    bool done = false, resumed = false;
    *open = false;
    r->index = i;
    r->lock.fd = -1;
    if (!ranks_all_ok(c->world, !lead(c) || lead_opens(c, i, r, &done, err)))
        return false;
    if (ranks_any(c->world, done)) {
        if (lead(c))
            run_say_skipped(c->opt, i, &c->paths[i]);
        run_lock_release(&r->lock);
        return true;
    }
    driver_options rank_opt = *c->opt;
    rank_opt.resume = lead(c) && c->opt->resume;
    bool ok = resume_begin(&r->ck, &rank_opt, run, i + 1, c->eng->physics,
                           lead(c) ? c->paths[i].ckpt : "", &resumed, err);
    if (!ranks_all_ok(c->world, ok)) {
        if (ok)
            checkpoint_free(&r->ck);
        run_lock_release(&r->lock);
        return false;
    }
    ranks_share_ranges(c->world, &r->ck);
    r->ck.unc.hold = !lead(c); /* the lead folds every rank's groups (ranks_gather) */
    r->mine = (checkpoint){.photons = r->ck.photons};
    r->photons_before = r->ck.tallies.photons;
    if (resumed)
        run_say_resumed(c->opt, i, &c->paths[i], &r->ck);
    *open = true;
    return true;
}

/* The runs of runs[] not yet finished, each locked with its checkpoint.
 * *open: how many. */
static bool open_runs(const batch_call *c, const int *runs, int n, batch_run *br, int *open,
                      tm_error *err)
{
    *open = 0;
    if (!ranks_all_ok(c->world, ranks_same_text(c->world, c->eng->physics))) {
        error_set(err, NULL, 0, "the MPI ranks run different physics (engines): %s on rank %d",
                  c->eng->physics, c->world->rank);
        return false;
    }
    for (int k = 0; k < n; k++) {
        bool opened;
        if (!open_run(c, runs[k], &br[*open], &opened, err))
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
 * the longest-lived runs first (the same on every rank).  *count 0:
 * nothing left. */
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
 * shared memory (each GPU's batch kernel, every rank's), their tallies the
 * host bound. */
static int batch_size(const batch_call *c, const batch_run *br, int first, int n)
{
    const engine *eng = c->eng;
    uint64_t bytes = 0;
    int parts = 0, k = first;
    for (; k < n && k - first < TM_BATCH_MAX_RUNS; k++) {
        run_footprint fp;
        footprint_of_run(&c->file->runs[br[k].index], c->file->path, &fp);
        parts += br[k].ck.range_count + 1;
        bytes += fp.tallies;
        bool fits = bytes <= TM_BATCH_MAX_TALLY_BYTES;
        for (int g = 0; fits && eng->pool && g < gpu_pool_size(eng->pool); g++)
            fits =
                gpu_batch_fits(gpu_pool_engine(eng->pool, g), &c->specs[g], k - first + 1, parts);
        if (!fits)
            break;
    }
    int size = k > first ? k - first : 1; /* one run always goes, alone if need be */
    return -ranks_max(c->world, -size);   /* the smallest of every rank's */
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

/* ---- the outputs of a batch ------------------------------------------------- */

/* A batch's outputs (the lead's), written by a queue of threads of their
 * own: on the GPUs a run's as soon as its photons have all ended, while the
 * batch still simulates (run_ended_early); the others' (a stopped batch's,
 * MPI's, the CPU engine's) once the batch is done, while the next batch
 * simulates; then every run said in order.  The
 * threads read a snapshot of the engine taken at the batch's start (the
 * next batch adds to the engine's GPU shares); the kernel key and names stay
 * as they are until run_open_batches returns. */
typedef struct batch_writer {
    const batch_call *c; /* NULL: no batch */
    engine snap;
    run_gpu shares[DRIVER_MAX_GPUS]; /* snap's */
    batch_run *br;
    int n;
    int failed;        /* runs whose outputs failed (said) */
    double start;      /* the batch's start (clock_now) */
    double simulated;  /* seconds, once the batch is done */
    work_queue *queue; /* NULL (out of memory): each run written by the thread that hands it */
    pthread_t thread;
    bool running;
} batch_writer;

/* The engine as run r's outputs name it: one process on one GPU names
 * that GPU's share of this run (its photons simulated by this process, the
 * launches that took them) rather than of the whole batch.  (Several GPUs
 * or ranks share a run's photons without counting them per run: their
 * shares of the batch.) */
static engine run_engine_view(const batch_writer *w, const batch_run *r, run_gpu *share)
{
    engine view = w->snap;
    if (view.gpus == 1 && view.shares && w->c->world->size == 1) {
        *share = view.shares[0];
        share->photons = r->ck.tallies.photons - r->photons_before;
        share->chunks = r->launches;
        view.shares = share;
    }
    return view;
}

/* Run k's outputs, from any thread.  Its lock goes as soon as they are
 * written, nothing more of the run being written then (100 lock files
 * removed in one pass after the last output took 0.03-0.04 s on an ext4
 * disk busy with the outputs' fsyncs); it stays when they failed. */
static void write_run(void *ctx, int k)
{
    batch_writer *w = ctx;
    const batch_call *c = w->c;
    batch_run *r = &w->br[k];
    run_gpu share;
    engine view = run_engine_view(w, r, &share);
    if (run_finish_write(c->opt, &view, c->file, r->index, &c->paths[r->index], &r->ck,
                         r->early ? r->seconds : w->simulated, &r->final))
        run_lock_release(&r->lock);
}

static void writer_hand(batch_writer *w, int k)
{
    if (w->queue)
        work_queue_push(w->queue, k);
    else
        write_run(w, k);
}

/* The writer of br[0 .. n-1], before they simulate. */
static void writer_open(batch_writer *w, const batch_call *c, batch_run *br, int n)
{
    const engine *eng = c->eng;
    *w = (batch_writer){.c = c, .snap = *eng, .br = br, .n = n, .start = clock_now()};
    if (eng->shares) {
        memcpy(w->shares, eng->shares, (size_t)(eng->gpus > 0 ? eng->gpus : 1) * sizeof *w->shares);
        w->snap.shares = w->shares;
    }
    w->queue = work_queue_start(n, c->writers, write_run, w);
}

/* The batch's runs handed to the writers while it simulated. */
static int written_early(const batch_writer *w)
{
    int early = 0;
    for (int k = 0; k < w->n; k++)
        early += w->br[k].early;
    return early;
}

/* Says the batch's runs in order (only those written early: the batch did
 * not finish), counting those that failed. */
static void writer_report(batch_writer *w, bool only_early)
{
    const batch_call *c = w->c;
    for (int k = 0; k < w->n; k++) {
        batch_run *r = &w->br[k];
        if (only_early && !r->early)
            continue;
        if (!r->final.ok) {
            say_failed(c->file, r, 1, &r->final.err);
            w->failed++;
        }
        run_finish_report(c->opt, &c->paths[r->index], &r->ck, r->early ? r->seconds : w->simulated,
                          &r->final);
    }
}

/* The runs not written yet handed over, every output waited for, every run
 * said. */
static void *finish_batch(void *arg)
{
    batch_writer *w = arg;
    double t0 = clock_now();
    for (int k = 0; k < w->n; k++)
        if (!w->br[k].early)
            writer_hand(w, k);
    work_queue_finish(w->queue);
    w->queue = NULL;
    writer_report(w, false);
    if (w->c->opt->verbose)
        fprintf(stderr,
                "tmcml: a batch of %d runs simulated in %.3f s (%d of them written while it ran), "
                "its outputs written %.3f s after it\n",
                w->n, w->simulated, written_early(w), clock_now() - t0);
    return NULL;
}

/* The batch done in `seconds`: its outputs finished in a thread of their
 * own while the next batch simulates, or here when no thread can start. */
static void writer_start(batch_writer *w, double seconds)
{
    w->simulated = seconds;
    if (w->snap.gpus > 1) /* its GPUs' shares, this batch's included */
        memcpy(w->shares, w->c->eng->shares, (size_t)w->snap.gpus * sizeof *w->shares);
    w->running = pthread_create(&w->thread, NULL, finish_batch, w) == 0;
    if (!w->running)
        finish_batch(w);
}

/* A batch that did not finish: the runs written early are whole (waited
 * for, and said); the others' outputs are not written. */
static void writer_abandon(batch_writer *w)
{
    work_queue_finish(w->queue);
    w->queue = NULL;
    writer_report(w, true);
}

/* Waits for the writer's batch; its failed runs into *failed.  The writer
 * is then free for another batch. */
static void writer_close(batch_writer *w, int *failed)
{
    if (w->running)
        pthread_join(w->thread, NULL);
    if (w->c)
        *failed += w->failed;
    w->running = false;
    w->c = NULL;
}

/* One process on its GPUs: the engines say when each run's photons have
 * all ended, and its outputs are written while the others simulate.  (MPI
 * ranks share a run's photons without telling each other when they end.) */
static bool early_outputs(const batch_call *c) { return c->world->size == 1 && c->eng->pool; }

/* The engine call's view for run_ended_early. */
typedef struct early_call {
    batch_writer *w;
    const photon_batch *batch;
    tally_set *acc;   /* the engine's: acc[k] is run br[k]'s */
    uncertainty *unc; /* the groups of acc[k]'s standard errors */
} early_call;

/* Every photon of run br[k] (the batch's slot k) has ended, in `launches`
 * launches, and acc[k] holds its tallies (on a GPU's thread under the
 * pool's lock, while the batch goes on): its checkpoint gets them and the
 * ranges of its parts (add_part_range then skips them; a launch that ended
 * before may have added some of them already), and its outputs go to the
 * writers. */
static bool run_ended_early(void *ctx, int k, uint64_t launches, tm_error *err)
{
    early_call *e = ctx;
    batch_run *r = &e->w->br[k];
    r->ck.tallies = e->acc[k];
    r->ck.unc = e->unc[k];
    for (int p = 0; p < e->batch->count; p++) {
        const batch_part *part = &e->batch->parts[p];
        if (part->slot == k && !resume_cover(&r->ck, part->first, part->first + part->count, err))
            return false;
    }
    r->early = true;
    r->seconds = clock_now() - e->w->start;
    r->launches += launches;
    writer_hand(e->w, k);
    return true;
}

/* ---- simulating a batch ------------------------------------------------------- */

/* Where the engine's photon ranges go: the checkpoint of each slot's run
 * (one process), or the ranges this rank simulated (MPI); not those of a
 * run written early, which has them all. */
typedef struct range_sink {
    const photon_batch *batch;
    const batch_run *br;
    checkpoint **cks; /* per slot */
} range_sink;

static bool add_part_range(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    range_sink *s = ctx;
    int slot = s->batch->parts[part].slot;
    return s->br[slot].early || resume_add(s->cks[slot], first, first + n, err);
}

/* One engine call over batch into the runs' tallies, its ranges into
 * cks[slot], each run written early when w (may be NULL) is given and the
 * engine can tell; *done: the photons it simulated (a pause may cut it
 * short). */
static bool engine_call(const batch_call *c, const photon_batch *batch, batch_run *br, int n,
                        checkpoint **cks, progress_meter *meter, stopper *st, batch_writer *w,
                        uint64_t *done, tm_error *err)
{
    engine *eng = c->eng;
    tally_set *acc = calloc((size_t)n, sizeof *acc);
    uncertainty *unc = calloc((size_t)n, sizeof *unc);
    if (!acc || !unc) {
        free(acc);
        free(unc);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    /* The engines add into an array of tally sets: the runs' own, lent;
     * and the groups of their standard errors too. */
    uint64_t before = 0;
    for (int k = 0; k < n; k++) {
        acc[k] = br[k].ck.tallies;
        unc[k] = br[k].ck.unc;
        before += acc[k].photons;
    }
    range_sink sink = {batch, br, cks};
    session_sim sim = run_session_sim(c->opt, eng, meter, st, add_part_range, &sink);
    if (c->opt->stderr_groups)
        sim.uncertainty = unc;
    /* --precision: each run decides on its own (run_precision.h). */
    precision_stop *rp = c->opt->precision > 0.0 ? calloc((size_t)n, sizeof *rp) : NULL;
    bool precise = rp != NULL;
    for (int k = 0; precise && k < n; k++)
        precise = run_precision_target(c->opt, &c->file->runs[br[k].index], &br[k].ck, &rp[k], err);
    if (c->opt->precision > 0.0 && !precise) {
        if (!rp)
            error_set(err, NULL, 0, "out of memory");
        free(rp);
        free(acc);
        free(unc);
        return false;
    }
    precision_stop_sim(&sim, rp);
    early_call early = {w, batch, acc, unc};
    /* A precision run's photons are not its parts' until it ends. */
    if (w && early_outputs(c) && !rp) {
        sim.slot_done = run_ended_early;
        sim.slot_ctx = &early;
    }
    session_run_stats stats;
    bool ok = session_simulate_batch(&eng->ses, &sim, batch, eng->pool ? c->specs : NULL, acc,
                                     &stats, err);
    *done = 0;
    for (int k = 0; k < n; k++) {
        if (!br[k].early) { /* else the writers' now */
            br[k].ck.tallies = acc[k];
            br[k].ck.unc = unc[k];
        }
        *done += acc[k].photons;
    }
    *done -= before;
    if (ok && eng->pool) {
        run_note_shares(c->opt, eng, &stats);
        for (int g = 0; g < gpu_pool_size(eng->pool); g++)
            c->totals->launches += stats.shares[g].stats.launches;
        for (int k = 0; k < n && gpu_pool_size(eng->pool) == 1; k++)
            if (!br[k].early && photon_batch_slot_run(batch, k))
                br[k].launches += stats.shares[0].chunks; /* run_engine_view */
    }
    free(acc);
    free(unc);
    free(rp);
    return ok;
}

/* The current gaps of br[0 .. n-1] as a batch. */
static bool gaps_batch(const batch_call *c, const batch_run *br, int n, photon_batch *batch,
                       tm_error *err)
{
    int count;
    batch_part *parts = gaps_as_parts(c->file, br, n, &count);
    if (!parts) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    bool ok = photon_batch_init(batch, parts, count, err);
    free(parts);
    return ok;
}

/* One process: one engine call over every gap (the pool shares it between
 * the GPUs); w (may be NULL) takes the runs that end early. */
static bool simulate_alone(const batch_call *c, batch_run *br, int n, progress_meter *meter,
                           stopper *st, batch_writer *w, tm_error *err)
{
    photon_batch batch;
    checkpoint **cks = calloc((size_t)n, sizeof *cks);
    bool ok = cks && gaps_batch(c, br, n, &batch, err);
    if (!cks)
        error_set(err, NULL, 0, "out of memory");
    for (int k = 0; ok && k < n; k++)
        cks[k] = &br[k].ck;
    uint64_t done;
    ok = ok && engine_call(c, &batch, br, n, cks, meter, st, w, &done, err);
    if (cks && batch.parts)
        photon_batch_free(&batch);
    free(cks);
    return ok;
}

/* MPI: a chunk of the batch's indices that this rank took (ranks_share_range). */
typedef struct shared_chunk {
    const batch_call *c;
    const photon_batch *batch;
    batch_run *br;
    checkpoint **mine; /* per slot: this rank's ranges */
    int n;
    stopper *st;
} shared_chunk;

typedef struct part_list {
    const photon_batch *batch;
    batch_part *parts;
    int count;
} part_list;

static bool list_part(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)err;
    part_list *l = ctx;
    batch_part p = l->batch->parts[part];
    l->parts[l->count++] = (batch_part){p.run, first, n, p.slot};
    return true;
}

static bool simulate_shared_chunk(uint64_t first, uint64_t count, uint64_t *done, void *ctx,
                                  tm_error *err)
{
    shared_chunk *s = ctx;
    part_list list = {s->batch, malloc((size_t)s->batch->count * sizeof *list.parts), 0};
    photon_batch chunk;
    bool ok = list.parts && photon_batch_ranges(s->batch, first, count, list_part, &list, err) &&
              photon_batch_init(&chunk, list.parts, list.count, err);
    if (!list.parts)
        error_set(err, NULL, 0, "out of memory");
    free(list.parts);
    *done = 0;
    if (ok) {
        ok = engine_call(s->c, &chunk, s->br, s->n, s->mine, NULL, s->st, NULL, done, err);
        photon_batch_free(&chunk);
    }
    return ok;
}

/* With --stderr, a chunk ends at a bound of a run's 64 groups (ranks_cuts):
 * the first after batch index x, or its part's end. */
static uint64_t group_after(void *ctx, uint64_t x)
{
    const photon_batch *batch = ctx;
    int k = photon_batch_part_at(batch, x);
    const batch_part *p = &batch->parts[k];
    groups_plan plan = {.photons = (uint64_t)p->run->photons};
    uint64_t photon = p->first + (x - batch->offsets[k]);
    uint64_t bound = groups_bound(&plan, groups_of(&plan, photon) + 1);
    uint64_t end = p->first + p->count;
    return batch->offsets[k] + ((bound < end ? bound : end) - p->first);
}

/* MPI: the gaps of every run shared by the ranks in chunks until they are
 * done or a pause stops every rank (*paused); every rank's tallies and
 * ranges then gathered into the lead's checkpoints. */
static bool simulate_shared(const batch_call *c, batch_run *br, int n, stopper *st, bool *paused,
                            tm_error *err)
{
    photon_batch batch;
    checkpoint **mine = calloc((size_t)n, sizeof *mine);
    bool ok = mine && gaps_batch(c, br, n, &batch, err), stopped = false;
    if (!mine)
        error_set(err, NULL, 0, "out of memory");
    for (int k = 0; ok && k < n; k++)
        mine[k] = &br[k].mine;
    shared_chunk ctx = {c, &batch, br, mine, n, st};
    ranks_cuts cuts = {group_after, &batch};
    ok = ranks_all_ok(c->world, ok) &&
         ranks_share_range(c->world, 0, photon_batch_size(&batch), c->eng->pool != NULL,
                           c->opt->stderr_groups ? &cuts : NULL, simulate_shared_chunk, &ctx,
                           &stopped, err);
    *paused = ranks_any(c->world, ok && stopped);
    for (int k = 0; ok && k < n; k++)
        ok = ranks_gather(c->world, &c->file->runs[br[k].index], &br[k].ck, &br[k].mine, err);
    if (mine && batch.parts)
        photon_batch_free(&batch);
    free(mine);
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

/* A periodic checkpoint of every run, written by the lead (a failure is
 * said and the batch goes on, the run's earlier checkpoint kept); under MPI
 * the other ranks start their tallies again from zero (so nothing is summed
 * twice), and every rank learns the gaps left. */
static void write_checkpoints(const batch_call *c, batch_run *br, int n)
{
    for (int k = 0; k < n; k++) {
        tm_error err = {0};
        if (br[k].early)
            continue; /* its outputs are written or being written */
        if (lead(c) && !checkpoint_write(c->paths[br[k].index].ckpt, &br[k].ck, &err)) {
            char text[2048];
            fprintf(stderr, "tmcml: warning: checkpoint not written: %s\n",
                    error_format(&err, text, sizeof text));
        }
        if (c->world->size == 1)
            continue;
        if (!lead(c))
            tally_set_clear(&br[k].ck.tallies);
        br[k].mine.range_count = 0;
        ranks_share_ranges(c->world, &br[k].ck);
    }
}

/* The photons of br[0 .. n-1], paused for the periodic checkpoints (the
 * lead's timer pauses every rank); w (the lead's, else NULL) takes the runs
 * that end early. */
static batch_status simulate_batch(const batch_call *c, batch_run *br, int n, batch_writer *w,
                                   tm_error *err)
{
    const driver_options *opt = c->opt;
    bool shared = c->world->size > 1;
    char label[64];
    snprintf(label, sizeof label, "batch of %d runs: ", n);
    progress_meter meter;
    progress_start(&meter, !opt->quiet && !shared, photons_left(br, n), label);
    stopper st;
    stopper_start(&st, lead(c) ? opt->checkpoint_every : 0);
    interrupt_graceful(true);
    batch_status status = BATCH_DONE;
    /* Every rank knows the gaps left at the start and after each pause
     * (ranks_share_ranges); a round that no pause stopped did them all. */
    bool more = true;
    while (status == BATCH_DONE && more && any_left(br, n)) {
        bool paused = false;
        bool ok = shared ? simulate_shared(c, br, n, &st, &paused, err)
                         : simulate_alone(c, br, n, &meter, &st, w, err);
        paused = shared ? paused : st.flag || interrupt_requested();
        if (!ok)
            status = BATCH_FAILED;
        else if (ranks_max(c->world, interrupt_requested()))
            status = BATCH_STOPPED;
        else if (paused) {
            write_checkpoints(c, br, n);
            stopper_rearm(&st);
        } else
            more = !shared;
    }
    interrupt_graceful(false);
    stopper_end(&st);
    progress_finish(&meter);
    /* The signal came as the last photons ended: the lead's checkpoints
     * (holding every rank's ranges) say so. */
    if (status == BATCH_STOPPED && !ranks_any(c->world, lead(c) && any_left(br, n)))
        status = BATCH_DONE;
    return status;
}

/* A signal stopped the batch br[0 .. n-1]: every run's checkpoint and
 * partial outputs (the lead's) but for the runs written early, every lock
 * of the open runs (all[0 .. count-1]) released, then the exit of a
 * stopped run. */
static void stop_batch(const batch_call *c, const batch_run *br, int n, batch_run *all, int count,
                       double seconds)
{
    char kept[1024] = "", said[1024];
    for (int k = 0; lead(c) && k < n; k++)
        if (!br[k].early)
            run_save_stopped(c->opt, c->eng, c->file, br[k].index, &c->paths[br[k].index],
                             &br[k].ck, seconds, said, sizeof said);
    snprintf(kept, sizeof kept,
             "a batch of %d runs stopped; each run's checkpoint and partial outputs are kept "
             "beside its outputs (continue with --resume)",
             n);
    for (int k = 0; k < count; k++)
        run_lock_release(&all[k].lock);
    ranks_exit(c->world, ranks_max(c->world, interrupt_requested()), kept);
}

static bool derive_batch(kernel_spec *spec, const variant_options *v, const tune_device *dev,
                         int unused, tm_error *err)
{
    (void)unused;
    return variant_batch_spec(spec, v, dev, err);
}

/* The batch kernel of each GPU's variant for the batch's shape (every rank
 * its own GPUs'). */
static kernel_spec *batch_specs(const driver_options *opt, engine *eng, const mci_run *run,
                                tm_error *err)
{
    return eng->pool ? run_derived_specs(opt, eng, run, derive_batch, 0, err) : NULL;
}

/* Simulates br[0 .. n-1] in engine calls of batch_size runs and writes
 * their outputs (the lead), each batch's while the next one simulates;
 * *failed counts the runs that failed (each said). */
static void run_open_batches(const batch_call *c, batch_run *br, int n, int *failed)
{
    engine *eng = c->eng;
    batch_writer writers[2]; /* this batch's, and the last one's still writing */
    memset(writers, 0, sizeof writers);
    for (int first = 0, turn = 0; first < n; turn ^= 1) {
        int size = batch_size(c, br, first, n);
        batch_writer *w = &writers[turn], *last = &writers[turn ^ 1];
        writer_close(w, failed); /* the batch before the last one's: joined already */
        if (lead(c))
            writer_open(w, c, &br[first], size);
        tm_error err = {0};
        double start = clock_now();
        batch_status status = simulate_batch(c, &br[first], size, lead(c) ? w : NULL, &err);
        double seconds = clock_now() - start;
        if (eng->last_runs && first + size == n)
            run_release_gpus(eng); /* closed while the last outputs are written */
        if (status != BATCH_DONE && lead(c)) {
            writer_close(last, failed); /* the last batch's outputs whole, and said first */
            writer_abandon(w);
        }
        if (status == BATCH_STOPPED)
            stop_batch(c, &br[first], size, br, n, seconds);
        if (status == BATCH_FAILED) {
            say_failed(c->file, &br[first], size, &err);
            int early = lead(c) ? written_early(w) : 0;
            if (early > 0)
                fprintf(
                    stderr,
                    "tmcml: %d runs of that batch had ended before; their outputs are said above\n",
                    early);
            *failed += size - early;
        } else {
            c->totals->batches += size > 1;
            c->totals->runs += size > 1 ? size : 0;
        }
        if (status == BATCH_DONE && lead(c)) {
            writer_close(last, failed); /* its runs said before this batch's */
            writer_start(w, seconds);
        }
        first += size;
    }
    writer_close(&writers[0], failed);
    writer_close(&writers[1], failed);
}

/* run_batches for runs[0 .. n-1], all opened at once. */
static bool run_opened_together(const driver_options *opt, const ranks *world, engine *eng,
                                const mci_file *file, const int *runs, int n,
                                const run_paths *paths, run_batch_totals *totals, int writers,
                                int *failed, tm_error *err)
{
    batch_run *br = calloc((size_t)n, sizeof *br);
    int open = 0;
    *failed = 0;
    if (!br) {
        error_set(err, NULL, 0, "out of memory");
        *failed = n;
        return false;
    }
    batch_call c = {opt, world, eng, file, paths, NULL, totals, writers};
    kernel_spec *specs = NULL;
    bool ok = open_runs(&c, runs, n, br, &open, err);
    if (ok && open > 0 && eng->pool) {
        specs = batch_specs(opt, eng, &file->runs[br[0].index], err);
        ok = specs != NULL;
    }
    ok = ranks_all_ok(world, ok);
    c.specs = specs;
    if (!ok)
        *failed = n;
    else if (open > 0)
        run_open_batches(&c, br, open, failed);
    free(specs);
    close_runs(br, open);
    free(br);
    return ok;
}

bool run_batches(const driver_options *opt, const ranks *world, engine *eng, const mci_file *file,
                 const int *runs, int n, const run_paths *paths, run_batch_totals *totals,
                 int *failed, tm_error *err)
{
    /* Each open run holds its lock, and two batches' outputs may be written
     * at once: as many runs as the descriptors allow (fd_room.h), the same
     * on every rank. */
    fd_budget room;
    bool mine = fd_room_budget(2, RUN_FINISH_THREADS, &room, err);
    bool ok = ranks_all_ok(world, mine);
    if (!ok && mine)
        error_set(err, NULL, 0, "another MPI rank has too few open files to run a batch");
    int slice = ok ? -ranks_max(world, -room.runs) : 0;
    bool last_runs = eng->last_runs;
    *failed = ok ? 0 : n;
    for (int first = 0; ok && first < n; first += slice) {
        int count = n - first < slice ? n - first : slice, slice_failed = 0;
        eng->last_runs = last_runs && first + count == n; /* the GPUs go after the last */
        ok = run_opened_together(opt, world, eng, file, runs + first, count, paths, totals,
                                 room.writers, &slice_failed, err);
        *failed += ok ? slice_failed : n - first;
    }
    eng->last_runs = last_runs;
    return ok;
}
