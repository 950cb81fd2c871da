/* Several processes through MPI (driver/ranks.h). */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "resume.h"
#include "tmcml_config.h"

#define CHUNK_MIN           UINT64_C(4096)
#define CHUNKS_PER_RANK     64
/* A GPU rank's chunks: every launch ends with a tail (gpu.c; ~0.6 s on the
 * intralipid slab), so a GPU rank takes its share in two (docs/scale.md has
 * the model). */
#define GPU_CHUNKS_PER_RANK 2

uint64_t ranks_chunk_photons(uint64_t photons, int size, bool gpu)
{
    uint64_t share =
        photons / (uint64_t)(size > 0 ? size : 1) / (gpu ? GPU_CHUNKS_PER_RANK : CHUNKS_PER_RANK);
    return share > CHUNK_MIN ? share : CHUNK_MIN;
}

#ifdef TMCML_HAVE_MPI
#include <mpi.h>

/* A growing list of chunk bounds. */
typedef struct bounds {
    uint64_t *at;
    size_t count, cap;
} bounds;

static bool bounds_push(bounds *b, uint64_t x)
{
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        uint64_t *more = realloc(b->at, cap * sizeof *more);
        if (!more)
            return false;
        b->at = more;
        b->cap = cap;
    }
    b->at[b->count++] = x;
    return true;
}

/* The cut after x, within the range's end. */
static uint64_t cut_after(const ranks_cuts *cuts, uint64_t x, uint64_t end)
{
    uint64_t c = cuts->next(cuts->ctx, x);
    return c > x && c < end ? c : end;
}

/* From x, the chunks up to the next cut: [x, cut) cut in equal pieces of
 * about `split` photons where it is more than a chunk (a piece of a
 * group), else whole groups while they fit in one chunk. */
static bool chunks_from(bounds *b, uint64_t x, uint64_t end, uint64_t size, uint64_t split,
                        const ranks_cuts *cuts)
{
    uint64_t c = cut_after(cuts, x, end);
    if (c - x > size) {
        uint64_t pieces = (c - x + split - 1) / split;
        bool ok = true;
        for (uint64_t i = 1; ok && i <= pieces; i++)
            ok = bounds_push(b, x + (uint64_t)((unsigned __int128)(c - x) * i / pieces));
        return ok;
    }
    while (c < end) {
        uint64_t more = cut_after(cuts, c, end);
        if (more - x > size)
            break;
        c = more;
    }
    return bounds_push(b, c);
}

/* The chunks of [begin, end) shared by `size` ranks, the same on every
 * rank: b->at[0] = begin < b->at[1] < ... = end.  Without cuts, of
 * ranks_chunk_photons each; with them, ending at cuts alone, whole groups
 * up to a chunk, or a group more than a chunk in pieces, no more of them
 * than RANKS_HELD_PIECES a rank. */
static bool chunk_bounds(bounds *b, uint64_t begin, uint64_t end, int size, bool gpu,
                         const ranks_cuts *cuts)
{
    uint64_t chunk = ranks_chunk_photons(end - begin, size, gpu);
    uint64_t split = (end - begin) / ((uint64_t)size * RANKS_HELD_PIECES);
    split = split > chunk ? split : chunk;
    bool ok = bounds_push(b, begin);
    for (uint64_t x = begin; ok && x < end; x = b->at[b->count - 1])
        ok = cuts ? chunks_from(b, x, end, chunk, split, cuts)
                  : bounds_push(b, end - x > chunk ? x + chunk : end);
    return ok;
}

/* Whether a launcher started this process as one of several. */
static bool launched_by_mpi(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

bool ranks_start(int *argc, char ***argv, ranks *r, tm_error *err)
{
    r->rank = 0;
    r->size = 1;
    r->started = false;
    if (!launched_by_mpi())
        return true;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        error_set(err, NULL, 0, "MPI_Init failed");
        return false;
    }
    r->started = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    return true;
}

void ranks_end(ranks *r)
{
    if (r->started)
        MPI_Finalize();
    r->started = false;
}

