/* The tuner's candidate space: launch configurations within the device's
 * limits and A_rz tile shapes within the shared memory a block may use at a
 * given residency, ranked by the deposit events of a pilot run (the
 * automatic high-fluence region).  Pure arithmetic: no GPU, no files. */
#ifndef TMCML_CANDIDATES_H
#define TMCML_CANDIDATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "spec.h"

/* What the candidate space needs of a GPU (tuner/runner.h's tune_device
 * has all of it). */
typedef struct candidate_limits {
    size_t shared_per_sm;          /* bytes an SM's blocks share */
    size_t shared_per_block_optin; /* the most one block may opt in to */
    int max_threads_per_sm;
    int regs_per_sm;
} candidate_limits;

/* Shared memory the driver reserves per resident block (Hopper, Ampere). */
#define CANDIDATE_RESERVED_SHARED 1024

/* Bytes of dynamic shared memory one block may use when `residency` blocks
 * share an SM (0 when they cannot). */
size_t candidates_shared_budget(const candidate_limits *lim, int residency);

/* Deposit events per A_rz bin from the pilot (spec.count_deposits), with a
 * 2-D prefix sum so that any tile's capture is one lookup. */
typedef struct fluence_map {
    int nr, nz;
    uint64_t *prefix; /* (nr+1) x (nz+1): events in [0,ir) x [0,iz), edges excluded */
    uint64_t total;   /* all events, edges included */
    uint64_t edges;   /* events in the last row and column (always cached) */
} fluence_map;

/* events: nr*nz counts, row-major [ir][iz].  False when out of memory. */
bool fluence_map_init(fluence_map *m, int nr, int nz, const uint64_t *events);
void fluence_map_free(fluence_map *m);

/* Events a tile of tile_nr x tile_nz bins at the origin captures, besides
 * the edge bins (which every variant caches). */
uint64_t fluence_map_captured(const fluence_map *m, int tile_nr, int tile_nz);

/* A tile shape and what it captures. */
typedef struct tile_shape {
    int nr, nz;
    uint64_t captured;
} tile_shape;

/* The tile shapes with at most max_entries bins, most captured events
 * first, at most max_out of them: for every row count NR the widest NZ that
 * fits (wider never captures less), shapes that capture no more than a
 * smaller one dropped.  Ties go to the smaller tile.  Returns the count. */
int candidates_tile_shapes(const fluence_map *m, size_t max_entries, int max_out, tile_shape *out);

/* Tile entries that fit in `bytes` of dynamic shared memory for a problem
 * of nr x nz bins (the last row and column take nr + nz - 1 entries). */
size_t candidates_tile_entries(size_t bytes, int entry_bits, int nr, int nz);

/* Residencies worth trying for a block size: full occupancy and the few
 * below it that leave more registers and shared memory per block
 * (descending, at most max_out).  Returns the count. */
int candidates_residencies(const candidate_limits *lim, int block_size, int max_out, int *out);

#endif
