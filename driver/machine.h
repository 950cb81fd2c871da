/* What this machine offers a run: the host memory tmcml may use, a GPU's
 * memory, the free space of an output directory; and the environment
 * variables that replace each figure (for tests, and for users of shared
 * nodes whose share is less than what the kernel reports):
 *
 *   TMCML_MEMORY_LIMIT      host memory tmcml may use
 *   TMCML_GPU_MEMORY_LIMIT  GPU memory the device tallies may use
 *   TMCML_DISK_LIMIT        free space of every output directory
 *   TMCML_CGROUP_ROOT       a directory that stands in for / where the
 *                           memory cgroup is read (/proc/self/cgroup,
 *                           /sys/fs/cgroup): for tests
 *
 * each a byte count with an optional suffix K, M, G or T (powers of 1024,
 * "KiB" and "KB" read alike): 4G, 512M, 1.5G, 1048576. */
#ifndef TMCML_MACHINE_H
#define TMCML_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct machine_budget {
    uint64_t bytes;   /* what may be used */
    char source[128]; /* where the figure comes from, for messages */
} machine_budget;

/* $TMCML_MEMORY_LIMIT when set, else RESOURCE_MEMORY_PERCENT of the smaller
 * of MemAvailable (/proc/meminfo; else the physical memory) and what the
 * process's memory cgroup leaves (machine_cgroup_memory).  out->source says
 * which.  False with *err when the variable is not a byte count. */
bool machine_host_memory(machine_budget *out, tm_error *err);

/* What the memory cgroups of this process leave it: for its cgroup and
 * every one above it that sets a limit, the limit less the usage less the
 * inactive file pages (page cache the kernel reclaims first, as container
 * runtimes count a working set); the smallest.  cgroup v1
 * (memory.limit_in_bytes, memory.usage_in_bytes, total_inactive_file) when
 * /proc/self/cgroup names a memory controller, else v2 (memory.max,
 * memory.current, inactive_file).  root stands in for / ("" on a real
 * system).  *what: "the memory cgroup's limit 2.0 GiB less 300.0 MiB in
 * use".  False when no cgroup sets a limit. */
bool machine_cgroup_memory(const char *root, uint64_t *bytes, char *what, size_t size);

/* $TMCML_GPU_MEMORY_LIMIT when set, else RESOURCE_MEMORY_PERCENT of
 * free_bytes (the GPU's free memory, measured by the engine). */
bool machine_gpu_memory(uint64_t free_bytes, machine_budget *out, tm_error *err);

/* $TMCML_DISK_LIMIT when set, else the free space of the file system that
 * holds directory dir, as an unprivileged user may fill it (statvfs
 * f_bavail).  *device identifies the file system (st_dev of dir), so that
 * the outputs of runs written to one file system can be added up. */
bool machine_disk_space(const char *dir, machine_budget *out, uint64_t *device, tm_error *err);

/* A byte count: digits, an optional fraction, an optional suffix K, M, G or
 * T (optionally followed by "iB" or "B").  False when text is anything
 * else or the count exceeds 2^64 - 1. */
bool machine_parse_bytes(const char *text, uint64_t *bytes);

/* "3.1 GiB", "512.0 MiB", "700 bytes": for messages. */
const char *machine_format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