bool ranks_all_ok(const ranks *r, bool ok)
{
    if (r->size < 2)
        return ok;
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

/* The exact sum of 128-bit counts (MPI has no 128-bit integer type). */
static void add_u128(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    tally_acc_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        tally_acc_t x, y;
        memcpy(&x, &a[i], sizeof x);
        memcpy(&y, &b[i], sizeof y);
        y += x;
        memcpy(&b[i], &y, sizeof y);
    }
}

/* Sums n 128-bit counts of every rank into rank 0's v, in place. */
static void reduce_u128(tally_acc_t *v, size_t n, MPI_Datatype type, MPI_Op op, int rank)
{
    const size_t step = (size_t)1 << 24; /* counts per call stay well within an int */
    for (size_t at = 0; at < n; at += step) {
        int count = (int)(n - at < step ? n - at : step);
        if (rank == 0)
            MPI_Reduce(MPI_IN_PLACE, v + at, count, type, op, 0, MPI_COMM_WORLD);
        else
            MPI_Reduce(v + at, NULL, count, type, op, 0, MPI_COMM_WORLD);
    }
}

static void reduce_tallies(const ranks *r, tally_set *acc)
{
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous((int)sizeof(tally_acc_t), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(add_u128, 1, &op);
    tally_acc_t head[4] = {(tally_acc_t)acc->photons, acc->steps, (tally_acc_t)acc->trapped_photons,
                           acc->trapped_units};
    reduce_u128(head, 4, type, op, r->rank);
    /* Every rank has the same tallies (the path ones with --path-lengths). */
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (tally_set_has(acc, k))
            reduce_u128(acc->tally[k], (size_t)tally_set_bins(acc, k), type, op, r->rank);
    if (r->rank == 0) {
        acc->photons = (uint64_t)head[0];
        acc->steps = head[1];
        acc->trapped_photons = (uint64_t)head[2];
        acc->trapped_units = head[3];
    }
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}

static _Noreturn void abort_job(const ranks *r, const tm_error *err)
{
    char text[2048];
    fprintf(stderr, "tmcml: rank %d of %d failed, ending the job: %s\n", r->rank, r->size,
            error_format(err, text, sizeof text));
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

bool ranks_any(const ranks *r, bool mine)
{
    if (r->size < 2)
        return mine;
    int v = mine ? 1 : 0, any = 0;
    MPI_Allreduce(&v, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any != 0;
}

int ranks_max(const ranks *r, int v)
{
    if (r->size < 2)
        return v;
    int max = v;
    MPI_Allreduce(&v, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

bool ranks_same_text(const ranks *r, const char *text)
{
    if (r->size < 2)
        return true;
    char buf[512] = "";
    if (r->rank == 0)
        snprintf(buf, sizeof buf, "%s", text);
    MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    return ranks_all_ok(r, strncmp(buf, text, sizeof buf - 1) == 0);
}

/* A rank that pauses sets the counter past the last chunk: the others
 * take no chunk after it, so they pause at once too.  The photons never
 * taken stay in the checkpoint's gaps. */
static void close_counter(MPI_Win win, uint64_t chunks)
{
    uint64_t old;
    MPI_Fetch_and_op(&chunks, &old, MPI_UINT64_T, 0, 0, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
}

bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, bool gpu,
                       const ranks_cuts *cuts, ranks_chunk_fn chunk, void *ctx, bool *paused,
                       tm_error *err)
{
    *paused = false;
    bounds b = {0};
    if (!chunk_bounds(&b, begin, end, r->size, gpu, cuts)) {
        error_set(err, NULL, 0, "out of memory for a range's chunks");
        abort_job(r, err);
    }
    uint64_t chunks = b.count - 1;
    /* Rank 0's counter: the index of the next chunk to take. */
    uint64_t *counter = NULL;
    MPI_Win win;
    MPI_Win_allocate(r->rank == 0 ? (MPI_Aint)sizeof(uint64_t) : 0, sizeof(uint64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &counter, &win);
    if (r->rank == 0)
        *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const char *fail = getenv("TMCML_TEST_FAIL_RANK"); /* tests: this rank fails */
    bool ok = !(fail && atoi(fail) == r->rank);
    if (!ok)
        error_set(err, NULL, 0, "TMCML_TEST_FAIL_RANK=%d: a simulated failure", r->rank);
    uint64_t one = 1, at = 0;
    MPI_Win_lock_all(0, win);
    while (ok && !*paused) {
        MPI_Fetch_and_op(&one, &at, MPI_UINT64_T, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        if (at >= chunks)
            break;
        uint64_t first = b.at[at], count = b.at[at + 1] - first, done = 0;
        ok = chunk(first, count, &done, ctx, err);
        *paused = done < count;
        if (ok && *paused)
            close_counter(win, chunks);
    }
    MPI_Win_unlock_all(win);
    free(b.at);
    if (!ok)
        abort_job(r, err);
    MPI_Win_free(&win);
    return true;
}

/* ---- the groups of the standard errors ---- */

/* A group kept as every rank learns it: its index, first photon, photons
 * and photons done. */
#define KEPT_HEAD       4
#define TAG_GROUP_TALLY 2

/* n 128-bit counts to or from rank peer, in messages whose counts stay
 * well within an int. */
static void pass_u128(tally_acc_t *v, uint64_t n, int peer, bool send, MPI_Datatype u128)
{
    const uint64_t step = (uint64_t)1 << 24;
    for (uint64_t at = 0; at < n; at += step) {
        int count = (int)(n - at < step ? n - at : step);
        if (send)
            MPI_Send(v + at, count, u128, peer, TAG_GROUP_TALLY, MPI_COMM_WORLD);
        else
            MPI_Recv(v + at, count, u128, peer, TAG_GROUP_TALLY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* A group's tallies to or from rank peer: their counts, then each tally
 * they have (the receiver's t has the sender's tallies: the run's). */
static void pass_tallies(tally_set *t, int peer, bool send, MPI_Datatype u128)
{
    tally_acc_t head[4] = {(tally_acc_t)t->photons, t->steps, (tally_acc_t)t->trapped_photons,
                           t->trapped_units};
    pass_u128(head, 4, peer, send, u128);
    if (!send) {
        t->photons = (uint64_t)head[0];
        t->steps = head[1];
        t->trapped_photons = (uint64_t)head[2];
        t->trapped_units = head[3];
    }
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (tally_set_has(t, k))
            pass_u128(t->tally[k], tally_set_bins(t, k), peer, send, u128);
}

/* Every rank's groups kept, as heads (KEPT_HEAD each, rank by rank, each
 * rank's by increasing index), to every rank, so that all walk the same
 * transfers; counts[i]: rank i's.  Out of memory, the job is ended. */
static uint64_t *all_kept_heads(const ranks *r, const uncertainty *u, int *counts)
{
    int mine = u->kept_count, total = 0;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int *sizes = malloc((size_t)r->size * sizeof *sizes),
        *offsets = malloc((size_t)r->size * sizeof *offsets);
    uint64_t *own = malloc(((size_t)mine + 1) * KEPT_HEAD * sizeof *own);
    for (int i = 0; sizes && offsets && i < r->size; i++) {
        sizes[i] = counts[i] * KEPT_HEAD;
        offsets[i] = total;
        total += sizes[i];
    }
    uint64_t *heads = malloc(((size_t)total + 1) * sizeof *heads);
    if (!sizes || !offsets || !own || !heads) {
        tm_error err;
        error_set(&err, NULL, 0, "out of memory for the ranks' standard errors");
        abort_job(r, &err);
    }
    for (int i = 0; i < mine; i++) {
        const uncertainty_kept *k = &u->kept[i];
        uint64_t head[KEPT_HEAD] = {k->group, k->first, k->size, k->tallies.photons};
        memcpy(&own[(size_t)i * KEPT_HEAD], head, sizeof head);
    }
    MPI_Allgatherv(own, mine * KEPT_HEAD, MPI_UINT64_T, heads, sizes, offsets, MPI_UINT64_T,
                   MPI_COMM_WORLD);
    free(own);
    free(sizes);
    free(offsets);
    return heads;
}

/* The least index among the ranks' next groups (at[i] of counts[i]),
 * or false when every list is walked. */
static bool least_group(const ranks *r, const uint64_t *const *lists, const int *counts,
                        const int *at, uint64_t *g)
{
    bool any = false;
    for (int i = 0; i < r->size; i++)
        if (at[i] < counts[i] && (!any || lists[i][(size_t)at[i] * KEPT_HEAD] < *g)) {
            *g = lists[i][(size_t)at[i] * KEPT_HEAD];
            any = true;
        }
    return any;
}

/* What gather_groups walks: every rank's heads, and rank 0's scratch for a
 * piece received (of like's tallies, made at the first). */
typedef struct group_walk {
    uint64_t *heads;
    const uint64_t **lists; /* rank i's heads */
    int *counts, *at;
    const tally_set *like;
    tally_set scratch;
    bool scratch_made;
    MPI_Datatype u128;
} group_walk;

static void walk_start(group_walk *w, const ranks *r, const uncertainty *u, const tally_set *like)
{
    memset(w, 0, sizeof *w);
    w->like = like;
    w->counts = calloc((size_t)r->size, sizeof *w->counts);
    w->at = calloc((size_t)r->size, sizeof *w->at);
    w->lists = calloc((size_t)r->size, sizeof *w->lists);
    if (!w->counts || !w->at || !w->lists) {
        tm_error err;
        error_set(&err, NULL, 0, "out of memory for the ranks' standard errors");
        abort_job(r, &err);
    }
    w->heads = all_kept_heads(r, u, w->counts);
    for (int i = 0, at = 0; i < r->size; at += w->counts[i++] * KEPT_HEAD)
        w->lists[i] = &w->heads[at];
    MPI_Type_contiguous((int)sizeof(tally_acc_t), MPI_BYTE, &w->u128);
    MPI_Type_commit(&w->u128);
}

static void walk_end(group_walk *w)
{
    MPI_Type_free(&w->u128);
    tally_set_free(&w->scratch);
    free(w->heads);
    free(w->lists);
    free(w->counts);
    free(w->at);
}

/* Rank i's piece of group g (its head h): sent by rank i, taken into
 * rank 0's u (rank 0's own is there already). */
static bool pass_piece(const ranks *r, const mci_run *run, uncertainty *u, group_walk *w, int i,
                       const uint64_t *h, bool ok, tm_error *err)
{
    if (i == 0)
        return ok;
    if (r->rank == i)
        pass_tallies(&u->kept[w->at[i]].tallies, 0, true, w->u128);
    if (r->rank != 0)
        return ok;
    const tally_set *like = w->like;
    if (!w->scratch_made && !(tally_set_init(&w->scratch, like->nr, like->nz, like->na) &&
                              tally_set_add_options_of(&w->scratch, like))) {
        error_set(err, NULL, 0, "out of memory for the ranks' standard errors");
        abort_job(r, err);
    }
    w->scratch_made = true;
    tally_set_clear(&w->scratch);
    pass_tallies(&w->scratch, i, false, w->u128);
    bool added;
    return ok && uncertainty_add_piece(u, run, h[0], h[1], h[2], &w->scratch, &added, err);
}

/* Every rank's groups kept added to rank 0's u, group by group in the
 * order of their index and, within a group, rank by rank (rank 0 folds
 * each group as it becomes whole and next); dropped on the others.  Every
 * rank walks the same list, so the sends and receives pair up in order. */
static bool gather_groups(const ranks *r, const mci_run *run, uncertainty *u, const tally_set *like,
                          tm_error *err)
{
    group_walk w;
    walk_start(&w, r, u, like);
    bool ok = r->rank == 0 || u->groups == 0; /* the others hold every group */
    if (!ok)
        error_set(err, NULL, 0, "rank %d folded groups of the standard errors", r->rank);
    uint64_t g = 0;
    while (least_group(r, w.lists, w.counts, w.at, &g))
        for (int i = 0; i < r->size; i++) {
            const uint64_t *h = &w.lists[i][(size_t)w.at[i] * KEPT_HEAD];
            if (w.at[i] < w.counts[i] && h[0] == g) {
                ok = pass_piece(r, run, u, &w, i, h, ok, err);
                w.at[i]++;
            }
        }
    if (r->rank != 0)
        uncertainty_drop_kept(u);
    walk_end(&w);
    return ok;
}

bool ranks_gather(const ranks *r, const mci_run *run, checkpoint *ck, const checkpoint *mine,
                  tm_error *err)
{
    reduce_tallies(r, &ck->tallies);
    int count = mine->range_count, *counts = NULL, *offsets = NULL, total = 0;
    if (r->rank == 0) {
        counts = calloc((size_t)r->size, sizeof *counts);
        offsets = calloc((size_t)r->size, sizeof *offsets);
    }
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    uint64_t *all = NULL;
    if (r->rank == 0) {
        for (int i = 0; i < r->size; i++) {
            counts[i] *= 2; /* begin, end */
            offsets[i] = total;
            total += counts[i];
        }
        all = malloc(((size_t)total + 1) * sizeof *all);
    }
    uint64_t pairs[2 * CHECKPOINT_MAX_RANGES];
    for (int i = 0; i < count; i++) {
        pairs[2 * i] = mine->ranges[i].begin;
        pairs[2 * i + 1] = mine->ranges[i].end;
    }
    MPI_Gatherv(pairs, 2 * count, MPI_UINT64_T, all, counts, offsets, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    bool ok = true;
    for (int i = 0; r->rank == 0 && ok && i < total; i += 2)
        ok = resume_add(ck, all[i], all[i + 1], err);
    free(all);
    free(counts);
    free(offsets);
    bool grouped = gather_groups(r, run, &ck->unc, &ck->tallies, ok ? err : &(tm_error){0});
    return ranks_all_ok(r, ok && grouped);
}

void ranks_share_ranges(const ranks *r, checkpoint *ck)
{
    if (r->size < 2)
        return;
    MPI_Bcast(&ck->range_count, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(ck->ranges, 2 * ck->range_count, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

void ranks_exit(const ranks *r, int sig, const char *kept)
{
    if (r->started)
        MPI_Finalize();
    if (r->rank == 0)
        interrupt_exit(sig, kept);
    exit(128 + sig);
}

#else /* one process */

bool ranks_start(int *argc, char ***argv, ranks *r, tm_error *err)
{
    (void)argc;
    (void)argv;
    (void)err;
    r->rank = 0;
    r->size = 1;
    r->started = false;
    return true;
}

void ranks_end(ranks *r) { (void)r; }

bool ranks_all_ok(const ranks *r, bool ok)
{
    (void)r;
    return ok;
}

bool ranks_any(const ranks *r, bool mine)
{
    (void)r;
    return mine;
}

int ranks_max(const ranks *r, int v)
{
    (void)r;
    return v;
}

bool ranks_same_text(const ranks *r, const char *text)
{
    (void)r;
    (void)text;
    return true;
}

bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, bool gpu,
                       const ranks_cuts *cuts, ranks_chunk_fn chunk, void *ctx, bool *paused,
                       tm_error *err)
{
    (void)r;
    (void)gpu;
    (void)cuts;
    uint64_t done = 0;
    bool ok = chunk(begin, end - begin, &done, ctx, err);
    *paused = done < end - begin;
    return ok;
}

bool ranks_gather(const ranks *r, const mci_run *run, checkpoint *ck, const checkpoint *mine,
                  tm_error *err)
{
    (void)r;
    (void)run;
    for (int i = 0; i < mine->range_count; i++)
        if (!resume_add(ck, mine->ranges[i].begin, mine->ranges[i].end, err))
            return false;
    return true;
}

void ranks_share_ranges(const ranks *r, checkpoint *ck)
{
    (void)r;
    (void)ck;
}

void ranks_exit(const ranks *r, int sig, const char *kept)
{
    (void)r;
    interrupt_exit(sig, kept);
}

#endif
