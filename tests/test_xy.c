/* The oblique beam and the Cartesian grid on the CPU engine (docs/physics.md,
 * "Sources"; docs/outputs.md, "Cartesian grid").
 *   start      the oblique beam's specular reflectance is the unpolarised
 *              Fresnel reflectance at its angle (a glass layer's two
 *              surfaces combined); oblique:0 is the pencil beam bit for
 *              bit, with and without the grid and under a glass layer;
 *              a beam the surface reflects whole is refused
 *   identity   every run's tallies are the plain run's with the grid; the
 *              tallies are the same on 1 and 2 threads, in two calls, and
 *              for an absorption set of the run's own mua; each grid
 *              tally's units are those of its r-angle or r-z tally that
 *              land in the grid, so it sums to no more than they do, and
 *              to as much where nothing lands beyond it
 *   rings      a pencil beam's Rd_xy and Tt_xy, averaged over the cells
 *              whose centre lies in each ring, against Rd_r and Tt_r of the
 *              same photons: the batches' paired differences, Bonferroni
 *              over the rings (stats_compare_independent)
 *   wang       Wang & Jacques' oblique-incidence relation (L. Wang, S. L.
 *              Jacques, Appl. Opt. 34, 2362 (1995)): at 45 degrees onto a
 *              thick medium of mua = 0.1, mus' = 10 / cm, n = 1.33 under
 *              air, the centre of the far diffuse reflectance (RHO_NEAR to
 *              RHO_FAR from it) lies sin(alpha_t) / mu_t' from the entry
 *              point, within the relation's accuracy (MODEL_ERROR) plus
 *              the batches' error
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "cpu_sets.h"
#include "mci.h"
#include "mci_text.h"
#include "optics.h"
#include "result.h"
#include "stats.h"

#define SEED    20261201u
#define BATCHES 16
#define ALPHA   1e-3

static bool tallies(const mci_run *run, int num_sets, const double *mua, int threads,
                    uint64_t first, uint64_t count, tally_set *t, bool init)
{
    return cpu_sets_tallies(run, SEED, num_sets, mua, threads, first, count, t, init);
}

static void set_xy(mci_run *run, double dx, int nx)
{
    run->xy_dx = dx;
    run->xy_nx = nx;
}

/* The sum of n units. */
static tally_acc_t units_of(const tally_acc_t *v, size_t n)
{
    tally_acc_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return sum;
}

/* ---- start ---------------------------------------------------------------- */

/* Unpolarised Fresnel reflectance from n1 into n2 at incidence angle
 * theta, written from the textbook's formulas (not optics.c's). */
static double fresnel_at(double n1, double n2, double theta)
{
    double ci = cos(theta), st = n1 / n2 * sin(theta), ct = sqrt(1.0 - st * st);
    double rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct);
    double rp = (n2 * ci - n1 * ct) / (n2 * ci + n1 * ct);
    return 0.5 * (rs * rs + rp * rp);
}

