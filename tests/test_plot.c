/* plot: `tmcml plot`'s figure read back.  The map shows each bin's fluence
 * in the colour map's colour at the place the documented geometry puts it,
 * mirror-symmetric about r = 0, brightest near the source; the interfaces
 * are dashed rows where the layout says; the colour bar runs monotonically;
 * R_d(r) and A(z) pass through their bins and R_d falls with r; every text
 * has ink and no two text boxes overlap.  Where standard errors are given,
 * each curve's band spans, in each bin's column, exactly the rows the
 * documented geometry gives (v - e cut at the axis's bottom), in the
 * curve's colour made light; without them no pixel has that colour and the
 * figure is the one drawn without errors, byte for byte.  Made-up results
 * cover zeros, the mu_a = 0 and all-zero (-A) fallbacks, errors larger than
 * their values and unknown ones, bad arguments and a write cut short (the
 * older figure stays).
 *
 *   test_plot                                   the checks on made-up results
 *   test_plot --figure FIG.png OUT.mco [--none] [--bands]  the checks on a
 *       figure that `tmcml plot` drew of OUT.mco (--none: it must be the -A
 *       figure; --bands: with the errors of the .npz beside OUT.mco, which
 *       must have them; else it must have no band) */
#include <dirent.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axis.h"
#include "check.h"
#include "png_image.h"
#include "colour.h"
#include "fs.h"
#include "label.h"
#include "mco.h"
#include "mco_stderr.h"
#include "plot_mco.h"

static char tmpdir[] = "/tmp/tmcml_test_plot.XXXXXX";

/* ---- the figure, checked against the results it shows ---------------------------- */

/* Computed here from plot_mco.h's documented geometry, not with the
 * writer's code. */
static int column_bin(const plot_layout *l, int i, double dr)
{
    int w = l->map.area.w, d = i < w / 2 ? w / 2 - 1 - i : i - w / 2;
    int ir = (int)floor((d + 0.5) * l->map.x_hi / (w / 2) / dr);
    return ir < l->map_nr ? ir : l->map_nr - 1;
}

static int row_bin(const plot_layout *l, int j, double dz)
{
    int iz = (int)floor((j + 0.5) * l->map.y_lo / l->map.area.h / dz);
    return iz < l->map_nz ? iz : l->map_nz - 1;
}

/* The value the map shows for bin (ir, iz): A_rz over the mu_a of the
 * layer holding the bin's centre, or A_rz itself. */
static double shown_value(const mco_data *m, const plot_layout *l, int ir, int iz)
{
    double a = m->result.a_rz[(size_t)ir * (size_t)m->result.nz + (size_t)iz];
    if (l->kind != PLOT_MAP_FLUENCE)
        return a;
    double z = (iz + 0.5) * m->run.dz;
    for (int k = 1; k <= m->run.num_layers; k++)
        if (z < m->run.layers[k].z1)
            return a / m->run.layers[k].mua;
    return 0;
}

/* Rows of the map holding an interface (1) or not (0). */
static char *interface_rows(const mco_data *m, const plot_layout *l)
{
    const canvas_box *a = &l->map.area;
    char *rows = calloc((size_t)a->h, 1);
    for (int k = 1; k <= m->run.num_layers; k++) {
        double z = m->run.layers[k].z1;
        if (z > 0 && z < l->map.y_lo * (1 - 1e-9))
            rows[axis_pixel(z, 0, l->map.y_lo, a->y, a->h) - a->y] = 1;
    }
    return rows;
}

