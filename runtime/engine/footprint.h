/* What a run will take, in bytes, computed before anything is allocated:
 * the arrays each engine allocates for the run's grid (the element sizes of
 * tally.h's and result.h's arrays times the bins) and an upper bound of the
 * files it writes.  driver/resources.c compares them with the machine.
 *
 * When the arrays live (driver/run.c, cpu.c, gpu.c): the run's
 * tally_set for the whole run; during the simulation one tally_batch per CPU
 * thread (the GPU engine: one host batch per launch to download into), freed
 * when the engine returns; then the result's double arrays and the JSON
 * text.  The .mco is streamed through stdio: no text buffer.  The peak is
 * therefore tallies + max(engine batches, result + JSON text). */
#ifndef TMCML_FOOTPRINT_H
#define TMCML_FOOTPRINT_H

#include <stdint.h>

#include "mci.h"

typedef struct run_footprint {
    uint64_t batch;   /* one tally_batch (64-bit entries): per CPU thread, or the GPU's host copy */
    uint64_t tallies; /* the run's tally_set (128-bit entries) */
    uint64_t result;  /* the double arrays of the mcml_result */
    uint64_t json_text; /* the JSON summary text built in memory (upper bound) */
    uint64_t device;    /* the GPU engine's device tallies and counters */
    uint64_t mco_file;  /* the .mco (upper bound) */
    uint64_t json_file; /* the JSON summary (upper bound) */
    uint64_t npz_file;  /* the .npz of --npz (upper bound) */
} run_footprint;

/* The footprint of run, read from input_path (the JSON echoes the path). */
void footprint_of_run(const mci_run *run, const char *input_path, run_footprint *fp);

/* Host bytes at the peak of the run: the tallies, and the larger of the
 * engine's batches (threads of them for the CPU engine, one for the GPU
 * engine: threads == 0) and the result with its JSON text. */
uint64_t footprint_host_peak(const run_footprint *fp, int threads);

/* Host bytes of the tallies while the engine runs: the tally_set and
 * threads batches (threads == 0: the GPU engine's one). */
uint64_t footprint_host_tallies(const run_footprint *fp, int threads);

/* The upper bound of the .mco's size alone (footprint_of_run's mco_file),
 * from the number formats of runtime/io/mco.c. */
uint64_t footprint_mco_bound(const mci_run *run);

#endif
