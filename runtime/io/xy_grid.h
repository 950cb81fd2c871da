/* The Cartesian grid of a run (docs/outputs.md, "Cartesian grid"): nx x nx
 * square cells of side dx cm on the surface, centred on the entry point
 * x = y = 0 (x and y in [-nx dx / 2, nx dx / 2)), where the escapes are
 * scored (Rd_xy, Tt_xy), and the same nx cells along x by the run's depth
 * bins where the absorption is, integrated over y (A_xz).  Its text forms:
 * "DX:NX" (--xy), and the line that records it in an .mco's header and a
 * checkpoint's input. */
#ifndef TMCML_XY_GRID_H
#define TMCML_XY_GRID_H

#include <stdbool.h>

#include "error.h"
#include "textbuf.h"

/* "DX:NX" (--xy): the cell side in cm (by the rule of every number,
 * base/number_parse.h) and the cell count along x and y, a whole number;
 * checked by xy_grid_check.  False with *err naming the option and the
 * value at fault. */
bool xy_grid_parse(const char *text, double *dx, int *nx, tm_error *err);

/* dx a finite number of cm, at least MCI_MIN_STEP (as dr and dz), nx 1 to
 * TM_MAX_XY_CELLS; with nz > 0, A_xz's nx x nz entries within MCI_MAX_BINS.
 * what names the caller's option or function in the message. */
bool xy_grid_check(const char *what, double dx, int nx, int nz, tm_error *err);

/* The line that records a grid (run_options_describe): "PREFIXCartesian
 * grid: NX x NX cells of DX cm centred on the entry point", DX as it reads
 * back exactly. */
void xy_grid_describe(double dx, int nx, const char *prefix, textbuf *t);

/* That line (after its prefix) read back into *dx and *nx; false for any
 * other line. */
bool xy_grid_parse_line(const char *line, double *dx, int *nx);

#endif
