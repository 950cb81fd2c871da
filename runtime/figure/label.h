/* The words and numbers of a figure: numbers written compactly, and text
 * with superscripts and subscripts ("cm^{-2}", "R_{d}", "10^{-3}") drawn
 * with the 5x7 font, upright or reading bottom to top. */
#ifndef TMCML_LABEL_H
#define TMCML_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"

/* v compactly in at most digits (1..17) significant digits: "16", "0.25",
 * "1.23e9", "-4.5e-5"; integers below a million in full, never "-0". */
void label_format_number(double v, int digits, char *buf, size_t size);

/* "10^{k}", the label of a decade on a log axis. */
void label_power10(int k, char *buf, size_t size);

/* Text is drawn at scale (each font pixel a scale x scale square); "^{...}"
 * raises and "_{...}" lowers what the braces hold, at half the scale (at
 * least 1).  A '^' or '_' not followed by '{' is itself; scripts do not
 * nest.  UTF-8 "\u03bc" (mu) is the font's FONT5X7_MU; other bytes beyond
 * ASCII draw as '?'. */

/* Length along the baseline. */
int label_width(const char *text, int scale);

/* Draws text with the top-left corner of its box at (x, y): the box is
 * label_width wide and FONT5X7_ROWS * scale high (superscripts reach scale
 * pixels above it).  Rotated: turned 90 degrees anticlockwise, reading
 * bottom to top, the box label_width high (font5x7_draw's convention). */
void label_draw(const canvas *c, int x, int y, const char *text, int scale, bool rotated,
                const unsigned char rgb[3]);

#endif
