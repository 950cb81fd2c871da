/* libtmcml through its public header alone (api/tmcml.h), linked
 * against the shared library:
 *   test_api CLI EXAMPLES    arguments, errors, determinism, cancelling,
 *                            .mco out and in, identity with the run command,
 *                            the figure of `tmcml plot`
 *   test_api gpu             a loop of runs varying the optics: one compile
 *                            (exit 77 without a GPU) */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "tmcml.h"

static const tmcml_layer example_layers[3] = {
    {1.37, 1.0, 100.0, 0.90, 0.1},
    {1.37, 1.0, 10.0, 0.0, 0.1},
    {1.37, 2.0, 10.0, 0.70, 0.2},
};
static const tmcml_grid example_grid = {0.01, 0.01, 40, 50, 1};

static tmcml_problem *example(tmcml_session *s)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, example_layers, 3, 1.0, 1.0, &example_grid, &p) == TMCML_OK);
    return p;
}

/* A problem that should be refused with a message containing what. */
static void refused(tmcml_session *s, const tmcml_layer *layers, int num_layers, double n_above,
                    const tmcml_grid *grid, const char *what)
{
    tmcml_problem *p = NULL;
    tmcml_status st = tmcml_problem_new(s, layers, num_layers, n_above, 1.0, grid, &p);
    CHECK_MSG(st == TMCML_ERR_ARGUMENT, "%s: status %d", what, (int)st);
    CHECK(p == NULL);
    CHECK(tmcml_session_status(s) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), what);
    tmcml_problem_delete(p);
}

static void test_bad_problems(tmcml_session *s)
{
    tmcml_layer l[3];
    memcpy(l, example_layers, sizeof l);
    l[0].d = -0.1;
    refused(s, l, 3, 1.0, &example_grid, "layer 1: d must not be negative (-0.1)");
    memcpy(l, example_layers, sizeof l);
    l[1].mua = 0.0 / 0.0;
    refused(s, l, 3, 1.0, &example_grid, "layer 2: mua: not a finite number");
    memcpy(l, example_layers, sizeof l);
    l[2].g = 1.5;
    refused(s, l, 3, 1.0, &example_grid, "layer 3: g must be between -1 and 1 (1.5)");
    refused(s, example_layers, 3, 0.0, &example_grid, "n of the medium above must be positive");
    refused(s, example_layers, 0, 1.0, &example_grid, "number of layers must be positive (0)");
    refused(s, NULL, 3, 1.0, &example_grid, "layers: NULL");
    refused(s, example_layers, 3, 1.0, NULL, "grid: NULL");
    tmcml_grid g = example_grid;
    g.nz = 0;
    refused(s, example_layers, 3, 1.0, &g, "nz must be positive (0)");
    g = example_grid;
    g.dr = -1;
    refused(s, example_layers, 3, 1.0, &g, "dr must be positive (-1)");
    /* A good call clears the message. */
    tmcml_problem *p = example(s);
    CHECK(tmcml_session_status(s) == TMCML_OK);
    CHECK(strcmp(tmcml_session_message(s), "") == 0);
    CHECK(tmcml_problem_set_photons(s, p, 0) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "photons");
    CHECK(tmcml_problem_set_name(s, p, "two words.mco") == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_name(s, p, "") == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_problem_set_name(s, p, "fine.mco") == TMCML_OK);
    CHECK(strcmp(tmcml_problem_name(p), "fine.mco") == 0);
    tmcml_problem_delete(p);
}

static void test_bad_options(tmcml_session *s)
{
    tmcml_problem *p = example(s);
    tmcml_options opt;
    tmcml_result *r = (tmcml_result *)&opt; /* set to NULL by a failing run */
    tmcml_options_init(&opt);
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK(r == NULL);
    CHECK_CONTAINS(tmcml_session_message(s), "photons: none given");
    opt.photons = 100;
    opt.threads = -1;
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "threads");
    opt.threads = 1;
    opt.engine = (tmcml_engine)7;
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "engine");
    opt.engine = TMCML_ENGINE_CPU;
    opt.progress_interval = -1;
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "progress_interval");
    CHECK(tmcml_run(s, NULL, NULL, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problem");
    tmcml_problem_delete(p);
}

static tmcml_result *run_cpu(tmcml_session *s, const tmcml_problem *p, int64_t photons,
                             uint64_t seed, int threads)
{
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = photons;
    opt.seed = seed;
    opt.threads = threads;
    tmcml_result *r = NULL;
    tmcml_status st = tmcml_run(s, p, &opt, &r);
    CHECK_MSG(st == TMCML_OK, "%s", tmcml_session_message(s));
    return r;
}

/* A call that fails on a NULL argument names it, replacing the previous
 * call's message. */
static void null_named(tmcml_session *s, tmcml_problem *p, tmcml_status st, const char *what)
{
    CHECK_MSG(st == TMCML_ERR_ARGUMENT, "%s: status %d", what, (int)st);
    CHECK(tmcml_session_status(s) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), what);
    /* The next must not find this message left over. */
    CHECK(tmcml_problem_set_name(s, p, "") == TMCML_ERR_ARGUMENT);
}

/* NULL where a pointer is needed: a status and a message naming it, never
 * a crash; the getters read a NULL handle as an empty one. */
