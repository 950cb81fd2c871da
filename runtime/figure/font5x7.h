/* A 5x7 bitmap font for printable ASCII (32..126) and Greek mu, and text drawn with it on
 * an 8-bit RGB raster, scaled by whole pixels, horizontal or rotated to read
 * bottom to top.  The letters of every figure: the heat maps of `tmcml sweep`
 * and the pictures of `tmcml plot` (through label.h). */
#ifndef TMCML_FONT5X7_H
#define TMCML_FONT5X7_H

#include <stdbool.h>

#define FONT5X7_W       5
#define FONT5X7_ROWS    8 /* 7 down to the baseline, 1 for descenders */
#define FONT5X7_ADVANCE 6 /* glyph plus one column of space, at scale 1 */

/* The one glyph beyond ASCII, at code 127: the Greek mu of mu_a and mu_s
 * (label.c turns UTF-8 "\u03bc" into it). */
#define FONT5X7_MU '\x7f'

/* Whether pixel (col, row) of c's glyph is ink; row 0 is the top.
 * Characters outside 32..127 draw as '?'. */
bool font5x7_ink(char c, int col, int row);

/* Length of text along its baseline at scale (no space after the last glyph). */
int font5x7_text_width(const char *text, int scale);

/* An RGB raster: width*height pixels of 3 bytes, rows top to bottom (the
 * figures' canvas, canvas.h). */
typedef struct font5x7_raster {
    unsigned char *rgb;
    int width, height;
} font5x7_raster;

/* Draws text with its top-left corner at (x, y) in colour, each font pixel a
 * scale x scale square.  Upright: left to right.  Rotated (vertical): turned
 * 90 degrees anticlockwise, so it reads bottom to top and (x, y) is the
 * top-left of the turned box (width FONT5X7_ROWS*scale, height text_width).
 * Pixels outside the raster are skipped. */
void font5x7_draw(const font5x7_raster *r, int x, int y, const char *text, int scale, bool rotated,
                  const unsigned char colour[3]);

#endif
