/* The CUDA driver API, loaded at run time (dlopen "libcuda.so.1"), so that
 * the binary starts and runs the CPU engine on machines without a driver.
 * Every call is checked; errors carry the driver's name and text for the
 * failing call ("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal
 * memory access was encountered"). */
#ifndef TMCML_CUDA_H
#define TMCML_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

typedef struct cuda_driver cuda_driver;   /* the loaded library and entry points */
typedef struct cuda_context cuda_context; /* one device's primary context */
typedef struct cuda_module cuda_module;   /* a loaded cubin */
typedef uint64_t cuda_ptr;                /* device address (CUdeviceptr) */
typedef struct cuda_stream cuda_stream;   /* a non-blocking stream of the context */

typedef struct cuda_device_info {
    int index;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t shared_per_block_optin; /* max dynamic+static shared memory per block, opted in */
    size_t shared_per_sm;
    int max_threads_per_sm, regs_per_sm;
    size_t total_memory, free_memory;
    int driver_version;            /* e.g. 13000 */
} cuda_device_info;

/* Loads libcuda and initialises it.  Fails with a clear message when there is
 * no driver or no device.  $TMCML_LIBCUDA (a path) replaces "libcuda.so.1",
 * for tests and unusual installs. */
bool cuda_open(cuda_driver **drv, tm_error *err);
void cuda_close(cuda_driver *drv);
int cuda_device_count(const cuda_driver *drv);
bool cuda_device_query(cuda_driver *drv, int index, cuda_device_info *info, tm_error *err);

/* The device's primary context, retained.  Every call below makes it current
 * on the calling thread itself.  Unload its modules and free its memory
 * before closing it; close contexts before the driver.  After a sticky error
 * (a kernel's illegal address, ...) every call fails, saying so: the context
 * cannot be used again in this process. */
bool cuda_context_open(cuda_driver *drv, int device, cuda_context **ctx, tm_error *err);
void cuda_context_close(cuda_context *ctx);
/* Whether a sticky error has made ctx unusable. */
bool cuda_context_broken(const cuda_context *ctx);

bool cuda_module_load(cuda_context *ctx, const void *cubin, cuda_module **mod, tm_error *err);
void cuda_module_unload(cuda_module *mod);
/* Address and size of a __device__ or __constant__ variable of the module. */
bool cuda_module_global(cuda_module *mod, const char *name, cuda_ptr *ptr, size_t *size,
                        tm_error *err);

bool cuda_alloc(cuda_context *ctx, size_t bytes, cuda_ptr *ptr, tm_error *err);
void cuda_free(cuda_context *ctx, cuda_ptr ptr);
bool cuda_upload(cuda_context *ctx, cuda_ptr dst, const void *src, size_t bytes, tm_error *err);
bool cuda_download(cuda_context *ctx, void *dst, cuda_ptr src, size_t bytes, tm_error *err);
bool cuda_memset_zero(cuda_context *ctx, cuda_ptr dst, size_t bytes, tm_error *err);

/* Launches kernel `name` of mod (dynamic shared memory opted in up to
 * shared_bytes) and waits for it.  A kernel fault comes back as an error
 * naming the kernel, never as a hang or a crash. */
bool cuda_launch(cuda_module *mod, const char *name, unsigned grid, unsigned block,
                 size_t shared_bytes, void **args, tm_error *err);

/* Streams let launches overlap: the blocks of the next launch start on the
 * SMs that the tail of the previous one leaves idle. */
bool cuda_stream_create(cuda_context *ctx, cuda_stream **stream, tm_error *err);
void cuda_stream_destroy(cuda_stream *stream);
/* Queues a launch on stream (dynamic shared memory opted in as cuda_launch)
 * and returns at once; its faults come back from cuda_stream_wait. */
bool cuda_launch_async(cuda_module *mod, const char *name, unsigned grid, unsigned block,
                       size_t shared_bytes, void **args, cuda_stream *stream, tm_error *err);
bool cuda_memset_zero_async(cuda_stream *stream, cuda_ptr dst, size_t bytes, tm_error *err);
/* Waits for everything queued on stream; `what` names it in errors. */
bool cuda_stream_wait(cuda_stream *stream, const char *what, tm_error *err);
/* *done: whether everything queued on stream has finished (errors of the
 * queued work are reported by cuda_stream_wait). */
bool cuda_stream_done(cuda_stream *stream, bool *done, tm_error *err);
/* Copies device memory on stream and waits for the copy: on a non-blocking
 * stream this reads memory while a kernel of another stream runs. */
bool cuda_download_on(cuda_stream *stream, void *dst, cuda_ptr src, size_t bytes, tm_error *err);

/* Occupancy: resident blocks per SM of kernel `name` at this block size and
 * dynamic shared memory. */
bool cuda_occupancy(cuda_module *mod, const char *name, unsigned block, size_t shared_bytes,
                    int *blocks_per_sm, tm_error *err);

/* For `tmcml devices`: opens the driver and prints one line per GPU (index,
 * name, sm_XY, SMs, shared memory per block opted in and per SM, free/total
 * memory, driver version).  False, with *err, when there is no driver or no
 * device; a device that cannot be queried gets its error on its line. */
bool cuda_describe_devices(FILE *out, tm_error *err);

#endif
