/* Inside `tmcml plot`'s figure (plot_mco.h): everything decided before a
 * pixel is drawn (plot_layout.c) and handed to the drawing (plot_mco.c). */
#ifndef TMCML_PLOT_PLAN_H
#define TMCML_PLOT_PLAN_H

#include "axis.h"
#include "plot_mco.h"

#define PLOT_SCALE  2 /* every text but scripts is the 5x7 font doubled */
#define PLOT_TEXT_H (FONT5X7_ROWS * PLOT_SCALE)
#define PLOT_TICK   6 /* length of major tick marks, outside the frame */

typedef struct plot_plan {
    const mco_data *m;
    plot_layout lay;
    double *map; /* the map's values, [ir * map_nz + iz] */
    axis_ticks map_x, map_y, bar, rd_x, rd_y, az_x, az_y;
    bool rd_empty, az_empty;       /* no positive value to draw */
    const double *rd_err, *az_err; /* their standard errors (bands); NULL: none */
    int zero_layer;                /* PLOT_MAP_ABSORPTION: the layer without mu_a */
    char title[320], map_title[160], bar_title[64], note[128], band_note[64];
    char rd_title[64], rd_y_title[64], az_title[64], az_y_title[64];
} plot_plan;

/* Checks m and fills *p (allocating p->map), with the bands of errors
 * (plot_mco_write_png_errors; may be NULL); path only names errors. */
bool plot_plan_make(const mco_data *m, const double *const *errors, const char *name,
                    const char *path, plot_plan *p, tm_error *err);
void plot_plan_free(plot_plan *p);

#endif