static void test_null_arguments(tmcml_session *s)
{
    tmcml_problem *p = example(s), *none = NULL;
    tmcml_result *r = run_cpu(s, p, 1000, 1, 1), *r2 = NULL;
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = 100;
    uint64_t lo[50], hi[50];
    tmcml_problem **runs = NULL;
    int count = 0;
    tmcml_device dev;
    CHECK(tmcml_problem_set_name(s, p, "") == TMCML_ERR_ARGUMENT); /* a message to replace */
    null_named(s, p, tmcml_run(s, p, &opt, NULL), "out: NULL");
    null_named(s, p, tmcml_problem_new(s, example_layers, 3, 1.0, 1.0, &example_grid, NULL),
               "out: NULL");
    null_named(s, p, tmcml_mci_read(s, "x.mci", NULL, &count), "runs: NULL");
    null_named(s, p, tmcml_mci_read(s, "x.mci", &runs, NULL), "count: NULL");
    null_named(s, p, tmcml_problem_set_name(s, NULL, "a.mco"), "problem: NULL");
    null_named(s, p, tmcml_problem_set_photons(s, NULL, 10), "problem: NULL");
    null_named(s, p, tmcml_result_tallies(s, NULL, TMCML_RD_RA, lo, hi, 50), "result: NULL");
    null_named(s, p, tmcml_result_write_mco(s, NULL, "/tmp/x.mco"), "result: NULL");
    null_named(s, p, tmcml_result_read_mco(s, "/tmp/x.mco", NULL), "out: NULL");
    null_named(s, p, tmcml_result_write_mco(s, r, NULL), "path: NULL");
    null_named(s, p, tmcml_result_plot(s, NULL, "/tmp/x.png", NULL), "result: NULL");
    null_named(s, p, tmcml_result_plot(s, r, NULL, NULL), "path: NULL");
    CHECK(tmcml_result_plot(NULL, r, "/tmp/x.png", NULL) == TMCML_ERR_ARGUMENT);
    null_named(s, p, tmcml_result_read_mco(s, NULL, &r2), "path: NULL");
    null_named(s, p, tmcml_mci_read(s, NULL, &runs, &count), "path: NULL");
    null_named(s, p, tmcml_mci_write(s, NULL, (const tmcml_problem *const *)&p, 1), "path: NULL");
    null_named(s, p, tmcml_mci_write(s, "/tmp/x.mci", NULL, 1), "runs: expected");
    null_named(s, p, tmcml_devices(s, &dev, 1, NULL), "count: NULL");
    null_named(s, p, tmcml_devices(s, NULL, 4, &count), "out: NULL for max 4");
    /* Every entry's pointers, in the order the call checks them (api_begin). */
    tmcml_beam beam = {TMCML_BEAM_FLAT, 0.1};
    tmcml_result *out[1] = {NULL};
    null_named(s, p, tmcml_run(s, NULL, &opt, &r2), "problem: NULL");
    null_named(s, p, tmcml_run(s, NULL, &opt, NULL), "out: NULL");
    null_named(s, p, tmcml_run_batch(s, NULL, 1, &opt, out), "problems: NULL");
    null_named(s, p, tmcml_run_sets(s, NULL, NULL, 1, &opt, out), "problem: NULL");
    null_named(s, p, tmcml_mci_read(s, NULL, NULL, NULL), "runs: NULL");
    null_named(s, p, tmcml_result_convolve(s, NULL, NULL, NULL), "result: NULL");
    null_named(s, p, tmcml_result_convolve(s, r, NULL, NULL), "beam: NULL");
    null_named(s, p, tmcml_result_convolve(s, r, &beam, NULL), "out: NULL");
    null_named(s, p, tmcml_result_write_mco(s, NULL, NULL), "result: NULL");
    null_named(s, p, tmcml_result_write_mco(s, r, ""), "path: empty");
    null_named(s, p, tmcml_result_plot(s, r, "", NULL), "path: empty");
    null_named(s, p, tmcml_problem_set_source(s, NULL, TMCML_SOURCE_PENCIL, 0, 0), "problem: NULL");
    null_named(s, p, tmcml_problem_set_time_bins(s, NULL, 0.01, 10), "problem: NULL");
    null_named(s, p, tmcml_problem_set_fiber_detector(s, NULL, 0, 0.1, 0.2), "problem: NULL");
    null_named(s, p, tmcml_problem_set_path_lengths(s, NULL, 1), "problem: NULL");
    /* No session: nowhere to keep a message, but no crash. */
    CHECK(tmcml_run(NULL, p, &opt, &r2) == TMCML_ERR_ARGUMENT && r2 == NULL);
    CHECK(tmcml_problem_new(NULL, example_layers, 3, 1.0, 1.0, &example_grid, &none) ==
              TMCML_ERR_ARGUMENT &&
          none == NULL);
    /* The getters. */
    tmcml_rat rat = {1, 1, 1, 1};
    tmcml_result_rat(NULL, &rat);
    CHECK(rat.rsp == 0 && rat.rd == 0 && rat.a == 0 && rat.tt == 0);
    tmcml_result_rat(r, NULL);
    tmcml_info info;
    memset(&info, 0xff, sizeof info);
    tmcml_result_info(NULL, &info);
    CHECK(info.photons == 0 && info.has_tallies == 0);
    CHECK(info.engine && !*info.engine && info.kernel && !*info.kernel && info.comment &&
          !*info.comment && info.device && !*info.device && info.variant && !*info.variant);
    tmcml_result_info(r, NULL);
    tmcml_grid g = example_grid;
    tmcml_problem_grid(NULL, &g);
    CHECK(g.nz == 0 && g.nr == 0 && g.na == 0 && g.dz == 0 && g.dr == 0);
    tmcml_problem_grid(p, NULL);
    size_t n = 7;
    CHECK(tmcml_result_array(NULL, TMCML_A_Z, &n) == NULL && n == 0);
    CHECK(tmcml_result_problem(NULL) == NULL);
    tmcml_options_init(NULL);
    tmcml_session_stats_get(s, NULL);
    CHECK(tmcml_problem_num_layers(NULL) == 0 && tmcml_problem_photons(NULL) == 0);
    CHECK(strcmp(tmcml_problem_name(NULL), "") == 0);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
}

/* Equal seeds give equal tallies whatever the thread count; another seed
 * does not. */
