/* The rules a lookup table's parameters obey (docs/lut.md), one rule for
 * both front ends: `tmcml lut` names each value by its option ("--g 1:
 * expected -1 to below 1 ..."), the library by its field of
 * tmcml_lut_spec ("g 1: ...").  Checked before any point is simulated;
 * each point's values are then checked as any problem's (the .mci rules). */
#ifndef TMCML_LUT_CHECK_H
#define TMCML_LUT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "lut_table.h"

/* How a front end names the values in its messages. */
typedef struct lut_names {
    const char *n, *n_above, *n_below, *g, *d, *dr;
    const char *nr;    /* in the size message's advice: "make ... or NR smaller" */
    const char *table; /* the size message's opening ("lut: ") */
    const char *fx;    /* the spatial frequencies, in the size message's advice */
} lut_names;

/* n, n_above and n_below refractive indices the .mci accepts, dr a ring
 * width of at least MCI_MIN_STEP, g from -1 to below 1 (mus = mus' /
 * (1 - g)), d above 0 (+inf: semi-infinite); false with *err naming the
 * first that is not. */
bool lut_check_layer(const lut_spec *spec, const lut_names *names, tm_error *err);

/* The values of an axis (mua or mus'): each 0 or a coefficient the .mci
 * accepts, strictly increasing (so that the table can be interpolated).
 * -1 when they are; else the index of the first that is not, and why. */
int lut_check_axis(const double *values, int count, char *why, size_t size);

/* The table's Rd_r, m x k x nr values, within what one output array may
 * hold (MCI_MAX_BINS: 1 GiB of doubles), checked before any memory is
 * asked for. */
bool lut_check_size(int m, int k, int nr, const lut_names *names, tm_error *err);

/* The table's Rd_fx, m x k x count values at count spatial frequencies,
 * within what one output array may hold, as Rd_r. */
bool lut_check_fx_size(int m, int k, int count, const lut_names *names, tm_error *err);

/* Whether a table's count spatial frequencies are the CPU engine's alone
 * under the strategy asked (why into why, naming no option: "with the
 * sets strategy (...)"): the GPU scores them in a point's own kernel
 * (templates/fx.cu), up to TM_MAX_GPU_SPATIAL_FREQUENCIES, and its
 * absorption sets' kernel scores none.  Strategy auto is then runs. */
bool lut_fx_cpu_only(int count, lut_strategy asked, char *why, size_t size);

#endif
