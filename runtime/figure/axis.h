/* Axes: where values fall in pixels, and which ticks an axis gets so that
 * their labels are round numbers (multiples of 1, 2 or 5 x 10^k; decades on
 * a log axis) and do not touch. */
#ifndef TMCML_AXIS_H
#define TMCML_AXIS_H

#include <stdbool.h>

#define AXIS_TICKS_MAX 32
#define AXIS_LABEL_MAX 32

typedef struct axis_ticks {
    int n;
    double value[AXIS_TICKS_MAX]; /* in the axis's units (log10 of the value on a log axis) */
    char text[AXIS_TICKS_MAX][AXIS_LABEL_MAX]; /* label.h text */
} axis_ticks;

/* The pixel of v on an axis of len pixels starting at from, where the value
 * at from's outer edge is a and at the far edge (from + len) is b (b < a
 * for axes read upwards): the pixel whose span holds v, kept on the axis. */
int axis_pixel(double v, double a, double b, int from, int len);

/* Ticks over [lo, hi] (lo < hi) on an axis of len pixels: multiples of the
 * smallest step 1, 2 or 5 x 10^k that leaves room between labels drawn at
 * scale (their widths side by side on a horizontal axis, their height on a
 * vertical one). */
void axis_linear_ticks(double lo, double hi, int len, bool horizontal, int scale, axis_ticks *t);

/* Ticks of a log axis over the log10 values [lo, hi]: the decades k in it,
 * every stride-th one (multiples of stride, so 10^0 stays when in range)
 * with the smallest stride that leaves room between the "10^{k}" labels. */
void axis_decade_ticks(double lo, double hi, int len, bool horizontal, int scale, axis_ticks *t);

#endif