static void test_determinism(tmcml_session *s)
{
    tmcml_problem *p = example(s);
    tmcml_result *a = run_cpu(s, p, 5000, 3, 1), *b = run_cpu(s, p, 5000, 3, 2),
                 *c = run_cpu(s, p, 5000, 4, 2);
    tmcml_info ia, ib, ic;
    tmcml_result_info(a, &ia);
    tmcml_result_info(b, &ib);
    tmcml_result_info(c, &ic);
    CHECK(ia.tallies_digest == ib.tallies_digest);
    CHECK(ia.tallies_digest != ic.tallies_digest);
    CHECK(ia.photons == 5000 && ia.seed == 3 && ia.has_tallies);
    CHECK(strcmp(ia.engine, "cpu") == 0 && ia.kernel_origin == TMCML_KERNEL_NONE);
    CHECK(ia.wall_seconds >= ia.kernel_seconds && ia.kernel_seconds > 0);
    size_t n, m;
    const double *ra = tmcml_result_array(a, TMCML_RD_RA, &n);
    const double *rb = tmcml_result_array(b, TMCML_RD_RA, &m);
    CHECK(n == 50 && m == n && memcmp(ra, rb, n * sizeof *ra) == 0);
    tmcml_result_array(a, TMCML_A_L, &n);
    CHECK(n == 3);
    CHECK(tmcml_result_array(a, (tmcml_array)99, &n) == NULL && n == 0);
    /* Tallies: the array's length, and the A_z sum equals A. */
    uint64_t lo[2000], hi[2000];
    CHECK(tmcml_result_tallies(s, a, TMCML_A_RZ, lo, hi, 2000) == TMCML_OK);
    CHECK(tmcml_result_tallies(s, a, TMCML_A_RZ, lo, hi, 10) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_result_tallies(s, a, TMCML_A_Z, lo, hi, 40) == TMCML_ERR_ARGUMENT);
    uint64_t units = 0;
    for (int i = 0; i < 2000; i++)
        units += lo[i] + (hi[i] ? UINT64_MAX : 0);
    tmcml_rat rat;
    tmcml_result_rat(a, &rat);
    CHECK_MSG(units > 0 && (double)units / 16777216.0 / 5000 <= rat.a + 1e-12 &&
                  (double)units / 16777216.0 / 5000 >= rat.a - 1e-12,
              "A %g from tallies %g", rat.a, (double)units / 16777216.0 / 5000);
    tmcml_result_delete(a);
    tmcml_result_delete(b);
    tmcml_result_delete(c);
    tmcml_problem_delete(p);
}

/* The arrays as the library's table describes them: every tmcml_array
 * constant is its row (ORDER OUTPUT), with MCML's name, its unit, axes and
 * kind; unknown ones are refused. */
