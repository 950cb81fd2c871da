/* Modulation frequencies on the GPU engine (label gpu; exit 77 without a
 * GPU), whose run's own kernel scores each escape through the top's
 * w cos(omega t) and w sin(omega t) (templates/timed.cu, mod_escape),
 * against the CPU engine and across kernel variants:
 *   agree     the three-layer example at four frequencies, 100 MHz to
 *             2 GHz: Rd_ac, Rd_phase and the first rings' Rd_r_ac and
 *             Rd_r_phase of GPU batches against CPU batches of another
 *             seed (independent), entry by entry, with the Bonferroni bound
 *             of stats_compare_independent
 *   identity  the heuristic variant in one call against another variant
 *             (block 128, shared layers, no tile) in launches of 70000 and
 *             two calls: every tally, the modulations' too, bit for bit;
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

#define SEED    20261130u
#define BATCHES 16
#define ALPHA   1e-4
#define MODS    4
#define RINGS   10 /* the rings compared, of 40 */

static gpu_engine *gpu;

static const char *example = "1.0\n1\ne.mco A\n1000\n0.01 0.01\n40 50 1\n3\n1.0\n"
                             "1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n";
static const double frequencies[MODS] = {1e8, 3e8, 1e9, 2e9}; /* Hz */

static bool parse_run(mci_file *f)
{
    tm_error err;
    if (!mci_parse(example, "test_mod_gpu.mci", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    mci_run *run = &f->runs[0];
    run->mod_hz = malloc(sizeof frequencies);
    if (!run->mod_hz)
        return false;
    memcpy(run->mod_hz, frequencies, sizeof frequencies);
    run->mod_count = MODS;
    return true;
}

/* Rd_ac and Rd_phase (MODS each), then the first rings' Rd_r_ac and
 * Rd_r_phase (RINGS x MODS each), one row. */
#define ROW (2 * MODS + 2 * RINGS * MODS)
static void row_of(const mci_run *run, const mcml_result *res, double *row)
{
    (void)run;
    memcpy(row, res->rd_ac, MODS * sizeof *row);
    memcpy(row + MODS, res->rd_phase, MODS * sizeof *row);
    memcpy(row + 2 * MODS, res->rd_r_ac, RINGS * MODS * sizeof *row);
    memcpy(row + 2 * MODS + RINGS * MODS, res->rd_r_phase, RINGS * MODS * sizeof *row);
}

static void scored(const mci_run *run, const tally_set *t, const mcml_result *res, int b)
{
    (void)run, (void)t;
    CHECK_MSG(res->rd_ac && res->rd_r_phase, "batch %d: the GPU scored no modulation", b);
}

static int case_agree(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    const mci_run *run = &f.runs[0];
    batch_vec g, c;
    CHECK(batch_vec_init(&g, ROW, BATCHES) && batch_vec_init(&c, ROW, BATCHES));
    run_agree_batches(gpu, run, SEED, BATCHES, 200000, row_of, scored, &g, &c);
    bool compared;
    z_report r = stats_compare_independent(&g, &c, 0.2, ALPHA, &compared);
    CHECK(compared);
    stats_print_report("Rd_ac, Rd_phase, Rd_r_ac, Rd_r_phase", &r);
    for (int k = 0; k < MODS; k++)
        printf("%6.0f MHz: Rd_ac GPU %.6g, CPU %.6g; Rd_phase GPU %.6g, CPU %.6g rad\n",
               frequencies[k] * 1e-6, g.mean[k], c.mean[k], g.mean[MODS + k], c.mean[MODS + k]);
    CHECK_MSG(r.bins >= ROW / 2, "only %zu entries well enough determined", r.bins);
    CHECK_MSG(r.pass, "an entry's z or their mean beyond the bound");
    batch_vec_free(&g);
    batch_vec_free(&c);
    mci_free(&f);
    return check_summary("agree (gpu)");
}

/* Without modulations (the run still frees its list). */
static void drop_mod(mci_run *run) { run->mod_count = 0; }

static int case_identity(void)
{
    mci_file f;
    if (!parse_run(&f))
        return 1;
    run_identity(gpu, &f.runs[0], SEED, OUTPUT_TALLY_RD_MOD, drop_mod);
    mci_free(&f);
    return check_summary("identity (gpu)");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"agree", case_agree}, {"identity", case_identity}};
    return engine_device_run_case(&gpu, true, argc > 1 ? argv[1] : "", cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_mod_gpu agree|identity\n");
}