static void check_specular(void)
{
    static const char *text = "1.0\n2\na.mco A\n1000\n0.01 0.01\n10 10 1\n1\n1.0\n"
                              "1.4 0.1 10 0.9 1\n1.0\n"
                              "b.mco A\n1000\n0.01 0.01\n10 10 1\n2\n1.0\n"
                              "1.5 0 0 0 0.1\n1.4 0.1 10 0.9 1\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return;
    const double angles[] = {10, 45, 80};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++) {
        double th = angles[i] * M_PI / 180.0;
        char source[32];
        snprintf(source, sizeof source, "oblique:%g", angles[i]);
        CHECK(run_set_source(&f.runs[0], source) && run_set_source(&f.runs[1], source));
        double r = fresnel_at(1.0, 1.4, th);
        CHECK_MSG(fabs(optics_specular(&f.runs[0]) - r) < 1e-14, "%s: Rsp %.17g, Fresnel %.17g",
                  source, optics_specular(&f.runs[0]), r);
        /* Under glass: both surfaces, the second at the glass's angle. */
        double r1 = fresnel_at(1.0, 1.5, th), r2 = fresnel_at(1.5, 1.4, asin(sin(th) / 1.5));
        double both = r1 + (1 - r1) * (1 - r1) * r2 / (1 - r1 * r2);
        CHECK_MSG(fabs(optics_specular(&f.runs[1]) - both) < 1e-14, "%s under glass: %.17g, %.17g",
                  source, optics_specular(&f.runs[1]), both);
    }
    CHECK(run_set_source(&f.runs[0], "oblique:0") && run_set_source(&f.runs[1], "oblique:0"));
    double pencil[2];
    mci_run plain[2] = {f.runs[0], f.runs[1]};
    for (int k = 0; k < 2; k++) {
        plain[k].source = (source_desc){0};
        pencil[k] = optics_specular(&plain[k]);
    }
    CHECK_MSG(optics_specular(&f.runs[0]) == pencil[0] && optics_specular(&f.runs[1]) == pencil[1],
              "oblique:0's Rsp is not the pencil's bit for bit");
    mci_free(&f);
}

/* A beam the surface reflects whole (n above sin angle >= n below it) is
 * refused, naming the layer. */
static void check_total_reflection(void)
{
    static const char *text = "1.0\n1\na.mco A\n1000\n0.01 0.01\n10 10 1\n2\n1.6\n"
                              "1.5 0 0 0 0.1\n1.4 0.1 10 0.9 1\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return;
    source_desc s;
    tm_error err = {0};
    CHECK(source_parse("oblique:75", "--source", &s, &err));
    CHECK(!source_check_run(&s, &f.runs[0], "--source", &err));
    CHECK_CONTAINS(err.message, "--source \"oblique:75\": the beam is totally reflected at the "
                                "surface");
    CHECK_CONTAINS(err.message, "layer 1's n 1.5");
    CHECK(source_parse("oblique:65", "--source", &s, &err));
    CHECK(!source_check_run(&s, &f.runs[0], "--source", &err));
    CHECK_CONTAINS(err.message, "layer 2's n 1.4");
    CHECK(source_parse("oblique:55", "--source", &s, &err) &&
          source_check_run(&s, &f.runs[0], "--source", &err));
    mci_free(&f);
}

/* oblique:0 and the pencil beam: the same tallies, bit for bit. */
static void check_normal_incidence(const char *text)
{
    mci_file f;
    if (!parse_inline(text, &f))
        return;
    mci_run *pencil = &f.runs[0], oblique;
    CHECK(mci_run_copy(&oblique, pencil) && run_set_source(&oblique, "oblique:0"));
    uint64_t n = 20000;
    for (int grid = 0; grid < 2; grid++) {
        tally_set a, b;
        CHECK(tallies(pencil, 0, NULL, 2, 0, n, &a, true) &&
              tallies(&oblique, 0, NULL, 2, 0, n, &b, true));
        CHECK_MSG(tally_set_equal(&a, &b), "%s grid: oblique:0 differs from the pencil beam",
                  grid ? "with the" : "without a");
        tally_set_free(&a);
        tally_set_free(&b);
        set_xy(pencil, 0.02, 30);
        set_xy(&oblique, 0.02, 30);
    }
    mci_run_free(&oblique);
    mci_free(&f);
}

static int case_start(void)
{
    check_specular();
    check_total_reflection();
    check_normal_incidence("1.0\n1\na.mco A\n1000\n0.01 0.02\n30 20 3\n2\n1.0\n"
                           "1.37 1 40 0.8 0.05\n1.37 0.5 20 0.7 0.1\n1.0\n");
    check_normal_incidence("1.0\n1\na.mco A\n1000\n0.01 0.02\n30 20 3\n3\n1.0\n"
                           "1.5 0 0 0 0.02\n1.37 1 40 0.8 0.05\n1.37 0.5 20 0.7 0.1\n1.2\n");
    return check_summary("start");
}

