/* The library tests of a problem's lists of frequencies (the spatial
 * frequencies, test_api_fx.c; the modulation frequencies, test_api_mod.c):
 * a problem of api_two_layers.h given a list, and a list refused leaving
 * the problem's as it was. */
#ifndef TMCML_TESTS_API_LISTS_H
#define TMCML_TESTS_API_LISTS_H

#include <stdint.h>
#include <string.h>

#include "api_two_layers.h"
#include "check.h"
#include "tmcml.h"

typedef tmcml_status (*list_setter)(tmcml_session *, tmcml_problem *, const double *, int);
typedef int (*list_getter)(const tmcml_problem *, double *, int);

/* The two-layer problem with the first count values of v. */
static inline tmcml_problem *list_problem(tmcml_session *s, list_setter set, const double *v,
                                          int count)
{
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, layers, 2, 1.0, 1.0, &grid, &p) == TMCML_OK);
    CHECK(set(s, p, v, count) == TMCML_OK);
    return p;
}

/* v refused with message, p's list (of `had` values) unchanged. */
static inline void list_refused(tmcml_session *s, tmcml_problem *p, list_setter set,
                                list_getter get, int had, const double *v, int count,
                                const char *message)
{
    CHECK(set(s, p, v, count) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), message);
    CHECK(get(p, NULL, 0) == had);
}

/* The tallies `which` of r and q (at most 80 entries) are the same. */
static inline void check_same_tallies(tmcml_session *s, const tmcml_result *r,
                                      const tmcml_result *q, tmcml_array which)
{
    uint64_t lo[80], hi[80], lo_q[80], hi_q[80];
    CHECK(tmcml_result_tallies(s, r, which, lo, hi, 80) == TMCML_OK &&
          tmcml_result_tallies(s, q, which, lo_q, hi_q, 80) == TMCML_OK &&
          memcmp(lo, lo_q, sizeof lo) == 0 && memcmp(hi, hi_q, sizeof hi) == 0);
}

#endif
