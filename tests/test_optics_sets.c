/* Optics sets (tmcml_run_optics_sets; docs/physics.md, "Optics sets") on
 * the CPU engine, through the public header:
 *   agree     a glass layer over three scattering layers of unequal
 *             indices; sets at mus x0.9 and x1.1 of one layer, g -+0.02
 *             of another, mua +20 % of a third, and all three at once:
 *             each set's Rd, Tt, A, Rd_r at two rings, A_z at two depths
 *             and Tt_r at one against an independent run of the set's own
 *             properties, every |z| within the Bonferroni bound of the t
 *             distribution (at least 4), sigma from both runs' standard
 *             errors; a set of the run's own properties has the plain
 *             run's arrays bit for bit and an effective sample size of 1;
 *             the others' below 1 and above the low mark
 *   flagged   a set at +50 % mus in a thick scattering layer: its
 *             effective sample size below TMCML_LOW_ESS
 *   refused   scattering given to a glass layer, mus 0 in a layer that
 *             scatters, |g| >= 1, another g in a layer of g 1, 257 sets,
 *             the derivatives with a set of another g: each named (set,
 *             layer, parameter), no result (the GPU's optics sets:
 *             tests/test_optics_sets_gpu.c)
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

#define SEED         20261130u
#define GROUPS_DOF   63.0
#define FAMILY_ALPHA 0.01
#define LAYERS       4
#define MAX_SETS     8

static const tmcml_layer stack[LAYERS] = {
    /* n, mua, mus, g, d */
    {1.52, 0.0, 0.0, 0.0, 0.02}, /* glass */
    {1.40, 1.0, 80.0, 0.85, 0.04},
    {1.33, 0.5, 30.0, 0.6, 0.08},
    {1.45, 2.0, 15.0, 0.3, 0.15},
};
static const tmcml_grid grid = {0.01, 0.05, 30, 10, 3};

