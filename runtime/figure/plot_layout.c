/* `tmcml plot`'s figure, planned: which bins are shown, the map's values
 * and colour range, the axes' ranges and ticks, every text and where
 * everything goes (plot_plan.h).  Nothing is drawn here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label.h"
#include "output_arrays.h"
#include "plot_plan.h"

#define MARGIN         24
#define TICK_GAP       4   /* tick mark to its label */
#define TITLE_GAP      14  /* a panel's title to its area */
#define AXIS_GAP       10  /* tick labels to the axis title */
#define MAP_W          800 /* even: the map is mirrored about its middle */
#define MAP_H_MIN      260
#define MAP_H_MAX      440
#define BAR_GAP        28
#define BAR_W          22
#define PANEL_H        300
#define ROW_GAP        40 /* the map's note to the lower panels' titles */
#define NOTE_LINE_GAP  8  /* the note to the bands' line under it */
#define PANEL_GAP      56 /* panel 2's right edge to panel 3's axis title */
#define MAP_DECADES    8  /* the colour scale spans at most this many decades... */
#define LOG_DECADES    10 /* ...and a log axis this many */
#define NAME_MAX_SHOWN 48 /* characters of the file's name in the title */

/* ---- what is shown -------------------------------------------------------------- */

static double tissue_bottom(const mci_run *run) { return run->layers[run->num_layers].z1; }

/* The bins that are not MCML's catch-all for everything beyond the grid
 * (the last r bin; the last z bin when the grid ends inside the tissue), at
 * depths inside the tissue. */
static void shown_bins(const mci_run *run, int *nr, int *nz)
{
    *nr = run->nr > 1 ? run->nr - 1 : 1;
    double bottom = tissue_bottom(run);
    if (run->nz * run->dz >= bottom * (1 - 1e-9)) {
        int n = (int)ceil(bottom / run->dz - 1e-9);
        *nz = n < 1 ? 1 : n > run->nz ? run->nz : n;
    } else {
        *nz = run->nz > 1 ? run->nz - 1 : 1;
    }
}

/* The layer (1..num_layers) holding depth z; 0 below the tissue. */
static int layer_at(const mci_run *run, double z)
{
    for (int i = 1; i <= run->num_layers; i++)
        if (z < run->layers[i].z1)
            return i;
    return 0;
}

/* Fluence needs mu_a: a layer in view without absorption (glass, or
 * mu_a = 0) has none, and then the map is A_rz itself. */
static plot_map_kind map_kind(const mco_data *m, double depth, int *zero_layer)
{
    const mcml_result *r = &m->result;
    bool any = false;
    for (long i = 0; i < (long)r->nr * r->nz && !any; i++)
        any = r->a_rz[i] > 0;
    if (!any)
        return PLOT_MAP_NONE;
    for (int i = 1; i <= m->run.num_layers; i++)
        if (m->run.layers[i].z0 < depth && m->run.layers[i].mua == 0) {
            *zero_layer = i;
            return PLOT_MAP_ABSORPTION;
        }
    return PLOT_MAP_FLUENCE;
}

static void fill_map(plot_plan *p)
{
    const mci_run *run = &p->m->run;
    const mcml_result *r = &p->m->result;
    for (int ir = 0; ir < p->lay.map_nr; ir++)
        for (int iz = 0; iz < p->lay.map_nz; iz++) {
            double a = r->a_rz[(long)ir * r->nz + iz];
            if (p->lay.kind == PLOT_MAP_FLUENCE) {
                int layer = layer_at(run, (iz + 0.5) * run->dz);
                a = layer ? a / run->layers[layer].mua : 0;
            }
            p->map[(long)ir * p->lay.map_nz + iz] = a;
        }
}

/* log10 of the smallest and largest positive value of v[0..n); false when
 * there is none. */
static bool positive_range(const double *v, long n, double *lo, double *hi)
{
    double a = INFINITY, b = 0;
    for (long i = 0; i < n; i++)
        if (v[i] > 0 && isfinite(v[i])) {
            a = fmin(a, v[i]);
            b = fmax(b, v[i]);
        }
    if (!(b > 0))
        return false;
    *lo = log10(a);
    *hi = log10(b);
    return true;
}