/* ---- identity ------------------------------------------------------------- */

/* Every grid tally's units against its r tally's: no more, and as many
 * when want_all (nothing lands beyond the grid). */
static void check_grid_sums(const tally_set *t, bool want_all)
{
    size_t cells = (size_t)t->xy * (size_t)t->xy;
    const tally_acc_t *grid[] = {t->rd_xy, t->tt_xy, t->a_xz};
    const tally_acc_t *whole[] = {t->rd_ra, t->tt_ra, t->a_rz};
    size_t grid_bins[] = {cells, cells, (size_t)t->xy * (size_t)t->nz};
    size_t whole_bins[] = {(size_t)t->nr * t->na, (size_t)t->nr * t->na, (size_t)t->nr * t->nz};
    for (int k = 0; k < 3; k++) {
        tally_acc_t g = units_of(grid[k], grid_bins[k]), w = units_of(whole[k], whole_bins[k]);
        CHECK_MSG(g <= w && (!want_all || g == w),
                  "tally %d: the grid's %.17g units, the r tally's %.17g", k, tally_count(g),
                  tally_count(w));
    }
    /* A_xz's depth bins are A_rz's: a column no more than its depth's. */
    for (int iz = 0; iz < t->nz; iz++) {
        tally_acc_t g = 0, w = 0;
        for (int ix = 0; ix < t->xy; ix++)
            g += t->a_xz[(size_t)ix * t->nz + iz];
        for (int ir = 0; ir < t->nr; ir++)
            w += t->a_rz[(size_t)ir * t->nz + iz];
        CHECK_MSG(g <= w && (!want_all || g == w), "depth bin %d: A_xz %.17g, A_rz %.17g units", iz,
                  tally_count(g), tally_count(w));
    }
}

static int case_identity(void)
{
    /* A thin slab under glass, so that light escapes both ways; an oblique
     * beam. */
    static const char *text = "1.0\n1\nz.mco A\n1000\n0.005 0.01\n40 30 3\n3\n1.0\n"
                              "1.5 0 0 0 0.02\n1.37 0.5 30 0.8 0.05\n1.37 1 40 0.7 0.1\n1.0\n";
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    CHECK(run_set_source(run, "oblique:30"));
    mci_run plain;
    CHECK(mci_run_copy(&plain, run));
    set_xy(run, 0.01, 41);
    uint64_t n = 30000;
    tally_set a, b, c, set;
    CHECK(tallies(&plain, 0, NULL, 2, 0, n, &a, true) && tallies(run, 0, NULL, 2, 0, n, &b, true));
    CHECK_MSG(!a.rd_xy && b.rd_xy && b.tt_xy && b.a_xz && b.xy == 41,
              "the grid's tallies: only in the run that asks");
    CHECK_MSG(tally_set_runs_equal(&a, &b), "the run with the grid scores other tallies");
    CHECK(tallies(run, 0, NULL, 1, 0, 12345, &c, true) &&
          tallies(run, 0, NULL, 1, 12345, n - 12345, &c, false));
    CHECK_MSG(tally_set_equal(&b, &c), "1 thread in two calls differs from 2 threads");
    double mua[3] = {run->layers[1].mua, run->layers[2].mua, run->layers[3].mua};
    CHECK(tallies(run, 1, mua, 2, 0, n, &set, true));
    CHECK_MSG(tally_set_equal(&b, &set), "an absorption set of the run's own mua differs");
    check_grid_sums(&b, false);
    /* A grid wider than any escape holds every unit: a 41 x 41 grid of 1 m
     * cells around this slab. */
    tally_set wide;
    set_xy(run, 100.0, 41);
    CHECK(tallies(run, 0, NULL, 2, 0, n, &wide, true));
    check_grid_sums(&wide, true);
    tally_set *all[] = {&a, &b, &c, &set, &wide};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tally_set_free(all[i]);
    mci_run_free(&plain);
    mci_free(&f);
    return check_summary("identity");
}

