/* Independent items on several threads (base/parallel.h). */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>

/* More than any caller asks for: the outputs of absorption sets use 8. */
#define PARALLEL_MAX_THREADS 64

typedef struct parallel_work {
    void (*each)(void *ctx, int i);
    void *ctx;
    int count;
    atomic_int next;
} parallel_work;

static void *take_items(void *arg)
{
    parallel_work *w = arg;
    for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->count;)
        w->each(w->ctx, i);
    return NULL;
}

void parallel_for(int count, int threads, void (*each)(void *ctx, int i), void *ctx)
{
    parallel_work w = {each, ctx, count, 0};
    pthread_t started[PARALLEL_MAX_THREADS];
    int wanted = threads < count ? threads : count, n = 0;
    if (wanted > PARALLEL_MAX_THREADS)
        wanted = PARALLEL_MAX_THREADS;
    while (n < wanted - 1 && pthread_create(&started[n], NULL, take_items, &w) == 0)
        n++;
    take_items(&w); /* this thread too */
    for (int t = 0; t < n; t++)
        pthread_join(started[t], NULL);
}
