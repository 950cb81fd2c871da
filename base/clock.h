/* The clock that timings, periods and deadlines are read on: CLOCK_MONOTONIC
 * in seconds, so that a change of the wall clock neither shortens nor
 * stretches a measured time or a checkpoint period. */
#ifndef TMCML_CLOCK_H
#define TMCML_CLOCK_H

/* Monotonic clock in seconds (from an arbitrary start). */
double clock_now(void);

#endif
