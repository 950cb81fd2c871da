/* Several fiber detectors in one run (docs/physics.md, "Fiber detector";
 * issue 47): a detector's share of an escape depends on the escape alone,
 * so each of D detectors scored together tallies, bit for bit, what the run
 * of the same seed with that detector alone tallies, and every other tally
 * is that run's too:
 *   alone      the CPU engine, four detectors (on the axis, off it, one of
 *              NA 0.3 that the angle limits, and the first's twin) with
 *              time bins and the derivatives: each detector's Rd_fiber
 *              entry and Rd_fiber_terms block against its run alone; on 1
 *              and 2 threads, in one call and in two; with two absorption
 *              sets, each set's
 *   batch      the CPU engine, a batch of runs with 0, 3 and 1 detectors
 *              (their workers' detector tallies sized for the most): each
 *              run's tallies those of its run alone
 *   gpu_alone  the GPU engine (label gpu; exit 77 without one), three
 *              detectors and time bins in the kernel of several detectors
 *              (the shape's fibers) against the one-detector kernel run for
 *              each, in launches of 70000 and two calls
 * Fixed seeds: deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "cpu_sets.h"
#include "engine_device.h"
#include "mci_text.h"
#include "variant.h"

#define SEED 20270301u

static gpu_engine *gpu;

/* Two layers under glass, so that the detectors see refraction; rings of
 * 0.01 cm out to 0.4 cm. */
static const char *text = "1.0\n1\nf.mco A\n1000\n0.005 0.01\n40 30 3\n3\n1.0\n"
                          "1.5 0 0 0 0.02\n1.37 0.5 30 0.8 0.05\n1.37 1 40 0.7 0.1\n1.0\n";

static const fiber_detector detectors[] = {
    {0.0, 0.05, 1.0}, {0.1, 0.04, 1.0}, {0.15, 0.05, 0.3}, {0.0, 0.05, 1.0}};
#define DETECTORS (int)(sizeof detectors / sizeof *detectors)

/* run with the detectors [first, first + count) of detectors[]. */
static void give_detectors(mci_run *run, int first, int count)
{
    run->fiber_count = count;
    for (int k = 0; k < count; k++)
        run->fibers[k] = detectors[first + k];
}

/* Whether the tallies of `all` (D detectors) hold those of `one` (its
 * detector d alone): every tally but the detectors' equal, and detector
 * d's entries of each tally along the detectors (Rd_fiber, its derivatives'
 * terms: their leading axis) equal. */
static bool detector_matches(const tally_set *all, const tally_set *one, int d)
{
    if (!tally_set_runs_equal(all, one) || all->nt != one->nt || one->detectors != 1)
        return false;
    for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++) {
        if (!all->tally[k] != !one->tally[k])
            return false;
        if (!all->tally[k])
            continue;
        size_t n = (size_t)tally_set_bins(one, k);
        size_t at = output_tally(k)->axes[0] == OUTPUT_AXIS_DETECTOR ? (size_t)d * n : 0;
        if (memcmp(all->tally[k] + at, one->tally[k], n * sizeof *one->tally[k]) != 0)
            return false;
    }
    return true;
}

/* Photons [first, first + count) of run into t (sets tally sets, each
 * initialised here when init). */
static bool cpu_tallies(const mci_run *run, int sets, const double *mua, int threads,
                        uint64_t first, uint64_t count, tally_set *t, bool init)
{
    return cpu_sets_tallies(run, SEED, sets, mua, threads, first, count, t, init);
}

/* The test's run, with time bins, into f; false when it does not parse. */
static bool timed_run(mci_file *f)
{
    if (!parse_inline(text, f))
        return false;
    f->runs[0].time_dt = 0.002;
    f->runs[0].time_nt = 20;
    return true;
}

/* Each detector of run's D against its run alone, on the CPU, with sets
 * absorption sets (0: none): what is named in messages. */
static void cpu_each_alone(mci_run *run, int sets, const double *mua, int threads, bool split,
                           const char *what)
{
    const uint64_t n = 20000, half = 7000;
    tally_set all[2], one[2];
    int tallies = sets > 0 ? sets : 1;
    give_detectors(run, 0, DETECTORS);
    CHECK(split ? cpu_tallies(run, sets, mua, threads, 0, half, all, true) &&
                      cpu_tallies(run, sets, mua, threads, half, n - half, all, false)
                : cpu_tallies(run, sets, mua, threads, 0, n, all, true));
    CHECK_MSG(all[0].detectors == DETECTORS && all[0].rd_fiber && all[0].rd_jf,
              "%s: the tallies of %d detectors", what, DETECTORS);
    for (int d = 0; d < DETECTORS; d++) {
        give_detectors(run, d, 1);
        CHECK(cpu_tallies(run, sets, mua, 2, 0, n, one, true));
        for (int k = 0; k < tallies; k++)
            CHECK_MSG(detector_matches(&all[k], &one[k], d),
                      "%s: detector %d (set %d) differs from its run alone", what, d + 1, k + 1);
        for (int k = 0; k < tallies; k++)
            tally_set_free(&one[k]);
    }
    /* the twin collects the first's weight; the others their own */
    CHECK_MSG(all[0].rd_fiber[3] == all[0].rd_fiber[0] && all[0].rd_fiber[2] > 0 &&
                  all[0].rd_fiber[1] != all[0].rd_fiber[0] &&
                  all[0].rd_fiber[2] != all[0].rd_fiber[1],
              "%s: the detectors' weights", what);
    for (int k = 0; k < tallies; k++)
        tally_set_free(&all[k]);
}

