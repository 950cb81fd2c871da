/* The derivatives of the escapes (tmcml_problem_set_jacobian;
 * docs/physics.md, "Derivatives") on the CPU engine, through the public
 * header:
 *   differences  a glass layer over three scattering layers of unequal
 *                indices: Rd, Tt, Rd_r at three rings, Rd_a at two angles
 *                and Tt_r at one, by each scattering layer's mua, mus and g, against
 *                central differences of independent runs (mua +-10 %, mus
 *                +-5 %, g +-0.02), every entry within the Bonferroni bound
 *                of the t distribution (at least 4 sigma), sigma from the
 *                runs' own standard errors, both sides' and the
 *                Jacobian's; the glass layer's mus and g NaN, its mua
 *                derivative finite.  Power: the same comparison must fail
 *                for two planted wrong estimators, the mus derivative
 *                without its interaction term (-S alone, which is the mua
 *                column) and the g derivative of the opposite sign.
 *   time         with time bins and a fiber detector: Rd_t at three times,
 *                one bin of Rd_rt, Tt_t at one and Rd_fiber, the same way;
 *                Rd_t's and Rd_rt's derivatives summed over the bins times
 *                dt are Rd's and Rd_r's
 *   skin         the 7-layer skin of examples/skin7_600nm.mci: Rd and Rd_r at
 *                two rings by every layer's mus and g, the same way
 *   identity     a run with the derivatives has every other array of the
 *                run without them, bit for bit; the same derivatives for
 *                1 and 2 threads and under tmcml_run_batch; errors only
 *                with tmcml_problem_set_stderr
 *   refused      the GPU engine with time bins, and more layers than a
 *                photon can track
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_case.h"
#include "stats.h"
#include "tmcml.h"

#define SEED         20261129u
#define GROUPS_DOF   63.0 /* 64 groups: runtime/io/uncertainty.h */
#define FAMILY_ALPHA 0.01 /* the chance that a right estimator fails somewhere */
#define MAX_LAYERS   8
#define MAX_ENTRIES  512

static const tmcml_layer stack3[4] = {
    /* n, mua, mus, g, d */
    {1.52, 0.0, 0.0, 0.0, 0.02}, /* glass */
    {1.40, 1.0, 80.0, 0.85, 0.04},
    {1.33, 0.5, 30.0, 0.6, 0.08},
    {1.45, 2.0, 15.0, 0.3, 0.15},
};
static const tmcml_grid stack3_grid = {0.1, 0.05, 1, 10, 3};

/* examples/skin7_600nm.mci's layers. */
static const tmcml_layer skin7[7] = {
    {1.53, 0.2, 1000.0, 0.9, 0.002}, {1.34, 0.15, 400.0, 0.85, 0.008},
    {1.4, 0.7, 300.0, 0.8, 0.01},    {1.39, 1.0, 350.0, 0.9, 0.008},
    {1.4, 0.7, 200.0, 0.76, 0.162},  {1.39, 1.0, 350.0, 0.95, 0.02},
    {1.44, 0.3, 150.0, 0.8, 0.59},
};
static const tmcml_grid skin7_grid = {0.1, 0.02, 1, 20, 1};

typedef struct stack {
    const tmcml_layer *layers;
    int num_layers;
    double n_above, n_below;
    const tmcml_grid *grid;
    double time_dt;                 /* ns, with time_nt > 0 bins */
    int time_nt;                    /* 0: no time bins */
    double fiber_sep, fiber_radius; /* cm; radius 0: no detector */
} stack;

static tmcml_problem *problem(tmcml_session *s, const stack *st, const tmcml_layer *layers,
                              bool jacobian)
{
    tmcml_problem *p = NULL;
    CHECK_MSG(tmcml_problem_new(s, layers, st->num_layers, st->n_above, st->n_below, st->grid,
                                &p) == TMCML_OK,
              "%s", tmcml_session_message(s));
    if (!p)
        return NULL;
    CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
    if (st->time_nt > 0)
        CHECK(tmcml_problem_set_time_bins(s, p, st->time_dt, st->time_nt) == TMCML_OK);
    if (st->fiber_radius > 0.0)
        CHECK(tmcml_problem_set_fiber_detector(s, p, st->fiber_sep, st->fiber_radius, 0.5) ==
              TMCML_OK);
    if (jacobian)
        CHECK_MSG(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK, "%s", tmcml_session_message(s));
    return p;
}

/* Photons times $TMCML_VALIDATION_SCALE when set (the sanitizer build runs
 * fewer: the bounds follow the standard errors, so they stay valid). */
