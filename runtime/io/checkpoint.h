/* Checkpoints: the exact state of a run part-way, so that it can be resumed
 * and end bit-identical to an uninterrupted run (docs/scale.md).
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
 * each, then each tally array (output_table's tallies in its order,
 * runtime/io/output_arrays.h) as u128; version 2 (a run with path lengths,
 * whose input text says so) then u32 layers and the path tallies Rd_path,
 * Tt_path as u128 (not checked for plausibility: a photon may add up to
 * 2^39 units to each); version 3 (time bins or a detector) a mask of the
 * optional tallies present and each one's count and tallies instead;
 * version 4 (a run with the groups of its standard errors, --stderr)
 * version 3's part, then the groups: their count and photons, their grid
 * and the mask of their arrays, the means and sums of squares of Rd, A and
 * Tt and of each array in output_table's order (f64; checkpoint.c,
 * put_groups), refused unless they fit the tallies (no more photons than
 * done, the tallies' grid, the input's layers, their arrays; finite sums,
 * no negative sum of squares), and the tallies of the group a stop cut;
 * version 5 as 4 with the mask of the arrays as u64 (its bits from 32 on:
 * the frequency domain's and the Cartesian grid's arrays), written only
 * where the mask needs them; version 6 as 5 with, instead of the cut
 * group, every group kept (begun and not folded, each its index, first
 * photon, size and tallies so far: an MPI run's ranks end groups out of
 * order), written only where those are not one cut group.  A run without
 * groups writes the bytes of versions 1 to 3 as before.  Then a u64 FNV-1a
 * of every byte
 * before it, which catches truncation and accidental damage (a disk or copy
 * error), not deliberate edits: anyone can recompute it.  Written atomically
 * (fs_write_atomic): a crash, kill -9 or a second signal leaves the old file
 * or the new one.
 *
 * Read back, the tallies must also be ones the photons done could have
 * made (cheap invariants, docs/runs.md): trapped photons <= photons done, a
 * trapped photon's weight <= 1, steps <= done x the input's max_steps, and
 * the tally arrays and the trapped weight together at most
 * done x (2^24 + 2^18 + 2) + 2^20 units.  A photon scores its start weight
 * (<= 1, 2^24 units) plus 9w for each roulette it survives (w < 10^-4, one
 * in ten survive): N photons survive fewer than N/2 + 64 roulettes except
 * with probability below 10^-44, so their gains stay below 4.5 10^-4 N +
 * 0.06 weights; 2^18 units (1/64 weight) a photon cover those gains and the
 * GPU's float32 rounding with room to spare, 2 units its rounding to fixed
 * point.  An entry or sum beyond that (A = 1.4, a wrapped 128-bit value)
 * could only come from an edited or broken file. */
#ifndef TMCML_CHECKPOINT_H
#define TMCML_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "tally.h"
#include "uncertainty.h"

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
    /* The groups of the standard errors (a run that asks for them:
     * uncertainty.h), kept in the file (versions 4 to 6): none where the
     * run has none.  Their photons may be fewer than the tallies' (a run
     * begun without --stderr and resumed with it): then the run has no
     * errors. */
    uncertainty unc;
} checkpoint;

/* The run as canonical text, one line per item ("grid ...", "layer i: n mua
 * mus g d", "absorption ...", "max_steps ...", and the optional requests:
 * path lengths, source, time bins, detector, an absorption set's history):
 * what the tallies depend on.
 * malloc'd, or NULL when out of memory. */
char *checkpoint_input_text(const mci_run *run, bool score_absorption, uint32_t max_steps);

/* Photons in the ranges. */
uint64_t checkpoint_done(const checkpoint *c);

bool checkpoint_write(const char *path, const checkpoint *c, tm_error *err);

/* Reads and checks a checkpoint (magic, version, sizes, ranges, checksum,
 * the tallies' invariants);
 * on failure *c is empty and err names the file and the problem. */
bool checkpoint_read(const char *path, checkpoint *c, tm_error *err);

/* Whether c can continue this run: the same run number, seed, photons,
 * input and physics; else err names the first difference. */
bool checkpoint_matches(const checkpoint *c, const char *path, int run_number, uint64_t seed,
                        uint64_t photons, const char *input, const char *physics, tm_error *err);

void checkpoint_free(checkpoint *c);

#endif