/* A log axis from whole decade to whole decade around v's positive values;
 * false (the panel says so) when there is none. */
static bool log_axis(const double *v, long n, double *lo, double *hi)
{
    if (!positive_range(v, n, lo, hi))
        return false;
    *hi = ceil(*hi - 1e-9);
    *lo = floor(*lo + 1e-9);
    if (*lo < *hi - LOG_DECADES)
        *lo = *hi - LOG_DECADES;
    if (*lo >= *hi)
        *lo = *hi - 1;
    return true;
}

/* The colour bar spans the map's values exactly, at most MAP_DECADES. */
static void colour_range(plot_plan *p)
{
    plot_layout *l = &p->lay;
    double lo, hi;
    if (l->kind == PLOT_MAP_NONE ||
        !positive_range(p->map, (long)l->map_nr * l->map_nz, &lo, &hi)) {
        l->bar_lo = 0, l->bar_hi = 1;
        return;
    }
    l->bar_hi = hi;
    l->bar_lo = lo > hi - MAP_DECADES ? lo : hi - MAP_DECADES;
    if (l->bar_hi - l->bar_lo < 1e-6) /* all equal: the top colour */
        l->bar_lo = l->bar_hi - 1;
}

static bool plan_values(plot_plan *p, const char *path, tm_error *err)
{
    plot_layout *l = &p->lay;
    const mci_run *run = &p->m->run;
    shown_bins(run, &l->map_nr, &l->map_nz);
    l->kind = map_kind(p->m, l->map_nz * run->dz, &p->zero_layer);
    p->map = malloc((size_t)l->map_nr * (size_t)l->map_nz * sizeof *p->map);
    if (!p->map) {
        error_set(err, path, 0, "plot: out of memory for a %d x %d map", l->map_nr, l->map_nz);
        return false;
    }
    fill_map(p);
    colour_range(p);
    /* The map: r across from -R to R, z down from 0; the curves from 0. */
    l->map.x_hi = l->map_nr * run->dr;
    l->map.x_lo = -l->map.x_hi;
    l->map.y_lo = l->map_nz * run->dz;
    l->map.y_hi = 0;
    l->rd.x_hi = l->map.x_hi;
    l->az.x_hi = l->map.y_lo;
    p->rd_empty = !log_axis(p->m->result.rd_r, l->map_nr, &l->rd.y_lo, &l->rd.y_hi);
    p->az_empty = !log_axis(p->m->result.a_z, l->map_nz, &l->az.y_lo, &l->az.y_hi);
    return true;
}

/* ---- texts ----------------------------------------------------------------------- */

/* The file's name for the title: its last NAME_MAX_SHOWN characters, so a
 * long name does not stretch the figure. */
static const char *shown_name(const char *name, char *buf, size_t size)
{
    if (!name || !*name)
        return "(unnamed)";
    size_t n = strlen(name);
    if (n <= NAME_MAX_SHOWN)
        return name;
    snprintf(buf, size, "...%s", name + n - (NAME_MAX_SHOWN - 3));
    return buf;
}

