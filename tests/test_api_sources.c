/* Sources through the public header (api/tmcml.h; docs/physics.md,
 * "Sources"):
 *   test_api_sources      tmcml_problem_set_source and tmcml_problem_source:
 *                         each kind set and read back, bad values refused
 *                         naming them, the result's problem keeps the
 *                         source; a batch of one kind with other parameters
 *                         is each problem alone bit for bit (CPU); a batch
 *                         mixing kinds refused; convolution refused
 *   test_api_sources gpu  the batch on the GPU (the batch kernel reads each
 *                         run's source from its layer table): each problem
 *                         alone bit for bit, for every kind (label gpu;
 *                         exit 77 without a GPU) */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tmcml.h"

static const tmcml_layer layers[2] = {{1.4, 1.0, 80.0, 0.85, 0.1}, {1.4, 0.5, 20.0, 0.7, 0.2}};
static const tmcml_grid grid = {0.01, 0.01, 30, 40, 3};

static tmcml_problem *problem(tmcml_session *s, int kind, double a, double b)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK_MSG(tmcml_problem_set_source(s, p, kind, a, b) == TMCML_OK, "kind %d: %s", kind,
              tmcml_session_message(s));
    CHECK(tmcml_problem_set_photons(s, p, 3000) == TMCML_OK);
    return p;
}

static void refused(tmcml_session *s, int kind, double a, double b, const char *what)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK_MSG(tmcml_problem_set_source(s, p, kind, a, b) == TMCML_ERR_ARGUMENT, "kind %d %g %g",
              kind, a, b);
    CHECK_CONTAINS(tmcml_session_message(s), what);
    double ga = -1, gb = -1;
    CHECK(tmcml_problem_source(p, &ga, &gb) == TMCML_SOURCE_PENCIL); /* unchanged */
    tmcml_problem_delete(p);
}

static void test_setter(tmcml_session *s)
{
    static const struct {
        int kind;
        double a, b;
    } ok[] = {{TMCML_SOURCE_GAUSSIAN, 0.1, 0},
              {TMCML_SOURCE_FLAT, 0.2, 0},
              {TMCML_SOURCE_POINT, 0.15, 0},
              {TMCML_SOURCE_FIBER, 0.02, 0.5},
              {TMCML_SOURCE_PENCIL, 0, 0}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        tmcml_problem *p = problem(s, ok[i].kind, ok[i].a, ok[i].b);
        double a = -1, b = -1;
        CHECK(tmcml_problem_source(p, &a, &b) == ok[i].kind);
        CHECK(a == ok[i].a && b == ok[i].b);
        tmcml_problem_delete(p);
    }
    CHECK(tmcml_problem_source(NULL, NULL, NULL) == TMCML_SOURCE_PENCIL);
    /* Kept when the photons or the name are set after (check_run reads the
     * problem back from its .mci text, which holds neither request). */
    tmcml_problem *p = problem(s, TMCML_SOURCE_POINT, 0.15, 0);
    CHECK(tmcml_problem_set_path_lengths(s, p, 1) == TMCML_OK);
    CHECK(tmcml_problem_set_photons(s, p, 10) == TMCML_OK);
    CHECK(tmcml_problem_set_name(s, p, "kept.mco") == TMCML_OK);
    CHECK(tmcml_problem_source(p, NULL, NULL) == TMCML_SOURCE_POINT);
    CHECK(tmcml_problem_path_lengths(p) == 1);
    tmcml_problem_delete(p);
    refused(s, 9, 0, 0, "unknown kind 9");
    refused(s, TMCML_SOURCE_GAUSSIAN, 0, 0, "\"gaussian:0\"");
    refused(s, TMCML_SOURCE_FLAT, -1, 0, "radius R must be");
    /* Subnormal values, as the .mci refuses them (issue 42). */
    refused(s, TMCML_SOURCE_GAUSSIAN, 1e-320, 0, "9.99989e-321 is too small to compute with");
    refused(s, TMCML_SOURCE_FIBER, 0.01, 2e-310, "2e-310 is too small to compute with");
    refused(s, TMCML_SOURCE_POINT, 0.1, 0, "boundary between layers");
    refused(s, TMCML_SOURCE_POINT, 0.35, 0, "not inside the stack");
    refused(s, TMCML_SOURCE_FIBER, 0.1, 1.5, "exceeds the n 1 of the medium above");
    CHECK(tmcml_problem_set_source(s, NULL, 1, 1, 0) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_source(NULL, NULL, 1, 1, 0) == TMCML_ERR_ARGUMENT);
}

