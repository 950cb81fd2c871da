/* A test program's cases that each take a session of the public header
 * (test_jacobian.c, test_optics_sets.c): check.h's check_case, the case run
 * on a session of its own. */
#ifndef TMCML_TESTS_SESSION_CASE_H
#define TMCML_TESTS_SESSION_CASE_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tmcml.h"

typedef struct session_case {
    const char *name;
    void (*run)(tmcml_session *s);
} session_case;

/* The case of cases[0 .. n) named name, run on a new session: the exit
 * status of check_summary(name), 1 when there is no session; for any other
 * name, a line on stderr and 2. */
static inline int session_case_run(const char *name, const session_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, cases[i].name) != 0)
            continue;
        tmcml_session *s = tmcml_session_new();
        if (!s) {
            fprintf(stderr, "no session\n");
            return 1;
        }
        cases[i].run(s);
        tmcml_session_delete(s);
        return check_summary(name);
    }
    fprintf(stderr, "unknown case %s\n", name);
    return 2;
}

#endif