static void check_map(const image *img, const plot_layout *l, const mco_data *m)
{
    const canvas_box *a = &l->map.area;
    char *rows = interface_rows(m, l);
    int asym = 0, wrong = 0, interfaces = 0;
    double span = l->bar_hi - l->bar_lo;
    for (int j = 0; j < a->h; j++) {
        int white = 0;
        for (int i = 0; i < a->w; i++) {
            const unsigned char *p = px(img, a->x + i, a->y + j);
            asym += i < a->w / 2 && !same(p, px(img, a->x + a->w - 1 - i, a->y + j));
            white += same(p, plot_boundary_rgb);
            if (rows[j])
                continue;
            double v = shown_value(m, l, column_bin(l, i, m->run.dr), row_bin(l, j, m->run.dz));
            unsigned char want[3];
            colour_map(v > 0 && l->kind != PLOT_MAP_NONE ? (log10(v) - l->bar_lo) / span : NAN,
                       want);
            if (!same(p, want) && wrong++ < 5)
                fprintf(stderr, "map pixel (%d, %d): %d,%d,%d, want %d,%d,%d\n", i, j, p[0], p[1],
                        p[2], want[0], want[1], want[2]);
        }
        /* Dashed interfaces cover more than half their row; elsewhere the
         * map has no white at all (the colour map never reaches it). */
        if (rows[j]) {
            interfaces++;
            CHECK_MSG(white > a->w / 2, "interface row %d: %d white pixels", j, white);
        } else {
            CHECK_MSG(white == 0, "row %d: %d white pixels, no interface there", j, white);
        }
    }
    CHECK_MSG(asym == 0, "map not mirror-symmetric: %d pixels differ", asym);
    CHECK_MSG(wrong == 0, "%d map pixels not the colour of their bin", wrong);
    int want_interfaces = 0;
    for (int j = 0; j < a->h; j++)
        want_interfaces += rows[j];
    CHECK(interfaces == want_interfaces);
    free(rows);
}

/* Near the source the map is at the top of the colour map, far away low. */
static void check_source_bright(const image *img, const plot_layout *l)
{
    const canvas_box *a = &l->map.area;
    unsigned char top[3];
    colour_map(1, top);
    double best = 0;
    /* The brightest pixel of the bins at r < 2 dr, z < Z/10 (any row but
     * a dashed one: take the best over a few). */
    for (int j = 0; j < a->h / 10 + 1; j++)
        best = fmax(best, luma(px(img, a->x + a->w / 2, a->y + j)));
    const unsigned char *far = px(img, a->x + a->w - 1 - a->w / 20, a->y + a->h - 1 - a->h / 20);
    CHECK_MSG(best >= luma(top) - 40, "near the source: luma %g, top of the map %g", best,
              luma(top));
    CHECK_MSG(luma(far) < best - 80, "far from the source: luma %g, near it %g", luma(far), best);
}

static void check_bar(const image *img, const plot_layout *l)
{
    const canvas_box *b = &l->bar;
    int x = b->x + b->w / 2;
    if (l->kind == PLOT_MAP_NONE) {
        for (int y = b->y; y < b->y + b->h; y++)
            CHECK(same(px(img, x, y), colour_no_data_rgb));
        return;
    }
    unsigned char top[3], bottom[3];
    colour_map(1, top);
    colour_map(0, bottom);
    CHECK(same(px(img, x, b->y), top));
    CHECK(same(px(img, x, b->y + b->h - 1), bottom));
    int falls = 0;
    for (int y = b->y + 1; y < b->y + b->h; y++)
        falls += luma(px(img, x, y)) > luma(px(img, x, y - 1)) + 0.5;
    CHECK_MSG(falls == 0, "colour bar: luma rises %d times going down", falls);
    CHECK(luma(top) > luma(bottom) + 150);
}

static bool is_curve(const image *img, int x, int y) { return same(px(img, x, y), plot_curve_rgb); }

/* Every bin in the axis's range has curve ink within 2 pixels of where the
 * documented geometry puts it; when falls, the curve lies lower at its right
 * end than at its left. */
static void check_curve(const image *img, const plot_panel *q, const double *v, int n, double step,
                        bool falls, const char *name)
{
    const canvas_box *a = &q->area;
    int drawn = 0, missing = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0) || log10(v[i]) < q->y_lo)
            continue;
        int x = axis_pixel((i + 0.5) * step, q->x_lo, q->x_hi, a->x, a->w);
        int y = axis_pixel(log10(v[i]), q->y_hi, q->y_lo, a->y, a->h);
        bool found = false;
        for (int dy = -2; dy <= 2 && !found; dy++)
            for (int dx = -2; dx <= 2 && !found; dx++)
                found = is_curve(img, x + dx, y + dy);
        missing += !found;
        drawn++;
    }
    CHECK_MSG(drawn > n / 2 && missing == 0, "%s: %d of %d bins drawn, %d missing", name, drawn, n,
              missing);
    if (!falls)
        return;
    /* The curve's mean height over its first and its last quarter. */
    double sum[2] = {0, 0};
    int cnt[2] = {0, 0};
    for (int x = a->x; x < a->x + a->w; x++) {
        int part = x < a->x + a->w / 4 ? 0 : x >= a->x + 3 * a->w / 4 ? 1 : -1;
        for (int y = a->y; y < a->y + a->h && part >= 0; y++)
            if (is_curve(img, x, y)) {
                sum[part] += y, cnt[part]++;
                break;
            }
    }
    CHECK_MSG(cnt[0] > 0 && cnt[1] > 0 && sum[0] / cnt[0] < sum[1] / cnt[1] - a->h / 5,
              "%s does not fall: mean row %g at the left, %g at the right", name,
              cnt[0] ? sum[0] / cnt[0] : -1, cnt[1] ? sum[1] / cnt[1] : -1);
}