/* ---- rings ---------------------------------------------------------------- */

/* Each ring's escaping weight per area and photon from the grid, each
 * cell's weight shared among the rings in proportion to its area in each
 * (share[cell * rings + r]), into row[0 .. rings), and from the r-angle
 * tally into row[rings .. 2 rings). */
static void ring_means(const tally_set *t, const tally_acc_t *grid, const tally_acc_t *ra,
                       const double *share, int rings, double dr, double n, double *row)
{
    size_t cells = (size_t)t->xy * t->xy;
    for (int r = 0; r < rings; r++) {
        double area = M_PI * (2 * r + 1) * dr * dr, g = 0.0;
        for (size_t c = 0; c < cells; c++)
            g += share[c * rings + r] * tally_weight(grid[c]);
        row[r] = g / (area * n);
        tally_acc_t w = units_of(ra + (size_t)r * t->na, (size_t)t->na);
        row[rings + r] = tally_weight(w) / (area * n);
    }
}

/* Each cell's share of each of `rings` rings of width dr: the fraction of
 * SUB x SUB points evenly spread over it that lie in the ring. */
#define SUB 16
static void ring_shares(int nx, double dx, double dr, int rings, double *share)
{
    for (int ix = 0; ix < nx; ix++)
        for (int iy = 0; iy < nx; iy++) {
            double *row = share + ((size_t)ix * nx + iy) * rings;
            for (int p = 0; p < SUB * SUB; p++) {
                double x = (ix + (p / SUB + 0.5) / SUB - 0.5 * nx) * dx;
                double y = (iy + (p % SUB + 0.5) / SUB - 0.5 * nx) * dx;
                int r = (int)floor(sqrt(x * x + y * y) / dr);
                if (r < rings)
                    row[r] += 1.0 / (SUB * SUB);
            }
        }
}

/* Escapes within radius rho of the axis, in units, are at least those of
 * the cells inside the circle and at most those of the cells it touches,
 * for the rings' radii: integers, exactly. */
static void check_sandwich(const tally_set *t, const tally_acc_t *grid, const tally_acc_t *ra,
                           double dx, double dr)
{
    for (int k = 1; k <= t->nr - 1; k++) {
        double rho = k * dr;
        tally_acc_t inside = 0, touching = 0, rings = units_of(ra, (size_t)k * t->na);
        for (int ix = 0; ix < t->xy; ix++)
            for (int iy = 0; iy < t->xy; iy++) {
                double x0 = (ix - 0.5 * t->xy) * dx, y0 = (iy - 0.5 * t->xy) * dx;
                double nx = fmax(0.0, fmax(x0, -(x0 + dx))), ny = fmax(0.0, fmax(y0, -(y0 + dx)));
                double fx = fmax(fabs(x0), fabs(x0 + dx)), fy = fmax(fabs(y0), fabs(y0 + dx));
                tally_acc_t u = grid[(size_t)ix * t->xy + iy];
                if (hypot(fx, fy) < rho * (1 - 1e-9))
                    inside += u;
                if (hypot(nx, ny) < rho * (1 + 1e-9))
                    touching += u;
            }
        CHECK_MSG(inside <= rings && rings <= touching,
                  "within %g cm: cells inside %.17g units, rings %.17g, cells touching %.17g", rho,
                  tally_count(inside), tally_count(rings), tally_count(touching));
    }
}

