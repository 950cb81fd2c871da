/* A PNG heat map of one value over a grid of two parameters (for `tmcml
 * sweep`: photons/s over the tile shapes NR x NZ, like GPU-MCML's Fig. 5):
 * one coloured rectangle per (x, y) pair, axis tick labels and titles, a
 * title, a vertical colour bar, unmeasured cells hatched grey and one cell
 * (the best) outlined.  Written atomically (temp file + rename). */
#ifndef TMCML_HEATMAP_H
#define TMCML_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"
#include "colour.h"
#include "error.h"

typedef struct heatmap {
    int nx, ny;          /* columns (x axis) and rows (y axis), 1..HEATMAP_MAX_CELLS */
    const double *x, *y; /* axis values of the columns / rows (e.g. tile NZ and NR) */
    const double *value; /* ny*nx, value[iy*nx + ix]; NaN (or inf) = not measured */
    const char *title, *x_label, *y_label, *value_label; /* may be NULL */
    int mark_ix, mark_iy; /* a cell to outline (the best); -1 in either: none */
} heatmap;

/* More columns (rows) than this could not get a pixel each. */
#define HEATMAP_MAX_CELLS 1000

/* Writes h to path as an 8-bit RGB PNG.  Column 0 is at the left, row 0 at
 * the bottom.  Colours run from the smallest finite value (the colour map's
 * bottom) to the largest (its top); when all finite values are equal they
 * all get the colour map's middle.  Fails, writing nothing, on invalid
 * arguments (nx or ny out of range, NULL arrays or path, a mark outside the
 * grid) or when the file cannot be written (err->file is then path). */
bool heatmap_write_png(const char *path, const heatmap *h, tm_error *err);

/* Where things are, in pixels from the image's top-left corner; what
 * heatmap_write_png draws, exposed for tests. */
typedef canvas_box heatmap_box;

typedef struct heatmap_layout {
    int width, height;            /* the image */
    int cell_w, cell_h;           /* cell (ix, iy) spans plot.x + ix*cell_w,
                              plot.y + (ny-1-iy)*cell_h, cell_w x cell_h */
    heatmap_box plot;             /* the cells, nx*cell_w x ny*cell_h */
    heatmap_box title;            /* above the plot */
    heatmap_box x_ticks, y_ticks; /* tick labels under / left of the plot */
    heatmap_box x_title, y_title; /* axis titles (the y title reads bottom to top) */
    heatmap_box bar;              /* the colour bar: top = largest value */
    heatmap_box bar_ticks;        /* its value labels, right of it */
    heatmap_box bar_title;        /* value_label, right of those, reading bottom to top */
    heatmap_box note;             /* bottom line: the outlined cell and what hatching means */
} heatmap_layout;

/* The layout heatmap_write_png uses for h.  Size rule, per axis of n cells:
 * a cell is B / n pixels (B: the smaller of HEATMAP_PLOT_MAX and
 * HEATMAP_SIDE_MAX less the room labels, titles and colour bar take), at
 * most HEATMAP_CELL_MAX, and raised so that the n cells span at least
 * HEATMAP_PLOT_MIN.  So a 10 x 12 grid gets 56 px cells, 64 x 64 gets 18 px,
 * and no side of the image exceeds HEATMAP_SIDE_MAX (long titles are clipped
 * there).  Tick labels are thinned to every k-th column (row) when they
 * would not fit each cell. */
#define HEATMAP_PLOT_MAX 1200
#define HEATMAP_PLOT_MIN 160
#define HEATMAP_CELL_MAX 56
#define HEATMAP_SIDE_MAX 1600
bool heatmap_layout_of(const heatmap *h, heatmap_layout *layout, tm_error *err);

/* The figures' colour map (colour_map in runtime/figure/colour.h) at t in
 * [0, 1] (clamped): dark purple through blue, teal and green to yellow,
 * luminance rising monotonically.  NaN gives the unmeasured grey. */
void heatmap_colour(double t, unsigned char rgb[3]);

/* v compactly in at most digits (1..17) significant digits, as the labels
 * write it (label_format_number in runtime/figure/label.h): "16", "0.25",
 * "1.23e9", "-4.5e-5"; integers below a million in full. */
void heatmap_format_number(double v, int digits, char *buf, size_t size);

extern const unsigned char heatmap_background_rgb[3]; /* white */
#define heatmap_nan_rgb colour_no_data_rgb            /* unmeasured cells */
extern const unsigned char heatmap_hatch_rgb[3];      /* their diagonal hatch */
extern const unsigned char heatmap_mark_dark_rgb[3];  /* the marked cell's outline: rings */
extern const unsigned char heatmap_mark_light_rgb[3]; /* 1 dark, 2 light, 1 dark px outside it */

#endif
