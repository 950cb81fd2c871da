/* Several processes (`mpirun -np R tmcml run FILE.mci ...`): the ranks share
 * each run's photons and rank 0 writes the outputs, bit-identical to one
 * process (DESIGN.md section 9).  Rank 0 holds a photon counter in an MPI
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

/* Simulates photons [begin, end) of a run across the ranks: chunk(first,
 * count, ctx, err) adds photons [first, first + count) to *acc; then every
 * rank's *acc is added into rank 0's (the others' are left as they were).
 * A rank that fails ends the whole job (MPI_Abort) after printing why. */
typedef bool (*ranks_chunk_fn)(uint64_t first, uint64_t count, void *ctx, tm_error *err);
bool ranks_share_range(const ranks *r, uint64_t begin, uint64_t end, ranks_chunk_fn chunk,
                       void *ctx, tally_set *acc, tm_error *err);

/* The photons per chunk for a range shared by `size` ranks: 1/64 of a
 * rank's share (so faster ranks take more), at least 4096 (the dispatch is
 * a round trip to rank 0). */
uint64_t ranks_chunk_photons(uint64_t photons, int size);

#endif