static void plan_texts(plot_plan *p, const char *name)
{
    const mco_data *m = p->m;
    char rd[32], a[32], tt[32], shortened[NAME_MAX_SHOWN + 1];
    label_format_number(m->result.rd, 4, rd, sizeof rd);
    label_format_number(m->result.a, 4, a, sizeof a);
    label_format_number(m->result.tt, 4, tt, sizeof tt);
    snprintf(p->title, sizeof p->title, "%s: %lld photons, %d layer%s;  R_{d} %s,  A %s,  T_{t} %s",
             shown_name(name, shortened, sizeof shortened), (long long)m->run.photons,
             m->run.num_layers, m->run.num_layers == 1 ? "" : "s", rd, a, tt);
    switch (p->lay.kind) {
    case PLOT_MAP_FLUENCE:
        snprintf(p->map_title, sizeof p->map_title,
                 "Fluence A_{rz}/μ_{a} [J cm^{-2} per J incident], mirrored about r = 0");
        snprintf(p->bar_title, sizeof p->bar_title, "fluence [cm^{-2}]");
        break;
    case PLOT_MAP_ABSORPTION:
        snprintf(p->map_title, sizeof p->map_title,
                 "Absorption A_{rz} (μ_{a} = 0 in layer %d: no fluence), mirrored about r = 0",
                 p->zero_layer);
        snprintf(p->bar_title, sizeof p->bar_title, "A_{rz} [cm^{-3}]");
        break;
    case PLOT_MAP_NONE:
        snprintf(p->map_title, sizeof p->map_title,
                 "No map: A_{rz} is all zero in this file (run with -A?)");
        snprintf(p->bar_title, sizeof p->bar_title, "no data");
        break;
    }
    snprintf(p->note, sizeof p->note, "%sgrey: %s",
             p->m->run.num_layers > 1 ? "dashed: layer interfaces    " : "",
             p->lay.kind == PLOT_MAP_NONE ? "no data" : "no absorption scored");
    snprintf(p->band_note, sizeof p->band_note, "%s",
             p->rd_err || p->az_err ? "shaded: +-1 standard error" : "");
    snprintf(p->rd_title, sizeof p->rd_title, "Diffuse reflectance R_{d}(r)");
    snprintf(p->rd_y_title, sizeof p->rd_y_title, "R_{d} [cm^{-2}]");
    snprintf(p->az_title, sizeof p->az_title, "Absorption A(z)");
    snprintf(p->az_y_title, sizeof p->az_y_title, "A [cm^{-1}]");
}

/* ---- ticks and boxes ------------------------------------------------------------ */

static int widest(const axis_ticks *t)
{
    int w = 0;
    for (int i = 0; i < t->n; i++) {
        int lw = label_width(t->text[i], PLOT_SCALE);
        w = lw > w ? lw : w;
    }
    return w;
}

static canvas_box box(int x, int y, int w, int h) { return (canvas_box){x, y, w, h}; }

static int text_w(const char *s) { return label_width(s, PLOT_SCALE); }

/* The map's height follows the grid's aspect, within bounds: a 4 cm wide,
 * 0.8 cm deep skin model is not drawn as a sliver. */
static int map_height(const plot_layout *l)
{
    double h = MAP_W * l->map.y_lo / (l->map.x_hi - l->map.x_lo);
    return h < MAP_H_MIN ? MAP_H_MIN : h > MAP_H_MAX ? MAP_H_MAX : (int)lround(h);
}

/* Decades where the bar spans at least two, else its two ends in numbers. */
static void bar_ticks(plot_plan *p, int len)
{
    const plot_layout *l = &p->lay;
    p->bar.n = 0;
    if (l->kind == PLOT_MAP_NONE)
        return;
    axis_decade_ticks(l->bar_lo, l->bar_hi, len, false, PLOT_SCALE, &p->bar);
    if (p->bar.n >= 2)
        return;
    p->bar.n = 2;
    p->bar.value[0] = l->bar_lo, p->bar.value[1] = l->bar_hi;
    for (int i = 0; i < 2; i++)
        label_format_number(pow(10, p->bar.value[i]), 3, p->bar.text[i], AXIS_LABEL_MAX);
}

/* Boxes of a panel's texts, its area placed; y_w is its tick labels' width. */
static void panel_boxes(plot_panel *q, const char *title, const char *x_title, const char *y_title,
                        int y_w)
{
    const canvas_box *a = &q->area;
    int below = a->y + a->h + 1 + PLOT_TICK + TICK_GAP;
    q->title = box(a->x + (a->w - text_w(title)) / 2, a->y - TITLE_GAP - PLOT_TEXT_H, text_w(title),
                   PLOT_TEXT_H);
    q->x_ticks = box(a->x, below, 0, PLOT_TEXT_H); /* x_tick_box spans the labels */
    q->x_title = box(a->x + (a->w - text_w(x_title)) / 2, below + PLOT_TEXT_H + AXIS_GAP,
                     text_w(x_title), PLOT_TEXT_H);
    q->y_ticks =
        box(a->x - 1 - PLOT_TICK - TICK_GAP - y_w, a->y - PLOT_TEXT_H / 2, y_w, a->h + PLOT_TEXT_H);
    q->y_title = box(q->y_ticks.x - AXIS_GAP - PLOT_TEXT_H, a->y + (a->h - text_w(y_title)) / 2,
                     PLOT_TEXT_H, text_w(y_title));
}

