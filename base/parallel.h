/* Independent items on several threads: each thread takes the next item
 * from a shared counter, so items of unequal cost still end together. */
#ifndef TMCML_PARALLEL_H
#define TMCML_PARALLEL_H

/* Calls each(ctx, i) once for every i in [0, count), on at most `threads`
 * threads, this one among them; returns when every call has returned.  A
 * thread that cannot be started leaves its share to the others. */
void parallel_for(int count, int threads, void (*each)(void *ctx, int i), void *ctx);

#endif
