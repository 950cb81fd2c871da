/* Timed waits on condition variables against CLOCK_MONOTONIC, so that a
 * change of the wall clock neither ends a wait early nor stretches it. */
#ifndef TMCML_TIMED_WAIT_H
#define TMCML_TIMED_WAIT_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* pthread_cond_init for a condition whose timed waits take a
 * timed_wait_deadline; false when it could not be made (nothing to destroy). */
bool timed_wait_cond_init(pthread_cond_t *cond);

/* The CLOCK_MONOTONIC time `seconds` (>= 0) from now, for
 * pthread_cond_timedwait on a condition made by timed_wait_cond_init. */
struct timespec timed_wait_deadline(double seconds);

#endif
