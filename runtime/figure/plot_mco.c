/* `tmcml plot`'s figure, drawn from its plan (plot_layout.c) and written. */
#include "plot_mco.h"

#include <math.h>
#include <string.h>

#include "colour.h"
#include "label.h"
#include "plot_plan.h"

const unsigned char plot_background_rgb[3] = {255, 255, 255};
const unsigned char plot_boundary_rgb[3] = {255, 255, 255};
const unsigned char plot_rule_rgb[3] = {150, 150, 150};
const unsigned char plot_curve_rgb[3] = {31, 84, 160};
static const unsigned char grid_rgb[3] = {232, 232, 232};

#define DASH_ON      6
#define DASH_OFF     4
#define CURVE_W      2  /* pixels */
#define MINOR_ROOM   40 /* pixels a decade needs before it gets ticks at 2..9 */
#define MINOR_TICK_W 3

static void text(const canvas *c, int x, int y, const char *s)
{
    label_draw(c, x, y, s, PLOT_SCALE, false, colour_ink_rgb);
}

static void text_up(const canvas *c, canvas_box b, const char *s)
{
    label_draw(c, b.x, b.y, s, PLOT_SCALE, true, colour_ink_rgb);
}

/* ---- panel 1: the map ------------------------------------------------------------ */

/* Column i's distance from the middle of a map w columns wide, in columns:
 * columns i and w-1-i are equally far (plot_mco.h), exactly. */
static int mirrored(int i, int w) { return i < w / 2 ? w / 2 - 1 - i : i - w / 2; }

static int bin_of(double x, double step, int n)
{
    int k = (int)floor(x / step);
    return k < 0 ? 0 : k >= n ? n - 1 : k;
}

/* Interfaces drawn: the layers' bottoms above the map's bottom edge. */
static bool interface_in_view(const mci_run *run, int k, double depth)
{
    double z = run->layers[k].z1;
    return z > 0 && z < depth * (1 - 1e-9);
}

/* Dashes run outwards from the middle, so the map stays mirror-symmetric. */
static void draw_interface(const canvas *c, canvas_box a, int y)
{
    for (int i = 0; i < a.w / 2; i++)
        if (mirrored(i, a.w) % (DASH_ON + DASH_OFF) < DASH_ON) {
            canvas_fill(c, a.x + i, y, 1, 1, plot_boundary_rgb);
            canvas_fill(c, a.x + a.w - 1 - i, y, 1, 1, plot_boundary_rgb);
        }
}

static void draw_map(const plot_plan *p, const canvas *c)
{
    const plot_layout *l = &p->lay;
    const canvas_box a = l->map.area;
    const mci_run *run = &p->m->run;
    double r_max = l->map.x_hi, depth = l->map.y_lo, span = l->bar_hi - l->bar_lo;
    for (int j = 0; j < a.h; j++) {
        int iz = bin_of((j + 0.5) * depth / a.h, run->dz, l->map_nz);
        for (int i = 0; i < a.w; i++) {
            int ir = bin_of((mirrored(i, a.w) + 0.5) * r_max / (a.w / 2), run->dr, l->map_nr);
            double v = p->map[(long)ir * l->map_nz + iz];
            unsigned char rgb[3];
            colour_map(v > 0 ? (log10(v) - l->bar_lo) / span : NAN, rgb);
            canvas_fill(c, a.x + i, a.y + j, 1, 1, rgb);
        }
    }
    for (int k = 1; k <= run->num_layers; k++)
        if (interface_in_view(run, k, depth))
            draw_interface(c, a, axis_pixel(run->layers[k].z1, 0, depth, a.y, a.h));
    canvas_ring(c, a, 1, colour_frame_rgb);
}

static void draw_bar(const plot_plan *p, const canvas *c)
{
    const plot_layout *l = &p->lay;
    if (l->kind == PLOT_MAP_NONE) {
        canvas_fill(c, l->bar.x, l->bar.y, l->bar.w, l->bar.h, colour_no_data_rgb);
        canvas_ring(c, l->bar, 1, colour_frame_rgb);
    } else {
        colour_bar_draw(c, l->bar, colour_frame_rgb);
    }
    for (int i = 0; i < p->bar.n; i++) {
        int y = axis_pixel(p->bar.value[i], l->bar_hi, l->bar_lo, l->bar.y, l->bar.h);
        canvas_fill(c, l->bar.x + l->bar.w + 1, y - 1, PLOT_TICK, 2, colour_frame_rgb);
        text(c, l->bar_ticks.x, y - PLOT_TEXT_H / 2, p->bar.text[i]);
    }
    text_up(c, l->bar_title, p->bar_title);
}

/* ---- axes ------------------------------------------------------------------------- */

static int x_of(const plot_panel *q, double v)
{
    return axis_pixel(v, q->x_lo, q->x_hi, q->area.x, q->area.w);
}

