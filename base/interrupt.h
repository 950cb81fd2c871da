/* The signals that stop a run - SIGINT, SIGTERM, and as SIGTERM: SIGHUP (a
 * terminal or ssh session closed), SIGXCPU (a CPU time limit: ulimit -t,
 * a batch system's), SIGUSR1 and SIGUSR2 (batch systems' warnings before a
 * time limit): a run stopped by one leaves no temp file behind, says so, and
 * exits with 128 + the signal (130, 143, 129, 152, 138, 140).  One handler
 * for the whole program.  SIGXFSZ (a file beyond ulimit -f) is ignored, so
 * that the write fails with EFBIG and is handled like a full disk, and so
 * is SIGPIPE: a reader of stdout or stderr that went away (a `| tee` of a
 * closed ssh session) leaves lines unwritten, not the run killed.
 *
 * While a simulation that can be checkpointed runs (interrupt_graceful on),
 * the first signal only asks it to stop: the engines see interrupt_flag(),
 * end the photons they are on and start no other, and the run writes its checkpoint
 * and partial outputs before exiting with the same status (driver/run.c).
 * A second signal, or one outside such a simulation, exits at once; repeats
 * of SIGXCPU (the kernel sends one every CPU second past the limit) are not
 * a second signal. */
#ifndef TMCML_INTERRUPT_H
#define TMCML_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

void interrupt_install(void);

/* Graceful mode on or off (off at start). */
void interrupt_graceful(bool on);

/* The flag the engines poll: the signal number of a stop request, or 0. */
const volatile sig_atomic_t *interrupt_flag(void);

/* The signal of the stop request so far, or 0. */
int interrupt_requested(void);

/* Exits as the handler would have: temps removed, a message naming the
 * signal and what was kept, status 128 + sig. */
_Noreturn void interrupt_exit(int sig, const char *kept);

#endif