static bool inside(canvas_box b, int x, int y);

static bool is_band(const image *img, int x, int y)
{
    unsigned char band[3];
    colour_light(plot_curve_rgb, band);
    return same(px(img, x, y), band);
}

/* Bin i's band from plot_mco.h's geometry: false where it has none. */
static bool band_of(const plot_panel *q, double v, double e, int *top, int *bottom)
{
    const canvas_box *a = &q->area;
    if (!(v > 0 && log10(v) >= q->y_lo && e >= 0 && isfinite(e)))
        return false;
    *top = axis_pixel(log10(v + e), q->y_hi, q->y_lo, a->y, a->h);
    *bottom = v - e > 0 && log10(v - e) >= q->y_lo
                  ? axis_pixel(log10(v - e), q->y_hi, q->y_lo, a->y, a->h)
                  : a->y + a->h - 1;
    return true;
}

/* The band of v's errors e: in the column of each bin whose neighbours lie
 * in other columns, the band's pixels are exactly its rows (those the
 * curve and the interfaces drawn over it aside); none beyond them.  Returns
 * the band's rows counted in those columns. */
static long check_band(const image *img, const plot_panel *q, const double *v, const double *e,
                       int n, double step, const char *name)
{
    const canvas_box *a = &q->area;
    int checked = 0, wrong = 0;
    long rows = 0;
    for (int i = 0; i < n; i++) {
        int top, bottom, t, b;
        if (!band_of(q, v[i], e[i], &top, &bottom))
            continue;
        int x = axis_pixel((i + 0.5) * step, q->x_lo, q->x_hi, a->x, a->w);
        bool crowded = false;
        for (int k = i - 1; k <= i + 1; k += 2)
            crowded |= k >= 0 && k < n && band_of(q, v[k], e[k], &t, &b) &&
                       axis_pixel((k + 0.5) * step, q->x_lo, q->x_hi, a->x, a->w) == x;
        if (crowded)
            continue;
        checked++;
        for (int y = a->y; y < a->y + a->h; y++) {
            bool in = y >= top && y <= bottom, band = is_band(img, x, y);
            bool covered = is_curve(img, x, y) || same(px(img, x, y), plot_rule_rgb);
            if ((band && !in) || (in && !band && !covered)) {
                if (wrong++ < 5)
                    fprintf(stderr, "%s bin %d, column %d, row %d: band %d, want rows %d..%d\n",
                            name, i, x, y, band, top, bottom);
            }
            rows += band;
        }
    }
    CHECK_MSG(checked > n / 3 && wrong == 0, "%s: band checked in %d of %d bins, %d pixels wrong",
              name, checked, n, wrong);
    return rows;
}

/* No band colour anywhere, or only inside the panels' areas. */
static int band_pixels_outside(const image *img, const plot_layout *l, bool anywhere)
{
    int count = 0;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++)
            count += is_band(img, x, y) &&
                     (anywhere || (!inside(l->rd.area, x, y) && !inside(l->az.area, x, y)));
    return count;
}

static bool inside(canvas_box b, int x, int y)
{
    return x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h;
}

/* The curves stay inside their panels' areas. */
static void check_curves_inside(const image *img, const plot_layout *l)
{
    int outside = 0;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++)
            outside +=
                is_curve(img, x, y) && !inside(l->rd.area, x, y) && !inside(l->az.area, x, y);
    CHECK_MSG(outside == 0, "%d curve pixels outside the panels", outside);
}

typedef struct named_box {
    const char *name;
    canvas_box b;
} named_box;