static int64_t scaled(int64_t photons)
{
    const char *s = getenv("TMCML_VALIDATION_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 && v < 1 ? (int64_t)((double)photons * v) : photons;
}

static tmcml_result *run(tmcml_session *s, const tmcml_problem *p, int64_t photons, uint64_t seed,
                         int threads)
{
    tmcml_options o;
    tmcml_options_init(&o);
    o.engine = TMCML_ENGINE_CPU;
    o.photons = scaled(photons);
    o.seed = seed;
    o.threads = threads;
    o.absorption = 0; /* escapes alone: -A */
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &o, &r) == TMCML_OK && r, "%s", tmcml_session_message(s));
    return r;
}

/* One compared quantity: an entry of an escape array (entry -1: its
 * total, Rd or Tt) and its derivative's entry in the Jacobian. */
typedef struct quantity {
    const char *name;
    tmcml_array array, jacobian; /* array TMCML_RD_R..., or -1 with a total */
    int total;                   /* 0: Rd, 1: Tt (array -1) */
    int entry;
} quantity;

/* A quantity's value and standard error in r. */
static void value_of(const tmcml_result *r, const quantity *q, double *v, double *se)
{
    if ((int)q->array < 0) {
        tmcml_rat rat, err;
        tmcml_result_rat(r, &rat);
        CHECK(tmcml_result_rat_stderr(r, &err) == TMCML_OK);
        *v = q->total ? rat.tt : rat.rd;
        *se = q->total ? err.tt : err.rd;
        return;
    }
    size_t n = 0, ne = 0;
    const double *a = tmcml_result_array(r, q->array, &n);
    const double *e = tmcml_result_stderr(r, q->array, &ne);
    CHECK(a && e && (size_t)q->entry < n && ne == n);
    *v = a && (size_t)q->entry < n ? a[q->entry] : NAN;
    *se = e && (size_t)q->entry < n ? e[q->entry] : NAN;
}

/* The derivative of q by parameter `param` of layer `layer` (1-based) in
 * r, and its standard error. */
static void derivative_of(const tmcml_result *r, const quantity *q, int num_layers, int layer,
                          int param, double *d, double *se)
{
    size_t n = 0, ne = 0;
    const double *a = tmcml_result_array(r, q->jacobian, &n);
    const double *e = tmcml_result_stderr(r, q->jacobian, &ne);
    size_t at =
        ((size_t)(q->entry < 0 ? 0 : q->entry) * (size_t)num_layers + (size_t)(layer - 1)) * 3 +
        (size_t)param;
    CHECK(a && e && at < n && ne == n);
    *d = a && at < n ? a[at] : NAN;
    *se = e && at < n ? e[at] : NAN;
}

/* One comparison: the estimator's value (and error) and the difference's. */
typedef struct comparison {
    char what[96];
    double estimate, estimate_se, difference, difference_se;
    double planted; /* a wrong estimator's value (NAN: none planted here) */
} comparison;

static double z_of(double a, double b, double se_a, double se_b)
{
    return (a - b) / sqrt(se_a * se_a + se_b * se_b);
}

/* Layer `layer`'s parameter `param` moved by -+h: the layers, and h. */
static double moved(const stack *st, int layer, int param, double sign, tmcml_layer *out)
{
    memcpy(out, st->layers, (size_t)st->num_layers * sizeof *out);
    tmcml_layer *l = &out[layer - 1];
    double h = param == 0 ? 0.10 * l->mua : param == 1 ? 0.05 * l->mus : 0.02;
    if (param == 0)
        l->mua += sign * h;
    else if (param == 1)
        l->mus += sign * h;
    else
        l->g += sign * h;
    return h;
}

/* Every quantity's derivative by every parameter of the layers in
 * `layers` (1-based, count of them) and `params` (mask of 1 << param):
 * the Jacobian of one run of jacobian_photons against central differences
 * of runs of fd_photons, into out[]; the count. */
