/* The pause flag's watch thread (driver/stopper.h). */
#include "stopper.h"

#include "clock.h"
#include "interrupt.h"
#include "timed_wait.h"

/* How often the flag is updated: well under a second, so a signal is seen
 * at once; the engines add their own latency (a CPU chunk, a GPU poll). */
#define STOPPER_TICK_SECONDS 0.02

/* Ticks on a timed wait rather than a sleep, so that stopper_end wakes it at
 * once: a sleeping watch held every run's end for up to a tick (20 ms, ~7 %
 * of a short GPU run). */
static void *watch(void *arg)
{
    stopper *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->quit) {
        if (interrupt_requested() || (s->also && *s->also) ||
            (s->every > 0 && clock_now() >= s->due))
            s->flag = 1;
        struct timespec until = timed_wait_deadline(STOPPER_TICK_SECONDS);
        pthread_cond_timedwait(&s->wake, &s->lock, &until);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

bool stopper_start(stopper *s, double every) { return stopper_start_also(s, every, NULL); }

bool stopper_start_also(stopper *s, double every, const volatile sig_atomic_t *also)
{
    s->flag = 0;
    s->also = also;
    s->quit = false;
    s->every = every;
    s->due = clock_now() + every;
    s->running = false;
    if (!timed_wait_cond_init(&s->wake))
        return false;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        pthread_cond_destroy(&s->wake);
        return false;
    }
    s->running = pthread_create(&s->thread, NULL, watch, s) == 0;
    if (!s->running) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
    }
    return s->running;
}

void stopper_rearm(stopper *s)
{
    if (s->running)
        pthread_mutex_lock(&s->lock);
    s->due = clock_now() + s->every;
    s->flag = interrupt_requested() || (s->also && *s->also) ? 1 : 0;
    if (s->running)
        pthread_mutex_unlock(&s->lock);
}

void stopper_end(stopper *s)
{
    if (!s->running)
        return;
    pthread_mutex_lock(&s->lock);
    s->quit = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    s->running = false;
}
