/* heatmap: the PNG read back shows each value in the colour map's colour at
 * the right place, unmeasured cells hatched grey, the best cell outlined and
 * text where the labels go; odd inputs still give an image, bad ones an
 * error naming the file and no stray temporary.
 *
 * `test_heatmap --example FILE.png` writes a 10 x 12 example to look at. */
#include <dirent.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "png_image.h"
#include "font5x7.h"
#include "fs.h"
#include "heatmap.h"

static char tmpdir[] = "/tmp/tmcml_test_heatmap.XXXXXX";

/* Computed here from the documented geometry, not with the writer's code:
 * column 0 at the left, row 0 at the bottom. */
static void cell_centre(const heatmap_layout *l, int ny, int ix, int iy, int *x, int *y)
{
    *x = l->plot.x + ix * l->cell_w + l->cell_w / 2;
    *y = l->plot.y + (ny - 1 - iy) * l->cell_h + l->cell_h / 2;
}

static const unsigned char *centre_px(const image *img, const heatmap_layout *l, int ny, int ix,
                                      int iy)
{
    int x, y;
    cell_centre(l, ny, ix, iy, &x, &y);
    return px(img, x, y);
}

/* Writes h to tmpdir/name and reads it back, checking the size against the
 * layout.  Returns false (after a failed CHECK) when anything fails. */
static bool render(const heatmap *h, const char *name, image *img, heatmap_layout *lay)
{
    char *path = fs_join(tmpdir, name);
    tm_error err = {0};
    bool ok = heatmap_layout_of(h, lay, &err);
    CHECK_MSG(ok, "layout of %s: %s", name, err.message);
    if (ok) {
        ok = heatmap_write_png(path, h, &err);
        CHECK_MSG(ok, "%s: %s", name, err.message);
    }
    if (ok) {
        ok = image_read(path, img);
        CHECK_MSG(ok, "%s does not read back as a PNG", name);
    }
    if (ok) {
        CHECK_MSG(img->w == lay->width && img->h == lay->height, "%s: %dx%d, layout %dx%d", name,
                  img->w, img->h, lay->width, lay->height);
        CHECK(img->w <= HEATMAP_SIDE_MAX && img->h <= HEATMAP_SIDE_MAX);
    }
    unlink(path);
    free(path);
    return ok;
}

/* ---- a sample grid: tile shapes with a smooth made-up photons/s ---------------- */

#define SX 10
#define SY 12

typedef struct sample {
    double x[SX], y[SY], v[SX * SY];
    heatmap h;
} sample;