static const struct {
    tmcml_array which;
    const char *name, *unit;
    int rank;
    tmcml_axis axes[4];
    int tallies, absorption;
} want_arrays[] = {
    {TMCML_A_L, "A_l", "-", 1, {TMCML_AXIS_LAYER}, 0, 1},
    {TMCML_A_Z, "A_z", "1/cm", 1, {TMCML_AXIS_Z}, 0, 1},
    {TMCML_RD_R, "Rd_r", "1/cm2", 1, {TMCML_AXIS_R}, 0, 0},
    {TMCML_RD_A, "Rd_a", "1/sr", 1, {TMCML_AXIS_A}, 0, 0},
    {TMCML_TT_R, "Tt_r", "1/cm2", 1, {TMCML_AXIS_R}, 0, 0},
    {TMCML_TT_A, "Tt_a", "1/sr", 1, {TMCML_AXIS_A}, 0, 0},
    {TMCML_A_RZ, "A_rz", "1/cm3", 2, {TMCML_AXIS_R, TMCML_AXIS_Z}, 1, 1},
    {TMCML_RD_RA, "Rd_ra", "1/(cm2 sr)", 2, {TMCML_AXIS_R, TMCML_AXIS_A}, 1, 0},
    {TMCML_TT_RA, "Tt_ra", "1/(cm2 sr)", 2, {TMCML_AXIS_R, TMCML_AXIS_A}, 1, 0},
    {TMCML_RD_PATH, "Rd_path", "cm", 2, {TMCML_AXIS_R, TMCML_AXIS_LAYER}, 1, 0},
    {TMCML_TT_PATH, "Tt_path", "cm", 2, {TMCML_AXIS_R, TMCML_AXIS_LAYER}, 1, 0},
    {TMCML_RD_PATH_TOTAL, "Rd_path_total", "cm", 1, {TMCML_AXIS_LAYER}, 0, 0},
    {TMCML_TT_PATH_TOTAL, "Tt_path_total", "cm", 1, {TMCML_AXIS_LAYER}, 0, 0},
    {TMCML_RD_RT, "Rd_rt", "1/(cm2 ns)", 2, {TMCML_AXIS_R, TMCML_AXIS_T}, 1, 0},
    {TMCML_RD_T, "Rd_t", "1/ns", 1, {TMCML_AXIS_T}, 0, 0},
    {TMCML_TT_RT, "Tt_rt", "1/(cm2 ns)", 2, {TMCML_AXIS_R, TMCML_AXIS_T}, 1, 0},
    {TMCML_TT_T, "Tt_t", "1/ns", 1, {TMCML_AXIS_T}, 0, 0},
    {TMCML_RD_FIBER, "Rd_fiber", "-", 1, {TMCML_AXIS_DETECTOR}, 1, 0},
#define JACOBIAN_AXES(first)                                                                       \
    {                                                                                              \
        first, TMCML_AXIS_LAYER, TMCML_AXIS_PARAM                                                  \
    }
    {TMCML_RD_JACOBIAN,
     "Rd_jacobian",
     "cm (mua, mus); - (g)",
     2,
     {TMCML_AXIS_LAYER, TMCML_AXIS_PARAM},
     0,
     0},
    {TMCML_RD_R_JACOBIAN, "Rd_r_jacobian", "1/cm (mua, mus); 1/cm2 (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_R), 0, 0},
    {TMCML_RD_A_JACOBIAN, "Rd_a_jacobian", "cm/sr (mua, mus); 1/sr (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_A), 0, 0},
    {TMCML_TT_JACOBIAN,
     "Tt_jacobian",
     "cm (mua, mus); - (g)",
     2,
     {TMCML_AXIS_LAYER, TMCML_AXIS_PARAM},
     0,
     0},
    {TMCML_TT_R_JACOBIAN, "Tt_r_jacobian", "1/cm (mua, mus); 1/cm2 (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_R), 0, 0},
    {TMCML_TT_A_JACOBIAN, "Tt_a_jacobian", "cm/sr (mua, mus); 1/sr (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_A), 0, 0},
    {TMCML_RD_RT_JACOBIAN,
     "Rd_rt_jacobian",
     "1/(cm ns) (mua, mus); 1/(cm2 ns) (g)",
     4,
     {TMCML_AXIS_R, TMCML_AXIS_T, TMCML_AXIS_LAYER, TMCML_AXIS_PARAM},
     0,
     0},
    {TMCML_RD_T_JACOBIAN, "Rd_t_jacobian", "cm/ns (mua, mus); 1/ns (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_T), 0, 0},
    {TMCML_TT_RT_JACOBIAN,
     "Tt_rt_jacobian",
     "1/(cm ns) (mua, mus); 1/(cm2 ns) (g)",
     4,
     {TMCML_AXIS_R, TMCML_AXIS_T, TMCML_AXIS_LAYER, TMCML_AXIS_PARAM},
     0,
     0},
    {TMCML_TT_T_JACOBIAN, "Tt_t_jacobian", "cm/ns (mua, mus); 1/ns (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_T), 0, 0},
    {TMCML_RD_FIBER_JACOBIAN, "Rd_fiber_jacobian", "cm (mua, mus); - (g)", 3,
     JACOBIAN_AXES(TMCML_AXIS_DETECTOR), 0, 0},
#undef JACOBIAN_AXES
    {TMCML_RD_FX, "Rd_fx", "-", 1, {TMCML_AXIS_FX}, 0, 0},
    {TMCML_TT_FX, "Tt_fx", "-", 1, {TMCML_AXIS_FX}, 0, 0},
    {TMCML_RD_R_AC, "Rd_r_ac", "1/cm2", 2, {TMCML_AXIS_R, TMCML_AXIS_MODULATION}, 0, 0},
    {TMCML_RD_R_PHASE, "Rd_r_phase", "rad", 2, {TMCML_AXIS_R, TMCML_AXIS_MODULATION}, 0, 0},
    {TMCML_RD_AC, "Rd_ac", "-", 1, {TMCML_AXIS_MODULATION}, 0, 0},
    {TMCML_RD_PHASE, "Rd_phase", "rad", 1, {TMCML_AXIS_MODULATION}, 0, 0},
    {TMCML_RD_XY, "Rd_xy", "1/cm2", 2, {TMCML_AXIS_XY, TMCML_AXIS_XY}, 1, 0},
    {TMCML_TT_XY, "Tt_xy", "1/cm2", 2, {TMCML_AXIS_XY, TMCML_AXIS_XY}, 1, 0},
    {TMCML_A_XZ, "A_xz", "1/cm2", 2, {TMCML_AXIS_XY, TMCML_AXIS_Z}, 1, 1},
};

static void test_array_table(void)
{
    int n = (int)(sizeof want_arrays / sizeof want_arrays[0]);
    CHECK(tmcml_array_count() == n);
    for (int i = 0; i < n; i++) {
        tmcml_array w = want_arrays[i].which;
        const char *name = tmcml_array_name(w), *unit = tmcml_array_unit(w);
        CHECK_MSG((int)w == i && name && strcmp(name, want_arrays[i].name) == 0, "%d: %s", i,
                  name ? name : "NULL");
        CHECK_MSG(unit && strcmp(unit, want_arrays[i].unit) == 0, "%s: unit %s",
                  want_arrays[i].name, unit ? unit : "NULL");
        tmcml_axis axes[TMCML_ARRAY_MAX_DIMS];
        int rank = tmcml_array_dims(w, axes);
        CHECK_MSG(rank == want_arrays[i].rank && axes[0] == want_arrays[i].axes[0] &&
                      (rank < 2 || axes[1] == want_arrays[i].axes[1]) &&
                      (rank < 3 || axes[2] == want_arrays[i].axes[2]) &&
                      (rank < 4 || axes[3] == want_arrays[i].axes[3]),
                  "%s: dims", want_arrays[i].name);
        CHECK(tmcml_array_dims(w, NULL) == rank);
        CHECK(tmcml_array_has_tallies(w) == want_arrays[i].tallies);
        CHECK(tmcml_array_absorption(w) == want_arrays[i].absorption);
        CHECK(tmcml_array_path_lengths(w) == (w >= TMCML_RD_PATH && w < TMCML_RD_RT));
        CHECK(tmcml_array_option(w) == (w < TMCML_RD_PATH       ? 0
                                        : w < TMCML_RD_RT       ? 1
                                        : w < TMCML_RD_FIBER    ? 2
                                        : w < TMCML_RD_JACOBIAN ? 3
                                        : w < TMCML_RD_FX       ? 4
                                        : w < TMCML_RD_R_AC     ? 6
                                        : w < TMCML_RD_XY       ? 7
                                                                : 8));
    }
    tmcml_array unknown[] = {(tmcml_array)n, (tmcml_array)-1};
    for (int i = 0; i < 2; i++) {
        CHECK(tmcml_array_name(unknown[i]) == NULL && tmcml_array_unit(unknown[i]) == NULL);
        CHECK(tmcml_array_dims(unknown[i], NULL) == 0 && !tmcml_array_has_tallies(unknown[i]) &&
              !tmcml_array_absorption(unknown[i]) && !tmcml_array_path_lengths(unknown[i]) &&
              tmcml_array_option(unknown[i]) == -1);
        CHECK(tmcml_result_array_shape(NULL, unknown[i], NULL) == 0);
    }
}

/* A run without absorption scoring (-A) leaves exactly the arrays the
 * table marks as absorption zero; every shape's product is the array's
 * length; tmcml_result_tallies names the arrays it takes. */
static void test_array_shapes(tmcml_session *s)
{
    tmcml_problem *p = example(s);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = 2000;
    opt.absorption = 0;
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    for (int i = 0; r && i < tmcml_array_count(); i++) {
        size_t count, shape[TMCML_ARRAY_MAX_DIMS], product = 1;
        const double *v = tmcml_result_array(r, (tmcml_array)i, &count);
        int rank = tmcml_result_array_shape(r, (tmcml_array)i, shape);
        if (i >= TMCML_RD_PATH) { /* optional: not asked for, not there */
            CHECK_MSG(!v && count == 0, "%s", tmcml_array_name(i));
            continue;
        }
        for (int d = 0; d < rank; d++)
            product *= shape[d];
        CHECK_MSG(rank >= 1 && product == count && count > 0, "%s", tmcml_array_name(i));
        int nonzero = 0;
        for (size_t k = 0; v && k < count; k++)
            nonzero += v[k] != 0;
        CHECK_MSG((nonzero == 0) == tmcml_array_absorption(i), "%s: %d non-zero entries under -A",
                  tmcml_array_name(i), nonzero);
    }
    size_t shape[TMCML_ARRAY_MAX_DIMS];
    CHECK(tmcml_result_array_shape(r, TMCML_A_RZ, shape) == 2 && shape[0] == 50 && shape[1] == 40);
    CHECK(tmcml_result_array_shape(r, TMCML_A_L, NULL) == 1);
    uint64_t lo[40], hi[40];
    CHECK(tmcml_result_tallies(s, r, TMCML_A_Z, lo, hi, 40) == TMCML_ERR_ARGUMENT);
    CHECK(strcmp(tmcml_session_message(s),
                 "which: the tallies are TMCML_A_RZ, TMCML_RD_RA, TMCML_TT_RA, TMCML_RD_PATH, "
                 "TMCML_TT_PATH, TMCML_RD_RT, TMCML_TT_RT, TMCML_RD_FIBER, TMCML_RD_XY, "
                 "TMCML_TT_XY and TMCML_A_XZ (got 1)") == 0);
    CHECK(tmcml_result_tallies(s, r, TMCML_RD_PATH, lo, hi, 0) == TMCML_ERR_STATE);
    tmcml_result_delete(r);
    tmcml_problem_delete(p);
}

/* Problems of the example's shape with other optics: problem i, i < count;
 * the fourth's first layer is glass, the last is one glass layer alone
 * (which no batch kernel runs). */
static void batch_problems(tmcml_session *s, tmcml_problem **p, int count)
{
    for (int i = 0; i < count; i++) {
        tmcml_layer l[3];
        memcpy(l, example_layers, sizeof l);
        l[0].mua = 0.2 + 0.5 * i;
        l[1].mus = 10.0 + 7 * i;
        if (i == 3)
            l[0].mua = l[0].mus = 0;
        if (i == count - 1)
            l[0].mua = l[0].mus = l[1].mua = l[1].mus = l[2].mua = l[2].mus = 0;
        CHECK(tmcml_problem_new(s, l, 3, 1.0, 1.0, &example_grid, &p[i]) == TMCML_OK);
        CHECK(tmcml_problem_set_photons(s, p[i], 1000 + 500 * i) == TMCML_OK);
    }
}

/* tmcml_run of problem p with opt, beside its result from a batch: the
 * records of both (*a alone, *b batched).  Returns the result alone, which
 * *a points into (the caller deletes it). */
static tmcml_result *alone_beside(tmcml_session *s, const tmcml_problem *p,
                                  const tmcml_options *opt, const tmcml_result *batched,
                                  tmcml_info *a, tmcml_info *b)
{
    tmcml_result *alone = NULL;
    CHECK(tmcml_run(s, p, opt, &alone) == TMCML_OK);
    tmcml_result_info(alone, a);
    tmcml_result_info(batched, b);
    return alone;
}

/* tmcml_run_batch: every result bit-identical to tmcml_run of its problem
 * (photons from each problem, or the options'), the refusals named. */
static void test_batch(tmcml_session *s, tmcml_engine engine)
{
    enum { COUNT = 6 };
    tmcml_problem *p[COUNT];
    tmcml_result *batch[COUNT];
    batch_problems(s, p, COUNT);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = engine;
    opt.seed = 11;
    tmcml_status st = tmcml_run_batch(s, (const tmcml_problem *const *)p, COUNT, &opt, batch);
    CHECK_MSG(st == TMCML_OK, "run_batch: %s", tmcml_session_message(s));
    for (int i = 0; st == TMCML_OK && i < COUNT; i++) {
        tmcml_info a, b;
        tmcml_result *alone = alone_beside(s, p[i], &opt, batch[i], &a, &b);
        CHECK_MSG(a.tallies_digest == b.tallies_digest && a.photons == b.photons &&
                      b.photons == (uint64_t)(1000 + 500 * i),
                  "problem %d: digest %llx alone, %llx batched; %llu photons", i,
                  (unsigned long long)a.tallies_digest, (unsigned long long)b.tallies_digest,
                  (unsigned long long)b.photons);
        tmcml_result_delete(alone);
        tmcml_result_delete(batch[i]);
    }
    /* The options' photon count is every problem's. */
    opt.photons = 700;
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)p, 2, &opt, batch) == TMCML_OK);
    tmcml_info info;
    tmcml_result_info(batch[1], &info);
    CHECK(info.photons == 700);
    tmcml_result_delete(batch[0]);
    tmcml_result_delete(batch[1]);
    /* Refused: another shape (named), no problems, NULL out, a NULL problem. */
    tmcml_problem *other = NULL;
    tmcml_grid grid = example_grid;
    grid.nz = 41;
    CHECK(tmcml_problem_new(s, example_layers, 3, 1.0, 1.0, &grid, &other) == TMCML_OK);
    tmcml_problem *mixed[3] = {p[0], p[1], other};
    batch[2] = (tmcml_result *)1;
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)mixed, 3, &opt, batch) ==
          TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problems[2]");
    CHECK(batch[0] == NULL && batch[2] == NULL);
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)p, 0, &opt, batch) ==
          TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "count");
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)p, 2, &opt, NULL) == TMCML_ERR_ARGUMENT);
    mixed[1] = NULL;
    CHECK(tmcml_run_batch(s, (const tmcml_problem *const *)mixed, 2, &opt, batch) ==
          TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "problems[1]: NULL");
    tmcml_problem_delete(other);
    for (int i = 0; i < COUNT; i++)
        tmcml_problem_delete(p[i]);
}

