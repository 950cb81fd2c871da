/* Runs that stop when they are precise enough (`--precision`,
 * docs/outputs.md, "Runs that stop at a precision"): what is asked, and
 * whether a run's groups (uncertainty.h) have reached it.
 *
 * The target is a total ("Rd", "A", "Tt"), one entry of a 1-D array
 * ("Rd_r[40]") or the worst entry of a range of one ("Rd_r[0:100]", the
 * end excluded, as Python's).  Its relative standard error, from the
 * groups alone (their mean and spread), is compared with the precision at
 * each decision point, so a seed and a precision give the same photons on
 * every engine and split of the work.  An entry whose value is 0 has no
 * relative error: it is never precise enough. */
#ifndef TMCML_PRECISION_H
#define TMCML_PRECISION_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "uncertainty.h"

/* The first groups of a precision run hold this many photons each (then
 * twice as many every 64 groups: driver/session_groups.h); it decides
 * after 64 of them, so it takes at least 64 x this many. */
#define PRECISION_CHUNK       1000
/* The fewest photons a precision run may be given: below 64 first groups,
 * no decision could be taken. */
#define PRECISION_MIN_PHOTONS ((int64_t)UNCERTAINTY_GROUPS * PRECISION_CHUNK)

typedef struct precision_target {
    double relative;     /* the relative standard error asked, in (0, 1) */
    char name[64];       /* as given: "Rd", "Rd_r[40]", "Rd_r[0:100]" */
    int total;           /* 0, 1, 2: Rd, A, Tt; -1: an array's entries */
    int row;             /* the output table's row, with total -1 */
    uint64_t first, end; /* its entries [first, end), as the array shows them */
} precision_target;

/* "1%", "0.5 %" or "0.01" as a relative error, named by `option` in the
 * message when it is not within (0, 1) or not a number. */
bool precision_parse_value(const char *text, const char *option, double *out, tm_error *err);

/* The quantity text names (NULL: "Rd"), checked against run: it must exist
 * (Rd_t needs time bins, Rd_fiber a detector), its entries within the
 * grid, and not be zero in expectation (Tt in a semi-infinite medium, an
 * absorption array without absorption scoring). */
bool precision_target_parse(const char *text, const mci_run *run, bool score_absorption,
                            precision_target *t, tm_error *err);

/* The target's relative standard error from u's groups (the worst entry
 * of a range); INFINITY where the value is 0 or fewer than two groups. */
double precision_reached(const precision_target *t, const uncertainty *u);

#endif