static int compare(tmcml_session *s, const stack *st, const int *layers, int count, int params,
                   const quantity *q, int nq, int64_t jacobian_photons, int64_t fd_photons,
                   comparison *out)
{
    tmcml_problem *p = problem(s, st, st->layers, true);
    tmcml_result *j = p ? run(s, p, jacobian_photons, SEED, 2) : NULL;
    int m = 0;
    uint64_t seed = SEED + 1;
    for (int li = 0; j && li < count; li++) {
        int layer = layers[li];
        for (int param = 0; param < 3; param++) {
            if (!(params & (1 << param)))
                continue;
            tmcml_layer plus[MAX_LAYERS], minus[MAX_LAYERS];
            double h = moved(st, layer, param, +1.0, plus);
            moved(st, layer, param, -1.0, minus);
            tmcml_problem *pp = problem(s, st, plus, false), *pm = problem(s, st, minus, false);
            tmcml_result *rp = pp ? run(s, pp, fd_photons, seed++, 2) : NULL;
            tmcml_result *rm = pm ? run(s, pm, fd_photons, seed++, 2) : NULL;
            for (int k = 0; rp && rm && k < nq && m < MAX_ENTRIES; k++) {
                comparison *c = &out[m++];
                double vp, sp, vm, sm;
                value_of(rp, &q[k], &vp, &sp);
                value_of(rm, &q[k], &vm, &sm);
                snprintf(c->what, sizeof c->what, "d %s / d %s_%d", q[k].name,
                         param == 0   ? "mua"
                         : param == 1 ? "mus"
                                      : "g",
                         layer);
                c->difference = (vp - vm) / (2.0 * h);
                c->difference_se = sqrt(sp * sp + sm * sm) / (2.0 * h);
                derivative_of(j, &q[k], st->num_layers, layer, param, &c->estimate,
                              &c->estimate_se);
                /* Planted: mus's without its interaction term (the mua
                 * column, -S); g's of the opposite sign. */
                double other, other_se;
                c->planted = NAN;
                if (param == 1) {
                    derivative_of(j, &q[k], st->num_layers, layer, 0, &other, &other_se);
                    c->planted = other;
                } else if (param == 2) {
                    c->planted = -c->estimate;
                }
            }
            tmcml_result_delete(rp);
            tmcml_result_delete(rm);
            tmcml_problem_delete(pp);
            tmcml_problem_delete(pm);
        }
    }
    tmcml_result_delete(j);
    tmcml_problem_delete(p);
    return m;
}

/* Every comparison within the family's bound; each planted estimator out
 * of it somewhere (plants: mask of the parameters whose plants must be
 * caught). */
static void judge(const char *name, const comparison *c, int m)
{
    double bound = stats_t_quantile_two_sided(FAMILY_ALPHA / m, GROUPS_DOF);
    if (bound < 4.0)
        bound = 4.0;
    double worst = 0.0, worst_mus_plant = 0.0, worst_g_plant = 0.0, sum_z2 = 0.0;
    for (int i = 0; i < m; i++) {
        double z = z_of(c[i].estimate, c[i].difference, c[i].estimate_se, c[i].difference_se);
        sum_z2 += z * z;
        CHECK_MSG(fabs(z) <= bound,
                  "%s: %s: estimate %.5g +- %.2g, difference %.5g +- %.2g: z %.2f", name, c[i].what,
                  c[i].estimate, c[i].estimate_se, c[i].difference, c[i].difference_se, z);
        worst = fabs(z) > worst ? fabs(z) : worst;
        if (isnan(c[i].planted))
            continue;
        double zp = fabs(z_of(c[i].planted, c[i].difference, c[i].estimate_se, c[i].difference_se));
        if (strstr(c[i].what, "/ d mus"))
            worst_mus_plant = zp > worst_mus_plant ? zp : worst_mus_plant;
        else
            worst_g_plant = zp > worst_g_plant ? zp : worst_g_plant;
    }
    printf("%s: %d derivatives, worst |z| %.2f (bound %.2f), rms z %.2f; planted: mus without "
           "c/mus |z| up to %.1f, g of the opposite sign up to %.1f\n",
           name, m, worst, bound, sqrt(sum_z2 / m), worst_mus_plant, worst_g_plant);
    CHECK_MSG(worst_mus_plant > bound, "%s: the mus derivative without c/mus passes", name);
    CHECK_MSG(worst_g_plant > bound, "%s: the g derivative of the opposite sign passes", name);
}

