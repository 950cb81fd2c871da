/* Items that come one at a time, done by a few threads as they come: push
 * hands an item over and returns at once, finish waits for every item
 * pushed.  (parallel_for, base/parallel.h, is for items all known at the
 * start.)  The outputs of a batch's runs are written so while the batch
 * still simulates (driver/run_batch.c). */
#ifndef TMCML_WORK_QUEUE_H
#define TMCML_WORK_QUEUE_H

typedef struct work_queue work_queue;

/* A queue of at most `capacity` items for each(ctx, item), on at most
 * `threads` threads of its own; NULL when out of memory (the caller then
 * does its items itself). */
work_queue *work_queue_start(int capacity, int threads, void (*each)(void *ctx, int item),
                             void *ctx);

/* Hands item over.  With no thread of the queue running (none could start)
 * or the queue full, the item is done here, before push returns. */
void work_queue_push(work_queue *q, int item);

/* Waits until every item pushed is done, then frees q (NULL: nothing to
 * wait for). */
void work_queue_finish(work_queue *q);

#endif
