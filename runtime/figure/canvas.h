/* The pixels of a figure: an 8-bit RGB canvas, the few shapes the figures
 * are made of (filled rectangles, frames, lines, dashed rules) and the PNG
 * file, written atomically (temp file + rename) through libpng's
 * simplified API.  Text is label.h's, on the same canvas. */
#ifndef TMCML_CANVAS_H
#define TMCML_CANVAS_H

#include <stdbool.h>

#include "error.h"
#include "font5x7.h"

/* The font draws on the canvas directly: they are one raster type. */
typedef font5x7_raster canvas;

/* A rectangle in pixels from the image's top-left corner. */
typedef struct canvas_box {
    int x, y, w, h;
} canvas_box;

/* A canvas of width x height pixels, all background.  False (nothing
 * allocated, *err set naming path) when out of memory or a side is not
 * 1..CANVAS_SIDE_MAX. */
#define CANVAS_SIDE_MAX 8192
bool canvas_init(canvas *c, int width, int height, const unsigned char background[3],
                 const char *path, tm_error *err);
void canvas_free(canvas *c);

/* Shapes are clipped at the canvas's edges. */
void canvas_fill(const canvas *c, int x, int y, int w, int h, const unsigned char rgb[3]);
/* A one-pixel frame `out` pixels outside b (0: on b's own edge). */
void canvas_ring(const canvas *c, canvas_box b, int out, const unsigned char rgb[3]);
/* A straight line from (x0, y0) to (x1, y1), `thick` pixels wide (a square
 * pen centred on each point of the line). */
void canvas_line(const canvas *c, int x0, int y0, int x1, int y1, int thick,
                 const unsigned char rgb[3]);
/* Dashed rules: `on` pixels drawn, `off` skipped, starting with a dash at
 * x0 (y0). */
void canvas_dashed_hline(const canvas *c, int x0, int x1, int y, int on, int off,
                         const unsigned char rgb[3]);
void canvas_dashed_vline(const canvas *c, int x, int y0, int y1, int on, int off,
                         const unsigned char rgb[3]);

/* Writes c to path as an 8-bit RGB PNG, atomically: on any failure (the
 * directory, the disk, libpng) path is left as it was and err->file is
 * path. */
bool canvas_write_png(const canvas *c, const char *path, tm_error *err);

#endif
