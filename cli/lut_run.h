/* `tmcml lut`'s table, made by the library (api/lut.h, tmcml_lut) and
 * written as OUT.csv and OUT.npz: the command is its front end (docs/lut.md,
 * "Stops and --resume").  The library simulates the table and keeps it in
 * OUT.lut.ckpt; the command turns a stop signal (base/interrupt.h) into
 * the library's cancel through the progress callback (the call in flight
 * stopped within LUT_STOP_POLL_SECONDS and discarded), prints a line after
 * each simulation, the messages of a resume, a stop and a failure, and
 * writes its files while the checkpoint is still there, so that a table
 * whose files cannot be written is kept whole for --resume. */
#ifndef TMCML_LUT_RUN_H
#define TMCML_LUT_RUN_H

#include <stdbool.h>

#include "tm_limits.h"
#include "tmcml.h"

/* How often the library asks the progress callback whether to stop. */
#define LUT_STOP_POLL_SECONDS 0.05

/* What the command asks of the library (lut_command.c parses it). */
typedef struct lut_request {
    tmcml_lut_spec spec; /* d: LUT_SEMI_INFINITE_D (driver/lut_table.h) for inf */
    tmcml_options opt;   /* photons, seed, engine, gpu, threads */
    tmcml_checkpoint ck; /* OUT.lut.ckpt, --checkpoint-every, --resume */
    /* --stderr, --precision P [--precision-of Q] [--max-photons N]: the
     * table's errors (the outs are lut_run's); errors_asked false: none. */
    tmcml_lut_errors errors;
    bool errors_asked;
    /* --spatial-frequencies LIST: fx_count frequencies [1/cm] (0: none),
     * each point's Rd_fx */
    double fx[TM_MAX_SPATIAL_FREQUENCIES];
    int fx_count;
    const char *csv, *npz;
    bool quiet;    /* no report */
    bool progress; /* a line on stderr after each simulation */
} lut_request;

/* The table simulated and written.  Returns the exit status: 0 written; 1
 * a simulation or a write failed (the simulations done kept in the
 * checkpoint, said on stderr), or points of a precision stopped at their
 * most photons short of it (the files written, the points said); 2 refused before anything was simulated (a
 * value, the outputs, a checkpoint in the way, of another table or
 * damaged).  A stop signal exits the process, 128 + the signal, saying
 * what the checkpoint keeps. */
int lut_run(tmcml_session *s, const lut_request *req);

#endif
