#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "colour.h"
#include "font5x7.h"
#include "label.h"

const unsigned char heatmap_background_rgb[3] = {255, 255, 255};
const unsigned char heatmap_hatch_rgb[3] = {120, 120, 120};
const unsigned char heatmap_mark_dark_rgb[3] = {0, 0, 0};
const unsigned char heatmap_mark_light_rgb[3] = {255, 255, 255};

#define SCALE         2 /* every text is the 5x7 font doubled */
#define TEXT_H        (FONT5X7_ROWS * SCALE)
#define MARGIN        16
#define GAP           12 /* between stacked text lines */
#define NOTE_GAP      20 /* sets the note apart from the axis */
#define TICK          6  /* length of tick marks */
#define BAR_GAP       28 /* plot to colour bar */
#define BAR_W         24
#define HATCH         6 /* period of the unmeasured cells' hatch */
#define LABEL_MAX     32
#define BAR_TICKS_MAX 6
#define TOP           (MARGIN + TEXT_H + 18)                            /* image top to plot top */
#define BOTTOM        (TICK + 4 + 3 * TEXT_H + GAP + NOTE_GAP + MARGIN) /* plot bottom to image bottom */

/* ---- the figure room's colour map and numbers, under the heat map's names ---- */

void heatmap_colour(double t, unsigned char rgb[3]) { colour_map(t, rgb); }

void heatmap_format_number(double v, int digits, char *buf, size_t size)
{
    label_format_number(v, digits, buf, size);
}

/* ---- values and their labels ----------------------------------------------- */

typedef struct value_range {
    double lo, hi; /* of the finite values */
    int finite, missing;
} value_range;

static value_range range_of(const heatmap *h)
{
    value_range r = {INFINITY, -INFINITY, 0, 0};
    for (int i = 0; i < h->nx * h->ny; i++) {
        double v = h->value[i];
        if (!isfinite(v)) {
            r.missing++;
            continue;
        }
        r.finite++;
        r.lo = fmin(r.lo, v);
        r.hi = fmax(r.hi, v);
    }
    return r;
}

/* Where v sits in the range, 0..1; NaN for an unmeasured value. */
static double range_t(const value_range *r, double v)
{
    if (!isfinite(v))
        return NAN;
    return r->hi > r->lo ? (v - r->lo) / (r->hi - r->lo) : 0.5;
}

/* Labels for n values, with as few digits (3 to 8) as keep neighbours that
 * differ in value distinct in text. */
static void format_series(const double *v, int n, char (*out)[LABEL_MAX])
{
    for (int digits = 3; digits <= 8; digits++) {
        bool distinct = true;
        for (int i = 0; i < n; i++) {
            heatmap_format_number(v[i], digits, out[i], LABEL_MAX);
            if (i > 0 && v[i] != v[i - 1] && strcmp(out[i], out[i - 1]) == 0)
                distinct = false;
        }
        if (distinct)
            return;
    }
}

static int widest(char (*labels)[LABEL_MAX], int n)
{
    int w = 0;
    for (int i = 0; i < n; i++) {
        int lw = font5x7_text_width(labels[i], SCALE);
        w = lw > w ? lw : w;
    }
    return w;
}

/* ---- the plan: layout and every text, decided before drawing --------------- */

typedef struct plan {
    const heatmap *h;
    value_range range;
    heatmap_layout lay;
    char (*x_text)[LABEL_MAX], (*y_text)[LABEL_MAX];
    char bar_text[BAR_TICKS_MAX][LABEL_MAX];
    double bar_value[BAR_TICKS_MAX];
    int bar_ticks;
    int x_stride, y_stride; /* label every stride-th column / row */
    char note[640];
} plan;

static const char *text_or(const char *text, const char *fallback)
{
    return text && *text ? text : fallback;
}

static bool has_mark(const heatmap *h) { return h->mark_ix >= 0 && h->mark_iy >= 0; }

static bool check_args(const heatmap *h, const char *path, tm_error *err)
{
    if (!h || !h->x || !h->y || !h->value) {
        error_set(err, path, 0, "heat map: missing %s",
                  !h          ? "description"
                  : !h->value ? "values"
                              : "axis values");
        return false;
    }
    if (h->nx < 1 || h->ny < 1 || h->nx > HEATMAP_MAX_CELLS || h->ny > HEATMAP_MAX_CELLS) {
        error_set(err, path, 0, "heat map: %d x %d cells, each count must be 1..%d", h->nx, h->ny,
                  HEATMAP_MAX_CELLS);
        return false;
    }
    if (has_mark(h) && (h->mark_ix >= h->nx || h->mark_iy >= h->ny)) {
        error_set(err, path, 0, "heat map: marked cell (%d, %d) outside the %d x %d grid",
                  h->mark_ix, h->mark_iy, h->nx, h->ny);
        return false;
    }
    return true;
}

