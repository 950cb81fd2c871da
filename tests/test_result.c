/* result: hand-made integer tallies on a tiny grid, normalised, against
 * MCML's formulas written out independently here. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "result.h"
#include "run_grid.h"

#define PI   3.14159265358979323846
#define UNIT TALLY_UNITS_PER_WEIGHT

enum { NR = 3, NZ = 5, NA = 3, NL = 3 };

static bool close_to(double got, double want)
{
    return fabs(got - want) <= 1e-13 * fabs(want) || got == want;
}

#define CHECK_CLOSE(got, want)                                                                     \
    CHECK_MSG(close_to((got), (want)), "%s = %.17g, want %.17g", #got, (double)(got),              \
              (double)(want))

/* Exact binary depths so bin centres land exactly on boundaries:
 * dz = 0.25, layer bottoms at 0.375, 0.625, 0.75.  Centres of the five
 * depth bins: 0.125, 0.375 (= z1 of layer 1), 0.625 (= z1 of layer 2),
 * 0.875 and 1.125 (below the stack). */
static void make_run(mci_run *run, mci_layer *layers)
{
    double d[NL + 1] = {0, 0.375, 0.25, 0.125};
    double z = 0;
    layers[0] = (mci_layer){.n = 1.0};
    for (int i = 1; i <= NL; i++) {
        layers[i] = (mci_layer){.n = 1.4, .mua = 1, .mus = 100, .g = 0.9, .d = d[i], .z0 = z};
        z += d[i];
        layers[i].z1 = z;
    }
    layers[NL + 1] = (mci_layer){.n = 1.0, .z0 = z, .z1 = z};
    *run = (mci_run){.out_name = "t.mco",
                     .out_format = 'A',
                     .photons = 1000,
                     .num_layers = NL,
                     .layers = layers};
    run_grid(run, 0.25, 0.1, NZ, NR, NA);
}

/* Distinct values in every bin, one of them beyond 64 bits. */
static void fill_tallies(tally_set *t)
{
    for (int ir = 0; ir < NR; ir++) {
        for (int iz = 0; iz < NZ; iz++)
            t->a_rz[ir * NZ + iz] = (tally_acc_t)((ir + 1) * 1000003 + iz * 7919) * 4096;
        for (int ia = 0; ia < NA; ia++) {
            t->rd_ra[ir * NA + ia] = (tally_acc_t)((ir + 2) * 7777777 + ia * 131);
            t->tt_ra[ir * NA + ia] = (tally_acc_t)((ir + 3) * 55555 + ia * 17) * 3;
        }
    }
    t->a_rz[2 * NZ + 4] = ((tally_acc_t)1 << 70) + 12345;
    t->photons = 1000;
}

static double w(tally_acc_t u) { return tally_weight(u); }

static void check_ra(const mci_run *run, const tally_acc_t *ra, const double *got_ra,
                     const double *got_r, const double *got_a, double got_total, double n)
{
    double dr = run->dr, da = run->da;
    tally_acc_t total = 0;
    for (int ir = 0; ir < NR; ir++)
        for (int ia = 0; ia < NA; ia++) {
            double want = w(ra[ir * NA + ia]) / ((ir + 0.5) * sin(2 * (ia + 0.5) * da) * 4 * PI *
                                                 PI * dr * sin(da / 2) * dr * n);
            CHECK_CLOSE(got_ra[ir * NA + ia], want);
        }
    for (int ir = 0; ir < NR; ir++) {
        tally_acc_t s = ra[ir * NA] + ra[ir * NA + 1] + ra[ir * NA + 2];
        total += s;
        CHECK_CLOSE(got_r[ir], w(s) / ((ir + 0.5) * 2 * PI * dr * dr * n));
    }
    for (int ia = 0; ia < NA; ia++) {
        tally_acc_t s = ra[ia] + ra[NA + ia] + ra[2 * NA + ia];
        CHECK_CLOSE(got_a[ia], w(s) / (sin((ia + 0.5) * da) * 2 * PI * da * n));
    }
    CHECK_CLOSE(got_total, w(total) / n);
}

