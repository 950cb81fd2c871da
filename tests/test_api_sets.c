/* tmcml_run_sets through the public header alone (api/tmcml.h): a set equal
 * to the sets' per-layer minimum gives, bit for bit, the tallies of a plain
 * run of its problem (the sets' history is the reference's and that set's
 * factor is exactly 1); each result describes its set's problem; bad
 * arguments are refused with a message naming what to do.  `test_api_sets
 * gpu` (label gpu; exit 77 without a GPU): the same reference set on the
 * GPU, without absorption and with it (the sets' kernel then deposits each
 * set's share of every interaction: set 0's factor is exactly 1, its share
 * the run's own, so its A_rz is the plain run's bit for bit), AUTO taking
 * the GPU either way. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tmcml.h"

static const tmcml_layer layers[2] = {
    {1.4, 0.5, 50.0, 0.8, 0.05},
    {1.4, 1.0, 30.0, 0.9, 0.1},
};
static const tmcml_grid grid = {0.01, 0.01, 20, 20, 4};

/* Three sets; set 0 is the problem's own mua and the per-layer minimum. */
static const double sets[3 * 2] = {0.5, 1.0, 5.0, 1.0, 0.5, 10.0};

static void options(tmcml_options *opt, tmcml_engine engine)
{
    tmcml_options_init(opt);
    opt->engine = engine;
    opt->photons = 4000;
    opt->seed = 7;
}

static void test_reference_set(tmcml_session *s, const tmcml_problem *p)
{
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *out[3] = {NULL, NULL, NULL}, *plain = NULL;
    CHECK_MSG(tmcml_run_sets(s, p, sets, 3, &opt, out) == TMCML_OK, "%s", tmcml_session_message(s));
    opt.engine = TMCML_ENGINE_CPU;
    CHECK(tmcml_run(s, p, &opt, &plain) == TMCML_OK);
    tmcml_info a, b;
    tmcml_result_info(out[0], &a);
    tmcml_result_info(plain, &b);
    CHECK_MSG(a.tallies_digest == b.tallies_digest, "set 0 %llx, plain run %llx",
              (unsigned long long)a.tallies_digest, (unsigned long long)b.tallies_digest);
    CHECK(strcmp(a.engine, "cpu") == 0 && a.photons == 4000 && a.seed == 7);
    for (int k = 0; k < 3; k++) {
        tmcml_layer l;
        CHECK(out[k] != NULL);
        for (int i = 1; i <= 2; i++)
            CHECK(tmcml_problem_layer(tmcml_result_problem(out[k]), i, &l) &&
                  l.mua == sets[k * 2 + i - 1] && l.mus == layers[i - 1].mus);
        tmcml_info info;
        tmcml_result_info(out[k], &info);
        CHECK(info.photons == 4000 && info.has_tallies);
    }
    tmcml_rat r0, r1;
    tmcml_result_rat(out[0], &r0);
    tmcml_result_rat(out[1], &r1);
    CHECK_MSG(r1.rd < r0.rd && r1.a > r0.a, "more absorption, less Rd: %g %g", r1.rd, r0.rd);
    for (int k = 0; k < 3; k++)
        tmcml_result_delete(out[k]);
    tmcml_result_delete(plain);
}

static void refused(tmcml_session *s, const tmcml_problem *p, const double *mua, int count,
                    tmcml_engine engine, const char *what)
{
    tmcml_options opt;
    options(&opt, engine);
    tmcml_result *out[3] = {NULL, NULL, NULL};
    CHECK_MSG(tmcml_run_sets(s, p, mua, count, &opt, out) == TMCML_ERR_ARGUMENT, "%s", what);
    CHECK_CONTAINS(tmcml_session_message(s), what);
    CHECK(out[0] == NULL && out[1] == NULL && out[2] == NULL);
}

static void test_refusals(tmcml_session *s, const tmcml_problem *p)
{
    static const double negative[2 * 2] = {0.5, 1.0, 0.5, -1.0};
    refused(s, p, sets, 0, TMCML_ENGINE_CPU, "num_sets: expected 1 to 256 (got 0)");
    refused(s, p, NULL, 3, TMCML_ENGINE_CPU, "mua_sets: NULL");
    refused(s, p, negative, 2, TMCML_ENGINE_CPU, "set 2, layer 2: mua must be 0 or between");
    refused(s, NULL, sets, 3, TMCML_ENGINE_CPU, "problem: NULL");
}

/* K sets: set 0 the problem's own mua (the per-layer minimum), set k
 * (1 + k) times it: more sets than a warp's lanes (templates/sets.cu). */
#define MANY_SETS 40
static void many_sets(double *mua)
{
    for (int k = 0; k < MANY_SETS; k++)
        for (int i = 0; i < 2; i++)
            mua[k * 2 + i] = layers[i].mua * (1.0 + k);
}

/* The GPU's sets (3, or MANY_SETS) with absorption or without (-A): set 0
 * is the plain run of the same mode bit for bit, set 2 (5x or 3x the mua)
 * reflects less. */
static void gpu_reference_set(tmcml_session *s, const tmcml_problem *p, int absorption, int count)
{
    static double many[MANY_SETS * 2];
    many_sets(many);
    const double *mua = count == 3 ? sets : many;
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    opt.photons = 200000;
    opt.absorption = absorption;
    tmcml_result *out[MANY_SETS] = {NULL}, *plain = NULL;
    CHECK_MSG(tmcml_run_sets(s, p, mua, count, &opt, out) == TMCML_OK, "%s",
              tmcml_session_message(s));
    opt.engine = TMCML_ENGINE_GPU;
    CHECK(tmcml_run(s, p, &opt, &plain) == TMCML_OK);
    CHECK(out[0] && plain);
    if (!out[0] || !plain)
        return;
    tmcml_info a, b, c;
    tmcml_result_info(out[0], &a);
    tmcml_result_info(plain, &b);
    tmcml_result_info(out[1], &c);
    CHECK_MSG(a.tallies_digest == b.tallies_digest,
              "%d sets, absorption %d: GPU set 0 %llx, plain run %llx", count, absorption,
              (unsigned long long)a.tallies_digest, (unsigned long long)b.tallies_digest);
    CHECK(a.tallies_digest != c.tallies_digest);
    CHECK_MSG(strcmp(a.engine, "gpu") == 0, "AUTO took %s for sets (absorption %d)", a.engine,
              absorption);
    tmcml_rat r0, r2;
    tmcml_result_rat(out[0], &r0);
    tmcml_result_rat(out[2], &r2);
    CHECK_MSG(r2.rd < r0.rd, "set 2: Rd %g (set 0 %g)", r2.rd, r0.rd);
    CHECK_MSG(absorption ? r2.a > r0.a : r2.a == 0.0, "absorption %d: set 2's A %g, set 0's %g",
              absorption, r2.a, r0.a);
    for (int k = 0; k < count; k++)
        tmcml_result_delete(out[k]);
    tmcml_result_delete(plain);
}

static int test_gpu(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_device dev[8];
    int count = 0;
    if (tmcml_devices(s, dev, 8, &count) != TMCML_OK || count < 1) {
        printf("test_api_sets gpu: skipped: %s\n", tmcml_session_message(s));
        tmcml_session_delete(s);
        return 77;
    }
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    gpu_reference_set(s, p, 0, 3);
    gpu_reference_set(s, p, 1, 3);
    gpu_reference_set(s, p, 1, MANY_SETS);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    return check_summary("test_api_sets gpu");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gpu") == 0)
        return test_gpu();
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    CHECK(s && tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    test_reference_set(s, p);
    test_refusals(s, p);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    return check_summary("test_api_sets");
}
