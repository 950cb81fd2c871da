/* `tmcml run` with batches (docs/batches.md): the runs of a file that
 * share a kernel shape (layer count, grid) are simulated together, in as few
 * launches as the GPU's shared memory and a host-memory bound allow, the
 * longest-lived runs first.  Every run keeps its own checkpoint, partial
 * outputs and final outputs, and its .mco is bit-identical to the run's
 * alone (--no-batch).  Under MPI the ranks share each batch's photons, as
 * they share a run's, and rank 0 writes. */
#ifndef TMCML_RUN_BATCH_H
#define TMCML_RUN_BATCH_H

#include <stdbool.h>

#include "mci.h"
#include "outputs.h"
#include "ranks.h"
#include "run_steps.h"

/* The photons from which a run is simulated alone on the GPUs of world
 * (batch_alone_photons; the same on every rank), or 0 for none: the CPU
 * engine, --batch-all, or --precision (its runs batched). */
uint64_t run_batch_alone_photons(const driver_options *opt, const ranks *world, const engine *eng);

/* group[i]: the first run of run i's shape in the file (runs of equal
 * group are batched together), or -1 for a run simulated alone: a stack of
 * glass alone (which no batch kernel runs), or a run of alone_photons
 * photons or more (when alone_photons > 0).  Returns how many runs were
 * left out of a batch for their photons alone. */
int run_batch_groups(const mci_file *file, uint64_t alone_photons, int *group);

/* What the batches of a file did, for the closing line. */
typedef struct run_batch_totals {
    int batches; /* engine calls that simulated several runs together */
    int runs;    /* runs in them */
    uint64_t launches;
} run_batch_totals;

/* Simulates runs[0 .. n-1] of file (one shape, n >= 2) as batches and writes
 * each run's outputs (rank 0 of world; paths is NULL on the other ranks); a
 * run whose outputs are complete (--resume) is skipped.  The runs are
 * opened (locked) as many at once as the descriptors allow (fd_room.h).  A signal stops every run of the batch with its checkpoint and
 * partial outputs, and exits.  *failed: the runs that failed, each said on
 * stderr.  False with *err when the batches could not even start (a
 * checkpoint refused, the GPUs' variants): every run failed. */
bool run_batches(const driver_options *opt, const ranks *world, engine *eng, const mci_file *file,
                 const int *runs, int n, const run_paths *paths, run_batch_totals *totals,
                 int *failed, tm_error *err);

#endif
