#include "colour.h"

#include <math.h>
#include <string.h>

const unsigned char colour_no_data_rgb[3] = {200, 200, 200};
const unsigned char colour_ink_rgb[3] = {32, 32, 32};
const unsigned char colour_frame_rgb[3] = {80, 80, 80};

#define LIGHT_SHARE 0.25 /* of the colour in colour_light, the rest white */

void colour_light(const unsigned char rgb[3], unsigned char light[3])
{
    for (int c = 0; c < 3; c++)
        light[c] = (unsigned char)lround(255 - LIGHT_SHARE * (255 - rgb[c]));
}

/* Control points, evenly spaced in t.  Their luma (0.2126 R + 0.7152 G +
 * 0.0722 B: 25, 58, 98, 130, 176, 223) rises in nearly equal steps, and
 * luma is linear in R, G, B, so it rises all along the interpolated map:
 * the map reads as a lightness ramp in greyscale too. */
static const unsigned char ramp[][3] = {
    {40, 16, 72}, {62, 48, 140}, {38, 110, 160}, {30, 160, 130}, {130, 200, 70}, {250, 232, 60},
};

void colour_map(double t, unsigned char rgb[3])
{
    if (isnan(t)) {
        memcpy(rgb, colour_no_data_rgb, 3);
        return;
    }
    int n = (int)(sizeof ramp / sizeof ramp[0]) - 1;
    double s = (t < 0 ? 0 : t > 1 ? 1 : t) * n;
    int i = s >= n ? n - 1 : (int)s;
    double f = s - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(ramp[i][c] + f * (ramp[i + 1][c] - ramp[i][c]));
}

void colour_bar_draw(const canvas *c, canvas_box b, const unsigned char frame_rgb[3])
{
    for (int row = 0; row < b.h; row++) {
        unsigned char rgb[3];
        colour_map(b.h > 1 ? 1.0 - (double)row / (b.h - 1) : 0.5, rgb);
        canvas_fill(c, b.x, b.y + row, b.w, 1, rgb);
    }
    canvas_ring(c, b, 1, frame_rgb);
}
