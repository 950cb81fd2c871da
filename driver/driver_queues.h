/* How many hardware work queues the CUDA driver gives each context.
 *
 * The driver's default is eight (CUDA_DEVICE_MAX_CONNECTIONS): eight channels
 * made with each context and torn down with it.  A tmcml context runs one
 * kernel at a time; the launch's counter and stop word are read and written
 * by copies on a second stream, which reach a running kernel with a single
 * queue too (measured on an H100: bench/results_gpu.md, fourteenth session).
 * With one queue an H100's context opened in 0.06 s instead of 0.11 s and
 * closed in 0.03 s instead of 0.06 s, so a short run of the command line
 * asks for one.  A value in the environment is the user's and is kept; the
 * library and Python leave the environment to their host program
 * (docs/scale.md). */
#ifndef TMCML_DRIVER_DRIVER_QUEUES_H
#define TMCML_DRIVER_DRIVER_QUEUES_H

#include <stdbool.h>

#define DRIVER_QUEUES_VARIABLE "CUDA_DEVICE_MAX_CONNECTIONS"

/* One queue a context, unless the environment already names a count; true
 * when this set it.  Call it before anything loads the CUDA driver, from the
 * only thread. */
bool driver_queues_apply(void);

#endif
