/* A progress line (photons done, rate, ETA) on stderr, for runs longer than
 * a second, when stderr is a terminal.  Engines report from any thread. */
#ifndef TMCML_PROGRESS_H
#define TMCML_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct progress_meter {
    bool enabled;
    uint64_t total;
    _Atomic uint64_t done;
    double start; /* monotonic seconds */
    _Atomic double last_print;
    _Atomic int printing; /* one printer at a time */
    bool printed;         /* a line is on screen and must be finished */
    char label[64];
} progress_meter;

/* enabled: caller's decision (not --quiet); the meter also stays silent
 * unless stderr is a terminal. */
void progress_start(progress_meter *p, bool enabled, uint64_t total, const char *label);
void progress_add(progress_meter *p, uint64_t photons);
void progress_finish(progress_meter *p);

#endif
