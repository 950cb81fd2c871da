/* Spatial frequencies on the GPU engine (label gpu; exit 77 without a
 * GPU), whose run's own kernel scores each escape's w J0(2 pi fx rho)
 * (templates/fx.cu), against the CPU engine and across kernel variants:
 *   agree     the three-layer example at seven frequencies, 0 to 20 /cm:
 *             Rd_fx and Tt_fx of GPU batches against CPU batches of another
 *             seed (independent), frequency by frequency, with the
 *             Bonferroni bound of stats_compare_independent; on the GPU too
 *             Rd_fx[0] and Tt_fx[0] are Rd and Tt bit for bit
 *   identity  the heuristic variant in one call against another variant
 *             (block 128, shared layers, no tile) in launches of 70000 and
 *             two calls: every tally, the frequencies' too, bit for bit;
 *             the run's every-run tallies those of the plain kernel
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

#define SEED    20261129u
#define BATCHES 16
#define ALPHA   1e-4
#define FX      7

static gpu_engine *gpu;

static const char *example = "1.0\n1\ne.mco A\n1000\n0.01 0.01\n40 50 1\n3\n1.0\n"
                             "1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n";
static const double frequencies[FX] = {0, 0.25, 0.5, 1, 2, 5, 20}; /* 1/cm */

static bool parse_run(mci_file *f)
{
    tm_error err;
    if (!mci_parse(example, "test_fx_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->fx = malloc(sizeof frequencies);
    if (!run->fx)
        return false;
    memcpy(run->fx, frequencies, sizeof frequencies);
    run->fx_count = FX;
    return true;
}

/* Rd_fx then Tt_fx of a result, one row. */
static void row_of(const mci_run *run, const mcml_result *res, double *row)
{
    (void)run;
    memcpy(row, res->rd_fx, FX * sizeof *row);
    memcpy(row + FX, res->tt_fx, FX * sizeof *row);
}

/* At fx = 0 the GPU's Rd_fx and Tt_fx are Rd and Tt bit for bit. */
static void fx0_is_rd(const mci_run *run, const tally_set *t, const mcml_result *res, int b)
{
    (void)run, (void)t;
    CHECK_MSG(res->rd_fx && res->rd_fx[0] == res->rd && res->tt_fx[0] == res->tt,
              "batch %d: GPU Rd_fx[0] %.17g, Rd %.17g", b, res->rd_fx ? res->rd_fx[0] : -1.0,
              res->rd);
}

static int case_agree(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    batch_vec g, c;
    CHECK(batch_vec_init(&g, 2 * FX, BATCHES) && batch_vec_init(&c, 2 * FX, BATCHES));
    run_agree_batches(gpu, run, SEED, BATCHES, 200000, row_of, fx0_is_rd, &g, &c);
    bool compared;
    z_report r = stats_compare_independent(&g, &c, 0.2, ALPHA, &compared);
    CHECK(compared);
    stats_print_report("Rd_fx, Tt_fx", &r);
    for (int k = 0; k < FX; k++)
        printf("fx %5.2f /cm: Rd_fx GPU %.6g, CPU %.6g; Tt_fx GPU %.6g, CPU %.6g\n", frequencies[k],
               g.mean[k], c.mean[k], g.mean[FX + k], c.mean[FX + k]);
    CHECK_MSG(r.bins >= 10, "only %zu entries well enough determined", r.bins);
    CHECK_MSG(r.pass, "an entry's z or their mean beyond the bound");
    batch_vec_free(&g);
    batch_vec_free(&c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

/* Without frequencies (the run still frees its list). */
static void drop_fx(mci_run *run) { run->fx_count = 0; }

static int case_identity(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    run_identity(gpu, &f.runs[0], SEED, OUTPUT_TALLY_RD_FX, drop_fx);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"agree", case_agree}, {"identity", case_identity}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_fx_gpu agree|identity\n");
}
