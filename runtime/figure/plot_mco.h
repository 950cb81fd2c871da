/* `tmcml plot`'s figure of an MCML .mco (MCML's own or tmcml's): three
 * panels in one PNG.
 *   1. the fluence in r-z: A_rz / mu_a of each bin's layer [J cm^-2 per J
 *      incident], on a log colour scale, mirrored about r = 0 (r from -R to
 *      R across, z downwards), layer interfaces dashed, with a colour bar.
 *      Where a layer in view has mu_a = 0 the map shows A_rz itself
 *      [cm^-3] and the title says why; where A_rz is all zero (-A) there is
 *      no map and the title says so.  Bins <= 0 are drawn in
 *      colour_no_data_rgb.
 *   2. R_d(r) [cm^-2] on a log axis;  3. A(z) [cm^-1] on a log axis, layer
 *      interfaces dashed.  A result with standard errors (result.h: the
 *      library's, never an .mco's) has a band of +-1 standard error
 *      around each curve, and the note says so.
 * MCML counts everything beyond the grid in the last r bin (and the last z
 * bin when the grid ends inside the tissue): those bins are left out, as is
 * any depth below the tissue. */
#ifndef TMCML_PLOT_MCO_H
#define TMCML_PLOT_MCO_H

#include <stdbool.h>

#include "canvas.h"
#include "error.h"
#include "mco.h"

typedef enum plot_map_kind {
    PLOT_MAP_FLUENCE,    /* A_rz / mu_a */
    PLOT_MAP_ABSORPTION, /* A_rz: a layer in view has mu_a = 0 */
    PLOT_MAP_NONE        /* A_rz all zero: every bin no-data grey */
} plot_map_kind;

/* One panel: its plotting area, framed one pixel outside, and its texts. */
typedef struct plot_panel {
    canvas_box area;
    canvas_box title;            /* above the area */
    canvas_box x_ticks, y_ticks; /* tick labels below / left of the area */
    canvas_box x_title, y_title; /* axis titles (the y title reads bottom to top) */
    double x_lo, x_hi;           /* values at the area's left and right edges */
    double y_lo, y_hi;           /* at its bottom and top edges: log10 of them on a log axis */
} plot_panel;

/* Where things are, in pixels from the image's top-left corner.  Every
 * position follows axis_pixel (axis.h) from the panel's ranges:
 *   map: column i of map.area (width w, even) shows r = (d + 0.5) * R / (w/2)
 *     with d = i - w/2 right of the centre and w/2 - 1 - i left of it, so
 *     columns i and w-1-i show the same bin; row j shows z = (j + 0.5) *
 *     Z / h; the bin is (floor(r / dr), floor(z / dz)).  R = map.x_hi =
 *     -map.x_lo = map_nr * dr; Z = map.y_lo = map_nz * dz, map.y_hi = 0.
 *     An interface at depth z is the row axis_pixel(z, 0, Z, map.area.y,
 *     map.area.h), dashed in plot_boundary_rgb.
 *   rd, az: bin i is at x axis_pixel((i + 0.5) * step, x_lo, x_hi, ...) and
 *     y axis_pixel(log10 v, y_hi, y_lo, area.y, area.h); consecutive
 *     positive bins are joined in plot_curve_rgb.  az's interfaces are the
 *     columns axis_pixel(z, x_lo, x_hi, ...), dashed in plot_rule_rgb.
 *     The band, under the curve, in plot_band_rgb: bin i with value v > 0
 *     on the axis and a finite error e spans the rows from log10(v + e)
 *     down to log10(v - e) (the area's bottom where v - e <= 0, both kept
 *     on the axis) at its column; between two such consecutive bins each
 *     column spans the rows of those ends interpolated linearly in x. */
typedef struct plot_layout {
    int width, height;
    canvas_box title;       /* the figure's: file, photons, R_d, A, T_t */
    plot_panel map, rd, az; /* panels 1, 2, 3 */
    canvas_box bar;         /* the colour bar: top row 10^bar_hi, bottom 10^bar_lo */
    canvas_box bar_ticks;   /* its labels, right of it */
    canvas_box bar_title;   /* right of those, reading bottom to top */
    canvas_box note;        /* under the map: what the dashes and the grey mean */
    double bar_lo, bar_hi;  /* log10 of the values at the colour bar's ends */
    int map_nr, map_nz;     /* bins shown (in map, rd and az) */
    plot_map_kind kind;
} plot_layout;

/* The layout plot_mco_write_png uses for m; name (the .mco's file name) goes
 * into the figure's title.  False, with *err, when m's arrays are missing. */
bool plot_layout_of(const mco_data *m, const char *name, plot_layout *layout, tm_error *err);

/* Draws m's figure and writes it to path (temp file + rename).  On any
 * failure nothing is written and err->file is path. */
bool plot_mco_write_png(const char *path, const mco_data *m, const char *name, tm_error *err);

extern const unsigned char plot_background_rgb[3]; /* white */
extern const unsigned char plot_boundary_rgb[3];   /* interfaces on the map (white) */
extern const unsigned char plot_rule_rgb[3];       /* interfaces in the A(z) panel */
extern const unsigned char plot_curve_rgb[3];      /* R_d(r) and A(z) */
extern const unsigned char plot_band_rgb[3];       /* their +-1 standard error */

#endif
