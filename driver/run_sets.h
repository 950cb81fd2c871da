/* `tmcml run FILE --mua-sets SETS`: every run of the file simulated once,
 * scoring each absorption set of SETS (runtime/io/mua_sets.h) from the same
 * histories, and written as its own run NAME.setK.mco (with its JSON and,
 * with --npz, its .npz; K from 1, the file's K-th set): docs/outputs.md.
 * Each set is a run as `tmcml run` knows runs: its output lock, its
 * checkpoint (a signal, --checkpoint-every) and partial outputs, --resume.
 * A set's tallies depend on the reference mua its photons are simulated
 * with (each layer's smallest over the sets: mci_run.history), so sets
 * simulated apart - in groups, when the open-file limit cannot hold every
 * set's lock at once (fd_room.h), or resumed from checkpoints of different
 * progress - are simulated with the reference of all the sets scored in
 * front of them, and come out bit for bit as if simulated together. */
#ifndef TMCML_RUN_SETS_H
#define TMCML_RUN_SETS_H

#include <stdbool.h>

#include "driver_options.h"
#include "mci.h"
#include "mua_sets.h"
#include "outputs.h"
#include "run_steps.h"

/* The runs of file replaced by one run a set of each (run i's set k at
 * i * K + k, named NAME.setK.mco, with set k's mua); *sets gets the table
 * (the same for every run: the file's runs must share their layer count).
 * Errors: "SETS:line: what". */
bool run_sets_expand(const driver_options *opt, mci_file *file, mua_sets *sets, tm_error *err);

/* Simulates each run of the original file with the sets and writes its
 * sets' outputs (file and paths: run_sets_expand's).  RUN_OK or
 * RUN_FAILED; a signal ends the command, the sets in progress keeping
 * their checkpoints and partial outputs. */
int run_sets_all(const driver_options *opt, engine *eng, const mci_file *file,
                 const run_paths *paths, const mua_sets *sets);

#endif