/* Pixels per cell along an axis of n cells with budget pixels to share. */
static int cell_size(int n, int budget)
{
    if (budget > HEATMAP_PLOT_MAX)
        budget = HEATMAP_PLOT_MAX;
    int cell = budget / n;
    if (cell > HEATMAP_CELL_MAX)
        cell = HEATMAP_CELL_MAX;
    if (cell * n < HEATMAP_PLOT_MIN)
        cell = (HEATMAP_PLOT_MIN + n - 1) / n;
    return cell < 1 ? 1 : cell;
}

/* The colour bar's labelled values: ends and evenly spaced between, one
 * value when all are equal, none when nothing was measured. */
static void plan_bar_ticks(plan *p, int bar_h)
{
    const value_range *r = &p->range;
    if (r->finite == 0)
        p->bar_ticks = 0;
    else if (r->hi == r->lo) {
        p->bar_ticks = 1;
        p->bar_value[0] = r->lo;
    } else {
        int n = bar_h / 56 + 1;
        p->bar_ticks = n < 2 ? 2 : n > BAR_TICKS_MAX ? BAR_TICKS_MAX : n;
        for (int i = 0; i < p->bar_ticks; i++)
            p->bar_value[i] = r->lo + (r->hi - r->lo) * i / (p->bar_ticks - 1);
        p->bar_value[p->bar_ticks - 1] = r->hi; /* exactly, despite rounding */
    }
    format_series(p->bar_value, p->bar_ticks, p->bar_text);
    if (r->finite == 0)
        snprintf(p->bar_text[0], LABEL_MAX, "no data");
}

static void plan_note(plan *p)
{
    const heatmap *h = p->h;
    size_t n = 0;
    p->note[0] = '\0';
    if (has_mark(h)) {
        char xs[LABEL_MAX], ys[LABEL_MAX], vs[LABEL_MAX];
        heatmap_format_number(h->x[h->mark_ix], 6, xs, sizeof xs);
        heatmap_format_number(h->y[h->mark_iy], 6, ys, sizeof ys);
        heatmap_format_number(h->value[h->mark_iy * h->nx + h->mark_ix], 4, vs, sizeof vs);
        n += (size_t)snprintf(p->note, sizeof p->note, "outlined: %s %s, %s %s: %s%s%s",
                              text_or(h->x_label, "x"), xs, text_or(h->y_label, "y"), ys, vs,
                              h->value_label && *h->value_label ? " " : "",
                              text_or(h->value_label, ""));
    }
    if (n < sizeof p->note && p->range.missing)
        snprintf(p->note + n, sizeof p->note - n, "%s%s", n ? "    " : "",
                 p->range.finite ? "hatched: not measured" : "no measured values");
}

static void plan_free(plan *p)
{
    free(p->x_text);
    free(p->y_text);
    p->x_text = p->y_text = NULL;
}

/* Text of width w centred on [from, from + span), kept inside the image. */
static int centred(int from, int span, int w, int image)
{
    int x = from + (span - w) / 2;
    if (x + w > image - MARGIN)
        x = image - MARGIN - w;
    return x < MARGIN ? MARGIN : x;
}

static heatmap_box box(int x, int y, int w, int h) { return (heatmap_box){x, y, w, h}; }

/* The image and plot size once the labels' widths are known (the rule is
 * in heatmap.h; cell_h is already set). */
static void plan_size(plan *p, int x_w, int y_w, int bar_w)
{
    const heatmap *h = p->h;
    heatmap_layout *l = &p->lay;
    int left = MARGIN + TEXT_H + 10 + y_w + 6 + TICK;
    if (left < MARGIN + x_w / 2)
        left = MARGIN + x_w / 2;
    int right = BAR_GAP + BAR_W + TICK + 4 + bar_w + 14 + TEXT_H + MARGIN;
    l->cell_w = cell_size(h->nx, HEATMAP_SIDE_MAX - left - right);
    l->plot = box(left, TOP, h->nx * l->cell_w, h->ny * l->cell_h);
    l->width = left + l->plot.w + right;
    l->height = TOP + l->plot.h + BOTTOM;
    /* Wide enough for the horizontal texts, as far as the bound allows. */
    const char *lines[3] = {text_or(h->title, ""), text_or(h->x_label, ""), p->note};
    for (int i = 0; i < 3; i++) {
        int need = 2 * MARGIN + font5x7_text_width(lines[i], SCALE);
        if (l->width < need)
            l->width = need < HEATMAP_SIDE_MAX ? need : HEATMAP_SIDE_MAX;
    }
}