static bool overlap(canvas_box a, canvas_box b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* Text where the layout says, inside the image, no two boxes overlapping
 * (areas with their frame and tick marks). */
static void check_texts(const image *img, const plot_layout *l)
{
    const plot_panel *panels[3] = {&l->map, &l->rd, &l->az};
    named_box b[32];
    int n = 0;
    b[n++] = (named_box){"title", l->title};
    b[n++] = (named_box){"bar title", l->bar_title};
    b[n++] = (named_box){"note", l->note};
    if (l->band_note.w > 0)
        b[n++] = (named_box){"band note", l->band_note};
    if (l->kind != PLOT_MAP_NONE)
        b[n++] = (named_box){"bar ticks", l->bar_ticks};
    for (int k = 0; k < 3; k++) {
        const plot_panel *q = panels[k];
        b[n++] = (named_box){"panel title", q->title};
        b[n++] = (named_box){"x ticks", q->x_ticks};
        b[n++] = (named_box){"x title", q->x_title};
        b[n++] = (named_box){"y title", q->y_title};
        if (k == 0 || q->y_hi > q->y_lo) /* the map's z runs downwards */
            b[n++] = (named_box){"y ticks", q->y_ticks};
    }
    int texts = n;
    for (int k = 0; k < 3; k++) {
        canvas_box a = panels[k]->area;
        b[n++] = (named_box){"area", {a.x - 8, a.y - 1, a.w + 9, a.h + 9}};
    }
    b[n++] = (named_box){"bar", {l->bar.x - 1, l->bar.y - 1, l->bar.w + 8, l->bar.h + 2}};
    for (int i = 0; i < n; i++) {
        if (i < texts)
            CHECK_MSG(b[i].b.w > 0 && b[i].b.h > 0 && ink_in(img, b[i].b, plot_background_rgb) > 20,
                      "no text in %s (%d,%d %dx%d)", b[i].name, b[i].b.x, b[i].b.y, b[i].b.w,
                      b[i].b.h);
        CHECK_MSG(b[i].b.x >= 0 && b[i].b.y >= 0 && b[i].b.x + b[i].b.w <= img->w &&
                      b[i].b.y + b[i].b.h <= img->h,
                  "%s outside the image", b[i].name);
        for (int j = 0; j < i; j++)
            CHECK_MSG(!overlap(b[i].b, b[j].b), "%s (%d,%d %dx%d) overlaps %s (%d,%d %dx%d)",
                      b[i].name, b[i].b.x, b[i].b.y, b[i].b.w, b[i].b.h, b[j].name, b[j].b.x,
                      b[j].b.y, b[j].b.w, b[j].b.h);
    }
    CHECK(ink_in(img, (canvas_box){0, 0, 12, 12}, plot_background_rgb) == 0);
}

/* The bands of errors (may be NULL: none). */
static void check_bands(const image *img, const plot_layout *l, const mco_data *m,
                        const double *const *errors)
{
    const double *rd = errors ? errors[output_by_name("Rd_r") - output_table] : NULL;
    const double *az = errors ? errors[output_by_name("A_z") - output_table] : NULL;
    if (!rd && !az) {
        CHECK_MSG(band_pixels_outside(img, l, true) == 0, "a band drawn without errors");
        CHECK(l->band_note.w == 0);
        return;
    }
    CHECK(l->band_note.w > 0);
    CHECK_MSG(band_pixels_outside(img, l, false) == 0, "band pixels outside the panels");
    if (rd && l->rd.y_hi > l->rd.y_lo)
        CHECK(check_band(img, &l->rd, m->result.rd_r, rd, l->map_nr, m->run.dr, "R_d(r)") > 0);
    if (az && l->az.y_hi > l->az.y_lo)
        CHECK(check_band(img, &l->az, m->result.a_z, az, l->map_nz, m->run.dz, "A(z)") > 0);
}

static void check_figure(const char *png, const mco_data *m, const double *const *errors,
                         const char *name)
{
    plot_layout l;
    tm_error err = {0};
    bool ok = plot_layout_of_errors(m, errors, name, &l, &err);
    CHECK_MSG(ok, "layout of %s: %s", png, err.message);
    image img;
    if (!ok || !image_read(png, &img)) {
        CHECK_MSG(false, "%s does not read back as a PNG", png);
        return;
    }
    CHECK_MSG(img.w == l.width && img.h == l.height, "%s: %dx%d, layout %dx%d", png, img.w, img.h,
              l.width, l.height);
    CHECK(l.map.area.w % 2 == 0 && l.map.x_lo == -l.map.x_hi && l.map.y_hi == 0);
    check_map(&img, &l, m);
    if (l.kind != PLOT_MAP_NONE)
        check_source_bright(&img, &l);
    check_bar(&img, &l);
    if (l.rd.y_hi > l.rd.y_lo)
        check_curve(&img, &l.rd, m->result.rd_r, l.map_nr, m->run.dr, true, "R_d(r)");
    if (l.kind != PLOT_MAP_NONE)
        check_curve(&img, &l.az, m->result.a_z, l.map_nz, m->run.dz, false, "A(z)");
    check_curves_inside(&img, &l);
    check_bands(&img, &l, m, errors);
    check_texts(&img, &l);
    free(img.rgb);
}

/* ---- made-up results ------------------------------------------------------------ */

/* Two layers of 0.1 cm (mu_a 1 and 2 /cm) on a 6 x 5 grid of 0.1 x 0.05 cm:
 * the grid reaches below the tissue, so 5 r bins and 4 z bins are shown.
 * A_rz falls with r and z (4.6 decades), with one zero bin. */
static bool made_up(mco_data *m)
{
    memset(m, 0, sizeof *m);
    mci_run *run = &m->run;
    run->photons = 1000;
    run->dr = 0.1, run->dz = 0.05;
    run->nr = 6, run->nz = 5, run->na = 1;
    run->num_layers = 2;
    run->layers = calloc(4, sizeof *run->layers);
    if (!run->layers || !result_alloc(&m->result, run->nr, run->nz, run->na, run->num_layers))
        return false;
    for (int k = 1; k <= 2; k++)
        run->layers[k] = (mci_layer){
            .n = 1.4, .mua = k, .mus = 100, .g = 0.9, .d = 0.1, .z0 = 0.1 * (k - 1), .z1 = 0.1 * k};
    run->layers[0].n = run->layers[3].n = 1;
    mcml_result *r = &m->result;
    r->photons = 1000, r->rd = 0.3, r->a = 0.6, r->tt = 0.1;
    for (int ir = 0; ir < run->nr; ir++) {
        r->rd_r[ir] = 50 * exp(-3.0 * ir);
        for (int iz = 0; iz < run->nz; iz++)
            r->a_rz[ir * run->nz + iz] = 100 * exp(-1.0 * ir - 2.0 * iz);
    }
    for (int iz = 0; iz < run->nz; iz++)
        r->a_z[iz] = 3 * exp(-0.5 * iz);
    r->a_rz[3 * run->nz + 1] = 0; /* no absorption scored: the grey */
    return true;
}

static void made_up_free(mco_data *m)
{
    free(m->run.layers);
    result_free(&m->result);
}

static bool render_errors(const mco_data *m, const double *const *errors, const char *name,
                          plot_layout *l, image *img)
{
    char *path = fs_join(tmpdir, name);
    tm_error err = {0};
    bool ok = plot_mco_write_png_errors(path, m, errors, name, &err) &&
              plot_layout_of_errors(m, errors, name, l, &err);
    CHECK_MSG(ok, "%s: %s", name, err.message);
    if (ok) {
        check_figure(path, m, errors, name);
        ok = image_read(path, img);
    }
    unlink(path);
    free(path);
    return ok;
}

static bool render(const mco_data *m, const char *name, plot_layout *l, image *img)
{
    return render_errors(m, NULL, name, l, img);
}

static void test_made_up(void)
{
    mco_data m;
    CHECK(made_up(&m));
    plot_layout l;
    image img;
    if (render(&m, "made_up.png", &l, &img)) {
        CHECK(l.kind == PLOT_MAP_FLUENCE);
        CHECK_MSG(l.map_nr == 5 && l.map_nz == 4, "shown %d x %d bins", l.map_nr, l.map_nz);
        CHECK(fabs(l.map.x_hi - 0.5) < 1e-12 && fabs(l.map.y_lo - 0.2) < 1e-12);
        /* The zero bin (ir 3, iz 1) is grey on both sides of r = 0. */
        const canvas_box *a = &l.map.area;
        int x = a->x + a->w / 2 + (int)(3.5 / 5 * a->w / 2), y = a->y + (int)(1.5 / 4 * a->h);
        CHECK(same(px(&img, x, y), colour_no_data_rgb));
        CHECK(same(px(&img, a->x + a->w - 1 - (x - a->x), y), colour_no_data_rgb));
        /* The colour bar spans the fluence exactly: 100 / 1 down to
         * 100 e^-10 / 2 (bin 4, 3 in layer 2). */
        CHECK(fabs(l.bar_hi - 2) < 1e-9);
        CHECK(fabs(l.bar_lo - log10(100 * exp(-10.0) / 2)) < 1e-9);
        /* R_d's axis: whole decades around 50 .. 50 e^-12. */
        CHECK(l.rd.y_hi == 2 && l.rd.y_lo == -4);
        free(img.rgb);
    }

    /* A layer without absorption: the map is A_rz itself. */
    m.run.layers[2].mua = 0;
    if (render(&m, "no_mua.png", &l, &img)) {
        CHECK(l.kind == PLOT_MAP_ABSORPTION);
        CHECK(fabs(l.bar_lo - log10(100 * exp(-10.0))) < 1e-9);
        free(img.rgb);
    }
    m.run.layers[2].mua = 2;

    /* -A: no absorption anywhere; the map and A(z) say so. */
    memset(m.result.a_rz, 0, sizeof *m.result.a_rz * 30);
    memset(m.result.a_z, 0, sizeof *m.result.a_z * 5);
    if (render(&m, "none.png", &l, &img)) {
        CHECK(l.kind == PLOT_MAP_NONE);
        CHECK(ink_in(&img, l.az.area, plot_background_rgb) > 20); /* "all zero in this file" */
        free(img.rgb);
    }

    /* A long file name does not stretch the figure. */
    char name[201];
    memset(name, 'n', 200);
    name[200] = '\0';
    plot_layout short_l;
    CHECK(plot_layout_of(&m, "x.mco", &short_l, NULL) && plot_layout_of(&m, name, &l, NULL));
    CHECK_MSG(l.title.w < 1300 && l.width < 1400, /* the name alone would take 2400 */
              "title %d px, figure %d px with a 200-character name (%d px with x.mco)", l.title.w,
              l.width, short_l.width);

    /* The grid ending inside the tissue: its last z bin is left out. */
    made_up_free(&m);
    CHECK(made_up(&m));
    m.run.layers[2].z1 = 0.5;
    CHECK(plot_layout_of(&m, "deep", &l, NULL));
    CHECK(l.map_nz == 4 && l.map_nr == 5);
    m.run.nr = m.result.nr = 1; /* one r bin: it is shown */
    CHECK(plot_layout_of(&m, "one", &l, NULL));
    CHECK(l.map_nr == 1);
    made_up_free(&m);
}

/* Errors of R_d(r) and A(z): bands where they are known, cut at the
 * axis's bottom where an error passes its value; the figure without them
 * is plot_mco_write_png's, byte for byte. */
static void test_bands(void)
{
    mco_data m;
    CHECK(made_up(&m));
    double rd[6], az[5];
    for (int i = 0; i < 6; i++)
        rd[i] = 0.3 * m.result.rd_r[i];
    for (int i = 0; i < 5; i++)
        az[i] = 0.1 * m.result.a_z[i];
    rd[2] = 2 * m.result.rd_r[2]; /* v - e < 0: down to the axis's bottom */
    rd[3] = NAN;                  /* unknown: a gap */
    az[1] = 0;                    /* exact: one row */
    const double *errors[OUTPUT_ARRAYS] = {NULL};
    errors[output_by_name("Rd_r") - output_table] = rd;
    errors[output_by_name("A_z") - output_table] = az;
    plot_layout l;
    image img;
    if (render_errors(&m, errors, "bands.png", &l, &img)) {
        /* Bin 2's band reaches the bottom row; bin 3 has none. */
        const canvas_box *a = &l.rd.area;
        int x2 = axis_pixel(2.5 * m.run.dr, l.rd.x_lo, l.rd.x_hi, a->x, a->w);
        int x3 = axis_pixel(3.5 * m.run.dr, l.rd.x_lo, l.rd.x_hi, a->x, a->w);
        CHECK(is_band(&img, x2, a->y + a->h - 1));
        int in3 = 0;
        for (int y = a->y; y < a->y + a->h; y++)
            in3 += is_band(&img, x3, y);
        CHECK_MSG(in3 == 0, "bin 3 (error unknown): %d band pixels", in3);
        free(img.rgb);
    }
    /* Only A(z)'s: its band, none in R_d(r). */
    errors[output_by_name("Rd_r") - output_table] = NULL;
    if (render_errors(&m, errors, "az_band.png", &l, &img)) {
        int in_rd = 0;
        for (int y = l.rd.area.y; y < l.rd.area.y + l.rd.area.h; y++)
            for (int x = l.rd.area.x; x < l.rd.area.x + l.rd.area.w; x++)
                in_rd += is_band(&img, x, y);
        CHECK(in_rd == 0);
        free(img.rgb);
    }
    /* No errors of the curves: the figure without errors, byte for byte. */
    errors[output_by_name("A_z") - output_table] = NULL;
    errors[output_by_name("A_rz") - output_table] = m.result.a_rz; /* not a curve's */
    char *with = fs_join(tmpdir, "with.png"), *without = fs_join(tmpdir, "without.png");
    tm_error err = {0};
    CHECK(plot_mco_write_png_errors(with, &m, errors, "x", &err) &&
          plot_mco_write_png(without, &m, "x", &err));
    size_t n1 = 0, n2 = 0;
    char *b1 = fs_read_text(with, &n1, &err), *b2 = fs_read_text(without, &n2, &err);
    CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
    free(b1);
    free(b2);
    unlink(with);
    unlink(without);
    free(with);
    free(without);
    made_up_free(&m);
}

static void test_invalid(void)
{
    mco_data m;
    CHECK(made_up(&m));
    tm_error err = {0};
    plot_layout l;
    CHECK(!plot_layout_of(NULL, "x", &l, &err));
    CHECK_CONTAINS(err.message, "no results");
    CHECK(!plot_mco_write_png(NULL, &m, "x", &err));
    CHECK_CONTAINS(err.message, "no output path");
    m.result.nz = 4; /* not the input's grid */
    CHECK(!plot_layout_of(&m, "x", &l, &err));
    CHECK_CONTAINS(err.message, "grid");
    m.result.nz = 5;
    m.run.dz = 0; /* a step of 0: said so, not a grid that differs from itself */
    CHECK(!plot_layout_of(&m, "x", &l, &err));
    CHECK_CONTAINS(err.message, "the grid's steps must be positive (dz = 0, dr = 0.1)");
    m.run.dz = 0.05;

    /* Unwritable: the error names the path, nothing is left behind. */
    char *path = fs_join(tmpdir, "no_such_dir/fig.png");
    CHECK(!plot_mco_write_png(path, &m, "x", &err));
    CHECK(strcmp(err.file, path) == 0);
    CHECK(access(path, F_OK) != 0);
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    free(path);
    made_up_free(&m);
}

/* A write cut short (the file size limit stops libpng) leaves the older
 * figure as it was and no temporary file. */
static void test_atomic(void)
{
    mco_data m;
    CHECK(made_up(&m));
    char *path = fs_join(tmpdir, "kept.png");
    tm_error err = {0};
    struct stat before, after;
    CHECK(plot_mco_write_png(path, &m, "first", &err));
    CHECK(stat(path, &before) == 0 && before.st_size > 4096);
    struct rlimit old, small;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small = old;
    small.rlim_cur = 2048;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    bool ok = plot_mco_write_png(path, &m, "second, longer title", &err);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CHECK(!ok);
    CHECK(strcmp(err.file, path) == 0);
    CHECK(stat(path, &after) == 0 && after.st_size == before.st_size);
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    image img;
    CHECK(image_read(path, &img));
    free(img.rgb);
    unlink(path);
    free(path);
    made_up_free(&m);
}

static void test_labels(void)
{
    /* Scripts at half the scale, one blank column after each piece. */
    CHECK(label_width("cm^{-2}", 2) ==
          font5x7_text_width("cm", 2) + 2 + font5x7_text_width("-2", 1));
    CHECK(label_width("R_{d} x", 2) == font5x7_text_width("R", 2) + 2 + font5x7_text_width("d", 1) +
                                           1 + font5x7_text_width(" x", 2));
    CHECK(label_width("a^b_c", 2) == font5x7_text_width("a^b_c", 2)); /* no braces: literal */
    CHECK(label_width("", 2) == 0);
    /* UTF-8 mu is one glyph, the font's own (not '?'). */
    CHECK(label_width("μ_{a}", 2) == font5x7_text_width("x", 2) + 2 + font5x7_text_width("a", 1));
    bool differs = false;
    for (int row = 0; row < FONT5X7_ROWS; row++)
        for (int col = 0; col < FONT5X7_W; col++)
            differs |= font5x7_ink(FONT5X7_MU, col, row) != font5x7_ink('?', col, row);
    CHECK(differs);
    char buf[32];
    label_power10(-3, buf, sizeof buf);
    CHECK(strcmp(buf, "10^{-3}") == 0);
    label_format_number(0.30000000000000004, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "0.3") == 0);
    label_format_number(-0.0, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "0") == 0);

    /* The superscript stands above the text's top, upright; rotated, the
     * raise is to the left of the box. */
    enum { W = 60, H = 40 };
    unsigned char pixels[W * H * 3];
    canvas c = {pixels, W, H};
    static const unsigned char ink[3] = {0, 0, 0}, white[3] = {255, 255, 255};
    canvas_fill(&c, 0, 0, W, H, white);
    label_draw(&c, 4, 10, "x^{2}", 2, false, ink);
    int above = 0;
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < W; x++)
            above += pixels[3 * (y * W + x)] == 0;
    CHECK(above > 0);
    canvas_fill(&c, 0, 0, W, H, white);
    label_draw(&c, 10, 4, "x^{2}", 2, true, ink);
    int left = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 10; x++)
            left += pixels[3 * (y * W + x)] == 0;
    CHECK(left > 0);
}