static int case_rings(void)
{
    /* A slab of 2 transport lengths: reflectance and transmittance alike. */
    static const char *text = "1.0\n1\nr.mco A\n1000\n0.01 0.02\n10 17 1\n1\n1.0\n"
                              "1.4 0.5 50 0.8 0.2\n1.0\n";
    enum { NX = 170, RINGS = 16 };
    const double dx = 0.004;
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    set_xy(run, dx, NX);
    double *share = calloc((size_t)NX * NX * RINGS, sizeof *share);
    CHECK(share != NULL);
    if (!share)
        return 1;
    ring_shares(NX, dx, run->dr, RINGS, share);
    batch_vec grid[2], ring[2];
    for (int k = 0; k < 2; k++)
        CHECK(batch_vec_init(&grid[k], RINGS, BATCHES) && batch_vec_init(&ring[k], RINGS, BATCHES));
    const uint64_t per_batch = 40000;
    for (int b = 0; b < BATCHES; b++) {
        tally_set t;
        if (!tallies(run, 0, NULL, 2, b * per_batch, per_batch, &t, true))
            return 1;
        double row[2][2 * RINGS];
        ring_means(&t, t.rd_xy, t.rd_ra, share, RINGS, run->dr, per_batch, row[0]);
        ring_means(&t, t.tt_xy, t.tt_ra, share, RINGS, run->dr, per_batch, row[1]);
        for (int k = 0; k < 2; k++) {
            batch_vec_add(&grid[k], row[k]);
            batch_vec_add(&ring[k], row[k] + RINGS);
        }
        if (b == 0) {
            check_sandwich(&t, t.rd_xy, t.rd_ra, dx, run->dr);
            check_sandwich(&t, t.tt_xy, t.tt_ra, dx, run->dr);
            check_grid_sums(&t, false);
        }
        tally_set_free(&t);
    }
    const char *names[] = {"Rd", "Tt"};
    for (int k = 0; k < 2; k++) {
        batch_vec_finish(&grid[k]);
        batch_vec_finish(&ring[k]);
        bool ok;
        z_report z = stats_compare_independent(&grid[k], &ring[k], 0.1, ALPHA, &ok);
        stats_print_report(names[k], &z);
        CHECK_MSG(ok && z.pass && z.bins >= RINGS / 2, "%s_xy in rings against %s_r", names[k],
                  names[k]);
        batch_vec_free(&grid[k]);
        batch_vec_free(&ring[k]);
    }
    free(share);
    mci_free(&f);
    return check_summary("rings");
}

/* ---- wang ----------------------------------------------------------------- */

/* The window about the centre c: RHO_NEAR to RHO_FAR from it, in transport
 * mean free paths 1 / mu_t' ("several transport mean free paths away").
 * MODEL_ERROR: the relation's accuracy as a fraction of the shift. */
#define RHO_NEAR    3.0
#define RHO_FAR     15.0
#define MODEL_ERROR 0.05

/* The reflectance's marginal along x (every y of the grid) in weight:
 * symmetric about the far field's centre if the reflectance is
 * symmetric about it, whatever the grid's y extent. */
static void marginal_x(const tally_set *t, double *m)
{
    for (int ix = 0; ix < t->xy; ix++)
        m[ix] = tally_weight(units_of(t->rd_xy + (size_t)ix * t->xy, (size_t)t->xy));
}

/* Weight and first moment of cell [x0, x0 + dx) of weight w within [a, b],
 * the weight spread evenly over the cell. */
static void cell_part(double x0, double dx, double w, double a, double b, double *sw, double *sx)
{
    double lo = fmax(a, x0), hi = fmin(b, x0 + dx);
    if (hi <= lo)
        return;
    *sw += w * (hi - lo) / dx;
    *sx += w * (hi * hi - lo * lo) / (2 * dx);
}

/* The centroid of the marginal m (nx cells of dx from -nx dx / 2) over
 * near <= |x - c| <= far, less c. */
static double window_offset(const double *m, int nx, double dx, double c, double near, double far)
{
    double sw = 0.0, sx = 0.0;
    for (int ix = 0; ix < nx; ix++) {
        double x0 = (ix - 0.5 * nx) * dx;
        cell_part(x0, dx, m[ix], c - far, c - near, &sw, &sx);
        cell_part(x0, dx, m[ix], c + near, c + far, &sw, &sx);
    }
    return sx / sw - c;
}

