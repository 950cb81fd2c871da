/* `tmcml lut`'s files (docs/lut.md): OUT.npz, the arrays for NumPy
 * (mua, musp, Rd, Rd_r, r and the parameters), and OUT.csv, the column
 * names, the parameters as `#` lines, then one line a point, mus' major;
 * numbers as the shortest text that reads back as the same double. */
#ifndef TMCML_LUT_WRITE_H
#define TMCML_LUT_WRITE_H

#include <stdbool.h>

#include "error.h"
#include "lut_table.h"

/* Each written atomically (fs_write_atomic); false with *err. */
bool lut_write_csv(const char *path, const lut_spec *spec, const lut_table *t, tm_error *err);
bool lut_write_npz(const char *path, const lut_spec *spec, const lut_table *t, tm_error *err);

#endif