/* On the GPU, a problem big enough to fill it by itself (batch.h,
 * batch_run_alone) is simulated by a call of its own: a problem of 2*10^7
 * photons (above the size on any GPU of fewer than 488 SMs; its photons
 * end in ~3 steps) and two of 3000.  The small ones run the batch kernel,
 * the big one its own; each result bit-identical to tmcml_run's. */
static void test_batch_big(tmcml_session *s)
{
    enum { COUNT = 3 };
    const tmcml_grid grid = {0.01, 0.01, 20, 20, 4};
    tmcml_problem *p[COUNT];
    tmcml_result *batch[COUNT];
    for (int i = 0; i < COUNT; i++) {
        tmcml_layer l = {1.4, i == 0 ? 1000.0 : i, i == 0 ? 10.0 : 80.0, 0.9, 1e8};
        CHECK(tmcml_problem_new(s, &l, 1, 1.0, 1.0, &grid, &p[i]) == TMCML_OK);
        CHECK(tmcml_problem_set_photons(s, p[i], i == 0 ? 20000000 : 3000) == TMCML_OK);
    }
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_GPU;
    opt.seed = 5;
    tmcml_status st = tmcml_run_batch(s, (const tmcml_problem *const *)p, COUNT, &opt, batch);
    CHECK_MSG(st == TMCML_OK, "run_batch: %s", tmcml_session_message(s));
    for (int i = 0; st == TMCML_OK && i < COUNT; i++) {
        tmcml_info a, b;
        tmcml_result *alone = alone_beside(s, p[i], &opt, batch[i], &a, &b);
        CHECK_MSG(a.tallies_digest == b.tallies_digest,
                  "problem %d: digest %llx alone, %llx batched", i,
                  (unsigned long long)a.tallies_digest, (unsigned long long)b.tallies_digest);
        bool own_kernel = strcmp(a.kernel, b.kernel) == 0;
        CHECK_MSG(own_kernel == (i == 0), "problem %d: kernel %s in the batch, %s alone", i,
                  b.kernel, a.kernel);
        tmcml_result_delete(alone);
        tmcml_result_delete(batch[i]);
    }
    for (int i = 0; i < COUNT; i++)
        tmcml_problem_delete(p[i]);
}

