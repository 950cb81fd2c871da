/* The fixed point's rounding bias (docs/fixed-point.md), measured where it is
 * largest: the intralipid slab, mua/mut ~ 2e-5, so each deposit is only a few
 * hundred units of 2^-24 and a photon makes ~10^4 of them.  The same photons
 * are scored twice, quantised and exactly (double), and the difference of
 * every total and bin is compared with the statistical error the largest
 * runs reach: the bias does not shrink with photons, the error does, as
 * 1/sqrt(N).  "Far below" is taken as under 1 % of sigma at 10^10 photons
 * for the total absorption, and under 1 % of this run's sigma per bin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cpu_photon.h"
#include "cpu_problem_setup.h"
#include "mci.h"
#include "tally.h"

#define BATCHES       32
#define BATCH_PHOTONS 64
#define FAR_BELOW     0.01
#define LARGEST_RUN   1e10

int main(void)
{
    mci_file f;
    tm_error err;
    if (!mci_read(TMCML_TEST_DATA "/../../examples/intralipid_slab.mci", &f, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    const mci_run *run = &f.runs[0];
    size_t bins = (size_t)run->nr * (size_t)run->nz;
    cpu_problem problem;
    tally_batch b;
    double *exact = calloc(bins, sizeof *exact);
    double *batch_a = calloc(BATCHES, sizeof *batch_a);
    double *bin_sum = calloc(bins, sizeof *bin_sum), *bin_sum2 = calloc(bins, sizeof *bin_sum2);
    double *bin_err = calloc(bins, sizeof *bin_err);
    CHECK(cpu_problem_init(&problem, run, 99, true) &&
          tally_batch_init(&b, run->nr, run->nz, run->na));
    b.a_rz_exact = exact;
    double total_err = 0;
    for (int k = 0; k < BATCHES; k++) {
        tally_batch_clear(&b);
        for (size_t i = 0; i < bins; i++)
            exact[i] = 0;
        for (uint64_t p = 0; p < BATCH_PHOTONS; p++)
            cpu_photon_simulate(&problem, (uint64_t)k * BATCH_PHOTONS + p, &b);
        double a = 0;
        for (size_t i = 0; i < bins; i++) {
            double q = (double)b.a_rz[i] / TALLY_UNITS_PER_WEIGHT;
            a += exact[i];
            total_err += q - exact[i];
            bin_err[i] += q - exact[i];
            bin_sum[i] += exact[i];
            bin_sum2[i] += exact[i] * exact[i];
        }
        batch_a[k] = a / BATCH_PHOTONS;
    }
    double n = (double)BATCHES * BATCH_PHOTONS, mean = 0, var = 0;
    for (int k = 0; k < BATCHES; k++)
        mean += batch_a[k] / BATCHES;
    for (int k = 0; k < BATCHES; k++)
        var += (batch_a[k] - mean) * (batch_a[k] - mean) / (BATCHES - 1);
    /* sigma of A in a run of LARGEST_RUN photons, from this run's variance. */
    double sigma_a = sqrt(var * BATCH_PHOTONS / LARGEST_RUN), bias_a = total_err / n;
    printf("intralipid slab, %.0f photons: A = %.6f; quantisation bias of A %.2e per photon"
           " = %.2e sigma of a 1e10-photon run\n",
           n, mean, bias_a, bias_a / sigma_a);
    CHECK(fabs(bias_a) < FAR_BELOW * sigma_a);

    /* Per bin: bias against the bin's own standard error. */
    double worst = 0;
    size_t worst_bin = 0, compared = 0;
    for (size_t i = 0; i < bins; i++) {
        double m = bin_sum[i] / BATCHES;
        double v = (bin_sum2[i] / BATCHES - m * m) * BATCHES / (BATCHES - 1);
        /* Bins measured to 100 % per batch (hit in most batches): in a
         * bin hit a few times, one unit moved by the residue is a large part
         * of a negligible content. */
        if (v <= 0 || sqrt(v) > m)
            continue;
        /* Against this run's sigma: a bin's measured error is itself noisy
         * (residues move between neighbouring bins), and only the total is
         * measured precisely enough to compare with a 1e10-photon sigma. */
        double ratio = fabs(bin_err[i]) / BATCHES / sqrt(v / BATCHES);
        compared++;
        if (ratio > worst) {
            worst = ratio;
            worst_bin = i;
        }
    }
    printf("A_rz: %zu well-measured bins; largest quantisation error %.2e sigma of this run (bin "
           "%zu)\n",
           compared, worst, worst_bin);
    CHECK(compared > 100);
    CHECK(worst < FAR_BELOW);
    tally_batch_free(&b);
    cpu_problem_free(&problem);
    free(exact);
    free(batch_a);
    free(bin_sum);
    free(bin_sum2);
    free(bin_err);
    mci_free(&f);
    return check_summary("quantization");
}
