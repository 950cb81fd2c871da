/* The standard errors of an .mco's arrays, read from the .npz that
 * `tmcml run --stderr` writes beside it (NAME.mco, NAME.npz; docs/outputs.md,
 * "Standard errors: --stderr"): each array's NAME_stderr member.
 *
 * The .mco holds no errors and names no .npz, so the .npz is checked to be
 * the .mco's: every array the .mco holds is in it with the .mco's shape,
 * and each of its values prints as the .mco printed it (the row's format,
 * "%12.4E": 5 significant digits).  An .npz of another run (another seed,
 * photon count or input) left beside a newer .mco is refused so, and its
 * errors are never shown as the .mco's. */
#ifndef TMCML_MCO_STDERR_H
#define TMCML_MCO_STDERR_H

#include "mco.h"
#include "npz_reader.h"
#include "output_arrays.h"

/* The errors of m's arrays from the .npz at npz_path (mco_name, the .mco's
 * file name, for the messages):
 *   NPZ_FOUND: errors[row] malloc'd for each array of m that has an error
 *     member (at least one; the others NULL), laid out as
 *     m->result.array[row] (output_stored entries; a layer array's media
 *     above and below NaN); each entry is >= 0, or NaN where the run had
 *     fewer than two groups;
 *   NPZ_ABSENT: no file at npz_path, or no error member of any of m's
 *     arrays (a run without --stderr): every errors[row] NULL;
 *   NPZ_BAD: *err (naming npz_path): unreadable, malformed, an error that
 *     is negative or infinite, or not the .mco's; every errors[row] NULL. */
npz_found mco_stderr_read(const char *npz_path, const mco_data *m, const char *mco_name,
                          double *errors[OUTPUT_ARRAYS], tm_error *err);

/* Frees what mco_stderr_read allocated; every errors[row] NULL after. */
void mco_stderr_free(double *errors[OUTPUT_ARRAYS]);

#endif
