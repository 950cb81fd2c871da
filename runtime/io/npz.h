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

/* An upper bound of the file's size for run's grid (the disk check). */
uint64_t npz_size_bound(const mci_run *run);

#endif