/* The x tick labels' box, once the ticks are known: from the first label's
 * left edge to the last one's right edge, each centred on its tick. */
static void x_tick_box(plot_panel *q, const axis_ticks *t)
{
    int lo = q->area.x, hi = q->area.x;
    for (int i = 0; i < t->n; i++) {
        int x = axis_pixel(t->value[i], q->x_lo, q->x_hi, q->area.x, q->area.w);
        int w = text_w(t->text[i]);
        lo = i == 0 || x - w / 2 < lo ? x - w / 2 : lo;
        hi = i == 0 || x - w / 2 + w > hi ? x - w / 2 + w : hi;
    }
    q->x_ticks.x = lo;
    q->x_ticks.w = hi - lo;
}

/* Room left of an area for its y title and tick labels of width y_w. */
static int left_room(int y_w) { return PLOT_TEXT_H + AXIS_GAP + y_w + TICK_GAP + PLOT_TICK + 1; }

/* The vertical axes' ticks: their labels' widths place everything else. */
static void plan_y_ticks(plot_plan *p, int map_h)
{
    const plot_layout *l = &p->lay;
    axis_linear_ticks(0, l->map.y_lo, map_h, false, PLOT_SCALE, &p->map_y);
    bar_ticks(p, map_h);
    p->rd_y.n = p->az_y.n = 0;
    if (!p->rd_empty)
        axis_decade_ticks(l->rd.y_lo, l->rd.y_hi, PANEL_H, false, PLOT_SCALE, &p->rd_y);
    if (!p->az_empty)
        axis_decade_ticks(l->az.y_lo, l->az.y_hi, PANEL_H, false, PLOT_SCALE, &p->az_y);
}

/* The title, the map and its colour bar, left edge x0; sets the width. */
static void plan_top_row(plot_plan *p, int x0, int map_h)
{
    plot_layout *l = &p->lay;
    int bar_w = widest(&p->bar);
    l->title = box(MARGIN, MARGIN, text_w(p->title), PLOT_TEXT_H);
    int map_y = MARGIN + PLOT_TEXT_H + 22 + PLOT_TEXT_H + TITLE_GAP;
    l->map.area = box(x0, map_y, MAP_W, map_h);
    l->bar = box(x0 + MAP_W + BAR_GAP, map_y, BAR_W, map_h);
    l->bar_ticks = box(l->bar.x + BAR_W + 1 + PLOT_TICK + TICK_GAP, map_y - PLOT_TEXT_H / 2, bar_w,
                       map_h + PLOT_TEXT_H);
    int bar_title_h = text_w(p->bar_title);
    l->bar_title = box(l->bar_ticks.x + bar_w + AXIS_GAP + 4, map_y + (map_h - bar_title_h) / 2,
                       PLOT_TEXT_H, bar_title_h);
    l->width = l->bar_title.x + PLOT_TEXT_H + MARGIN;
    if (l->width < 2 * MARGIN + l->title.w)
        l->width = 2 * MARGIN + l->title.w;
    l->title.x = (l->width - l->title.w) / 2;
    panel_boxes(&l->map, p->map_title, "r [cm]", "z [cm]", widest(&p->map_y));
    l->note = box(x0 + (MAP_W - text_w(p->note)) / 2, l->map.x_title.y + PLOT_TEXT_H + 12,
                  text_w(p->note), PLOT_TEXT_H);
    if (p->band_note[0])
        l->band_note =
            box(x0 + (MAP_W - text_w(p->band_note)) / 2, l->note.y + PLOT_TEXT_H + NOTE_LINE_GAP,
                text_w(p->band_note), PLOT_TEXT_H);
}

/* R_d(r) from x0 and A(z) ending under the colour bar's title, sharing the
 * width; sets the height.  Returns the panels' width. */
