#include "axis.h"

#include <math.h>

#include "label.h"

#define LABEL_GAP 12 /* pixels between neighbouring labels, at least */

int axis_pixel(double v, double a, double b, int from, int len)
{
    double f = b != a ? (v - a) / (b - a) : 0.5;
    double p = floor(f * len);
    p = !(p >= 0) ? 0 : p > len - 1 ? len - 1 : p; /* NaN too */
    return from + (int)p;
}

/* The room one label needs along the axis. */
static int extent(const char *text, bool horizontal, int scale)
{
    return horizontal ? label_width(text, scale) : FONT5X7_ROWS * scale;
}

/* Labels of the multiples k * step in [lo, hi]; false when there would be
 * more than AXIS_TICKS_MAX. */
static bool linear_candidate(double lo, double hi, double step, axis_ticks *t)
{
    /* A little slack, so that ends which are multiples up to rounding count. */
    double eps = 1e-9 * (hi - lo);
    double k0 = ceil((lo - eps) / step), k1 = floor((hi + eps) / step);
    if (k1 - k0 + 1 > AXIS_TICKS_MAX)
        return false;
    /* Enough digits to tell neighbours apart, at least three. */
    double big = fmax(fabs(lo), fabs(hi));
    int digits = (int)ceil(log10(big / step + 1)) + 1;
    digits = digits < 3 ? 3 : digits;
    t->n = 0;
    for (double k = k0; k <= k1; k++) {
        double v = k * step;
        t->value[t->n] = v;
        label_format_number(v, digits, t->text[t->n], AXIS_LABEL_MAX);
        t->n++;
    }
    return true;
}

void axis_linear_ticks(double lo, double hi, int len, bool horizontal, int scale, axis_ticks *t)
{
    static const double mantissa[3] = {1, 2, 5};
    t->n = 0;
    if (!(hi > lo) || len < 2)
        return;
    double base = pow(10, floor(log10((hi - lo) / AXIS_TICKS_MAX)));
    for (int i = 0; i < 60; i++) {
        double step = mantissa[i % 3] * base * pow(10, i / 3);
        if (!linear_candidate(lo, hi, step, t))
            continue;
        int room = 0;
        for (int k = 0; k < t->n; k++) {
            int e = extent(t->text[k], horizontal, scale);
            room = e > room ? e : room;
        }
        if (step / (hi - lo) * (len - 1) >= room + LABEL_GAP || t->n <= 2)
            return;
    }
}

void axis_decade_ticks(double lo, double hi, int len, bool horizontal, int scale, axis_ticks *t)
{
    t->n = 0;
    if (!(hi > lo) || len < 2)
        return;
    int k0 = (int)ceil(lo - 1e-9), k1 = (int)floor(hi + 1e-9);
    int room = 0;
    for (int k = k0; k <= k1; k++) {
        char text[AXIS_LABEL_MAX];
        label_power10(k, text, sizeof text);
        int e = extent(text, horizontal, scale) + LABEL_GAP;
        room = e > room ? e : room;
    }
    for (int stride = 1; stride <= k1 - k0 + 1; stride++) {
        if (stride / (hi - lo) * (len - 1) < room && stride <= k1 - k0)
            continue;
        for (int k = k0; k <= k1 && t->n < AXIS_TICKS_MAX; k++)
            if (k % stride == 0) {
                t->value[t->n] = k;
                label_power10(k, t->text[t->n], AXIS_LABEL_MAX);
                t->n++;
            }
        return;
    }
}