static int y_of(const plot_panel *q, double v)
{
    return axis_pixel(v, q->y_hi, q->y_lo, q->area.y, q->area.h);
}

/* Light rules at the ticks, under the data. */
static void draw_grid(const canvas *c, const plot_panel *q, const axis_ticks *x,
                      const axis_ticks *y)
{
    for (int i = 0; i < x->n; i++)
        canvas_fill(c, x_of(q, x->value[i]), q->area.y, 1, q->area.h, grid_rgb);
    for (int i = 0; i < y->n; i++)
        canvas_fill(c, q->area.x, y_of(q, y->value[i]), q->area.w, 1, grid_rgb);
}

static void draw_x_axis(const canvas *c, const plot_panel *q, const axis_ticks *t)
{
    for (int i = 0; i < t->n; i++) {
        int x = x_of(q, t->value[i]), w = label_width(t->text[i], PLOT_SCALE);
        canvas_fill(c, x - 1 + (x > q->area.x), q->area.y + q->area.h + 1, 2, PLOT_TICK,
                    colour_frame_rgb);
        text(c, x - w / 2, q->x_ticks.y, t->text[i]);
    }
}

/* Ticks at 2..9 times each decade of a log axis, where a decade has room. */
static void draw_minor_ticks(const canvas *c, const plot_panel *q)
{
    if (q->area.h / (q->y_hi - q->y_lo) < MINOR_ROOM)
        return;
    for (int k = (int)floor(q->y_lo); k < q->y_hi; k++)
        for (int m = 2; m <= 9; m++) {
            double v = k + log10(m);
            if (v > q->y_lo && v < q->y_hi)
                canvas_fill(c, q->area.x - 1 - MINOR_TICK_W, y_of(q, v), MINOR_TICK_W, 1,
                            colour_frame_rgb);
        }
}

static void draw_y_axis(const canvas *c, const plot_panel *q, const axis_ticks *t)
{
    for (int i = 0; i < t->n; i++) {
        int y = y_of(q, t->value[i]), w = label_width(t->text[i], PLOT_SCALE);
        canvas_fill(c, q->area.x - 1 - PLOT_TICK, y - 1 + (y > q->area.y), PLOT_TICK, 2,
                    colour_frame_rgb);
        text(c, q->y_ticks.x + q->y_ticks.w - w, y - PLOT_TEXT_H / 2, t->text[i]);
    }
}

static void draw_titles(const canvas *c, const plot_panel *q, const char *title,
                        const char *x_title, const char *y_title)
{
    text(c, q->title.x, q->title.y, title);
    text(c, q->x_title.x, q->x_title.y, x_title);
    text_up(c, q->y_title, y_title);
}

/* ---- panels 2 and 3: curves on log axes --------------------------------------------- */

/* Bin i of v at (i + 0.5) * step; neighbours in the axis's range joined.
 * The pen reaches one pixel right of and below each point: the frame,
 * drawn after, covers what falls on it.
 * Values below it (zero, or beyond the decades shown) leave a gap rather
 * than a line along the bottom. */
static void draw_curve(const canvas *c, const plot_panel *q, const double *v, int n, double step)
{
    int px = 0, py = 0;
    bool joined = false;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0 && isfinite(v[i]) && log10(v[i]) >= q->y_lo)) {
            joined = false;
            continue;
        }
        int x = x_of(q, (i + 0.5) * step), y = y_of(q, log10(v[i]));
        canvas_line(c, joined ? px : x, joined ? py : y, x, y, CURVE_W, plot_curve_rgb);
        px = x, py = y, joined = true;
    }
}

/* ---- the bands of the curves' errors (plot_mco.h) ----------------------------- */

/* Bin i's band in rows: from v + e down to v - e, or to the area's bottom
 * row where v - e is not on the axis; false where the curve has no point
 * or e is unknown. */
static bool band_rows(const plot_panel *q, double v, double e, int *top, int *bottom)
{
    if (!(v > 0 && isfinite(v) && log10(v) >= q->y_lo) || !(e >= 0 && isfinite(e)))
        return false;
    double lo = v - e;
    *top = y_of(q, log10(v + e));
    *bottom = lo > 0 && log10(lo) >= q->y_lo ? y_of(q, log10(lo)) : q->area.y + q->area.h - 1;
    return true;
}

static void band_column(const canvas *c, int x, int top, int bottom, const unsigned char rgb[3])
{
    canvas_fill(c, x, top, 1, bottom - top + 1, rgb);
}

/* The columns from x0 (rows t0..b0) to x1 (t1..b1), the rows between
 * interpolated linearly; one column spans both when x0 == x1. */
