/* Where a precision run stops (runtime/io/precision.h): the decisions a
 * session_sim takes at its decision points (driver/session_groups.h), the
 * same for `tmcml run --precision` (driver/run_precision.h) and the
 * library's tmcml_problem_set_precision (api/precision.c).
 *
 * Each slot of a call has its target; at a decision point its run is met
 * when the target's relative standard error, from the groups alone, is at
 * most the precision asked: it then takes the photons of its groups, and a
 * checkpoint's photon count becomes them (no gap is left, so its run ends
 * there).  Absorption sets share their photons: a history of sets is one
 * decision, met when every set (but a reference row) is. */
#ifndef TMCML_PRECISION_STOP_H
#define TMCML_PRECISION_STOP_H

#include <stdint.h>

#include "checkpoint.h"
#include "precision.h"
#include "session.h"

typedef struct precision_stop {
    precision_target target;
    uint64_t taken; /* the photons taken once met (0: not yet) */
    checkpoint *ck; /* whose photon count becomes them (NULL: none) */
} precision_stop;

/* The rows of a history of absorption sets that decide: rows[lead ..
 * count - 1] (row 0 with lead 1 is a reference, which decides nothing). */
typedef struct precision_stop_sets {
    precision_stop *rows;
    int count, lead;
} precision_stop_sets;

/* sim made a precision call's: groups growing from PRECISION_CHUNK,
 * decided by slots[slot] for each slot (NULL: nothing changed). */
void precision_stop_sim(session_sim *sim, precision_stop *slots);
/* The same for one history of absorption sets (NULL: nothing changed). */
void precision_stop_sets_sim(session_sim *sim, precision_stop_sets *sets);

#endif