static void test_axis(void)
{
    CHECK(axis_pixel(0, 0, 1, 10, 100) == 10);
    CHECK(axis_pixel(1, 0, 1, 10, 100) == 109);
    CHECK(axis_pixel(0.5, 0, 1, 10, 100) == 60);
    CHECK(axis_pixel(5, 0, 1, 10, 100) == 109 && axis_pixel(-5, 0, 1, 10, 100) == 10);
    CHECK(axis_pixel(NAN, 0, 1, 10, 100) == 10);
    CHECK(axis_pixel(3, 3, -7, 0, 50) == 0); /* read upwards: the top value first */

    axis_ticks t;
    axis_linear_ticks(-0.49, 0.49, 800, true, 2, &t);
    CHECK_MSG(t.n >= 5 && t.n <= 21, "%d ticks over +-0.49", t.n);
    bool zero = false;
    for (int i = 0; i < t.n; i++) {
        double k = t.value[i] / (t.n > 1 ? t.value[1] - t.value[0] : 1);
        CHECK_MSG(fabs(k - round(k)) < 1e-9, "tick %g not a multiple of the step", t.value[i]);
        zero |= strcmp(t.text[i], "0") == 0;
        if (i > 0)
            CHECK(strcmp(t.text[i], t.text[i - 1]) != 0);
    }
    CHECK(zero);
    /* Labels never closer than their width. */
    axis_linear_ticks(0, 0.8, 300, true, 2, &t);
    for (int i = 1; i < t.n; i++) {
        int gap =
            axis_pixel(t.value[i], 0, 0.8, 0, 300) - axis_pixel(t.value[i - 1], 0, 0.8, 0, 300);
        CHECK_MSG(gap >= label_width(t.text[i], 2), "ticks %s and %s %d pixels apart",
                  t.text[i - 1], t.text[i], gap);
    }
    axis_decade_ticks(-7, 3, 300, false, 2, &t);
    CHECK(t.n == 11 && t.value[0] == -7 && strcmp(t.text[10], "10^{3}") == 0);
    axis_decade_ticks(-30, 3, 100, false, 2, &t); /* thinned, 10^0 kept */
    CHECK(t.n >= 2 && t.n < 10);
    bool one = false;
    for (int i = 0; i < t.n; i++)
        one |= t.value[i] == 0;
    CHECK(one);
}

