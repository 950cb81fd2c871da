/* The resource policy of `tmcml run`, applied to every run of the input
 * before anything is allocated or simulated: each run's estimate
 * (runtime/engine/footprint.h) against what the machine offers
 * (machine.h).
 *
 * - Host memory, per run (runs are simulated one after another): the CPU
 *   engine uses as many of the threads asked for as fit (each has its own
 *   tally batch); fewer are reported on `notes`.  A run that does not fit
 *   even with one thread (or, on the GPU engine, with its one host batch),
 *   or whose results do not fit beside its tallies, is refused.
 * - GPU memory, per run: the device tallies must fit.
 * - Disk: the outputs of all runs add up; those that go to one file system
 *   must fit in its free space.
 * A refusal names the input file, the run (file:line), the estimate and the
 * figure it was compared with. */
#ifndef TMCML_RESOURCES_H
#define TMCML_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "mci.h"

typedef struct resource_request {
    const mci_file *file;
    const char *const *mco_paths; /* each run's .mco; its JSON goes beside it */
    bool npz;                     /* and its .npz (--npz) */
    int threads;                  /* CPU engine: the threads asked for (>= 1); 0: GPU engine */
    int gpu_index;                /* GPU engine: the device, */
    uint64_t gpu_free;            /* and its free memory */
    FILE *notes;                  /* where fewer threads are reported; NULL: nowhere */
} resource_request;

/* threads[i]: the CPU threads run i may use (req->threads, or fewer; 0 for
 * the GPU engine).  False with *err when a run or the outputs do not fit,
 * or a TMCML_*_LIMIT variable is malformed. */
bool resources_check(const resource_request *req, int *threads, tm_error *err);

#endif