/* The centre c of the marginal m beyond near and within far of it: the
 * point the weight there balances about, window_offset's zero, found by
 * bisection within near of the entry point (the offset falls as c grows:
 * the window moving right loses weight on its right). */
static double far_centre(const double *m, int nx, double dx, double near, double far)
{
    double lo = -near, hi = near;
    for (int it = 0; it < 64; it++) {
        double mid = 0.5 * (lo + hi);
        if (window_offset(m, nx, dx, mid, near, far) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static int case_wang(void)
{
    static const char *text = "1.0\n1\nw.mco A\n1000\n0.01 0.01\n10 10 1\n1\n1.0\n"
                              "1.33 0.1 50 0.8 10\n1.0\n";
    enum { NX = 500 };
    const double dx = 0.01, angle = 45.0;
    mci_file f;
    if (!parse_inline(text, &f))
        return 1;
    mci_run *run = &f.runs[0];
    char source[32];
    snprintf(source, sizeof source, "oblique:%g", angle);
    CHECK(run_set_source(run, source));
    set_xy(run, dx, NX);
    const mci_layer *l = &run->layers[1];
    double mu_tr = l->mua + l->mus * (1 - l->g);
    double sin_t = run->layers[0].n * sin(angle * M_PI / 180.0) / l->n;
    double predicted = sin_t / mu_tr, near = RHO_NEAR / mu_tr, far = RHO_FAR / mu_tr;
    CHECK_MSG(far + 2 * predicted < 0.5 * NX * dx, "the window reaches beyond the grid");
    const uint64_t per_batch = 200000;
    double centres[BATCHES], sum = 0.0;
    static double m[NX], whole[NX];
    cpu_options opt = {.seed = SEED, .threads = 2}; /* -A: the escapes alone */
    for (int b = 0; b < BATCHES; b++) {
        tally_set t;
        tm_error err = {0};
        if (!tally_set_init(&t, run->nr, run->nz, run->na) ||
            !cpu_simulate(run, &opt, b * per_batch, per_batch, &t, &err)) {
            error_print(stderr, &err);
            return 1;
        }
        marginal_x(&t, m);
        for (int ix = 0; ix < NX; ix++)
            whole[ix] += m[ix];
        centres[b] = far_centre(m, NX, dx, near, far);
        sum += centres[b];
        tally_set_free(&t);
    }
    double mean = sum / BATCHES, ss = 0.0;
    for (int b = 0; b < BATCHES; b++)
        ss += (centres[b] - mean) * (centres[b] - mean);
    double sem = sqrt(ss / (BATCHES - 1) / BATCHES);
    double measured = far_centre(whole, NX, dx, near, far);
    double t_bound = stats_t_quantile_two_sided(ALPHA, BATCHES - 1);
    double tolerance = MODEL_ERROR * predicted + t_bound * sem;
    printf("  Wang & Jacques at %g degrees: centre of the far reflectance %.5f +- %.5f cm "
           "(%d batches), predicted sin(alpha_t) / mu_t' = %.5f cm (%+.2f %%), tolerance %.5f "
           "cm\n",
           angle, measured, sem, BATCHES, predicted, 100 * (measured / predicted - 1), tolerance);
    CHECK_MSG(fabs(measured - predicted) <= tolerance, "%.5f cm against %.5f cm", measured,
              predicted);
    mci_free(&f);
    return check_summary("wang");
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "start") == 0)
        return case_start();
    if (strcmp(c, "identity") == 0)
        return case_identity();
    if (strcmp(c, "rings") == 0)
        return case_rings();
    if (strcmp(c, "wang") == 0)
        return case_wang();
    fprintf(stderr, "usage: test_xy start|identity|rings|wang\n");
    return 2;
}
