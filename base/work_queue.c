/* Items done by a few threads as they come (base/work_queue.h). */
#include "work_queue.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/* More than any caller asks for: a batch's early outputs use 8. */
#define WORK_QUEUE_MAX_THREADS 64

struct work_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* an item pushed, or the queue closing */
    void (*each)(void *ctx, int item);
    void *ctx;
    int *items; /* pushed: [0, tail); taken: [0, head) */
    int capacity, head, tail;
    bool closing; /* finish called: the threads end once no item is left */
    pthread_t threads[WORK_QUEUE_MAX_THREADS];
    int started;
};

static void *take_items(void *arg)
{
    work_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (q->head == q->tail && !q->closing)
            pthread_cond_wait(&q->changed, &q->lock);
        if (q->head == q->tail)
            break; /* closing, and nothing left */
        int item = q->items[q->head++];
        pthread_mutex_unlock(&q->lock);
        q->each(q->ctx, item);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

work_queue *work_queue_start(int capacity, int threads, void (*each)(void *ctx, int item),
                             void *ctx)
{
    work_queue *q = calloc(1, sizeof *q);
    int *items = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof *items);
    if (!q || !items) {
        free(q);
        free(items);
        return NULL;
    }
    q->each = each;
    q->ctx = ctx;
    q->items = items;
    q->capacity = capacity;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    int wanted = threads < capacity ? threads : capacity;
    if (wanted > WORK_QUEUE_MAX_THREADS)
        wanted = WORK_QUEUE_MAX_THREADS;
    while (q->started < wanted && pthread_create(&q->threads[q->started], NULL, take_items, q) == 0)
        q->started++;
    return q;
}

void work_queue_push(work_queue *q, int item)
{
    pthread_mutex_lock(&q->lock);
    bool queued = q->started > 0 && q->tail < q->capacity;
    if (queued) {
        q->items[q->tail++] = item;
        pthread_cond_signal(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    if (!queued)
        q->each(q->ctx, item);
}

void work_queue_finish(work_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->closing = true;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    for (int t = 0; t < q->started; t++)
        pthread_join(q->threads[t], NULL);
    pthread_cond_destroy(&q->changed);
    pthread_mutex_destroy(&q->lock);
    free(q->items);
    free(q);
}