static int case_alone(void)
{
    mci_file f;
    if (!timed_run(&f))
        return 1;
    mci_run *run = &f.runs[0];
    run->jacobian = true;
    cpu_each_alone(run, 0, NULL, 1, false, "1 thread");
    cpu_each_alone(run, 0, NULL, 2, true, "2 threads, two calls");
    static const double mua[2 * 3] = {0, 0.5, 1, 0, 2, 3};
    cpu_each_alone(run, 2, mua, 2, false, "absorption sets");
    mci_free(&f);
    return check_summary("alone");
}

static int case_batch(void)
{
    mci_file f[3];
    for (int k = 0; k < 3; k++)
        if (!parse_inline(text, &f[k]))
            return 1;
    static const int counts[3] = {0, 3, 1};
    batch_part parts[3];
    tally_set batch[3], alone;
    cpu_options opt = {.seed = SEED, .threads = 2, .score_absorption = true};
    for (int k = 0; k < 3; k++) {
        give_detectors(&f[k].runs[0], k, counts[k]);
        f[k].runs[0].jacobian = true;
        parts[k] = (batch_part){.run = &f[k].runs[0], .first = 0, .count = 9000, .slot = k};
        CHECK(tally_set_init(&batch[k], f[k].runs[0].nr, f[k].runs[0].nz, f[k].runs[0].na));
    }
    photon_batch b;
    tm_error err = {0};
    bool ok = photon_batch_init(&b, parts, 3, &err) && cpu_simulate_batch(&b, &opt, batch, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    photon_batch_free(&b);
    for (int k = 0; ok && k < 3; k++) {
        CHECK(tally_set_init(&alone, f[k].runs[0].nr, f[k].runs[0].nz, f[k].runs[0].na) &&
              cpu_simulate(&f[k].runs[0], &opt, 0, 9000, &alone, &err));
        CHECK_MSG(batch[k].detectors == counts[k] && tally_set_equal(&batch[k], &alone),
                  "run %d of the batch (%d detectors) differs from its run alone", k + 1,
                  counts[k]);
        tally_set_free(&alone);
    }
    for (int k = 0; k < 3; k++) {
        tally_set_free(&batch[k]);
        mci_free(&f[k]);
    }
    return check_summary("batch");
}

/* Photons [first, first + count) of run on the GPU, heuristic variant, in
 * launches of at most launch photons (0: any), into t (initialised when
 * init). */
static bool gpu_tallies(const mci_run *run, uint64_t launch, uint64_t first, uint64_t count,
                        tally_set *t, bool init)
{
    tm_error err = {0};
    variant_options v;
    variant_options_init(&v);
    kernel_spec spec;
    gpu_options opt = {.seed = SEED, .max_launch_photons = launch};
    gpu_stats stats;
    bool ok = (!init || tally_set_init(t, run->nr, run->nz, run->na)) &&
              variant_spec_for_run(run, true, device_of(gpu), &v, &spec, &err) &&
              gpu_simulate(gpu, run, &spec, &opt, first, count, t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

static int case_gpu_alone(void)
{
    mci_file f;
    if (!timed_run(&f))
        return 1;
    mci_run *run = &f.runs[0];
    const uint64_t n = 400000, split = 150000;
    tally_set all, one;
    give_detectors(run, 0, 3);
    CHECK(gpu_tallies(run, 70000, 0, split, &all, true) &&
          gpu_tallies(run, 70000, split, n - split, &all, false));
    for (int d = 0; d < 3; d++) {
        give_detectors(run, d, 1);
        CHECK(gpu_tallies(run, 0, 0, n, &one, true));
        CHECK_MSG(detector_matches(&all, &one, d),
                  "the GPU's detector %d differs from its one-detector kernel's", d + 1);
        tally_set_free(&one);
    }
    tally_set_free(&all);
    mci_free(&f);
    return check_summary("gpu_alone");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    static const check_case cases[] = {
        {"alone", case_alone}, {"batch", case_batch}, {"gpu_alone", case_gpu_alone}};
    return engine_device_run_case(&gpu, strncmp(name, "gpu_", 4) == 0, name, cases,
                                  sizeof cases / sizeof cases[0],
                                  "usage: test_fibers alone|batch|gpu_alone\n");
}