static void test_arrays(void)
{
    mci_layer layers[NL + 2];
    mci_run run;
    make_run(&run, layers);
    tally_set t;
    CHECK(tally_set_init(&t, NR, NZ, NA));
    fill_tallies(&t);
    mcml_result res;
    tm_error err = {0};
    CHECK(result_from_tallies(&run, &t, &res, &err));
    double n = 1000, dr = run.dr, dz = run.dz;

    CHECK(res.photons == 1000 && res.nr == NR && res.nz == NZ && res.na == NA);
    check_ra(&run, t.rd_ra, res.rd_ra, res.rd_r, res.rd_a, res.rd, n);
    check_ra(&run, t.tt_ra, res.tt_ra, res.tt_r, res.tt_a, res.tt, n);

    for (int ir = 0; ir < NR; ir++)
        for (int iz = 0; iz < NZ; iz++)
            CHECK_CLOSE(res.a_rz[ir * NZ + iz],
                        w(t.a_rz[ir * NZ + iz]) / ((ir + 0.5) * 2 * PI * dr * dr * dz * n));

    /* IzToLayer by hand: a centre on a boundary belongs to the layer below
     * it (>=), and bins below the stack to the last layer. */
    const int layer_of[NZ] = {1, 2, 3, 3, 3};
    tally_acc_t per_layer[NL + 2] = {0}, total = 0;
    for (int iz = 0; iz < NZ; iz++) {
        tally_acc_t s = t.a_rz[iz] + t.a_rz[NZ + iz] + t.a_rz[2 * NZ + iz];
        CHECK_CLOSE(res.a_z[iz], w(s) / (dz * n));
        per_layer[layer_of[iz]] += s;
        total += s;
    }
    for (int il = 0; il <= NL + 1; il++)
        CHECK_CLOSE(res.a_l[il], w(per_layer[il]) / n);
    CHECK(res.a_l[0] == 0 && res.a_l[NL + 1] == 0);
    CHECK_CLOSE(res.a, w(total) / n);
    CHECK_CLOSE(res.rsp, (0.4 / 2.4) * (0.4 / 2.4));

    result_free(&res);
    tally_set_free(&t);
}

/* Sums are taken in integers before converting: 2^53 + 1 + 1 units is exact
 * in integers, while adding the converted weights one by one drops both 1s
 * (each is half an ulp of 2^29 and rounds to even). */
static void test_integer_sums(void)
{
    mci_layer layers[NL + 2];
    mci_run run;
    make_run(&run, layers);
    tally_set t;
    CHECK(tally_set_init(&t, NR, NZ, NA));
    tally_acc_t big = (tally_acc_t)1 << 53;
    t.rd_ra[0] = big;
    t.rd_ra[1] = 1;
    t.rd_ra[2] = 1;
    t.photons = 1;
    mcml_result res;
    tm_error err = {0};
    CHECK(result_from_tallies(&run, &t, &res, &err));
    double exact = w(big + 2);
    double naive = w(big) + w(1) + w(1);
    CHECK(exact != naive);
    CHECK(res.rd == exact);
    CHECK_CLOSE(res.rd_r[0], exact / (0.5 * 2 * PI * run.dr * run.dr));
    result_free(&res);
    tally_set_free(&t);
}

static void test_glass_specular(void)
{
    mci_layer layers[NL + 2];
    mci_run run;
    make_run(&run, layers);
    layers[1].n = 1.5;
    layers[1].mua = layers[1].mus = 0;
    layers[2].n = 1.33;
    tally_set t;
    CHECK(tally_set_init(&t, NR, NZ, NA));
    t.photons = 10;
    mcml_result res;
    tm_error err = {0};
    CHECK(result_from_tallies(&run, &t, &res, &err));
    double r1 = (0.5 / 2.5) * (0.5 / 2.5);
    double r2 = (0.17 / 2.83) * (0.17 / 2.83);
    CHECK_CLOSE(res.rsp, r1 + (1 - r1) * (1 - r1) * r2 / (1 - r1 * r2));
    /* Empty tallies give zero everywhere, not NaN. */
    CHECK(res.rd == 0 && res.a == 0 && res.tt == 0 && res.a_rz[0] == 0 && res.rd_ra[0] == 0);
    result_free(&res);
    tally_set_free(&t);
}

static void test_errors(void)
{
    mci_layer layers[NL + 2];
    mci_run run;
    make_run(&run, layers);
    tally_set t;
    CHECK(tally_set_init(&t, NR, NZ, NA));
    mcml_result res;
    tm_error err = {0};
    CHECK(!result_from_tallies(&run, &t, &res, &err)); /* no photons */
    CHECK_CONTAINS(err.message, "no photons");
    t.photons = 5;
    run.nz = NZ + 1;
    CHECK(!result_from_tallies(&run, &t, &res, &err));
    CHECK_CONTAINS(err.message, "does not match");
    tally_set_free(&t);
}

int main(void)
{
    test_arrays();
    test_integer_sums();
    test_glass_specular();
    test_errors();
    return check_summary("test_result");
}
