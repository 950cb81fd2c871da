/* `tmcml lut`'s files (docs/lut.md): OUT.npz, the arrays for NumPy
 * (mua, musp, Rd, Rd_r, r and the parameters; with errors Rd_stderr,
 * Rd_r_stderr, point_photons, reached; with spatial frequencies fx, Rd_fx
 * and with errors Rd_fx_stderr), and OUT.csv, the column names, the
 * parameters as `#` lines, then one line a point, mus' major (with errors
 * its Rd_stderr, photons and Rd_r_I_stderr after its values, then with
 * frequencies its Rd_fx_K and with errors Rd_fx_K_stderr: the columns of
 * a table without them keep their places); numbers as the shortest text
 * that reads back as the same double. */
#ifndef TMCML_LUT_WRITE_H
#define TMCML_LUT_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "tmcml.h"

/* A table as the library made it (tmcml_lut) and what it was made of. */
typedef struct lut_values {
    const tmcml_lut_spec *spec; /* d: LUT_SEMI_INFINITE_D (driver/lut_table.h) for inf */
    int64_t photons;            /* a point's */
    uint64_t seed;
    const double *rd, *rd_r;        /* [musp][mua], [musp][mua][nr] */
    const tmcml_lut_info *info;     /* the strategy and engine used, Rsp */
    const tmcml_lut_errors *errors; /* with its outs filled; NULL: none asked */
    /* the spatial frequencies and their outs (rd_fx_stderr with errors);
     * NULL: none asked */
    const tmcml_lut_frequencies *fx;
} lut_values;

/* Each written atomically (fs_write_atomic); false with *err. */
bool lut_write_csv(const char *path, const lut_values *v, tm_error *err);
bool lut_write_npz(const char *path, const lut_values *v, tm_error *err);

#endif
