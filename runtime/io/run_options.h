/* What a run asks for besides MCML's arrays (the optional groups of
 * output_table: path lengths, time bins, the fiber detector), as the rooms
 * that loop over the table need it: which rows a run has, the grid of its
 * optional axes, and the text that records the request (the .mco's header
 * comment, the checkpoint's input). */
#ifndef TMCML_RUN_OPTIONS_H
#define TMCML_RUN_OPTIONS_H

#include <stdbool.h>

#include "mci.h"
#include "output_arrays.h"
#include "tally.h"
#include "textbuf.h"

/* Whether run asks for option's arrays (OUTPUT_OPTION_NONE: always). */
bool run_options_has(const mci_run *run, output_option option);

/* Whether run has row o: every run's, or of a group it asks for (of two,
 * the derivatives of the time bins, both). */
bool run_options_wants(const mci_run *run, const output_array *o);

/* The grid run's arrays are sized by, its optional axes too. */
output_grid run_options_grid(const mci_run *run);

/* The lengths of the optional axes run asks for (tally_set_add_options):
 * the layers with path lengths, the time bins, the detectors; 0 for a
 * group it does not ask for. */
output_grid run_options_lengths(const mci_run *run);

/* Gives t (a run's tallies) the optional tallies of every group run asks
 * for, zero, where it has none yet: so that tally sets made for one run
 * have the same arrays whether or not an engine has added to them yet (the
 * MPI ranks reduce them array by array, and a rank may simulate none of
 * the run's photons).  False when out of memory. */
bool run_options_add_tallies(const mci_run *run, tally_set *t);

/* Whether run asks for the time bins or the detector, which the step loop
 * of the absorption sets scores (as the path lengths). */
bool run_options_tracks_time(const mci_run *run);

/* One line a request of the time bins, each detector, the derivatives,
 * the spatial frequencies and the modulation frequencies ("time bins ...",
 * "fiber detector ...", "spatial frequencies: N in 1/cm: fx...",
 * "modulation frequencies: N in Hz: f..." on one line, each value as it
 * reads back exactly), added to t; nothing for a run without them, so that its texts
 * are as before they existed.  prefix starts each line ("# " in an .mco). */
void run_options_describe(const mci_run *run, const char *prefix, textbuf *t);

/* Reads back a line run_options_describe wrote (after its prefix) into
 * run's fields (a detector's appended to its detectors, the frequencies
 * of either list into a copy run owns); false for any other line, and for a detector
 * beyond TM_MAX_DETECTORS. */
bool run_options_parse_line(const char *line, mci_run *run);

#endif
