/* NAME.npz: a run's arrays for NumPy (`tmcml run --npz`), beside its .mco.
 * NumPy's format: a zip of stored .npy members (runtime/io/zip.c), read by
 * numpy.load.  One member per row of the output table (runtime/io/
 * output_arrays.c), named as the row ("A_rz"), shaped from the grid
 * (A_rz: (nr, nz)), float64 little-endian in C order: the run's normalised
 * quantities, the library's arrays value for value (the .mco prints them
 * with 5 digits); the RAT scalars Rsp, Rd, A, Tt; the grid: dr, dz, da and
 * the bin centres r, z (cm) and a (rad); and units, a (K, 2) array of
 * strings, [name, unit] for every member ("-": dimensionless), so
 * dict(npz["units"]) maps each name to its unit. */
#ifndef TMCML_NPZ_H
#define TMCML_NPZ_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "result.h"

/* Writes path atomically (fs_write_atomic), a device or FIFO through. */
bool npz_write(const char *path, const mci_run *run, const mcml_result *res, tm_error *err);

/* Any arrays as an .npz (`tmcml lut`'s table): one member per entry, named
 * as it (without .npy), and units as above.  An entry is float64 values,
 * or uint64 counts (exact where a float64 would round: seeds, photons), or
 * one text (a 0-d '<UW' string), shaped by rank dims (rank 0 to
 * NPZ_MAX_RANK; a text has rank 0); unit "-" for none. */
/* The output table's arrays have up to 4 axes (Rd_rt_jacobian: r, t,
 * layer, parameter); 3 here wrote a rank-4 member's last dimension past
 * dims, and --jacobian --time crashed writing its .npz. */
#define NPZ_MAX_RANK 4
typedef enum npz_kind { NPZ_FLOAT64, NPZ_UINT64, NPZ_TEXT } npz_kind;
typedef struct npz_array {
    const char *name;
    int rank;
    uint64_t dims[NPZ_MAX_RANK];
    const double *values; /* NPZ_FLOAT64 */
    const char *unit;
    npz_kind kind;
    const uint64_t *counts; /* NPZ_UINT64 */
    const char *text;       /* NPZ_TEXT */
} npz_array;

bool npz_write_arrays(const char *path, const npz_array *arrays, int count, tm_error *err);

/* An upper bound of the file's size for run's grid (the disk check). */
uint64_t npz_size_bound(const mci_run *run);

#endif