static int calls;
static int cancel_second(uint64_t done, uint64_t total, void *user)
{
    (void)user;
    CHECK(done <= total);
    return ++calls >= 2;
}

typedef struct canceller {
    tmcml_session *s;
    double after;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    struct timespec ts = {0, (long)(c->after * 1e9)};
    nanosleep(&ts, NULL);
    tmcml_session_cancel(c->s);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A callback's nonzero answer, and tmcml_session_cancel from another
 * thread, stop a long run soon; the next run works. */
static void test_cancel(tmcml_session *s)
{
    tmcml_problem *p = example(s);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = INT64_C(1) << 40; /* days */
    opt.threads = 2;
    opt.progress = cancel_second;
    opt.progress_interval = 0.05;
    tmcml_result *r = NULL;
    double t0 = now();
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_CANCELLED);
    CHECK(r == NULL && calls == 2);
    CHECK_CONTAINS(tmcml_session_message(s), "cancelled after");
    CHECK_MSG(now() - t0 < 5, "%.1f s", now() - t0);

    opt.progress = NULL;
    canceller c = {s, 0.2};
    pthread_t thread;
    t0 = now();
    CHECK(pthread_create(&thread, NULL, cancel_later, &c) == 0);
    CHECK(tmcml_run(s, p, &opt, &r) == TMCML_ERR_CANCELLED);
    pthread_join(thread, NULL);
    CHECK_MSG(now() - t0 < 5, "%.1f s", now() - t0);

    tmcml_result_delete(run_cpu(s, p, 1000, 1, 2));
    tmcml_problem_delete(p);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* A whole file's bytes (NULL if unreadable); its length in *size. */
static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = f ? malloc(1 << 22) : NULL;
    *size = buf ? fread(buf, 1, 1 << 22, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

/* A PNG's width and height from its IHDR chunk (big-endian, bytes 16-23). */
static void png_size(const unsigned char *png, size_t size, unsigned *w, unsigned *h)
{
    *w = *h = 0;
    if (size < 24 || memcmp(png + 1, "PNG", 3) != 0 || memcmp(png + 12, "IHDR", 4) != 0)
        return;
    *w = (unsigned)png[16] << 24 | (unsigned)png[17] << 16 | (unsigned)png[18] << 8 | png[19];
    *h = (unsigned)png[20] << 24 | (unsigned)png[21] << 16 | (unsigned)png[22] << 8 | png[23];
}

/* tmcml_result_plot draws `tmcml plot`'s figure: from a result read from the
 * .mco the command plotted, the same bytes; from the run itself, a figure
 * of the same size (its values are not rounded to the .mco's digits). */
static void test_plot(tmcml_session *s, const char *cli, const char *dir, const tmcml_result *run,
                      const tmcml_result *back)
{
    char cmd[2048], want_path[512], got_path[512];
    snprintf(cmd, sizeof cmd, "%s plot %s/example.mco -o %s/cli.png", cli, dir, dir);
    CHECK(system(cmd) == 0);
    snprintf(want_path, sizeof want_path, "%s/cli.png", dir);
    snprintf(got_path, sizeof got_path, "%s/back.png", dir);
    CHECK(tmcml_result_plot(s, back, got_path, "example.mco") == TMCML_OK);
    size_t n_want, n_got;
    unsigned char *want = read_bytes(want_path, &n_want), *got = read_bytes(got_path, &n_got);
    CHECK(want && got && n_want > 1000 && n_want == n_got && memcmp(want, got, n_got) == 0);
    free(got);
    snprintf(got_path, sizeof got_path, "%s/run.png", dir);
    CHECK(tmcml_result_plot(s, run, got_path, NULL) == TMCML_OK);
    got = read_bytes(got_path, &n_got);
    unsigned ww, wh, gw, gh;
    png_size(want, n_want, &ww, &wh);
    png_size(got, n_got, &gw, &gh);
    CHECK_MSG(ww > 0 && ww == gw && wh == gh, "%ux%u, the command's %ux%u", gw, gh, ww, wh);
    free(want);
    free(got);
    CHECK(tmcml_result_plot(s, run, "/nonexistent/dir/x.png", NULL) == TMCML_ERR_FILE);
    CHECK_CONTAINS(tmcml_session_message(s), "/nonexistent/dir/x.png");
}

/* tmcml_result_convolve is `tmcml conv`: from the result read from the .mco
 * the command convolved, the same bytes; from the run itself, the same
 * numbers to the .mco's digits (the beam's ring means are weighted means of
 * the pencil's, so the pencil's rounding, 5e-5 of each value, and the
 * output's, 5e-5, add up to 1e-4 at most); the totals and the unspread
 * arrays are the run's; bad beams and NULLs refused naming them. */
static void test_convolve(tmcml_session *s, const char *cli, const char *dir,
                          const tmcml_result *run, const tmcml_result *back)
{
    char cmd[2048], path[512];
    snprintf(cmd, sizeof cmd, "%s conv %s/example.mco --beam gaussian:0.05 -o %s/cli.conv.mco", cli,
             dir, dir);
    CHECK(system(cmd) == 0);
    const tmcml_beam beam = {TMCML_BEAM_GAUSSIAN, 0.05};
    tmcml_result *c = NULL, *from_run = NULL, *cli_back = NULL;
    CHECK(tmcml_result_convolve(s, back, &beam, &c) == TMCML_OK && c);
    snprintf(path, sizeof path, "%s/lib.conv.mco", dir);
    CHECK(tmcml_result_write_mco(s, c, path) == TMCML_OK);
    char *got = read_all(path);
    snprintf(path, sizeof path, "%s/cli.conv.mco", dir);
    char *want = read_all(path);
    CHECK(want && got && strcmp(want, got) == 0);
    free(want);
    free(got);
    CHECK(tmcml_result_read_mco(s, path, &cli_back) == TMCML_OK);
    CHECK(tmcml_result_convolve(s, run, &beam, &from_run) == TMCML_OK && from_run);
    tmcml_rat r0, r1;
    tmcml_result_rat(run, &r0);
    tmcml_result_rat(from_run, &r1);
    CHECK(memcmp(&r0, &r1, sizeof r0) == 0);
    tmcml_info info;
    tmcml_result_info(from_run, &info);
    CHECK(!info.has_tallies && info.photons == 3000);
    CHECK_CONTAINS(info.comment, "tmcml conv: Gaussian beam of 1/e2 radius 0.05 cm");
    for (int k = 0; k < tmcml_array_count(); k++) {
        size_t n, m, p;
        const double *a = tmcml_result_array(from_run, (tmcml_array)k, &n),
                     *b = tmcml_result_array(cli_back, (tmcml_array)k, &m),
                     *pencil = tmcml_result_array(run, (tmcml_array)k, &p);
        tmcml_axis axes[TMCML_ARRAY_MAX_DIMS];
        int ring = tmcml_array_dims((tmcml_array)k, axes) > 0 && axes[0] == TMCML_AXIS_R;
        CHECK(n == m && n == p);
        for (size_t i = 0; i < n && n == m; i++) {
            double rtol = k == TMCML_A_L ? 5e-4 : 1e-4; /* A_l is printed to 4 digits, unspread */
            CHECK_MSG(fabs(a[i] - b[i]) <= rtol * fabs(a[i]) + 1e-300, "%s[%zu]: %g, the CLI's %g",
                      tmcml_array_name((tmcml_array)k), i, a[i], b[i]);
            if (!ring)
                CHECK(a[i] == pencil[i]);
        }
    }
    /* A convolved result says what it is (its source the beam) and is not
     * convolved again: from the run, from the .mco read back (issue 42). */
    double radius = 0;
    CHECK(tmcml_problem_source(tmcml_result_problem(from_run), &radius, NULL) ==
              TMCML_SOURCE_GAUSSIAN &&
          radius == 0.05);
    CHECK(tmcml_problem_source(tmcml_result_problem(cli_back), &radius, NULL) ==
              TMCML_SOURCE_GAUSSIAN &&
          radius == 0.05);
    tmcml_result *none = c;
    const tmcml_result *convolved[] = {from_run, cli_back};
    for (int k = 0; k < 2; k++) {
        CHECK(tmcml_result_convolve(s, convolved[k], &beam, &none) == TMCML_ERR_ARGUMENT && !none);
        CHECK_CONTAINS(tmcml_session_message(s),
                       "result: already convolved (\"tmcml conv: Gaussian beam of 1/e2 radius "
                       "0.05 cm, unit power\")");
    }
    none = c;
    const tmcml_beam bad[] = {
        {TMCML_BEAM_FLAT, -1}, {TMCML_BEAM_GAUSSIAN, NAN}, {7, 0.1}, {TMCML_BEAM_FLAT, 1e-320}};
    for (int k = 0; k < 4; k++) {
        CHECK(tmcml_result_convolve(s, run, &bad[k], &none) == TMCML_ERR_ARGUMENT && !none);
        CHECK_CONTAINS(tmcml_session_message(s), "beam");
    }
    CHECK(tmcml_result_convolve(s, NULL, &beam, &none) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "result: NULL");
    CHECK(tmcml_result_convolve(s, run, NULL, &none) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "beam: NULL");
    CHECK(tmcml_result_convolve(s, run, &beam, NULL) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_result_convolve(NULL, run, &beam, &none) == TMCML_ERR_ARGUMENT);
    tmcml_result_delete(c);
    tmcml_result_delete(from_run);
    tmcml_result_delete(cli_back);
}

/* The library's .mco equals the run command's for the same .mci and seed,
 * byte for byte; read back, its arrays are the printed values. */
static void test_cli_identity(tmcml_session *s, const char *cli, const char *examples)
{
    char dir[] = "/tmp/test_api_XXXXXX", path[512], cmd[2048];
    CHECK(mkdtemp(dir) != NULL);
    tmcml_problem **runs = NULL;
    int count = 0;
    snprintf(path, sizeof path, "%s/mcml_example.mci", examples);
    CHECK(tmcml_mci_read(s, path, &runs, &count) == TMCML_OK && count == 1);
    CHECK(tmcml_problem_photons(runs[0]) == 1000000);
    CHECK(strcmp(tmcml_problem_name(runs[0]), "example.mco") == 0);
    tmcml_layer l;
    CHECK(tmcml_problem_layer(runs[0], 3, &l) && l.mua == 2.0 && l.g == 0.7);
    CHECK(!tmcml_problem_layer(runs[0], 5, &l));
    CHECK(tmcml_problem_set_photons(s, runs[0], 3000) == TMCML_OK);
    snprintf(path, sizeof path, "%s/in.mci", dir);
    CHECK(tmcml_mci_write(s, path, (const tmcml_problem *const *)runs, 1) == TMCML_OK);
    snprintf(cmd, sizeof cmd, "cd %s && %s run in.mci -q --engine cpu -S 11 --threads 2", dir, cli);
    CHECK(system(cmd) == 0);

    tmcml_result *r = run_cpu(s, runs[0], 0, 11, 1);
    snprintf(path, sizeof path, "%s/lib", dir);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/lib/example.mco", dir);
    CHECK(tmcml_result_write_mco(s, r, path) == TMCML_OK);
    char *got = read_all(path);
    snprintf(path, sizeof path, "%s/example.mco", dir);
    char *want = read_all(path);
    CHECK(want && got && strcmp(want, got) == 0);
    CHECK(got && strstr(got, "# tmcml ") &&
          strstr(got, "cpu engine, seed 11, absorption scored, tallies fnv1a64:") &&
          strstr(got, ". Timings: example.json."));
    free(want);
    free(got);
    snprintf(path, sizeof path, "%s/lib/example.json", dir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof path, "%s/lib/example.mco", dir);

    tmcml_result *back = NULL;
    CHECK(tmcml_result_read_mco(s, path, &back) == TMCML_OK);
    tmcml_info info;
    tmcml_result_info(back, &info);
    CHECK(!info.has_tallies && info.photons == 3000);
    CHECK_CONTAINS(info.comment, "seed 11");
    size_t n, m;
    const double *a = tmcml_result_array(r, TMCML_A_Z, &n),
                 *b = tmcml_result_array(back, TMCML_A_Z, &m);
    CHECK(n == 40 && m == 40);
    for (size_t i = 0; i < n && m == n; i++)
        CHECK_MSG(b[i] == 0 ? a[i] == 0 : a[i] / b[i] > 1 - 1e-4 && a[i] / b[i] < 1 + 1e-4,
                  "A_z[%zu] %g read back as %g", i, a[i], b[i]);
    uint64_t lo[2], hi[2];
    CHECK(tmcml_result_tallies(s, back, TMCML_RD_RA, lo, hi, 50) == TMCML_ERR_STATE);
    tmcml_result *none = back;
    CHECK(tmcml_result_read_mco(s, "/nonexistent.mco", &none) == TMCML_ERR_FILE && !none);
    CHECK_CONTAINS(tmcml_session_message(s), "/nonexistent.mco");
    test_plot(s, cli, dir, r, back);
    test_convolve(s, cli, dir, r, back);
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    CHECK(system(cmd) == 0);
    tmcml_result_delete(back);
    tmcml_result_delete(r);
    tmcml_problems_delete(runs, count);
}

static void test_devices(tmcml_session *s)
{
    tmcml_device dev[8];
    int count = -1;
    tmcml_status st = tmcml_devices(s, dev, 8, &count);
    CHECK(st == TMCML_OK ? count > 0 : st == TMCML_ERR_NO_GPU && count == 0);
    CHECK(st == TMCML_OK || tmcml_session_message(s)[0] != '\0');
}

/* 20 runs that change mua and mus: one variant, one compile (a fresh
 * cubin cache), the rest warm; equal optics and seed give equal tallies. */
static int test_gpu(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_device dev[8];
    int count = 0;
    if (tmcml_devices(s, dev, 8, &count) != TMCML_OK) {
        printf("test_api gpu: skipped: %s\n", tmcml_session_message(s));
        tmcml_session_delete(s);
        return 77;
    }
    char cache[] = "/tmp/test_api_cache_XXXXXX", cmd[256];
    CHECK(mkdtemp(cache) != NULL);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_GPU;
    opt.photons = 100000;
    opt.cache_dir = cache;
    tmcml_layer l[3];
    memcpy(l, example_layers, sizeof l);
    uint64_t first_digest = 0;
    for (int i = 0; i < 20; i++) {
        l[0].mua = 1.0 + 0.1 * (i % 10);
        l[1].mus = 10.0 + (i % 10);
        tmcml_problem *p = NULL;
        tmcml_result *r = NULL;
        CHECK(tmcml_problem_new(s, l, 3, 1.0, 1.0, &example_grid, &p) == TMCML_OK);
        tmcml_status st = tmcml_run(s, p, &opt, &r);
        CHECK_MSG(st == TMCML_OK, "run %d: %s", i + 1, tmcml_session_message(s));
        if (r) {
            tmcml_info info;
            tmcml_result_info(r, &info);
            CHECK(strcmp(info.engine, "gpu") == 0);
            CHECK_MSG(info.kernel_origin == (i == 0 ? TMCML_KERNEL_COMPILED : TMCML_KERNEL_WARM),
                      "run %d: kernel origin %d", i + 1, (int)info.kernel_origin);
            printf("run %2d: wall %.4f s, kernel %.4f s, compile %.4f s, overhead %.4f s\n", i + 1,
                   info.wall_seconds, info.kernel_seconds, info.compile_seconds,
                   info.overhead_seconds);
            if (i == 0)
                first_digest = info.tallies_digest;
            if (i == 10)
                CHECK(info.tallies_digest == first_digest);
        }
        tmcml_result_delete(r);
        tmcml_problem_delete(p);
    }
    tmcml_session_stats st;
    tmcml_session_stats_get(s, &st);
    test_batch(s, TMCML_ENGINE_GPU);
    test_batch_big(s);
    CHECK_MSG(st.compiles == 1 && st.module_loads == 1 && st.plans == 1 && st.gpu_runs == 20,
              "%llu compiles, %llu loads, %llu plans, %llu GPU runs",
              (unsigned long long)st.compiles, (unsigned long long)st.module_loads,
              (unsigned long long)st.plans, (unsigned long long)st.gpu_runs);
    snprintf(cmd, sizeof cmd, "rm -r %s", cache);
    CHECK(system(cmd) == 0);
    tmcml_session_delete(s);
    return check_summary("test_api gpu");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "gpu") == 0)
        return test_gpu();
    if (argc != 3) {
        fprintf(stderr, "usage: test_api CLI EXAMPLES | test_api gpu\n");
        return 2;
    }
    tmcml_session *s = tmcml_session_new();
    CHECK(s != NULL);
    CHECK(tmcml_version()[0] != '\0');
    CHECK(strcmp(tmcml_status_name(TMCML_ERR_CANCELLED), "cancelled") == 0);
    test_bad_problems(s);
    test_bad_options(s);
    test_null_arguments(s);
    test_determinism(s);
    test_array_table();
    test_array_shapes(s);
    test_batch(s, TMCML_ENGINE_CPU);
    test_cancel(s);
    test_cli_identity(s, argv[1], argv[2]);
    test_devices(s);
    tmcml_session_delete(s);
    return check_summary("test_api");
}