static void test_differences(tmcml_session *s)
{
    const stack st = {stack3, 4, 1.0, 1.0, &stack3_grid, 0, 0, 0, 0};
    const quantity q[] = {
        {"Rd", (tmcml_array)-1, TMCML_RD_JACOBIAN, 0, -1},
        {"Tt", (tmcml_array)-1, TMCML_TT_JACOBIAN, 1, -1},
        {"Rd_r[0]", TMCML_RD_R, TMCML_RD_R_JACOBIAN, 0, 0},
        {"Rd_r[2]", TMCML_RD_R, TMCML_RD_R_JACOBIAN, 0, 2},
        {"Rd_r[5]", TMCML_RD_R, TMCML_RD_R_JACOBIAN, 0, 5},
        {"Rd_a[0]", TMCML_RD_A, TMCML_RD_A_JACOBIAN, 0, 0},
        {"Rd_a[2]", TMCML_RD_A, TMCML_RD_A_JACOBIAN, 0, 2},
        {"Tt_r[0]", TMCML_TT_R, TMCML_TT_R_JACOBIAN, 0, 0},
    };
    const int layers[] = {2, 3, 4};
    static comparison c[MAX_ENTRIES];
    int m = compare(s, &st, layers, 3, 7, q, (int)(sizeof q / sizeof q[0]), 4000000, 2000000, c);
    CHECK(m == 3 * 3 * (int)(sizeof q / sizeof q[0]));
    judge("differences", c, m);

    /* The glass layer: no scattering to differentiate; its mua's is -S. */
    tmcml_problem *p = problem(s, &st, st.layers, true);
    tmcml_result *r = p ? run(s, p, 20000, SEED, 2) : NULL;
    size_t n = 0;
    const double *rd = r ? tmcml_result_array(r, TMCML_RD_JACOBIAN, &n) : NULL;
    CHECK(rd && n == 4 * 3);
    if (rd && n == 12)
        CHECK_MSG(rd[0] < 0.0 && isfinite(rd[0]) && isnan(rd[1]) && isnan(rd[2]) &&
                      isfinite(rd[4]) && isfinite(rd[5]),
                  "glass: %g %g %g", rd[0], rd[1], rd[2]);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
}

static void test_skin(tmcml_session *s)
{
    const stack st = {skin7, 7, 1.0, 1.0, &skin7_grid, 0, 0, 0, 0};
    const quantity q[] = {
        {"Rd", (tmcml_array)-1, TMCML_RD_JACOBIAN, 0, -1},
        {"Rd_r[1]", TMCML_RD_R, TMCML_RD_R_JACOBIAN, 0, 1},
        {"Rd_r[10]", TMCML_RD_R, TMCML_RD_R_JACOBIAN, 0, 10},
    };
    const int layers[] = {1, 2, 3, 4, 5, 6, 7};
    static comparison c[MAX_ENTRIES];
    int m = compare(s, &st, layers, 7, 6, q, 3, 1000000, 300000, c);
    CHECK(m == 7 * 2 * 3);
    judge("skin", c, m);
}

/* Time bins and a fiber detector: Rd_t's derivatives at three times, the
 * fiber's, against differences as above; each time bin's derivatives
 * summed times dt are Rd's and Rd_r's (the same units added to both). */
static void test_time(tmcml_session *s)
{
    const stack st = {stack3, 4, 1.0, 1.0, &stack3_grid, 0.002, 40, 0.15, 0.05};
    const quantity q[] = {
        {"Rd_t[2]", TMCML_RD_T, TMCML_RD_T_JACOBIAN, 0, 2},
        {"Rd_t[8]", TMCML_RD_T, TMCML_RD_T_JACOBIAN, 0, 8},
        {"Rd_t[20]", TMCML_RD_T, TMCML_RD_T_JACOBIAN, 0, 20},
        {"Rd_rt[1][4]", TMCML_RD_RT, TMCML_RD_RT_JACOBIAN, 0, 1 * 40 + 4},
        {"Tt_t[10]", TMCML_TT_T, TMCML_TT_T_JACOBIAN, 0, 10},
        {"Rd_fiber", TMCML_RD_FIBER, TMCML_RD_FIBER_JACOBIAN, 0, 0},
    };
    const int layers[] = {2, 3, 4};
    static comparison c[MAX_ENTRIES];
    int m = compare(s, &st, layers, 3, 7, q, (int)(sizeof q / sizeof q[0]), 4000000, 2000000, c);
    CHECK(m == 3 * 3 * (int)(sizeof q / sizeof q[0]));
    judge("time", c, m);

    tmcml_problem *p = problem(s, &st, st.layers, true);
    tmcml_result *r = p ? run(s, p, 50000, SEED, 2) : NULL;
    size_t n_t = 0, n_rt = 0, n_tot = 0, n_r = 0;
    const double *jt = r ? tmcml_result_array(r, TMCML_RD_T_JACOBIAN, &n_t) : NULL;
    const double *jrt = r ? tmcml_result_array(r, TMCML_RD_RT_JACOBIAN, &n_rt) : NULL;
    const double *jtot = r ? tmcml_result_array(r, TMCML_RD_JACOBIAN, &n_tot) : NULL;
    const double *jr = r ? tmcml_result_array(r, TMCML_RD_R_JACOBIAN, &n_r) : NULL;
    CHECK(jt && jrt && jtot && jr && n_t == 40 * 12 && n_rt == 10 * 40 * 12 && n_tot == 12);
    for (int e = 0; jt && jtot && n_t == 480 && e < 12; e++) {
        if (isnan(jtot[e]))
            continue;
        double sum = 0.0;
        for (int it = 0; it < 40; it++)
            sum += jt[it * 12 + e] * st.time_dt;
        CHECK_MSG(fabs(sum - jtot[e]) <= 1e-9 * fabs(jtot[e]), "Rd_t's entry %d: %g, Rd's %g", e,
                  sum, jtot[e]);
    }
    for (int ir = 0; jrt && jr && n_rt == 4800 && ir < 10; ir++)
        for (int e = 0; e < 12; e++) {
            double want = jr[ir * 12 + e], sum = 0.0;
            if (isnan(want))
                continue;
            for (int it = 0; it < 40; it++)
                sum += jrt[(ir * 40 + it) * 12 + e] * st.time_dt;
            CHECK_MSG(fabs(sum - want) <= 1e-9 * fabs(want) + 1e-300, "Rd_rt ring %d entry %d", ir,
                      e);
        }
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
}

