/* When a simulation should pause: a thread that raises one flag, which the
 * engines poll (cpu_options.stop, gpu_options.stop), when a signal asks the
 * run to stop (base/interrupt.h), when a caller's own flag rises (the
 * library's cancel) or when a periodic checkpoint is due.  The engines then
 * end the photons they are on and return; the caller tells them apart with
 * interrupt_requested() or its own flag. */
#ifndef TMCML_STOPPER_H
#define TMCML_STOPPER_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

typedef struct stopper {
    volatile sig_atomic_t flag;        /* what the engines poll */
    double every;                      /* seconds between checkpoints (<= 0: none) */
    double due;                        /* when the next one is due (clock_now); under lock */
    const volatile sig_atomic_t *also; /* a caller's flag that stops too (NULL: none) */
    bool quit;                         /* asks the thread to end; under lock */
    pthread_mutex_t lock;
    pthread_cond_t wake; /* the watch's tick, or stopper_end at once */
    pthread_t thread;
    bool running;
} stopper;

/* Starts the watch; every <= 0: signals only.  false when no thread could
 * be started (the run then only stops at its end or on a second signal). */
bool stopper_start(stopper *s, double every);
/* The same, also stopping once *also is not 0 (the library's cancel flag). */
bool stopper_start_also(stopper *s, double every, const volatile sig_atomic_t *also);
/* After a periodic checkpoint: lower the flag, the next one due in `every`. */
void stopper_rearm(stopper *s);
void stopper_end(stopper *s);

#endif