/* Where each text goes, around the plot placed by plan_size. */
static void plan_boxes(plan *p, int x_w, int y_w, int bar_w)
{
    const heatmap *h = p->h;
    heatmap_layout *l = &p->lay;
    const heatmap_box *pl = &l->plot;
    int title_w = font5x7_text_width(text_or(h->title, ""), SCALE);
    l->title = box(centred(pl->x, pl->w, title_w, l->width), MARGIN, title_w, TEXT_H);
    l->x_ticks = box(pl->x - x_w / 2, pl->y + pl->h + TICK + 4, pl->w + x_w, TEXT_H);
    l->y_ticks = box(pl->x - TICK - 6 - y_w, pl->y - TEXT_H / 2, y_w, pl->h + TEXT_H);
    int x_title_w = font5x7_text_width(text_or(h->x_label, ""), SCALE);
    l->x_title = box(centred(pl->x, pl->w, x_title_w, l->width), l->x_ticks.y + TEXT_H + GAP,
                     x_title_w, TEXT_H);
    int y_title_h = font5x7_text_width(text_or(h->y_label, ""), SCALE);
    l->y_title = box(MARGIN, pl->y + (pl->h - y_title_h) / 2, TEXT_H, y_title_h);
    l->bar = box(pl->x + pl->w + BAR_GAP, pl->y, BAR_W, pl->h);
    l->bar_ticks = box(l->bar.x + BAR_W + TICK + 4, pl->y - TEXT_H / 2, bar_w, pl->h + TEXT_H);
    int bar_title_h = font5x7_text_width(text_or(h->value_label, ""), SCALE);
    l->bar_title =
        box(l->bar_ticks.x + bar_w + 14, pl->y + (pl->h - bar_title_h) / 2, TEXT_H, bar_title_h);
    int note_w = font5x7_text_width(p->note, SCALE);
    l->note = box(centred(pl->x, pl->w, note_w, l->width), l->x_title.y + TEXT_H + NOTE_GAP, note_w,
                  TEXT_H);
}

static bool plan_make(const heatmap *h, const char *path, plan *p, tm_error *err)
{
    memset(p, 0, sizeof *p);
    if (!check_args(h, path, err))
        return false;
    p->h = h;
    p->range = range_of(h);
    p->x_text = calloc((size_t)h->nx, sizeof *p->x_text);
    p->y_text = calloc((size_t)h->ny, sizeof *p->y_text);
    if (!p->x_text || !p->y_text) {
        plan_free(p);
        error_set(err, path, 0, "heat map: out of memory");
        return false;
    }
    format_series(h->x, h->nx, p->x_text);
    format_series(h->y, h->ny, p->y_text);
    p->lay.cell_h = cell_size(h->ny, HEATMAP_SIDE_MAX - TOP - BOTTOM);
    plan_bar_ticks(p, h->ny * p->lay.cell_h);
    plan_note(p);
    int x_w = widest(p->x_text, h->nx), y_w = widest(p->y_text, h->ny);
    int bar_w = widest(p->bar_text, p->bar_ticks ? p->bar_ticks : 1);
    plan_size(p, x_w, y_w, bar_w);
    plan_boxes(p, x_w, y_w, bar_w);
    p->x_stride = (x_w + 8 + p->lay.cell_w - 1) / p->lay.cell_w;
    p->y_stride = (TEXT_H + 6 + p->lay.cell_h - 1) / p->lay.cell_h;
    return true;
}

bool heatmap_layout_of(const heatmap *h, heatmap_layout *layout, tm_error *err)
{
    plan p;
    if (!plan_make(h, NULL, &p, err))
        return false;
    *layout = p.lay;
    plan_free(&p);
    return true;
}

/* ---- drawing ------------------------------------------------------------------ */

static void text(const canvas *c, int x, int y, const char *s, bool rotated)
{
    font5x7_draw(c, x, y, s, SCALE, rotated, colour_ink_rgb);
}

static heatmap_box cell_box(const heatmap_layout *l, int ny, int ix, int iy)
{
    return box(l->plot.x + ix * l->cell_w, l->plot.y + (ny - 1 - iy) * l->cell_h, l->cell_w,
               l->cell_h);
}

/* The hatch follows image coordinates, so neighbouring cells join up. */
static void draw_hatched(const canvas *c, heatmap_box b)
{
    canvas_fill(c, b.x, b.y, b.w, b.h, heatmap_nan_rgb);
    for (int y = b.y; y < b.y + b.h; y++)
        for (int x = b.x; x < b.x + b.w; x++)
            if ((x + y) % HATCH == 0)
                canvas_fill(c, x, y, 1, 1, heatmap_hatch_rgb);
}