/* Whether a and b hold array `which` bit for bit (both without it: equal). */
static bool same_array(const tmcml_result *a, const tmcml_result *b, tmcml_array which)
{
    size_t na = 0, nb = 0;
    const double *x = tmcml_result_array(a, which, &na), *y = tmcml_result_array(b, which, &nb);
    return na == nb && (!x) == (!y) && (!x || memcmp(x, y, na * sizeof *x) == 0);
}

/* Every array of a run without the derivatives is the run's with them,
 * bit for bit (the tallies of Rd_ra, Tt_ra and A_rz too); the
 * derivatives do not depend on the thread count or on a batch. */
static void test_identity(tmcml_session *s)
{
    const stack st = {stack3, 4, 1.0, 1.0, &stack3_grid, 0.002, 30, 0.1, 0.05};
    tmcml_problem *plain = problem(s, &st, st.layers, false),
                  *with = problem(s, &st, st.layers, true);
    tmcml_options o;
    tmcml_options_init(&o);
    o.engine = TMCML_ENGINE_CPU;
    o.photons = 30000;
    o.seed = SEED;
    o.threads = 2; /* absorption scored: A_rz compared too */
    tmcml_result *a = NULL, *b = NULL, *c = NULL, *batch[2] = {NULL, NULL};
    CHECK(plain && with && tmcml_run(s, plain, &o, &a) == TMCML_OK &&
          tmcml_run(s, with, &o, &b) == TMCML_OK);
    o.threads = 1;
    CHECK(with && tmcml_run(s, with, &o, &c) == TMCML_OK);
    const tmcml_problem *both[2] = {plain, with};
    o.threads = 2;
    CHECK_MSG(tmcml_run_batch(s, both, 2, &o, batch) == TMCML_OK, "%s", tmcml_session_message(s));
    for (int i = 0; a && b && i < tmcml_array_count(); i++) {
        tmcml_array w = (tmcml_array)i;
        bool jacobian = tmcml_array_option(w) == 4;
        CHECK_MSG(jacobian || same_array(a, b, w), "%s differs with the derivatives",
                  tmcml_array_name(w));
        CHECK_MSG(!jacobian || (tmcml_result_array(b, w, NULL) && !tmcml_result_array(a, w, NULL)),
                  "%s: only in the run that asks", tmcml_array_name(w));
        CHECK_MSG(!c || same_array(b, c, w), "%s: 1 and 2 threads differ", tmcml_array_name(w));
        CHECK_MSG(!batch[1] || same_array(b, batch[1], w), "%s: the batch's differs",
                  tmcml_array_name(w));
        CHECK_MSG(!batch[0] || same_array(a, batch[0], w), "%s: the plain batch's differs",
                  tmcml_array_name(w));
    }
    static const tmcml_array tallied[] = {TMCML_A_RZ, TMCML_RD_RA, TMCML_TT_RA};
    for (int k = 0; a && b && k < 3; k++) {
        size_t n = 0;
        tmcml_result_array(a, tallied[k], &n);
        uint64_t *lo[2] = {calloc(n, 8), calloc(n, 8)}, *hi[2] = {calloc(n, 8), calloc(n, 8)};
        CHECK(lo[0] && lo[1] && hi[0] && hi[1] &&
              tmcml_result_tallies(s, a, tallied[k], lo[0], hi[0], n) == TMCML_OK &&
              tmcml_result_tallies(s, b, tallied[k], lo[1], hi[1], n) == TMCML_OK &&
              memcmp(lo[0], lo[1], n * 8) == 0 && memcmp(hi[0], hi[1], n * 8) == 0);
        for (int j = 0; j < 2; j++) {
            free(lo[j]);
            free(hi[j]);
        }
    }
    /* Errors only when asked. */
    tmcml_problem *bare = NULL;
    tmcml_result *r = NULL;
    CHECK(tmcml_problem_new(s, stack3, 4, 1.0, 1.0, &stack3_grid, &bare) == TMCML_OK &&
          tmcml_problem_set_jacobian(s, bare, 1) == TMCML_OK && tmcml_problem_jacobian(bare) == 1 &&
          tmcml_run(s, bare, &o, &r) == TMCML_OK);
    CHECK(r && tmcml_result_array(r, TMCML_RD_R_JACOBIAN, NULL) &&
          !tmcml_result_stderr(r, TMCML_RD_R_JACOBIAN, NULL));
    size_t shape[TMCML_ARRAY_MAX_DIMS];
    tmcml_axis axes[TMCML_ARRAY_MAX_DIMS];
    CHECK(r && tmcml_result_array_shape(r, TMCML_RD_R_JACOBIAN, shape) == 3 && shape[0] == 10 &&
          shape[1] == 4 && shape[2] == 3);
    CHECK(tmcml_array_dims(TMCML_TT_A_JACOBIAN, axes) == 3 && axes[0] == TMCML_AXIS_A &&
          axes[1] == TMCML_AXIS_LAYER && axes[2] == TMCML_AXIS_PARAM);
    CHECK(strcmp(tmcml_array_name(TMCML_RD_JACOBIAN), "Rd_jacobian") == 0);
    tmcml_result_delete(r);
    tmcml_problem_delete(bare);
    for (int j = 0; j < 2; j++)
        tmcml_result_delete(batch[j]);
    tmcml_result_delete(a);
    tmcml_result_delete(b);
    tmcml_result_delete(c);
    tmcml_problem_delete(plain);
    tmcml_problem_delete(with);
}

