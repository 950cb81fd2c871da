#include "result.h"

#include <math.h>
#include <stdlib.h>

#include "optics.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

bool result_alloc(mcml_result *res, int nr, int nz, int na, int num_layers)
{
    *res = (mcml_result){.nr = nr, .nz = nz, .na = na, .num_layers = num_layers};
    size_t r = (size_t)nr, z = (size_t)nz, a = (size_t)na;
    res->a_l = calloc((size_t)num_layers + 2, sizeof *res->a_l);
    res->a_z = calloc(z, sizeof *res->a_z);
    res->rd_r = calloc(r, sizeof *res->rd_r);
    res->tt_r = calloc(r, sizeof *res->tt_r);
    res->rd_a = calloc(a, sizeof *res->rd_a);
    res->tt_a = calloc(a, sizeof *res->tt_a);
    res->a_rz = calloc(r * z, sizeof *res->a_rz);
    res->rd_ra = calloc(r * a, sizeof *res->rd_ra);
    res->tt_ra = calloc(r * a, sizeof *res->tt_ra);
    if (res->a_l && res->a_z && res->rd_r && res->tt_r && res->rd_a && res->tt_a && res->a_rz &&
        res->rd_ra && res->tt_ra)
        return true;
    result_free(res);
    return false;
}

void result_free(mcml_result *res)
{
    free(res->a_l);
    free(res->a_z);
    free(res->rd_r);
    free(res->tt_r);
    free(res->rd_a);
    free(res->tt_a);
    free(res->a_rz);
    free(res->rd_ra);
    free(res->tt_ra);
    res->a_l = res->a_z = res->rd_r = res->tt_r = res->rd_a = res->tt_a = NULL;
    res->a_rz = res->rd_ra = res->tt_ra = NULL;
}

/* MCML's IzToLayer: the layer holding the centre of depth bin iz; bins
 * below the stack count for the last layer. */
static int result_iz_to_layer(const mci_run *run, int iz)
{
    int i = 1;
    while ((iz + 0.5) * run->dz >= run->layers[i].z1 && i < run->num_layers)
        i++;
    return i;
}

/* Sum2DRd / Sum2DTt on integers, then ScaleRdTt's scalings in MCML's
 * order of operations (so the doubles match MCML's for equal sums). */
static void result_radial_angular(const mci_run *run, const tally_acc_t *ra, double n,
                                  double *out_ra, double *out_r, double *out_a, double *total)
{
    int nr = run->nr, na = run->na;
    double dr = run->dr, da = run->da;
    tally_acc_t sum_all = 0;

    double scale1 = 4.0 * M_PI * M_PI * dr * sin(da / 2) * dr * n;
    for (int ir = 0; ir < nr; ir++)
        for (int ia = 0; ia < na; ia++) {
            double scale2 = 1.0 / ((ir + 0.5) * sin(2.0 * (ia + 0.5) * da) * scale1);
            out_ra[ir * na + ia] = tally_weight(ra[ir * na + ia]) * scale2;
        }

    scale1 = 2.0 * M_PI * dr * dr * n;
    for (int ir = 0; ir < nr; ir++) {
        tally_acc_t sum = 0;
        for (int ia = 0; ia < na; ia++)
            sum += ra[ir * na + ia];
        sum_all += sum;
        out_r[ir] = tally_weight(sum) * (1.0 / ((ir + 0.5) * scale1));
    }

    scale1 = 2.0 * M_PI * da * n;
    for (int ia = 0; ia < na; ia++) {
        tally_acc_t sum = 0;
        for (int ir = 0; ir < nr; ir++)
            sum += ra[ir * na + ia];
        out_a[ia] = tally_weight(sum) * (1.0 / (sin((ia + 0.5) * da) * scale1));
    }

    *total = tally_weight(sum_all) * (1.0 / n);
}

/* Sum2DA then ScaleA.  The per-layer and total sums stay integers until the
 * end: MCML adds A_z[iz] into A_l[IzToLayer(iz)] and A, which in integers is
 * the same as summing the bins of each layer. */
static bool result_absorption(const mci_run *run, const tally_set *t, double n, mcml_result *res)
{
    int nr = run->nr, nz = run->nz, nl = run->num_layers;
    double dr = run->dr, dz = run->dz;
    tally_acc_t *layer = calloc((size_t)nl + 2, sizeof *layer);
    if (!layer)
        return false;
    tally_acc_t total = 0;

    double scale1 = 2.0 * M_PI * dr * dr * dz * n;
    for (int iz = 0; iz < nz; iz++)
        for (int ir = 0; ir < nr; ir++)
            res->a_rz[ir * nz + iz] = tally_weight(t->a_rz[ir * nz + iz]) / ((ir + 0.5) * scale1);

    scale1 = 1.0 / (dz * n);
    for (int iz = 0; iz < nz; iz++) {
        tally_acc_t sum = 0;
        for (int ir = 0; ir < nr; ir++)
            sum += t->a_rz[ir * nz + iz];
        res->a_z[iz] = tally_weight(sum) * scale1;
        layer[result_iz_to_layer(run, iz)] += sum;
        total += sum;
    }

    scale1 = 1.0 / n;
    for (int il = 0; il <= nl + 1; il++)
        res->a_l[il] = tally_weight(layer[il]) * scale1;
    res->a = tally_weight(total) * scale1;
    free(layer);
    return true;
}

bool result_from_tallies(const mci_run *run, const tally_set *t, mcml_result *res, tm_error *err)
{
    if (t->nr != run->nr || t->nz != run->nz || t->na != run->na) {
        error_set(err, NULL, 0,
                  "tally grid %dx%dx%d does not match the run's %dx%dx%d (nr, nz, na)", t->nr,
                  t->nz, t->na, run->nr, run->nz, run->na);
        return false;
    }
    if (t->photons == 0) {
        error_set(err, NULL, 0, "no photons were simulated: nothing to normalise");
        return false;
    }
    if (!result_alloc(res, run->nr, run->nz, run->na, run->num_layers)) {
        error_set(err, NULL, 0, "out of memory for the result arrays");
        return false;
    }
    double n = (double)t->photons;
    res->photons = t->photons;
    res->rsp = optics_specular(run);
    result_radial_angular(run, t->rd_ra, n, res->rd_ra, res->rd_r, res->rd_a, &res->rd);
    result_radial_angular(run, t->tt_ra, n, res->tt_ra, res->tt_r, res->tt_a, &res->tt);
    if (!result_absorption(run, t, n, res)) {
        result_free(res);
        error_set(err, NULL, 0, "out of memory for the result arrays");
        return false;
    }
    return true;
}
