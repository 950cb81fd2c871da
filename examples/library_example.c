/* libtmcml from C: a loop of runs that varies the absorption of one layer,
 * in one session (docs/library.md).
 *
 *   library_example [RUNS [ENGINE [OUT.mco]]]
 *
 * RUNS (default 3) runs of 20000 photons of MCML's three-layer example on
 * ENGINE (cpu, gpu or auto; default cpu), each with another mua of layer 1;
 * prints RAT and the timings of each and, at the end, what the session did
 * (on the GPU: one kernel compiled or loaded for the whole loop).  Checks
 * that the same seed gives the same integer tallies, and writes the last
 * run to OUT.mco (and OUT.json) when given.  Exit status 0 when every check
 * holds, 77 when ENGINE is gpu and this machine has none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmcml.h"

static int fail(tmcml_session *s, const char *what)
{
    fprintf(stderr, "library_example: %s: %s\n", what, tmcml_session_message(s));
    return 1;
}

/* Whether two results have the same A_rz tallies. */
static int same_tallies(tmcml_session *s, const tmcml_result *a, const tmcml_result *b)
{
    size_t n;
    tmcml_result_array(a, TMCML_A_RZ, &n);
    uint64_t *lo = malloc(4 * n * sizeof *lo);
    int same = lo != NULL && tmcml_result_tallies(s, a, TMCML_A_RZ, lo, lo + n, n) == TMCML_OK &&
               tmcml_result_tallies(s, b, TMCML_A_RZ, lo + 2 * n, lo + 3 * n, n) == TMCML_OK &&
               memcmp(lo, lo + 2 * n, 2 * n * sizeof *lo) == 0;
    free(lo);
    return same;
}

static tmcml_engine engine_named(const char *name)
{
    if (strcmp(name, "gpu") == 0)
        return TMCML_ENGINE_GPU;
    if (strcmp(name, "auto") == 0)
        return TMCML_ENGINE_AUTO;
    return TMCML_ENGINE_CPU;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    const char *mco = argc > 3 ? argv[3] : NULL;
    /* MCML's example (examples/mcml_example.mci): n, mua, mus, g, d. */
    tmcml_layer layers[3] = {
        {1.37, 1.0, 100.0, 0.90, 0.1},
        {1.37, 1.0, 10.0, 0.0, 0.1},
        {1.37, 2.0, 10.0, 0.70, 0.2},
    };
    tmcml_grid grid = {.dz = 0.01, .dr = 0.01, .nz = 40, .nr = 50, .na = 1};
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.photons = 20000;
    opt.seed = 7;
    opt.engine = engine_named(argc > 2 ? argv[2] : "cpu");

    tmcml_session *s = tmcml_session_new();
    if (!s)
        return 1;
    int count;
    if (opt.engine == TMCML_ENGINE_GPU && tmcml_devices(s, NULL, 0, &count) != TMCML_OK) {
        printf("library_example: skipped: %s\n", tmcml_session_message(s));
        tmcml_session_delete(s);
        return 77;
    }
    int status = 0;
    tmcml_result *first = NULL;
    for (int i = 0; i < runs && status == 0; i++) {
        layers[0].mua = 1.0 + 0.5 * (i % 4); /* the first and fifth runs are equal */
        tmcml_problem *p = NULL;
        tmcml_result *r = NULL;
        if (tmcml_problem_new(s, layers, 3, 1.0, 1.0, &grid, &p) != TMCML_OK)
            status = fail(s, "problem");
        else if (tmcml_run(s, p, &opt, &r) != TMCML_OK)
            status = fail(s, "run");
        tmcml_problem_delete(p);
        if (status)
            break;
        tmcml_rat rat;
        tmcml_info info;
        tmcml_result_rat(r, &rat);
        tmcml_result_info(r, &info);
        printf("run %d: mua %.1f  Rsp %.6f  Rd %.6f  A %.6f  Tt %.6f  (%s, %.4f s: kernel %.4f, "
               "compile %.4f, overhead %.4f)\n",
               i + 1, layers[0].mua, rat.rsp, rat.rd, rat.a, rat.tt, info.engine, info.wall_seconds,
               info.kernel_seconds, info.compile_seconds, info.overhead_seconds);
        if (i == 4 && !same_tallies(s, first, r)) {
            fprintf(stderr, "library_example: runs 1 and 5 differ for the same seed\n");
            status = 1;
        }
        if (status == 0 && i + 1 == runs && mco && tmcml_result_write_mco(s, r, mco) != TMCML_OK)
            status = fail(s, "write");
        if (i == 0)
            first = r;
        else
            tmcml_result_delete(r);
    }
    tmcml_result_delete(first);
    tmcml_session_stats st;
    tmcml_session_stats_get(s, &st);
    printf("session: %llu runs (%llu on the GPU), %llu kernels compiled, %llu loaded, %llu "
           "variants chosen\n",
           (unsigned long long)st.runs, (unsigned long long)st.gpu_runs,
           (unsigned long long)st.compiles, (unsigned long long)st.module_loads,
           (unsigned long long)st.plans);
    if (status == 0 && st.gpu_runs > 0 && st.module_loads > 1) {
        fprintf(stderr, "library_example: %llu kernels loaded for one problem shape\n",
                (unsigned long long)st.module_loads);
        status = 1;
    }
    tmcml_session_delete(s);
    return status;
}
