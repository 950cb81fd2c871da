/* The pause flag's watch thread (runtime/cli/stopper.h). */
#include "stopper.h"

#include <time.h>

#include "interrupt.h"
#include "progress.h"

/* How often the flag is updated: well under a second, so a signal is seen
 * at once; the engines add their own latency (a CPU chunk, a GPU poll). */
#define STOPPER_TICK_SECONDS 0.02

static void *watch(void *arg)
{
    stopper *s = arg;
    struct timespec tick = {0, (long)(STOPPER_TICK_SECONDS * 1e9)};
    while (!s->quit) {
        if (interrupt_requested() || (s->every > 0 && progress_now() >= s->due))
            s->flag = 1;
        nanosleep(&tick, NULL);
    }
    return NULL;
}

bool stopper_start(stopper *s, double every)
{
    s->flag = 0;
    s->quit = 0;
    s->every = every;
    s->due = progress_now() + every;
    s->running = pthread_create(&s->thread, NULL, watch, s) == 0;
    return s->running;
}

void stopper_rearm(stopper *s)
{
    s->due = progress_now() + s->every;
    s->flag = interrupt_requested() ? 1 : 0;
}

void stopper_end(stopper *s)
{
    if (!s->running)
        return;
    s->quit = 1;
    pthread_join(s->thread, NULL);
    s->running = false;
}