static int plan_bottom_row(plot_plan *p, int x0)
{
    plot_layout *l = &p->lay;
    int az_left = left_room(widest(&p->az_y));
    int pw = (l->width - MARGIN - x0 - PANEL_GAP - az_left) / 2;
    int notes_end = (l->band_note.w ? l->band_note.y : l->note.y) + PLOT_TEXT_H;
    int panel_y = notes_end + ROW_GAP + PLOT_TEXT_H + TITLE_GAP;
    l->rd.area = box(x0, panel_y, pw, PANEL_H);
    l->az.area = box(x0 + pw + PANEL_GAP + az_left, panel_y, pw, PANEL_H);
    panel_boxes(&l->rd, p->rd_title, "r [cm]", p->rd_y_title, widest(&p->rd_y));
    panel_boxes(&l->az, p->az_title, "z [cm]", p->az_y_title, widest(&p->az_y));
    l->height = l->rd.x_title.y + PLOT_TEXT_H + MARGIN;
    return pw;
}

static void plan_boxes(plot_plan *p)
{
    plot_layout *l = &p->lay;
    int map_h = map_height(l);
    plan_y_ticks(p, map_h);
    /* The map and R_d(r) share their left edge, room made for both labels. */
    int map_y_w = widest(&p->map_y), rd_y_w = widest(&p->rd_y);
    int x0 = MARGIN + left_room(map_y_w > rd_y_w ? map_y_w : rd_y_w);
    plan_top_row(p, x0, map_h);
    int pw = plan_bottom_row(p, x0);
    axis_linear_ticks(l->map.x_lo, l->map.x_hi, MAP_W, true, PLOT_SCALE, &p->map_x);
    axis_linear_ticks(l->rd.x_lo, l->rd.x_hi, pw, true, PLOT_SCALE, &p->rd_x);
    axis_linear_ticks(l->az.x_lo, l->az.x_hi, pw, true, PLOT_SCALE, &p->az_x);
    x_tick_box(&l->map, &p->map_x);
    x_tick_box(&l->rd, &p->rd_x);
    x_tick_box(&l->az, &p->az_x);
}

/* ---- the plan ------------------------------------------------------------------ */

static bool check_args(const mco_data *m, const char *path, tm_error *err)
{
    const mcml_result *r = m ? &m->result : NULL;
    if (!m || !m->run.layers || m->run.num_layers < 1 || !r->a_rz || !r->rd_r || !r->a_z) {
        error_set(err, path, 0, "plot: no results to draw");
        return false;
    }
    if (r->nr != m->run.nr || r->nz != m->run.nz || r->nr < 1 || r->nz < 1) {
        error_set(err, path, 0, "plot: the results' grid (%d x %d) is not the input's (%d x %d)",
                  r->nr, r->nz, m->run.nr, m->run.nz);
        return false;
    }
    if (!(m->run.dr > 0) || !(m->run.dz > 0) || !isfinite(m->run.dr) || !isfinite(m->run.dz)) {
        error_set(err, path, 0, "plot: the grid's steps must be positive (dz = %g, dr = %g)",
                  m->run.dz, m->run.dr);
        return false;
    }
    return true;
}

/* The error of the row named name, where errors has it. */
static const double *row_errors(const double *const *errors, const char *name)
{
    return errors ? errors[output_by_name(name) - output_table] : NULL;
}

bool plot_plan_make(const mco_data *m, const double *const *errors, const char *name,
                    const char *path, plot_plan *p, tm_error *err)
{
    memset(p, 0, sizeof *p);
    if (!check_args(m, path, err))
        return false;
    p->m = m;
    p->rd_err = row_errors(errors, "Rd_r");
    p->az_err = row_errors(errors, "A_z");
    if (!plan_values(p, path, err))
        return false;
    plan_texts(p, name);
    plan_boxes(p);
    return true;
}

void plot_plan_free(plot_plan *p)
{
    free(p->map);
    p->map = NULL;
}

bool plot_layout_of_errors(const mco_data *m, const double *const *errors, const char *name,
                           plot_layout *layout, tm_error *err)
{
    plot_plan p;
    if (!plot_plan_make(m, errors, name, NULL, &p, err))
        return false;
    *layout = p.lay;
    plot_plan_free(&p);
    return true;
}

bool plot_layout_of(const mco_data *m, const char *name, plot_layout *layout, tm_error *err)
{
    return plot_layout_of_errors(m, NULL, name, layout, err);
}