static void sample_make(sample *s)
{
    for (int ix = 0; ix < SX; ix++)
        s->x[ix] = 8 * (ix + 1); /* NZ: 8..80 */
    for (int iy = 0; iy < SY; iy++)
        s->y[iy] = 4 * (iy + 1); /* NR: 4..48 */
    double best = -INFINITY;
    int bx = 0, by = 0;
    for (int iy = 0; iy < SY; iy++)
        for (int ix = 0; ix < SX; ix++) {
            double a = (s->x[ix] - 36) / 30, b = (s->y[iy] - 20) / 16;
            double v = 2.1e8 + 1.35e9 * exp(-a * a - b * b) + 1.5e8 * sin(0.09 * s->x[ix]);
            /* Tiles whose shared memory would not fit: not measured. */
            if (s->x[ix] * s->y[iy] > 2900)
                v = NAN;
            s->v[iy * SX + ix] = v;
            if (isfinite(v) && v > best) {
                best = v;
                bx = ix;
                by = iy;
            }
        }
    s->h = (heatmap){
        SX,        SY,        s->x,        s->y, s->v, "tmcml sweep: photons/s by tile shape",
        "tile NZ", "tile NR", "photons/s", bx,   by};
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_colour_map(void)
{
    unsigned char lo[3], hi[3], c[3], prev[3];
    heatmap_colour(0, lo);
    heatmap_colour(1, hi);
    CHECK(luma(hi) - luma(lo) > 150); /* a wide lightness range */
    heatmap_colour(-5, c);
    CHECK(same(c, lo));
    heatmap_colour(7, c);
    CHECK(same(c, hi));
    heatmap_colour(NAN, c);
    CHECK(same(c, heatmap_nan_rgb));
    /* Bottom dark and bluish/purple, top light and yellow. */
    CHECK(lo[2] > lo[1] && luma(lo) < 50);
    CHECK(hi[0] > 200 && hi[1] > 200 && hi[2] < 120);

    memcpy(prev, lo, 3);
    for (int i = 1; i <= 1000; i++) {
        heatmap_colour(i / 1000.0, c);
        /* Rounding to bytes may cost half a level between close neighbours. */
        CHECK_MSG(luma(c) >= luma(prev) - 0.5, "luma falls at t = %g", i / 1000.0);
        if (i % 40 == 0) {
            unsigned char far[3];
            heatmap_colour((i - 40) / 1000.0, far);
            CHECK_MSG(luma(c) > luma(far) + 5, "luma flat near t = %g", i / 1000.0);
        }
        /* Never mistaken for the unmeasured grey or its hatch: saturated. */
        int max = c[0] > c[1] ? (c[0] > c[2] ? c[0] : c[2]) : (c[1] > c[2] ? c[1] : c[2]);
        int min = c[0] < c[1] ? (c[0] < c[2] ? c[0] : c[2]) : (c[1] < c[2] ? c[1] : c[2]);
        CHECK_MSG(max - min > 40, "colour at t = %g is nearly grey", i / 1000.0);
        memcpy(prev, c, 3);
    }
    CHECK(!same(heatmap_nan_rgb, heatmap_hatch_rgb));
}

static void test_format_number(void)
{
    struct {
        double v;
        int digits;
        const char *want;
    } cases[] = {
        {16, 3, "16"},
        {0, 3, "0"},
        {-0.0, 3, "0"},
        {1024, 3, "1024"},
        {-7, 3, "-7"},
        {0.25, 3, "0.25"},
        {1.5, 3, "1.5"},
        {1234567890, 3, "1.23e9"},
        {1.2e9, 3, "1.2e9"},
        {1e9, 3, "1e9"},
        {-4.5e-5, 3, "-4.5e-5"},
        {0.00123456, 3, "0.00123"},
        {999.96, 3, "1000"},
        {3.14159, 5, "3.1416"},
        {1234.6, 3, "1235"},
        {12345.6, 3, "1.23e4"},
        {1.23456789e9, 6, "1.23457e9"},
        {NAN, 3, "nan"},
        {INFINITY, 3, "inf"},
        {-INFINITY, 3, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        heatmap_format_number(cases[i].v, cases[i].digits, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, cases[i].want) == 0, "%.17g with %d digits: \"%s\", want \"%s\"",
                  cases[i].v, cases[i].digits, buf, cases[i].want);
    }
}

static void test_font(void)
{
    /* Every printable glyph has ink except the space, and no two are equal
     * (a glyph copied by mistake shows up here). */
    for (int c = ' '; c <= '~'; c++) {
        int ink = 0;
        for (int row = 0; row < FONT5X7_ROWS; row++)
            for (int col = 0; col < FONT5X7_W; col++)
                ink += font5x7_ink((char)c, col, row);
        CHECK_MSG(c == ' ' ? ink == 0 : ink > 0, "glyph '%c' has %d ink pixels", c, ink);
        for (int d = ' '; d < c; d++) {
            bool differ = false;
            for (int row = 0; row < FONT5X7_ROWS && !differ; row++)
                for (int col = 0; col < FONT5X7_W; col++)
                    differ |= font5x7_ink((char)c, col, row) != font5x7_ink((char)d, col, row);
            CHECK_MSG(differ, "glyphs '%c' and '%c' are the same", c, d);
        }
    }
    CHECK(font5x7_ink('\t', 2, 6) == font5x7_ink('?', 2, 6)); /* unknown: '?' */
    CHECK(!font5x7_ink('A', -1, 0) && !font5x7_ink('A', 5, 0) && !font5x7_ink('A', 0, 7));
    CHECK(font5x7_text_width("", 2) == 0);
    CHECK(font5x7_text_width("ab", 2) == 2 * 12 - 2);

    /* "L" upright: its bar along the bottom.  Rotated (reading bottom to
     * top): the stem lies along the bottom and the bar up the right side. */
    unsigned char buf[12 * 12 * 3];
    font5x7_raster r = {buf, 12, 12};
    static const unsigned char ink[3] = {9, 9, 9};
    memset(buf, 255, sizeof buf);
    font5x7_draw(&r, 0, 0, "L", 1, false, ink);
    CHECK(buf[3 * (6 * 12 + 4)] == 9 && buf[3 * (0 * 12 + 0)] == 9 && buf[3 * (0 * 12 + 4)] == 255);
    memset(buf, 255, sizeof buf);
    font5x7_draw(&r, 0, 0, "L", 1, true, ink);
    /* Box 7 wide, 5 high: stem (glyph column 0) is the box's bottom row,
     * the glyph's bottom row is the box's right column. */
    CHECK(buf[3 * (4 * 12 + 0)] == 9 && buf[3 * (4 * 12 + 6)] == 9);
    CHECK(buf[3 * (0 * 12 + 6)] == 9 && buf[3 * (0 * 12 + 0)] == 255);
    /* Clipped at the raster's edges, not written past them. */
    font5x7_draw(&r, 9, 9, "WWW", 2, false, ink);
    font5x7_draw(&r, -20, -20, "WWW", 2, true, ink);
}

/* The sample: colours, hatch, outline, colour bar and text all in place. */
static void test_sample(void)
{
    sample s;
    sample_make(&s);
    const heatmap *h = &s.h;
    image img;
    heatmap_layout l;
    if (!render(h, "sample.png", &img, &l))
        return;
    CHECK_MSG(l.cell_w == HEATMAP_CELL_MAX && l.cell_h == HEATMAP_CELL_MAX, "cells %dx%d", l.cell_w,
              l.cell_h);
    CHECK(l.plot.w == SX * l.cell_w && l.plot.h == SY * l.cell_h);

    double lo = INFINITY, hi = -INFINITY;
    int lo_i = 0, hi_i = 0, nan_cells = 0;
    for (int i = 0; i < SX * SY; i++) {
        if (isnan(s.v[i]))
            continue;
        if (s.v[i] < lo)
            lo = s.v[i], lo_i = i;
        if (s.v[i] > hi)
            hi = s.v[i], hi_i = i;
    }
    unsigned char top[3], bottom[3], want[3];
    heatmap_colour(1, top);
    heatmap_colour(0, bottom);
    CHECK(same(centre_px(&img, &l, SY, hi_i % SX, hi_i / SX), top));
    CHECK(same(centre_px(&img, &l, SY, lo_i % SX, lo_i / SX), bottom));

    for (int iy = 0; iy < SY; iy++)
        for (int ix = 0; ix < SX; ix++) {
            double v = s.v[iy * SX + ix];
            if (isnan(v)) {
                nan_cells++;
                continue;
            }
            heatmap_colour((v - lo) / (hi - lo), want);
            const unsigned char *got = centre_px(&img, &l, SY, ix, iy);
            CHECK_MSG(same(got, want), "cell (%d, %d): %d,%d,%d, want %d,%d,%d", ix, iy, got[0],
                      got[1], got[2], want[0], want[1], want[2]);
        }
    CHECK(nan_cells >= 3 && nan_cells <= 12);

    /* Unmeasured cells: grey with a hatch, nothing else. */
    for (int iy = 0; iy < SY; iy++)
        for (int ix = 0; ix < SX; ix++) {
            if (!isnan(s.v[iy * SX + ix]))
                continue;
            int grey = 0, hatch = 0, other = 0;
            int x0 = l.plot.x + ix * l.cell_w, y0 = l.plot.y + (SY - 1 - iy) * l.cell_h;
            for (int y = y0; y < y0 + l.cell_h; y++)
                for (int x = x0; x < x0 + l.cell_w; x++) {
                    const unsigned char *p = px(&img, x, y);
                    grey += same(p, heatmap_nan_rgb);
                    hatch += same(p, heatmap_hatch_rgb);
                    other += !same(p, heatmap_nan_rgb) && !same(p, heatmap_hatch_rgb);
                }
            CHECK_MSG(grey > hatch && hatch > l.cell_w && other == 0,
                      "unmeasured cell (%d, %d): %d grey, %d hatch, %d other", ix, iy, grey, hatch,
                      other);
        }

    /* The outline: dark, light, light, dark just outside the marked cell,
     * on all four sides; the cell itself keeps its colour. */
    int x0 = l.plot.x + h->mark_ix * l.cell_w, y0 = l.plot.y + (SY - 1 - h->mark_iy) * l.cell_h;
    int cx = x0 + l.cell_w / 2, cy = y0 + l.cell_h / 2;
    const unsigned char *ring[4] = {heatmap_mark_dark_rgb, heatmap_mark_light_rgb,
                                    heatmap_mark_light_rgb, heatmap_mark_dark_rgb};
    for (int d = 1; d <= 4; d++) {
        const unsigned char *want_ring = ring[d - 1];
        CHECK_MSG(same(px(&img, x0 - d, cy), want_ring), "left ring %d", d);
        CHECK_MSG(same(px(&img, x0 + l.cell_w - 1 + d, cy), want_ring), "right ring %d", d);
        CHECK_MSG(same(px(&img, cx, y0 - d), want_ring), "top ring %d", d);
        CHECK_MSG(same(px(&img, cx, y0 + l.cell_h - 1 + d), want_ring), "bottom ring %d", d);
    }
    CHECK(same(px(&img, x0, y0), px(&img, cx, cy)));

    /* The colour bar: top row the top colour, bottom row the bottom one. */
    CHECK(same(px(&img, l.bar.x + l.bar.w / 2, l.bar.y), top));
    CHECK(same(px(&img, l.bar.x + l.bar.w / 2, l.bar.y + l.bar.h - 1), bottom));
    CHECK(l.bar.x > l.plot.x + l.plot.w && l.bar.h == l.plot.h);

    /* Text in every label region, and none in the margin corner. */
    struct {
        const char *name;
        heatmap_box b;
    } regions[] = {
        {"title", l.title},         {"x ticks", l.x_ticks}, {"y ticks", l.y_ticks},
        {"x title", l.x_title},     {"y title", l.y_title}, {"bar ticks", l.bar_ticks},
        {"bar title", l.bar_title}, {"note", l.note},
    };
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
        heatmap_box b = regions[i].b;
        CHECK_MSG(b.w > 0 && b.h > 0 && ink_in(&img, b, heatmap_background_rgb) > 20,
                  "no text in %s (%d,%d %dx%d)", regions[i].name, b.x, b.y, b.w, b.h);
    }
    CHECK(l.title.y + l.title.h <= l.plot.y && l.x_title.y >= l.plot.y + l.plot.h);
    CHECK(l.y_title.x + l.y_title.w <= l.y_ticks.x && l.y_ticks.x + l.y_ticks.w <= l.plot.x);
    CHECK(l.y_title.h > l.y_title.w); /* vertical */
    CHECK(ink_in(&img, (heatmap_box){0, 0, 12, 12}, heatmap_background_rgb) == 0);
    free(img.rgb);
}