/* The GPU engine asked by name for the derivatives of a batch of two
 * problems (its kernel of the sets scores one problem's a call:
 * tests/test_jacobian_gpu.c), and more layers than a photon tracks. */
static void test_refused(tmcml_session *s)
{
    const stack st = {stack3, 4, 1.0, 1.0, &stack3_grid, 0, 0, 0, 0};
    tmcml_problem *p = problem(s, &st, st.layers, true);
    tmcml_options o;
    tmcml_options_init(&o);
    o.engine = TMCML_ENGINE_GPU;
    o.photons = 1000;
    tmcml_result *r[2] = {NULL, NULL};
    const tmcml_problem *two[2] = {p, p};
    CHECK(p && tmcml_run_batch(s, two, 2, &o, r) == TMCML_ERR_ARGUMENT && !r[0] && !r[1]);
    CHECK_CONTAINS(tmcml_session_message(s), "derivatives");
    tmcml_problem_delete(p);

    enum { MANY = 65 };
    tmcml_layer many[MANY];
    for (int i = 0; i < MANY; i++)
        many[i] = (tmcml_layer){1.4, 0.1, 10.0, 0.8, 0.01};
    tmcml_problem *deep = NULL;
    CHECK(tmcml_problem_new(s, many, MANY, 1.0, 1.0, &stack3_grid, &deep) == TMCML_OK);
    CHECK(deep && tmcml_problem_set_jacobian(s, deep, 1) == TMCML_ERR_ARGUMENT &&
          tmcml_problem_jacobian(deep) == 0);
    CHECK_CONTAINS(tmcml_session_message(s), "at most 64 layers");
    tmcml_problem_delete(deep);
}

int main(int argc, char **argv)
{
    static const session_case cases[] = {
        {"differences", test_differences}, {"skin", test_skin},       {"time", test_time},
        {"identity", test_identity},       {"refused", test_refused},
    };
    return session_case_run(argc > 1 ? argv[1] : "differences", cases,
                            sizeof cases / sizeof cases[0]);
}