static void band_join(const canvas *c, int x0, int t0, int b0, int x1, int t1, int b1,
                      const unsigned char rgb[3])
{
    if (x0 == x1) {
        band_column(c, x0, t0 < t1 ? t0 : t1, b0 > b1 ? b0 : b1, rgb);
        return;
    }
    for (int x = x0; x <= x1; x++) {
        double f = (double)(x - x0) / (x1 - x0);
        band_column(c, x, (int)lround(t0 + f * (t1 - t0)), (int)lround(b0 + f * (b1 - b0)), rgb);
    }
}

static void draw_band(const canvas *c, const plot_panel *q, const double *v, const double *e, int n,
                      double step)
{
    unsigned char rgb[3];
    colour_light(plot_curve_rgb, rgb);
    int px = 0, pt = 0, pb = 0;
    bool joined = false;
    for (int i = 0; i < n; i++) {
        int top, bottom;
        if (!band_rows(q, v[i], e[i], &top, &bottom)) {
            joined = false;
            continue;
        }
        int x = x_of(q, (i + 0.5) * step);
        if (joined)
            band_join(c, px, pt, pb, x, top, bottom, rgb);
        else
            band_column(c, x, top, bottom, rgb);
        px = x, pt = top, pb = bottom, joined = true;
    }
}

static void draw_log_panel(const canvas *c, const plot_panel *q, const axis_ticks *x,
                           const axis_ticks *y, bool empty)
{
    draw_grid(c, q, x, y);
    draw_x_axis(c, q, x);
    if (empty) {
        const char *s = "all zero in this file";
        text(c, q->area.x + (q->area.w - label_width(s, PLOT_SCALE)) / 2,
             q->area.y + (q->area.h - PLOT_TEXT_H) / 2, s);
        return;
    }
    draw_y_axis(c, q, y);
    draw_minor_ticks(c, q);
}

static void draw_rd(const plot_plan *p, const canvas *c)
{
    const plot_panel *q = &p->lay.rd;
    draw_log_panel(c, q, &p->rd_x, &p->rd_y, p->rd_empty);
    if (!p->rd_empty && p->rd_err)
        draw_band(c, q, p->m->result.rd_r, p->rd_err, p->lay.map_nr, p->m->run.dr);
    if (!p->rd_empty)
        draw_curve(c, q, p->m->result.rd_r, p->lay.map_nr, p->m->run.dr);
    canvas_ring(c, q->area, 1, colour_frame_rgb); /* last: over the pen's edge */
    draw_titles(c, q, p->rd_title, "r [cm]", p->rd_y_title);
}

static void draw_az(const plot_plan *p, const canvas *c)
{
    const plot_panel *q = &p->lay.az;
    const mci_run *run = &p->m->run;
    draw_log_panel(c, q, &p->az_x, &p->az_y, p->az_empty);
    if (!p->az_empty && p->az_err)
        draw_band(c, q, p->m->result.a_z, p->az_err, p->lay.map_nz, run->dz);
    for (int k = 1; k <= run->num_layers; k++)
        if (interface_in_view(run, k, q->x_hi))
            canvas_dashed_vline(c, x_of(q, run->layers[k].z1), q->area.y, q->area.y + q->area.h - 1,
                                DASH_ON, DASH_OFF, plot_rule_rgb);
    if (!p->az_empty)
        draw_curve(c, q, p->m->result.a_z, p->lay.map_nz, run->dz);
    canvas_ring(c, q->area, 1, colour_frame_rgb);
    draw_titles(c, q, p->az_title, "z [cm]", p->az_y_title);
}

/* ---- the figure ------------------------------------------------------------------ */

static void draw(const plot_plan *p, const canvas *c)
{
    const plot_layout *l = &p->lay;
    text(c, l->title.x, l->title.y, p->title);
    draw_map(p, c);
    draw_x_axis(c, &l->map, &p->map_x);
    draw_y_axis(c, &l->map, &p->map_y);
    draw_titles(c, &l->map, p->map_title, "r [cm]", "z [cm]");
    draw_bar(p, c);
    text(c, l->note.x, l->note.y, p->note);
    if (p->band_note[0])
        text(c, l->band_note.x, l->band_note.y, p->band_note);
    draw_rd(p, c);
    draw_az(p, c);
}

bool plot_mco_write_png_errors(const char *path, const mco_data *m, const double *const *errors,
                               const char *name, tm_error *err)
{
    if (!path || !*path) {
        error_set(err, NULL, 0, "plot: no output path");
        return false;
    }
    plot_plan p;
    if (!plot_plan_make(m, errors, name, path, &p, err))
        return false;
    canvas c;
    bool ok = canvas_init(&c, p.lay.width, p.lay.height, plot_background_rgb, path, err);
    if (ok) {
        draw(&p, &c);
        ok = canvas_write_png(&c, path, err);
    }
    canvas_free(&c);
    plot_plan_free(&p);
    return ok;
}

bool plot_mco_write_png(const char *path, const mco_data *m, const char *name, tm_error *err)
{
    return plot_mco_write_png_errors(path, m, NULL, name, err);
}