/* A ramp of values along a row and along a column: luminance rises cell by
 * cell, to the right and upwards. */
static void test_ramps(void)
{
    enum { N = 16 };
    double axis[N], ramp[N], one = 1;
    for (int i = 0; i < N; i++) {
        axis[i] = i;
        ramp[i] = -3e6 + 1e6 * i * i; /* uneven steps, negative start */
    }
    heatmap row = {N, 1, axis, &one, ramp, "row", "i", "", "v", -1, -1};
    heatmap col = {1, N, &one, axis, ramp, "column", "", "i", "v", -1, -1};
    heatmap *cases[2] = {&row, &col};
    for (int k = 0; k < 2; k++) {
        image img;
        heatmap_layout l;
        if (!render(cases[k], "ramp.png", &img, &l))
            continue;
        double prev = -1;
        for (int i = 0; i < N; i++) {
            const unsigned char *p =
                k == 0 ? centre_px(&img, &l, 1, i, 0) : centre_px(&img, &l, N, 0, i);
            CHECK_MSG(luma(p) > prev, "%s ramp: luma %g at %d after %g", cases[k]->title, luma(p),
                      i, prev);
            prev = luma(p);
            unsigned char want[3];
            heatmap_colour((ramp[i] - ramp[0]) / (ramp[N - 1] - ramp[0]), want);
            CHECK(same(p, want));
        }
        CHECK(l.plot.w >= HEATMAP_PLOT_MIN && l.plot.h >= HEATMAP_PLOT_MIN);
        free(img.rgb);
    }
}

