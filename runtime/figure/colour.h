/* The one colour map of tmcml's figures and the colour bar that explains
 * it: dark purple through blue, teal and green to yellow, lightness rising
 * all along, so the map reads in greyscale too. */
#ifndef TMCML_COLOUR_H
#define TMCML_COLOUR_H

#include "canvas.h"

/* The grey of values with no colour (not measured, zero on a log scale):
 * the map never comes near it, being saturated everywhere. */
extern const unsigned char colour_no_data_rgb[3];

/* The figures' own greys: text (ink), and frames and tick marks. */
extern const unsigned char colour_ink_rgb[3];
extern const unsigned char colour_frame_rgb[3];

/* rgb made light: a quarter of its strength over white, for what lies
 * under a line of that colour (the band of a curve's errors). */
void colour_light(const unsigned char rgb[3], unsigned char light[3]);

/* The map at t in [0, 1] (clamped); NaN gives colour_no_data_rgb. */
void colour_map(double t, unsigned char rgb[3]);

/* The map drawn into b, top row t = 1, bottom row t = 0 (0.5 throughout
 * when b is one row high), framed in frame_rgb one pixel outside b. */
void colour_bar_draw(const canvas *c, canvas_box b, const unsigned char frame_rgb[3]);

#endif
