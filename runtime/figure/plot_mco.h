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
 *      interfaces dashed.  Where their standard errors are given (plot_mco
 *      _write_png_errors: `tmcml run --stderr`), each curve lies on a band
 *      from value - error to value + error, in its own colour made light
 *      (colour_light), and a line under the map's note says what it is.
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
 *   bands: bin i of a curve drawn (as above) whose error e is finite and
 *     >= 0 spans, in its column x, the rows from axis_pixel(log10(v + e),
 *     ...) down to axis_pixel(log10(v - e), ...), or down to the area's
 *     bottom row where v - e <= 0 or lies below y_lo (never a NaN or a
 *     row outside the area).  Consecutive such bins are joined: each
 *     column between them spans the rows between the two bins' top rows
 *     and bottom rows interpolated linearly in the column (lround); where
 *     both bins fall in one column it spans both.  Bands are drawn over
 *     the grid and under the interfaces and the curve. */
typedef struct plot_layout {
    int width, height;
    canvas_box title;       /* the figure's: file, photons, R_d, A, T_t */
    plot_panel map, rd, az; /* panels 1, 2, 3 */
    canvas_box bar;         /* the colour bar: top row 10^bar_hi, bottom 10^bar_lo */
    canvas_box bar_ticks;   /* its labels, right of it */
    canvas_box bar_title;   /* right of those, reading bottom to top */
    canvas_box note;        /* under the map: what the dashes and the grey mean */
    canvas_box band_note;   /* under it, where bands are drawn: what they are (else 0 wide) */
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

/* The same with the standard errors of m's arrays: errors[row] laid out as
 * m->result.array[row] (runtime/io/mco_stderr.h reads them from the .npz
 * beside an .mco; an mcml_result's stderr_array is so too), NULL where
 * unknown; errors NULL: none.  R_d(r)'s and A(z)'s are drawn as bands.
 * Without them the figure is plot_mco_write_png's, byte for byte. */
bool plot_layout_of_errors(const mco_data *m, const double *const *errors, const char *name,
                           plot_layout *layout, tm_error *err);
bool plot_mco_write_png_errors(const char *path, const mco_data *m, const double *const *errors,
                               const char *name, tm_error *err);

extern const unsigned char plot_background_rgb[3]; /* white */
extern const unsigned char plot_boundary_rgb[3];   /* interfaces on the map (white) */
extern const unsigned char plot_rule_rgb[3];       /* interfaces in the A(z) panel */
extern const unsigned char plot_curve_rgb[3];      /* R_d(r) and A(z); their bands light */

#endif
