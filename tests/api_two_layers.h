/* The problem the tests of an optional output through the public header
 * share (test_api_paths.c, test_api_time.c): two layers on a 20 x 20 x 4
 * grid, 4000 photons of seed 7 on the engine asked for; their check of a
 * batch against its runs alone; and a result's .mco round trip. */
#ifndef TMCML_TESTS_API_TWO_LAYERS_H
#define TMCML_TESTS_API_TWO_LAYERS_H

#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "tmcml.h"

static const tmcml_layer layers[2] = {
    {1.4, 0.5, 50.0, 0.8, 0.05},
    {1.4, 1.0, 30.0, 0.9, 0.1},
};
static const tmcml_grid grid = {0.01, 0.01, 20, 20, 4};

static inline void options(tmcml_options *opt, tmcml_engine engine)
{
    tmcml_options_init(opt);
    opt->engine = engine;
    opt->photons = 4000;
    opt->seed = 7;
}

/* Two problems run as a batch into out (the caller deletes its results)
 * and each alone: each result of the batch is its problem's run alone,
 * bit for bit (the tallies' digests). */
static inline void check_batch_as_alone(tmcml_session *s, const tmcml_problem *const batch[2],
                                        const tmcml_options *opt, tmcml_result *out[2])
{
    CHECK_MSG(tmcml_run_batch(s, batch, 2, opt, out) == TMCML_OK, "%s", tmcml_session_message(s));
    for (int i = 0; i < 2; i++) {
        tmcml_result *alone = NULL;
        CHECK(tmcml_run(s, batch[i], opt, &alone) == TMCML_OK);
        tmcml_info a, b;
        tmcml_result_info(out[i], &a);
        tmcml_result_info(alone, &b);
        CHECK_MSG(a.tallies_digest == b.tallies_digest, "problem %d: batch and alone differ", i);
        tmcml_result_delete(alone);
    }
}

/* r written as an .mco (and its JSON) in a scratch directory and read
 * back (NULL when that failed), the files removed. */
static inline tmcml_result *mco_round_trip(tmcml_session *s, const tmcml_result *r)
{
    char dir[] = "/tmp/tmcml_api_test.XXXXXX", path[64];
    tmcml_result *back = NULL;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/t.mco", dir);
    CHECK(tmcml_result_write_mco(s, r, path) == TMCML_OK);
    CHECK_MSG(tmcml_result_read_mco(s, path, &back) == TMCML_OK, "%s", tmcml_session_message(s));
    unlink(path);
    snprintf(path, sizeof path, "%s/t.json", dir);
    unlink(path);
    rmdir(dir);
    return back;
}

/* A batch of a problem with an optional group and one without (CPU or
 * AUTO): each result its run alone; with `other`, whose group differs in
 * its count (time bins, frequencies), refused with a message holding
 * needle.  The three problems are deleted. */
static inline void check_batch_mixed(tmcml_session *s, tmcml_problem *with, tmcml_problem *without,
                                     tmcml_problem *other, const char *needle)
{
    const tmcml_problem *batch[2] = {with, without};
    tmcml_options opt;
    options(&opt, TMCML_ENGINE_AUTO);
    tmcml_result *out[2] = {NULL, NULL};
    check_batch_as_alone(s, batch, &opt, out);
    for (int i = 0; i < 2; i++)
        tmcml_result_delete(out[i]);
    const tmcml_problem *mixed[2] = {with, other};
    CHECK(tmcml_run_batch(s, mixed, 2, &opt, out) != TMCML_OK);
    CHECK_CONTAINS(tmcml_session_message(s), needle);
    tmcml_problem_delete(with);
    tmcml_problem_delete(without);
    tmcml_problem_delete(other);
}

#endif
