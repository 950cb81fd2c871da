/* Time bins and the fiber detector on the GPU engine (label gpu; exit 77
 * without a GPU), against the CPU engine and across kernel variants:
 *   agree     the three-layer example with time bins and a detector off the
 *             axis: Rd_t, Tt_t and Rd_fiber of GPU batches against CPU
 *             batches of another seed (independent), bin by bin, with the
 *             Bonferroni bound of stats_compare_dependent (valid whatever
 *             the bins' correlation); on the GPU too each ring's time
 *             tallies sum to its escape tallies in integers
 *   identity  the heuristic variant in one call against another variant
 *             (block 128, shared layers, no tile) in launches of 70000 and
 *             two calls: every tally, the optional ones too, bit for bit;
 *             the run's every-run tallies those of the same kernel shape
 *             without time bins and detector (the plain kernel's) as well
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

#define SEED    20261126u
#define BATCHES 16
#define ALPHA   1e-4

static gpu_engine *gpu;

static const char *example = "1.0\n1\ne.mco A\n1000\n0.01 0.01\n40 50 1\n3\n1.0\n"
                             "1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n";

static bool parse_run(mci_file *f)
{
    tm_error err;
    if (!mci_parse(example, "test_time_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->time_dt = 0.005;
    run->time_nt = 60;
    run->fiber_count = 1;
    run->fibers[0] = (fiber_detector){0.1, 0.05, 0.5};
    return true;
}

/* Rd_t, Tt_t and Rd_fiber of a result, one row. */
static void row_of(const mci_run *run, const mcml_result *res, double *row)
{
    (void)run;
    int nt = res->nt;
    memcpy(row, res->rd_t, (size_t)nt * sizeof *row);
    memcpy(row + nt, res->tt_t, (size_t)nt * sizeof *row);
    row[2 * nt] = res->rd_fiber[0];
}

static tally_acc_t row_sum(const tally_acc_t *v, int row, int cols)
{
    tally_acc_t s = 0;
    for (int c = 0; c < cols; c++)
        s += v[(size_t)row * cols + c];
    return s;
}

/* Each ring's time bins sum to its escapes, in integers. */
static void rings_sum(const mci_run *run, const tally_set *t, const mcml_result *res, int b)
{
    (void)res, (void)b;
    for (int ir = 0; ir < run->nr; ir++) {
        CHECK(row_sum(t->rd_rt, ir, run->time_nt) == row_sum(t->rd_ra, ir, run->na));
        CHECK(row_sum(t->tt_rt, ir, run->time_nt) == row_sum(t->tt_ra, ir, run->na));
    }
}

static int case_agree(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    size_t n = 2 * (size_t)run->time_nt + 1;
    batch_vec g, c;
    CHECK(batch_vec_init(&g, n, BATCHES) && batch_vec_init(&c, n, BATCHES));
    run_agree_batches(gpu, run, SEED, BATCHES, 200000, row_of, rings_sum, &g, &c);
    bool compared;
    z_report r = stats_compare_independent(&g, &c, 0.2, ALPHA, &compared);
    CHECK(compared);
    stats_print_report("Rd_t, Tt_t, Rd_fiber", &r);
    printf("Rd_fiber: GPU %.6g, CPU %.6g\n", g.mean[n - 1], c.mean[n - 1]);
    CHECK_MSG(r.bins > 20, "only %zu bins well enough determined", r.bins);
    CHECK_MSG(r.pass, "a bin's z or their mean beyond the bound");
    batch_vec_free(&g);
    batch_vec_free(&c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

/* Without time bins and detector. */
static void drop_timed(mci_run *run)
{
    run->time_nt = 0;
    run->fiber_count = 0;
}

static int case_identity(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    run_identity(gpu, &f.runs[0], SEED, OUTPUT_TALLY_RD_FIBER, drop_timed);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"agree", case_agree}, {"identity", case_identity}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_time_gpu agree|identity\n");
}
