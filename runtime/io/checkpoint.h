/* Checkpoints: the exact state of a run part-way, so that it can be resumed
 * and end bit-identical to an uninterrupted run (DESIGN.md section 9).
 *
 * What a run has done is its integer tallies and the photon ranges they
 * hold; photon i always draws from stream (seed, i) and tallies are integer
 * sums, so the photons left can be simulated later, anywhere, and added.
 * The file also holds what must not change between the two halves: the
 * seed, the run's input (as canonical text) and the physics code (engine and
 * a hash of its source), each compared on resume with a message that names
 * what differs.
 *
 * Format (little-endian, version 1): "TMCMLCKP", u32 version, u32 run
 * number, u64 seed, u64 photons of the run, u32 + bytes input text, u32 +
 * bytes physics text, i32 nr nz na, u64 photons done, u128 steps, u64
 * trapped photons, u128 trapped units, u32 range count + (u64 begin, u64 end)
 * each, then A_rz, Rd_ra, Tt_ra as u128, and a u64 FNV-1a of every byte
 * before it, which catches truncation and corruption.  Written atomically
 * (fs_write_atomic): a crash, kill -9 or a second signal leaves the old file
 * or the new one. */
#ifndef TMCML_CHECKPOINT_H
#define TMCML_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "tally.h"

#define CHECKPOINT_MAX_RANGES 1024

typedef struct photon_range {
    uint64_t begin, end; /* [begin, end) */
} photon_range;

typedef struct checkpoint {
    int run_number; /* 1-based, within the .mci */
    uint64_t seed;
    uint64_t photons; /* of the whole run */
    char *input;      /* checkpoint_input_text (malloc'd) */
    char *physics;    /* engine and code identity (malloc'd) */
    int range_count;  /* sorted, disjoint, within [0, photons) */
    photon_range ranges[CHECKPOINT_MAX_RANGES];
    tally_set tallies; /* of exactly the photons in the ranges */
} checkpoint;

/* The run as canonical text, one line per item ("grid ...", "layer i: n mua
 * mus g d", "absorption ...", "max_steps ..."): what the tallies depend on.
 * malloc'd, or NULL when out of memory. */
char *checkpoint_input_text(const mci_run *run, bool score_absorption, uint32_t max_steps);

/* Photons in the ranges. */
uint64_t checkpoint_done(const checkpoint *c);

bool checkpoint_write(const char *path, const checkpoint *c, tm_error *err);

/* Reads and checks a checkpoint (magic, version, sizes, ranges, checksum);
 * on failure *c is empty and err names the file and the problem. */
bool checkpoint_read(const char *path, checkpoint *c, tm_error *err);

/* Whether c can continue this run: the same run number, seed, photons,
 * input and physics; else err names the first difference. */
bool checkpoint_matches(const checkpoint *c, const char *path, int run_number, uint64_t seed,
                        uint64_t photons, const char *input, const char *physics, tm_error *err);

void checkpoint_free(checkpoint *c);

#endif
