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

/* A rank that pauses sets the counter to the range's end: the others take
 * no chunk after it, so they pause at once too.  The photons never taken
 * stay in the checkpoint's gaps. */
static void close_counter(MPI_Win win, uint64_t end)
{
    uint64_t old;
    MPI_Fetch_and_op(&end, &old, MPI_UINT64_T, 0, 0, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
}

bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, bool gpu, ranks_chunk_fn chunk,
                       void *ctx, bool *paused, tm_error *err)
{
    *paused = false;
    uint64_t *counter = NULL;
    MPI_Win win;
    MPI_Win_allocate(r->rank == 0 ? (MPI_Aint)sizeof(uint64_t) : 0, sizeof(uint64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &counter, &win);
    if (r->rank == 0)
        *counter = begin;
    MPI_Barrier(MPI_COMM_WORLD);
    const char *fail = getenv("TMCML_TEST_FAIL_RANK"); /* tests: this rank fails */
    bool ok = !(fail && atoi(fail) == r->rank);
    if (!ok)
        error_set(err, NULL, 0, "TMCML_TEST_FAIL_RANK=%d: a simulated failure", r->rank);
    uint64_t size = ranks_chunk_photons(end - begin, r->size, gpu), first = 0;
    MPI_Win_lock_all(0, win);
    while (ok && !*paused) {
        MPI_Fetch_and_op(&size, &first, MPI_UINT64_T, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        if (first >= end)
            break;
        uint64_t count = end - first < size ? end - first : size, done = 0;
        ok = chunk(first, count, &done, ctx, err);
        *paused = done < count;
        if (ok && *paused)
            close_counter(win, end);
    }
    MPI_Win_unlock_all(win);
    if (!ok)
        abort_job(r, err);
    MPI_Win_free(&win);
    return true;
}

/* ---- the groups of the standard errors ---- */

/* A rank's groups as rank 0 first learns them: their count and photons,
 * the mask of their arrays and their grid's nine axes. */
#define GROUPS_HEAD     12
#define TAG_GROUPS_GO   1 /* rank 0 to a rank: send your sums (1) or not (0) */
#define TAG_GROUPS_SUMS 2

static void groups_head(const uncertainty *u, uint64_t *head)
{
    const output_grid *g = &u->grid;
    const int axes[] = {g->nr,        g->nz,          g->na,          g->num_layers, g->nt,
                        g->detectors, g->frequencies, g->modulations, g->xy};
    head[0] = (uint64_t)u->groups;
    head[1] = u->photons;
    head[2] = uncertainty_arrays(u);
    for (int i = 0; i < GROUPS_HEAD - 3; i++)
        head[3 + i] = (uint64_t)axes[i];
}

/* n doubles to or from rank peer, in messages whose counts stay well
 * within an int. */
static void pass_doubles(double *v, uint64_t n, int peer, bool send)
{
    const uint64_t step = (uint64_t)1 << 24;
    for (uint64_t at = 0; at < n; at += step) {
        int count = (int)(n - at < step ? n - at : step);
        if (send)
            MPI_Send(v + at, count, MPI_DOUBLE, peer, TAG_GROUPS_SUMS, MPI_COMM_WORLD);
        else
            MPI_Recv(v + at, count, MPI_DOUBLE, peer, TAG_GROUPS_SUMS, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

/* u's sums to or from rank peer: the totals', then each array's of its
 * mask in the table's order (the receiver's u has the sender's mask). */
static void pass_sums(uncertainty *u, int peer, bool send)
{
    pass_doubles(u->mean, 3, peer, send);
    pass_doubles(u->m2, 3, peer, send);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!u->array_mean[i])
            continue;
        uint64_t n = output_stored(&output_table[i], &u->grid);
        pass_doubles(u->array_mean[i], n, peer, send);
        pass_doubles(u->array_m2[i], n, peer, send);
    }
}

/* Rank 0 takes rank i's groups (of head h) into u: told to send unless
 * rank 0 failed already or has no memory for them. */
static bool receive_groups(uncertainty *u, int i, const uint64_t *h, bool ok, tm_error *err)
{
    uncertainty theirs;
    uncertainty_init(&theirs);
    output_grid grid = {.nr = (int)h[3],
                        .nz = (int)h[4],
                        .na = (int)h[5],
                        .num_layers = (int)h[6],
                        .nt = (int)h[7],
                        .detectors = (int)h[8],
                        .frequencies = (int)h[9],
                        .modulations = (int)h[10],
                        .xy = (int)h[11]};
    int go = ok && uncertainty_alloc(&theirs, &grid, h[2], err);
    MPI_Send(&go, 1, MPI_INT, i, TAG_GROUPS_GO, MPI_COMM_WORLD);
    if (go) {
        pass_sums(&theirs, i, false);
        theirs.groups = (int)h[0];
        theirs.photons = h[1];
        ok = uncertainty_merge(u, &theirs, err);
    }
    uncertainty_free(&theirs);
    return ok && go;
}

/* Every rank's groups merged into rank 0's u in rank order (Chan's
 * update: uncertainty_merge) and emptied on the others; a rank without
 * groups (none asked for, or no chunk taken) sends its head alone. */
static bool gather_groups(const ranks *r, uncertainty *u, tm_error *err)
{
    uint64_t head[GROUPS_HEAD], *heads = NULL;
    groups_head(u, head);
    if (r->rank == 0 && !(heads = malloc((size_t)r->size * sizeof head))) {
        error_set(err, NULL, 0, "out of memory for the ranks' standard errors");
        abort_job(r, err);
    }
    MPI_Gather(head, GROUPS_HEAD, MPI_UINT64_T, heads, GROUPS_HEAD, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (r->rank != 0) {
        int go = 0;
        if (u->groups > 0)
            MPI_Recv(&go, 1, MPI_INT, 0, TAG_GROUPS_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (go)
            pass_sums(u, 0, true);
        uncertainty_free(u);
        return true;
    }
    bool ok = true;
    for (int i = 1; i < r->size; i++)
        if (heads[(size_t)i * GROUPS_HEAD] > 0)
            ok = receive_groups(u, i, &heads[(size_t)i * GROUPS_HEAD], ok, err);
    free(heads);
    return ok;
}

bool ranks_gather(const ranks *r, checkpoint *ck, const checkpoint *mine, tm_error *err)
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
    bool grouped = gather_groups(r, &ck->unc, ok ? err : &(tm_error){0});
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

bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, bool gpu, ranks_chunk_fn chunk,
                       void *ctx, bool *paused, tm_error *err)
{
    (void)r;
    (void)gpu;
    uint64_t done = 0;
    bool ok = chunk(begin, end - begin, &done, ctx, err);
    *paused = done < end - begin;
    return ok;
}

bool ranks_gather(const ranks *r, checkpoint *ck, const checkpoint *mine, tm_error *err)
{
    (void)r;
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
