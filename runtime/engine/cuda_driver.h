/* The CUDA driver API, loaded at run time (dlopen "libcuda.so.1"), so that
 * the binary starts and runs the CPU engine on machines without a driver.
 * Every call is checked; errors carry the driver's name and text for the
 * failing call ("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal
 * memory access was encountered"). */
#ifndef TMCML_CUDA_DRIVER_H
#define TMCML_CUDA_DRIVER_H

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
    int clock_khz; /* SM clock (peak) */
    size_t total_memory, free_memory;
    int driver_version;                  /* e.g. 13000 */
    int pci_domain, pci_bus, pci_device; /* where it sits: the driver's /proc names it so */
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
/* The number ctx's messages give its GPU (the device's ordinal until told
 * otherwise): the user's, where the driver was let see fewer GPUs. */
void cuda_context_number(cuda_context *ctx, int number);

bool cuda_module_load(cuda_context *ctx, const void *cubin, cuda_module **mod, tm_error *err);
void cuda_module_unload(cuda_module *mod);
/* Address and size of a __device__ or __constant__ variable of the module. */
bool cuda_module_global(cuda_module *mod, const char *name, cuda_ptr *ptr, size_t *size,
                        tm_error *err);

bool cuda_alloc(cuda_context *ctx, size_t bytes, cuda_ptr *ptr, tm_error *err);
/* Frees ptr; wait for every stream that uses it first. */
void cuda_free(cuda_context *ctx, cuda_ptr ptr);

/* ---- streams: the only way to touch device memory ----------------------------
 * Every copy, memset and launch is queued on a stream.  Work of one stream
 * runs in the order it was queued; nothing orders two streams.  Streams are
 * non-blocking (no implicit synchronisation with the legacy stream 0), and
 * no call here queues work on stream 0: a memset or copy that the caller
 * queues before a launch on the same stream is finished before the kernel
 * starts, whatever else runs on the GPU.  (The driver's cuMemsetD8 and
 * cuMemcpyHtoD on stream 0 return before the device has done them and are not
 * ordered with a non-blocking stream: a kernel could start before its
 * tallies were zeroed whenever the GPU was busy.  They are not offered.) */
bool cuda_stream_create(cuda_context *ctx, cuda_stream **stream, tm_error *err);
/* Waits for the stream's work, then destroys it. */
void cuda_stream_destroy(cuda_stream *stream);

/* Queues a copy of bytes from host src to device dst and returns once src may
 * be reused (the stream is waited for: small uploads of tables). */
bool cuda_upload(cuda_stream *stream, cuda_ptr dst, const void *src, size_t bytes, tm_error *err);
/* Queues a copy of device src to host dst after the stream's earlier work and
 * waits for it: dst holds the bytes on return. */
bool cuda_download(cuda_stream *stream, void *dst, cuda_ptr src, size_t bytes, tm_error *err);
/* Queues zeroing of bytes at dst and returns at once. */
bool cuda_memset_zero(cuda_stream *stream, cuda_ptr dst, size_t bytes, tm_error *err);
/* Queues a launch of kernel `name` of mod (dynamic shared memory opted in up
 * to shared_bytes) and returns at once; a fault inside the kernel comes back
 * from the next wait on the stream or on an event recorded after it, named
 * by that wait's `what`. */
bool cuda_launch(cuda_module *mod, const char *name, unsigned grid, unsigned block,
                 size_t shared_bytes, void **args, cuda_stream *stream, tm_error *err);
/* Waits for everything queued on stream; `what` names it in errors. */
bool cuda_stream_wait(cuda_stream *stream, const char *what, tm_error *err);

/* ---- events: a point in a stream that the host can ask about or wait for ---- */
typedef struct cuda_event cuda_event;
bool cuda_event_create(cuda_context *ctx, cuda_event **event, tm_error *err);
void cuda_event_destroy(cuda_event *event);
/* Marks the point after the work queued on stream so far. */
bool cuda_event_record(cuda_event *event, cuda_stream *stream, tm_error *err);
/* *done: whether the work before the event has finished (its faults are
 * reported by cuda_event_wait). */
bool cuda_event_done(cuda_event *event, bool *done, tm_error *err);
/* Waits for the work before the event; `what` names it in errors. */
bool cuda_event_wait(cuda_event *event, const char *what, tm_error *err);
/* Work queued on stream from now on starts after the work before the event
 * (of another stream) has finished; the host does not wait. */
bool cuda_stream_wait_event(cuda_stream *stream, cuda_event *event, tm_error *err);

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
