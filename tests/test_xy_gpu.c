/* The oblique beam and the Cartesian grid on the GPU engine (label gpu;
 * exit 77 without a GPU), whose run's own kernel starts every photon along
 * the refracted beam (templates/source.cu) and scores each escape and
 * deposit in its cell too (templates/xy.cu), against the CPU engine and
 * across kernel variants:
 *   agree     a beam at 45 degrees onto a glass layer over the three-layer
 *             example, a grid of 20 x 20 cells of 0.05 cm: Rd_xy, Tt_xy
 *             and A_xz of GPU batches against CPU batches of another seed
 *             (independent), entry by entry, with the Bonferroni bound of
 *             stats_compare_independent; each GPU batch's grids sum to no
 *             more than their cylindrical tallies, in integers
 *   identity  the heuristic variant in one call against another variant
 *             (block 128, shared layers, no tile) in launches of 70000 and
 *             two calls: every tally, the grid's too, bit for bit; the
 *             run's every-run tallies those of the oblique kernel without
 *             the grid
 *   normal    a beam at 0 degrees gives the pencil beam's tallies bit for
 *             bit (the same start, weight and direction in float)
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "engine_device.h"
#include "mci.h"
#include "result.h"
#include "run_kernel_tallies.h"
#include "stats.h"
#include "variant.h"

#define SEED    20261201u
#define BATCHES 16
#define ALPHA   1e-4
#define NX      20
#define DX      0.05
#define NZ      40 /* the example's depth bins (its grid line: nz nr na) */

static gpu_engine *gpu;

/* A glass layer 1 (n 1.5, 0.05 cm) over the MCML example's three layers. */
static const char *example = "1.0\n1\ne.mco A\n1000\n0.01 0.01\n40 50 1\n4\n1.0\n"
                             "1.5 0 0 0 0.05\n1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n"
                             "1.37 2 10 0.7 0.2\n1.0\n";

/* The example with a beam at angle degrees and, for nx > 0, the grid. */
static bool parse_run(mci_file *f, double angle, int nx)
{
    tm_error err;
    double v[1] = {angle};
    if (!mci_parse(example, "test_xy_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->source = source_make(SOURCE_OBLIQUE, v);
    run->xy_nx = nx;
    run->xy_dx = DX;
    return true;
}

/* Rd_xy, Tt_xy (NX x NX each) and A_xz (NX x NZ), one row. */
#define ROW (2 * NX * NX + NX * NZ)
static void row_of(const mci_run *run, const mcml_result *res, double *row)
{
    (void)run;
    memcpy(row, res->rd_xy, NX * NX * sizeof *row);
    memcpy(row + NX * NX, res->tt_xy, NX * NX * sizeof *row);
    memcpy(row + 2 * NX * NX, res->a_xz, NX * NZ * sizeof *row);
}

static tally_acc_t sum_of(const tally_acc_t *v, size_t n)
{
    tally_acc_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Every cell's units are its escape's or deposit's own: each grid sums to
 * no more than its cylindrical tally, and to something. */
static void grids_within(const mci_run *run, const tally_set *t, const mcml_result *res, int b)
{
    (void)res;
    size_t ra = (size_t)run->nr * run->na, rz = (size_t)run->nr * run->nz;
    tally_acc_t rd = sum_of(t->rd_xy, NX * NX), tt = sum_of(t->tt_xy, NX * NX);
    tally_acc_t a = sum_of(t->a_xz, NX * NZ);
    CHECK_MSG(rd > 0 && rd <= sum_of(t->rd_ra, ra), "batch %d: Rd_xy %.17g, Rd_ra %.17g", b,
              tally_count(rd), tally_count(sum_of(t->rd_ra, ra)));
    CHECK_MSG(tt > 0 && tt <= sum_of(t->tt_ra, ra), "batch %d: Tt_xy %.17g, Tt_ra %.17g", b,
              tally_count(tt), tally_count(sum_of(t->tt_ra, ra)));
    CHECK_MSG(a > 0 && a <= sum_of(t->a_rz, rz), "batch %d: A_xz %.17g, A_rz %.17g", b,
              tally_count(a), tally_count(sum_of(t->a_rz, rz)));
}

static int case_agree(void)
{
    mci_file f;
    if (!parse_run(&f, 45.0, NX))
        return 1;
    const mci_run *run = &f.runs[0];
    batch_vec g, c;
    CHECK(batch_vec_init(&g, ROW, BATCHES) && batch_vec_init(&c, ROW, BATCHES));
    run_agree_batches(gpu, run, SEED, BATCHES, 200000, row_of, grids_within, &g, &c);
    bool compared;
    z_report r = stats_compare_independent(&g, &c, 0.2, ALPHA, &compared);
    CHECK(compared);
    stats_print_report("Rd_xy, Tt_xy, A_xz", &r);
    double cx_g = 0.0, cx_c = 0.0, rd_g = 0.0, rd_c = 0.0;
    for (int ix = 0; ix < NX; ix++)
        for (int iy = 0; iy < NX; iy++) {
            double x = (ix + 0.5 - 0.5 * NX) * DX;
            cx_g += x * g.mean[ix * NX + iy];
            cx_c += x * c.mean[ix * NX + iy];
            rd_g += g.mean[ix * NX + iy];
            rd_c += c.mean[ix * NX + iy];
        }
    printf("Rd_xy's centroid: GPU x %.5f cm, CPU x %.5f cm\n", cx_g / rd_g, cx_c / rd_c);
    CHECK_MSG(r.bins >= ROW / 4, "only %zu entries well enough determined", r.bins);
    CHECK_MSG(r.pass, "an entry's z or their mean beyond the bound");
    batch_vec_free(&g);
    batch_vec_free(&c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

/* Without the grid: the oblique beam's plain kernel. */
static void drop_xy(mci_run *run) { run->xy_nx = 0; }

static int case_identity(void)
{
    mci_file f;
    if (!parse_run(&f, 45.0, NX))
        return 1;
    run_identity(gpu, &f.runs[0], SEED, OUTPUT_TALLY_RD_XY, drop_xy);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

static int case_normal(void)
{
    mci_file f;
    if (!parse_run(&f, 0.0, 0))
        return 1;
    mci_run *run = &f.runs[0];
    variant_options heuristic;
    variant_options_init(&heuristic);
    tally_set oblique, pencil;
    CHECK(run_gpu_tallies(gpu, run, &heuristic, 0, SEED, 0, 300000, &oblique, true));
    run->source = (source_desc){0};
    CHECK(run_gpu_tallies(gpu, run, &heuristic, 0, SEED, 0, 300000, &pencil, true));
    CHECK_MSG(tally_set_equal(&oblique, &pencil), "a beam at 0 degrees is not the pencil beam");
    tally_set_free(&oblique);
    tally_set_free(&pencil);
    mci_free(&f);
    return check_summary("normal (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"agree", case_agree}, {"identity", case_identity}, {"normal", case_normal}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_xy_gpu agree|identity|normal\n");
}