/* A batch of problems of kind with radii (or depths) a[i]: each alone bit
 * for bit; the result's problem has the source. */
static void test_batch_of(tmcml_session *s, tmcml_engine engine, int kind, const double *a,
                          double b)
{
    enum { COUNT = 3 };
    tmcml_problem *p[COUNT];
    tmcml_result *out[COUNT] = {0};
    for (int i = 0; i < COUNT; i++)
        p[i] = problem(s, kind, a[i], b);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = engine;
    opt.seed = 7;
    tmcml_status st = tmcml_run_batch(s, (const tmcml_problem *const *)p, COUNT, &opt, out);
    CHECK_MSG(st == TMCML_OK, "kind %d batch: %s", kind, tmcml_session_message(s));
    for (int i = 0; st == TMCML_OK && i < COUNT; i++) {
        tmcml_result *alone = NULL;
        CHECK(tmcml_run(s, p[i], &opt, &alone) == TMCML_OK);
        tmcml_info x, y;
        tmcml_result_info(alone, &x);
        tmcml_result_info(out[i], &y);
        CHECK_MSG(x.tallies_digest == y.tallies_digest,
                  "kind %d problem %d: %llx alone, %llx "
                  "batched",
                  kind, i, (unsigned long long)x.tallies_digest,
                  (unsigned long long)y.tallies_digest);
        double ra = -1;
        CHECK(tmcml_problem_source(tmcml_result_problem(out[i]), &ra, NULL) == kind && ra == a[i]);
        tmcml_result_delete(alone);
        tmcml_result_delete(out[i]);
    }
    for (int i = 0; i < COUNT; i++)
        tmcml_problem_delete(p[i]);
}

static void test_batches(tmcml_session *s, tmcml_engine engine)
{
    static const double radii[3] = {0.05, 0.1, 0.2}, depths[3] = {0.05, 0.15, 0.25};
    test_batch_of(s, engine, TMCML_SOURCE_GAUSSIAN, radii, 0);
    test_batch_of(s, engine, TMCML_SOURCE_FLAT, radii, 0);
    test_batch_of(s, engine, TMCML_SOURCE_POINT, depths, 0);
    test_batch_of(s, engine, TMCML_SOURCE_FIBER, radii, 0.4);
}

static void test_refusals(tmcml_session *s)
{
    tmcml_problem *p[2] = {problem(s, TMCML_SOURCE_FLAT, 0.1, 0),
                           problem(s, TMCML_SOURCE_GAUSSIAN, 0.1, 0)};
    tmcml_result *out[2] = {0};
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)p, 2, &opt, out) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "one source kind");
    tmcml_result *r = NULL, *c = NULL;
    CHECK(tmcml_run(s, p[0], &opt, &r) == TMCML_OK);
    tmcml_beam beam = {TMCML_BEAM_GAUSSIAN, 0.1};
    CHECK(tmcml_result_convolve(s, r, &beam, &c) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "pencil-beam response");
    tmcml_result_delete(r);
    tmcml_problem_delete(p[0]);
    tmcml_problem_delete(p[1]);
}

int main(int argc, char **argv)
{
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        tmcml_device dev[8];
        int count = 0;
        if (tmcml_devices(s, dev, 8, &count) != TMCML_OK) {
            printf("test_api_sources gpu: skipped: %s\n", tmcml_session_message(s));
            tmcml_session_delete(s);
            return 77;
        }
        test_batches(s, TMCML_ENGINE_GPU);
        tmcml_session_delete(s);
        return check_summary("test_api_sources gpu");
    }
    test_setter(s);
    test_batches(s, TMCML_ENGINE_CPU);
    test_refusals(s);
    tmcml_session_delete(s);
    return check_summary("test_api_sources");
}