static tmcml_problem *problem(tmcml_session *s, const tmcml_layer *layers, int num_layers)
{
    tmcml_problem *p = NULL;
    CHECK_MSG(tmcml_problem_new(s, layers, num_layers, 1.0, 1.0, &grid, &p) == TMCML_OK, "%s",
              tmcml_session_message(s));
    if (p)
        CHECK(tmcml_problem_set_stderr(s, p, 1) == TMCML_OK);
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

static void options(tmcml_options *o, int64_t photons, uint64_t seed)
{
    tmcml_options_init(o);
    o->engine = TMCML_ENGINE_CPU;
    o->photons = scaled(photons);
    o->seed = seed;
    o->threads = 2;
}

/* A set: the layers as the run's, with changes. */
static void set_of(const tmcml_layer *base, int num_layers, tmcml_layer *out, double *optics)
{
    for (int i = 0; i < num_layers; i++) {
        optics[3 * i] = out[i].mua;
        optics[3 * i + 1] = out[i].mus;
        optics[3 * i + 2] = out[i].g;
    }
    (void)base;
}

/* One compared quantity: a total (array -1: Rd, A or Tt) or an entry. */
typedef struct quantity {
    const char *name;
    int array; /* tmcml_array, or -1 */
    int total; /* 0 Rd, 1 A, 2 Tt */
    int entry;
} quantity;

static void value_of(const tmcml_result *r, const quantity *q, double *v, double *se)
{
    if (q->array < 0) {
        tmcml_rat rat, err;
        tmcml_result_rat(r, &rat);
        CHECK(tmcml_result_rat_stderr(r, &err) == TMCML_OK);
        *v = q->total == 0 ? rat.rd : q->total == 1 ? rat.a : rat.tt;
        *se = q->total == 0 ? err.rd : q->total == 1 ? err.a : err.tt;
        return;
    }
    size_t n = 0, ne = 0;
    const double *a = tmcml_result_array(r, (tmcml_array)q->array, &n);
    const double *e = tmcml_result_stderr(r, (tmcml_array)q->array, &ne);
    CHECK(a && e && (size_t)q->entry < n);
    *v = a ? a[q->entry] : NAN;
    *se = e ? e[q->entry] : NAN;
}

static const quantity quantities[] = {
    {"Rd", -1, 0, 0},
    {"A", -1, 1, 0},
    {"Tt", -1, 2, 0},
    {"Rd_r[0]", TMCML_RD_R, 0, 0},
    {"Rd_r[3]", TMCML_RD_R, 0, 3},
    {"A_z[3]", TMCML_A_Z, 0, 3},
    {"A_z[20]", TMCML_A_Z, 0, 20},
    {"Tt_r[0]", TMCML_TT_R, 0, 0},
};
#define QUANTITIES ((int)(sizeof quantities / sizeof quantities[0]))

static bool same_array(const tmcml_result *a, const tmcml_result *b, tmcml_array which)
{
    size_t na = 0, nb = 0;
    const double *x = tmcml_result_array(a, which, &na), *y = tmcml_result_array(b, which, &nb);
    return x && y && na == nb && memcmp(x, y, na * sizeof *x) == 0;
}

static void test_agree(tmcml_session *s)
{
    enum { SETS = 6 };
    tmcml_layer sets[SETS][LAYERS];
    for (int k = 0; k < SETS; k++)
        memcpy(sets[k], stack, sizeof stack);
    /* set 0: the run's own */
    sets[1][1].mus *= 0.9;
    sets[2][1].mus *= 1.1;
    sets[3][2].g -= 0.02;
    sets[4][2].g += 0.02;
    sets[5][1].mus *= 1.1; /* all three at once */
    sets[5][2].g += 0.02;
    sets[5][3].mua *= 1.2;
    double optics[SETS * LAYERS * 3];
    for (int k = 0; k < SETS; k++)
        set_of(stack, LAYERS, sets[k], optics + (size_t)k * LAYERS * 3);
    tmcml_problem *p = problem(s, stack, LAYERS);
    tmcml_options o;
    options(&o, 2000000, SEED);
    tmcml_result *r[SETS] = {NULL};
    CHECK_MSG(p && tmcml_run_optics_sets(s, p, optics, SETS, &o, r) == TMCML_OK, "%s",
              tmcml_session_message(s));
    tmcml_result *plain = NULL;
    CHECK(p && tmcml_run(s, p, &o, &plain) == TMCML_OK);
    double ess = NAN;
    CHECK(r[0] && tmcml_result_ess(r[0], &ess) == TMCML_OK && fabs(ess - 1.0) < 1e-12);
    CHECK(plain && tmcml_result_ess(plain, &ess) == TMCML_ERR_STATE && isnan(ess));
    for (int i = 0; r[0] && plain && i < tmcml_array_count(); i++)
        if (tmcml_result_array(plain, (tmcml_array)i, NULL))
            CHECK_MSG(same_array(r[0], plain, (tmcml_array)i), "set 0's %s is not the run's",
                      tmcml_array_name((tmcml_array)i));

    int m = 0;
    double bound = stats_t_quantile_two_sided(FAMILY_ALPHA / ((SETS - 1) * QUANTITIES), GROUPS_DOF);
    if (bound < 4.0)
        bound = 4.0;
    double worst = 0.0, sum_z2 = 0.0;
    for (int k = 1; k < SETS; k++) {
        tmcml_problem *own = problem(s, sets[k], LAYERS);
        tmcml_options oo;
        options(&oo, 2000000, SEED + 1 + (uint64_t)k);
        tmcml_result *alone = NULL;
        CHECK(own && tmcml_run(s, own, &oo, &alone) == TMCML_OK);
        CHECK_MSG(r[k] && tmcml_result_ess(r[k], &ess) == TMCML_OK && ess < 1.0 &&
                      ess > TMCML_LOW_ESS,
                  "set %d: effective sample size %g", k, ess);
        printf("set %d: effective sample size %.4f\n", k, ess);
        for (int j = 0; r[k] && alone && j < QUANTITIES; j++) {
            double a, sa, b, sb;
            value_of(r[k], &quantities[j], &a, &sa);
            value_of(alone, &quantities[j], &b, &sb);
            double z = (a - b) / sqrt(sa * sa + sb * sb);
            CHECK_MSG(fabs(z) <= bound, "set %d, %s: %.6g +- %.2g, alone %.6g +- %.2g: z %.2f", k,
                      quantities[j].name, a, sa, b, sb, z);
            worst = fmax(worst, fabs(z));
            sum_z2 += z * z;
            m++;
        }
        tmcml_result_delete(alone);
        tmcml_problem_delete(own);
    }
    printf("agree: %d comparisons, worst |z| %.2f (bound %.2f), rms z %.2f\n", m, worst, bound,
           sqrt(sum_z2 / m));
    for (int k = 0; k < SETS; k++)
        tmcml_result_delete(r[k]);
    tmcml_result_delete(plain);
    tmcml_problem_delete(p);
}

static void test_flagged(tmcml_session *s)
{
    const tmcml_layer thick[2] = {{1.4, 0.1, 100.0, 0.8, 0.5}, {1.4, 0.1, 100.0, 0.8, 0.5}};
    double optics[2 * 2 * 3];
    tmcml_layer sets[2][2];
    memcpy(sets[0], thick, sizeof thick);
    memcpy(sets[1], thick, sizeof thick);
    sets[1][0].mus *= 1.5; /* the thick layer the light scatters in */
    set_of(thick, 2, sets[0], optics);
    set_of(thick, 2, sets[1], optics + 6);
    tmcml_problem *p = problem(s, thick, 2);
    tmcml_options o;
    options(&o, 200000, SEED);
    tmcml_result *r[2] = {NULL, NULL};
    CHECK_MSG(p && tmcml_run_optics_sets(s, p, optics, 2, &o, r) == TMCML_OK, "%s",
              tmcml_session_message(s));
    double ess0 = NAN, ess1 = NAN;
    CHECK(r[0] && tmcml_result_ess(r[0], &ess0) == TMCML_OK && fabs(ess0 - 1.0) < 1e-12);
    CHECK_MSG(r[1] && tmcml_result_ess(r[1], &ess1) == TMCML_OK && ess1 < TMCML_LOW_ESS,
              "+50 %% mus in a thick layer: effective sample size %g", ess1);
    printf("flagged: +50 %% mus, effective sample size %.3g\n", ess1);
    tmcml_result_delete(r[0]);
    tmcml_result_delete(r[1]);
    tmcml_problem_delete(p);
}

/* One refused table: TMCML_ERR_ARGUMENT, the message holding `says`, no
 * result. */
static void refused(tmcml_session *s, const tmcml_problem *p, const double *optics, int count,
                    const tmcml_options *o, const char *says)
{
    tmcml_result *r[2] = {NULL, NULL};
    CHECK_MSG(tmcml_run_optics_sets(s, p, optics, count, o, r) == TMCML_ERR_ARGUMENT,
              "accepted: %s", says);
    CHECK_CONTAINS(tmcml_session_message(s), says);
    CHECK(!r[0] && !r[1]);
}

static void test_refused(tmcml_session *s)
{
    tmcml_problem *p = problem(s, stack, LAYERS);
    tmcml_options o;
    options(&o, 1000, SEED);
    double base[LAYERS * 3], t[LAYERS * 3];
    tmcml_layer own[LAYERS];
    memcpy(own, stack, sizeof stack);
    set_of(stack, LAYERS, own, base);
    if (!p)
        return;
    memcpy(t, base, sizeof t);
    t[1] = 5.0; /* glass: mus */
    refused(s, p, t, 1, &o, "set 1, layer 1: mus 5: the layer does not scatter");
    memcpy(t, base, sizeof t);
    t[3 + 1] = 0.0; /* layer 2: mus 0 */
    refused(s, p, t, 1, &o, "set 1, layer 2: mus 0: must be between");
    memcpy(t, base, sizeof t);
    t[6 + 2] = 1.0; /* layer 3: g 1 */
    refused(s, p, t, 1, &o, "set 1, layer 3: g 1: must be within (-1, 1)");
    memcpy(t, base, sizeof t);
    t[9] = -1.0; /* layer 4: mua */
    refused(s, p, t, 1, &o, "set 1, layer 4: mua must be 0 or between");
    double many[2 * LAYERS * 3];
    memcpy(many, base, sizeof base);
    memcpy(many + LAYERS * 3, base, sizeof base);
    many[LAYERS * 3 + 6 + 2] = 1.5;
    refused(s, p, many, 2, &o, "set 2, layer 3: g 1.5");
    static tmcml_result *r[257]; /* out has room for every set asked */
    CHECK(tmcml_run_optics_sets(s, p, base, 257, &o, r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "num_sets: expected 1 to 256");
    /* The derivatives take sets of the problem's g. */
    CHECK(tmcml_problem_set_jacobian(s, p, 1) == TMCML_OK);
    memcpy(t, base, sizeof t);
    t[6 + 2] = 0.62;
    refused(s, p, t, 1, &o, "set 1 changes layer 3's g");
    tmcml_problem_delete(p);

    /* A layer of g 1 keeps it. */
    const tmcml_layer fixed[1] = {{1.4, 0.5, 20.0, 1.0, 0.1}};
    tmcml_problem *q = problem(s, fixed, 1);
    double f[3] = {0.5, 20.0, 0.9};
    if (q)
        refused(s, q, f, 1, &o, "set 1, layer 1: g 0.9: the layer does not scatter or deflects");
    tmcml_problem_delete(q);
}

int main(int argc, char **argv)
{
    static const session_case cases[] = {
        {"agree", test_agree}, {"flagged", test_flagged}, {"refused", test_refused}};
    return session_case_run(argc > 1 ? argv[1] : "agree", cases, sizeof cases / sizeof cases[0]);
}