static void draw_cells(const plan *p, const canvas *c)
{
    const heatmap *h = p->h;
    for (int iy = 0; iy < h->ny; iy++)
        for (int ix = 0; ix < h->nx; ix++) {
            heatmap_box b = cell_box(&p->lay, h->ny, ix, iy);
            double t = range_t(&p->range, h->value[iy * h->nx + ix]);
            unsigned char rgb[3];
            heatmap_colour(t, rgb);
            if (isnan(t))
                draw_hatched(c, b);
            else
                canvas_fill(c, b.x, b.y, b.w, b.h, rgb);
        }
    canvas_ring(c, p->lay.plot, 1, colour_frame_rgb);
}

static void draw_axes(const plan *p, const canvas *c)
{
    const heatmap_layout *l = &p->lay;
    int below = l->plot.y + l->plot.h + 1;
    for (int ix = 0; ix < p->h->nx; ix += p->x_stride) {
        int cx = l->plot.x + ix * l->cell_w + l->cell_w / 2;
        int w = font5x7_text_width(p->x_text[ix], SCALE);
        canvas_fill(c, cx - 1, below, 2, TICK, colour_frame_rgb);
        text(c, cx - w / 2, l->x_ticks.y, p->x_text[ix], false);
    }
    for (int iy = 0; iy < p->h->ny; iy += p->y_stride) {
        int cy = l->plot.y + (p->h->ny - 1 - iy) * l->cell_h + l->cell_h / 2;
        int w = font5x7_text_width(p->y_text[iy], SCALE);
        canvas_fill(c, l->plot.x - 1 - TICK, cy - 1, TICK, 2, colour_frame_rgb);
        text(c, l->y_ticks.x + l->y_ticks.w - w, cy - TEXT_H / 2, p->y_text[iy], false);
    }
}

static void draw_bar(const plan *p, const canvas *c)
{
    const heatmap_box *b = &p->lay.bar;
    colour_bar_draw(c, *b, colour_frame_rgb);
    if (p->bar_ticks == 0)
        text(c, p->lay.bar_ticks.x, b->y + (b->h - TEXT_H) / 2, p->bar_text[0], false);
    for (int i = 0; i < p->bar_ticks; i++) {
        double t = range_t(&p->range, p->bar_value[i]);
        int cy = b->y + (int)lround((1.0 - t) * (b->h - 1));
        canvas_fill(c, b->x + b->w + 1, cy - 1, TICK, 2, colour_frame_rgb);
        text(c, p->lay.bar_ticks.x, cy - TEXT_H / 2, p->bar_text[i], false);
    }
}

static void draw_titles(const plan *p, const canvas *c)
{
    const heatmap *h = p->h;
    const heatmap_layout *l = &p->lay;
    text(c, l->title.x, l->title.y, text_or(h->title, ""), false);
    text(c, l->x_title.x, l->x_title.y, text_or(h->x_label, ""), false);
    text(c, l->y_title.x, l->y_title.y, text_or(h->y_label, ""), true);
    text(c, l->bar_title.x, l->bar_title.y, text_or(h->value_label, ""), true);
    text(c, l->note.x, l->note.y, p->note, false);
}

/* Dark, light, light, dark rings just outside the cell: visible on any
 * colour of the map and leaving the cell's own colour untouched. */
static void draw_mark(const plan *p, const canvas *c)
{
    if (!has_mark(p->h))
        return;
    heatmap_box b = cell_box(&p->lay, p->h->ny, p->h->mark_ix, p->h->mark_iy);
    canvas_ring(c, b, 1, heatmap_mark_dark_rgb);
    canvas_ring(c, b, 2, heatmap_mark_light_rgb);
    canvas_ring(c, b, 3, heatmap_mark_light_rgb);
    canvas_ring(c, b, 4, heatmap_mark_dark_rgb);
}

static bool render(const plan *p, canvas *c, const char *path, tm_error *err)
{
    if (!canvas_init(c, p->lay.width, p->lay.height, heatmap_background_rgb, path, err))
        return false;
    draw_cells(p, c);
    draw_axes(p, c);
    draw_bar(p, c);
    draw_titles(p, c);
    draw_mark(p, c);
    return true;
}

/* ---- the file ------------------------------------------------------------------ */

bool heatmap_write_png(const char *path, const heatmap *h, tm_error *err)
{
    if (!path || !*path) {
        error_set(err, NULL, 0, "heat map: no output path");
        return false;
    }
    plan p;
    if (!plan_make(h, path, &p, err))
        return false;
    canvas c = {NULL, 0, 0};
    bool ok = render(&p, &c, path, err) && canvas_write_png(&c, path, err);
    canvas_free(&c);
    plan_free(&p);
    return ok;
}