static void test_degenerate(void)
{
    double ax[64], v[64 * 64];
    for (int i = 0; i < 64; i++)
        ax[i] = 4 * (i + 1);
    unsigned char mid[3], want[3];
    heatmap_colour(0.5, mid);
    image img;
    heatmap_layout l;

    /* All equal: the middle colour everywhere, no division by zero. */
    for (int i = 0; i < 9; i++)
        v[i] = 5e8;
    heatmap eq = {3, 3, ax, ax, v, "all equal", "x", "y", "v", 1, 1};
    if (render(&eq, "equal.png", &img, &l)) {
        for (int i = 0; i < 9; i++)
            CHECK(same(centre_px(&img, &l, 3, i % 3, i / 3), mid));
        CHECK(ink_in(&img, l.bar_ticks, heatmap_background_rgb) > 20);
        free(img.rgb);
    }

    /* All unmeasured (NaN and infinities): all hatched, still an image. */
    for (int i = 0; i < 6; i++)
        v[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
    heatmap none = {2, 3, ax, ax, v, "nothing measured", "x", "y", "v", -1, -1};
    if (render(&none, "none.png", &img, &l)) {
        for (int i = 0; i < 6; i++) {
            const unsigned char *p = centre_px(&img, &l, 3, i % 2, i / 2);
            CHECK(same(p, heatmap_nan_rgb) || same(p, heatmap_hatch_rgb));
        }
        CHECK(ink_in(&img, l.bar_ticks, heatmap_background_rgb) > 20); /* "no data" */
        CHECK(ink_in(&img, l.note, heatmap_background_rgb) > 20);      /* "no measured values" */
        free(img.rgb);
    }

    /* Infinities are unmeasured too: the finite extremes keep the ends. */
    double some_inf[4] = {1, 2, INFINITY, 3};
    heatmap inf = {4, 1, ax, ax, some_inf, "inf", "x", "y", "v", -1, -1};
    if (render(&inf, "inf.png", &img, &l)) {
        heatmap_colour(1, want);
        CHECK(same(centre_px(&img, &l, 1, 3, 0), want));
        heatmap_colour(0, want);
        CHECK(same(centre_px(&img, &l, 1, 0, 0), want));
        const unsigned char *p = centre_px(&img, &l, 1, 2, 0);
        CHECK(same(p, heatmap_nan_rgb) || same(p, heatmap_hatch_rgb));
        free(img.rgb);
    }

    /* One cell, no labels at all. */
    v[0] = -2.5;
    heatmap single = {1, 1, ax, ax, v, NULL, NULL, NULL, NULL, 0, 0};
    if (render(&single, "single.png", &img, &l)) {
        CHECK(same(centre_px(&img, &l, 1, 0, 0), mid));
        CHECK(l.plot.w >= HEATMAP_PLOT_MIN && l.plot.h >= HEATMAP_PLOT_MIN);
        CHECK(same(px(&img, l.plot.x - 1 - 3, l.plot.y + 5), heatmap_mark_dark_rgb));
        free(img.rgb);
    }

    /* Negative values: the least negative is the top colour. */
    for (int i = 0; i < 4; i++)
        v[i] = -4.0 + i * 0.75;
    heatmap neg = {4, 1, ax, ax, v, "negative", "x", "y", "v", 3, 0};
    if (render(&neg, "negative.png", &img, &l)) {
        heatmap_colour(1, want);
        CHECK(same(centre_px(&img, &l, 1, 3, 0), want));
        heatmap_colour(0, want);
        CHECK(same(centre_px(&img, &l, 1, 0, 0), want));
        free(img.rgb);
    }

    /* 64 x 64 fits, with thinned labels. */
    for (int i = 0; i < 64 * 64; i++)
        v[i] = 1e9 + 1e6 * (i % 64) - 3e5 * (i / 64);
    heatmap big = {64, 64, ax, ax, v, "64 x 64", "tile NZ", "tile NR", "photons/s", 63, 0};
    if (render(&big, "big.png", &img, &l)) {
        CHECK_MSG(l.cell_w == 18 && l.cell_h == 18, "64 x 64: cells %dx%d", l.cell_w, l.cell_h);
        heatmap_colour(1, want);
        CHECK(same(centre_px(&img, &l, 64, 63, 0), want));
        CHECK(ink_in(&img, l.x_ticks, heatmap_background_rgb) > 20 &&
              ink_in(&img, l.y_ticks, heatmap_background_rgb) > 20);
        /* Thinned: between the labels of columns 0 and 1 centres there is
         * no room, so column 1 has no tick mark below it. */
        int x1 = l.plot.x + l.cell_w + l.cell_w / 2;
        CHECK(same(px(&img, x1, l.plot.y + l.plot.h + 3), heatmap_background_rgb));
        int x0 = l.plot.x + l.cell_w / 2;
        CHECK(!same(px(&img, x0, l.plot.y + l.plot.h + 3), heatmap_background_rgb));
        free(img.rgb);
    }

    /* The largest grid allowed still fits within the size bound. */
    double *wide_ax = malloc(HEATMAP_MAX_CELLS * sizeof *wide_ax);
    double *wide_v = malloc(HEATMAP_MAX_CELLS * sizeof *wide_v);
    for (int i = 0; i < HEATMAP_MAX_CELLS; i++)
        wide_ax[i] = wide_v[i] = -1.2345e-7 * (i + 1);
    heatmap wide = {HEATMAP_MAX_CELLS, 1, wide_ax, wide_ax, wide_v, "wide", "x", "y", "v", -1, -1};
    if (render(&wide, "wide.png", &img, &l)) {
        CHECK(l.cell_w >= 1);
        free(img.rgb);
    }
    free(wide_ax);
    free(wide_v);
}

static void expect_invalid(const heatmap *h, const char *why, const char *needle)
{
    char *path = fs_join(tmpdir, "invalid.png");
    tm_error err = {0};
    CHECK_MSG(!heatmap_write_png(path, h, &err), "accepted: %s", why);
    CHECK_MSG(err.message[0] != '\0', "no message: %s", why);
    CHECK_CONTAINS(err.message, needle);
    CHECK_MSG(access(path, F_OK) != 0, "file written: %s", why);
    heatmap_layout l;
    CHECK(!heatmap_layout_of(h, &l, &err));
    free(path);
}

static void test_invalid(void)
{
    double a[2] = {1, 2}, v[4] = {1, 2, 3, 4};
    heatmap ok = {2, 2, a, a, v, "t", "x", "y", "v", -1, -1};
    heatmap bad;
    bad = ok, bad.nx = 0;
    expect_invalid(&bad, "nx = 0", "cells");
    bad = ok, bad.ny = -3;
    expect_invalid(&bad, "ny < 0", "cells");
    bad = ok, bad.nx = HEATMAP_MAX_CELLS + 1;
    expect_invalid(&bad, "nx too large", "cells");
    bad = ok, bad.x = NULL;
    expect_invalid(&bad, "x NULL", "axis values");
    bad = ok, bad.y = NULL;
    expect_invalid(&bad, "y NULL", "axis values");
    bad = ok, bad.value = NULL;
    expect_invalid(&bad, "value NULL", "values");
    bad = ok, bad.mark_ix = 2, bad.mark_iy = 0;
    expect_invalid(&bad, "mark outside", "marked cell");
    bad = ok, bad.mark_ix = 0, bad.mark_iy = 5;
    expect_invalid(&bad, "mark outside", "marked cell");
    expect_invalid(NULL, "NULL heat map", "missing");

    tm_error err = {0};
    CHECK(!heatmap_write_png(NULL, &ok, &err));
    CHECK_CONTAINS(err.message, "path");
    CHECK(!heatmap_write_png("", &ok, &err));
    CHECK(check_temp_files(tmpdir, NULL) == 0);
}

/* A failure names the path, leaves no temporary file and the old file alone. */
static void expect_unwritable(const char *path, const char *dir)
{
    double ax[2] = {1, 2}, v[4] = {1, 2, 3, NAN};
    heatmap h = {2, 2, ax, ax, v, "t", "x", "y", "v", 0, 0};
    tm_error err = {0};
    CHECK_MSG(!heatmap_write_png(path, &h, &err), "wrote %s", path);
    char msg[2048];
    error_format(&err, msg, sizeof msg);
    CHECK_CONTAINS(msg, path);
    CHECK(strcmp(err.file, path) == 0);
    CHECK_MSG(check_temp_files(dir, NULL) == 0, "temporary file left in %s", dir);
}

static void test_unwritable(void)
{
    char *missing = fs_join(tmpdir, "no_such_dir/map.png");
    expect_unwritable(missing, tmpdir);
    free(missing);

    /* A directory component that is a regular file. */
    char *file = fs_join(tmpdir, "plain_file");
    FILE *f = fopen(file, "w");
    CHECK(f && fclose(f) == 0);
    char *under_file = fs_join(file, "map.png");
    expect_unwritable(under_file, tmpdir);
    free(under_file);
    unlink(file);
    free(file);

    /* The path is a directory: the PNG is written, the rename fails. */
    char *dir = fs_join(tmpdir, "a_directory");
    CHECK(mkdir(dir, 0755) == 0);
    char *inside = fs_join(dir, "x");
    CHECK((f = fopen(inside, "w")) && fclose(f) == 0); /* non-empty, so rename cannot replace it */
    expect_unwritable(dir, tmpdir);
    unlink(inside);
    free(inside);
    rmdir(dir);
    free(dir);
}

/* libpng's own write error (the file size limit cuts the PNG short) is
 * caught, reported with the path, and the previous file survives. */
static void test_libpng_error(void)
{
    /* Noisy values compress badly: a PNG of many stdio buffers. */
    enum { N = 64 };
    static double ax[N], v[N * N];
    unsigned state = 12345;
    for (int i = 0; i < N; i++)
        ax[i] = i + 1;
    for (int i = 0; i < N * N; i++) {
        state = state * 1103515245u + 12345u;
        v[i] = (state >> 8) % 1000;
    }
    heatmap h = {N, N, ax, ax, v, "noise", "x", "y", "v", 5, 5};
    char *path = fs_join(tmpdir, "limited.png");
    tm_error err = {0};
    CHECK(heatmap_write_png(path, &h, &err));
    struct stat before, after;
    /* Several stdio buffers long, so libpng's own fwrite is the one cut. */
    CHECK(stat(path, &before) == 0 && before.st_size > 4 * BUFSIZ);

    struct rlimit old, small;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small = old;
    small.rlim_cur = 1024;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    bool ok = heatmap_write_png(path, &h, &err);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);

    CHECK(!ok);
    CHECK(strcmp(err.file, path) == 0);
    CHECK_CONTAINS(err.message, "libpng");
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    CHECK(stat(path, &after) == 0 && after.st_size == before.st_size);
    image img;
    CHECK(image_read(path, &img));
    free(img.rgb);
    unlink(path);
    free(path);
}

static int write_example(const char *path)
{
    sample s;
    sample_make(&s);
    tm_error err = {0};
    if (!heatmap_write_png(path, &s.h, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    printf("wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--example") == 0)
        return write_example(argv[2]);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_colour_map();
    test_format_number();
    test_font();
    test_sample();
    test_ramps();
    test_degenerate();
    test_invalid();
    test_unwritable();
    test_libpng_error();
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    rmdir(tmpdir);
    return check_summary("test_heatmap");
}