static int check_given_figure(const char *png, const char *mco, bool none, bool bands)
{
    mco_data m;
    tm_error err = {0};
    if (!mco_read(mco, &m, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    double *errors[OUTPUT_ARRAYS] = {NULL};
    if (bands) {
        char *npz = fs_sibling(mco, ".npz");
        CHECK_MSG(mco_stderr_read(npz, &m, fs_base_name(mco), errors, &err) == NPZ_FOUND,
                  "%s: no errors: %s", npz, err.message);
        free(npz);
    }
    check_figure(png, &m, bands ? (const double *const *)errors : NULL, fs_base_name(mco));
    mco_stderr_free(errors);
    plot_layout l;
    CHECK(plot_layout_of(&m, fs_base_name(mco), &l, &err));
    CHECK_MSG((l.kind == PLOT_MAP_NONE) == none, "%s: map kind %d", png, (int)l.kind);
    mco_free(&m);
    return check_summary("test_plot --figure");
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--figure") == 0) {
        bool none = false, bands = false;
        for (int i = 4; i < argc; i++) {
            none |= strcmp(argv[i], "--none") == 0;
            bands |= strcmp(argv[i], "--bands") == 0;
        }
        return check_given_figure(argv[2], argv[3], none, bands);
    }
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_labels();
    test_axis();
    test_made_up();
    test_bands();
    test_invalid();
    test_atomic();
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    rmdir(tmpdir);
    return check_summary("test_plot");
}
