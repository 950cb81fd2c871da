/* Several processes (`mpirun -np R tmcml run FILE.mci ...`): the ranks share
 * each run's photons and rank 0 writes the outputs, bit-identical to one
 * process, standard errors included (docs/scale.md).  Every rank cuts a
 * range into the same chunks, rank 0 holds a counter of them in an MPI
 * window; every rank takes chunks from it with an atomic fetch-and-add
 * (MPI_Fetch_and_op), simulates them with its own engine, and the integer
 * tallies are summed exactly into rank 0's (a 128-bit reduction).
 *
 * Built in when CMake finds MPI (-DTMCML_MPI=ON|OFF|AUTO); MPI is started
 * only when the process was launched by mpirun or srun, so the same binary
 * runs alone without it.  Without MPI every function is the one-process
 * case. */
#ifndef TMCML_RANKS_H
#define TMCML_RANKS_H

#include <stdbool.h>
#include <stdint.h>

#include "checkpoint.h"
#include "error.h"
#include "tally.h"

typedef struct ranks {
    int rank, size; /* 0 and 1 alone */
    bool started;   /* MPI_Init was called */
} ranks;

/* Starts MPI when launched by mpirun/srun. */
bool ranks_start(int *argc, char ***argv, ranks *r, tm_error *err);
void ranks_end(ranks *r);

/* Every rank's ok, ANDed (a collective: all ranks call it). */
bool ranks_all_ok(const ranks *r, bool ok);

/* Every rank's flag, ORed; the largest of every rank's v (collectives). */
bool ranks_any(const ranks *r, bool mine);
int ranks_max(const ranks *r, int v);

/* Whether every rank has the same text as rank 0 (a collective). */
bool ranks_same_text(const ranks *r, const char *text);

/* Simulates photons [begin, end) of a run across the ranks: each rank takes
 * chunks and calls chunk(first, count, &done, ctx, err), which simulates
 * `done` photons of [first, first + count) and records which (the ranges
 * are the caller's to gather: ranks_gather); done < count when a pause
 * stopped it, and the rank then takes no more chunks (*paused) and closes
 * the counter, so that the other ranks pause at their next chunk.  gpu: the
 * rank runs the GPU engine (ranks_chunk_photons).  A rank that fails ends
 * the whole job (MPI_Abort) after printing why. */
typedef bool (*ranks_chunk_fn)(uint64_t first, uint64_t count, uint64_t *done, void *ctx,
                               tm_error *err);
/* With --stderr, where a chunk may end: next(ctx, x) is the first bound
 * of a group (of a run's 64: driver/session_groups.h) after index x, or
 * any index from the range's end on.  A chunk is then whole groups, up to
 * the usual chunk; a group more than a chunk is cut in equal pieces, no
 * more of them than RANKS_HELD_PIECES for each rank.  Each rank holds the
 * tallies of its groups and pieces until they are gathered (ranks_gather):
 * this bounds what it holds, at some cost in balance with many ranks. */
typedef struct ranks_cuts {
    uint64_t (*next)(void *ctx, uint64_t x);
    void *ctx;
} ranks_cuts;
#define RANKS_HELD_PIECES 16
/* cuts may be NULL: chunks end anywhere. */
bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, bool gpu,
                       const ranks_cuts *cuts, ranks_chunk_fn chunk, void *ctx, bool *paused,
                       tm_error *err);

/* Every rank's tallies added into rank 0's, and every rank's photon ranges
 * into rank 0's ck (the others' are left as they were).  With --stderr,
 * every rank's groups kept (ck->unc: the others hold all theirs) are added
 * to rank 0's, group by group in the order of their index, the pieces of a
 * group summed exactly, and each group folded there once it is whole and
 * next (uncertainty_add_piece); the others' are dropped, so that a later
 * gather adds none twice.  So the errors are one process's, bit for bit,
 * whatever rank simulated which photons; a group whose photons are not
 * all done (a pause) stays kept on rank 0, in its checkpoint. */
bool ranks_gather(const ranks *r, const mci_run *run, checkpoint *ck, const checkpoint *mine,
                  tm_error *err);

/* Rank 0's photon ranges to every rank (a resumed run's gaps). */
void ranks_share_ranges(const ranks *r, checkpoint *ck);

/* Ends MPI (every rank calls it), then the process as interrupt_exit would;
 * rank 0 says why (kept). */
_Noreturn void ranks_exit(const ranks *r, int sig, const char *kept);

/* The photons per chunk for a range shared by `size` ranks: 1/64 of a
 * rank's share (so faster ranks take more), at least 4096 (the dispatch is
 * a round trip to rank 0); a GPU rank's, half its share (each launch ends
 * with a tail: docs/scale.md). */
uint64_t ranks_chunk_photons(uint64_t photons, int size, bool gpu);

#endif
