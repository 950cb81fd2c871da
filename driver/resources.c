#include "resources.h"
#include "text_escape.h"

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "footprint.h"
#include "machine.h"

#define BYTES_TEXT 32

/* A run whose host memory does not fit at its least: one CPU thread's batch,
 * or the GPU engine's one launch batch.  Always false. */
static bool refuse_host(const resource_request *req, int index, const machine_budget *host,
                        const run_footprint *fp, bool gpu, tm_error *err)
{
    const mci_run *run = &req->file->runs[index];
    char need[BYTES_TEXT], have[BYTES_TEXT], tallies[BYTES_TEXT], batch[BYTES_TEXT],
        result[BYTES_TEXT];
    uint64_t peak = footprint_host_peak(fp, gpu ? 0 : 1);
    error_set(err, req->file->path, run->line,
              "run %d needs %s of %s (a %dx%dx%d grid, nr x nz x na: tallies %s, %s %s, results "
              "%s), %s available (%s): nothing was simulated",
              index + 1, machine_format_bytes(peak, need, sizeof need),
              gpu ? "host memory" : "memory even with one thread", run->nr, run->nz, run->na,
              machine_format_bytes(fp->tallies, tallies, sizeof tallies),
              gpu ? "a launch's batch" : "the thread's batch",
              machine_format_bytes(fp->batch, batch, sizeof batch),
              machine_format_bytes(fp->result + fp->json_text, result, sizeof result),
              machine_format_bytes(host->bytes, have, sizeof have), host->source);
    return false;
}

/* The host memory of one run on the CPU engine: *threads of the ones asked
 * for, as many as fit. */
static bool check_cpu_run(const resource_request *req, int index, const machine_budget *host,
                          const run_footprint *fp, int *threads, tm_error *err)
{
    const mci_run *run = &req->file->runs[index];
    if (footprint_host_peak(fp, 1) > host->bytes)
        return refuse_host(req, index, host, fp, false, err);
    uint64_t fit = (host->bytes - fp->tallies) / fp->batch; /* >= 1: checked above */
    int used = cpu_thread_count(req->threads, (uint64_t)run->photons);
    *threads = (uint64_t)used > fit ? (int)fit : req->threads;
    return true;
}

/* Says which runs use fewer threads than asked for (once every run fits). */
static void note_fewer_threads(const resource_request *req, const machine_budget *host,
                               const run_footprint *fps, const int *threads)
{
    for (int i = 0; req->notes && i < req->file->num_runs; i++) {
        const mci_run *run = &req->file->runs[i];
        int used = cpu_thread_count(req->threads, (uint64_t)run->photons);
        if (threads[i] >= used)
            continue;
        char need[BYTES_TEXT], have[BYTES_TEXT];
        text_printf(req->notes,
                    "tmcml: run %d (%s:%d): %d threads need %s of tallies, %s available (%s): "
                    "using %d thread%s\n",
                    i + 1, req->file->path, run->line, used,
                    machine_format_bytes(footprint_host_tallies(&fps[i], used), need, sizeof need),
                    machine_format_bytes(host->bytes, have, sizeof have), host->source, threads[i],
                    threads[i] == 1 ? "" : "s");
    }
}

/* The host and device memory of one run on the GPU engine. */
static bool check_gpu_run(const resource_request *req, int index, const machine_budget *host,
                          const machine_budget *gpu, const run_footprint *fp, tm_error *err)
{
    const mci_run *run = &req->file->runs[index];
    char need[BYTES_TEXT], have[BYTES_TEXT];
    if (fp->device > gpu->bytes) {
        error_set(err, req->file->path, run->line,
                  "run %d needs %s of GPU memory for its tallies (a %dx%dx%d grid, nr x nz x na), "
                  "%s available on GPU %d (%s): nothing was simulated (--engine cpu runs it in "
                  "host memory)",
                  index + 1, machine_format_bytes(fp->device, need, sizeof need), run->nr, run->nz,
                  run->na, machine_format_bytes(gpu->bytes, have, sizeof have), req->gpu_index,
                  gpu->source);
        return false;
    }
    if (footprint_host_peak(fp, 0) > host->bytes)
        return refuse_host(req, index, host, fp, true, err);
    return true;
}

/* The outputs that go to one file system. */
typedef struct disk_use {
    uint64_t device;
    uint64_t need;
    int runs;
    machine_budget space;
    char *dir; /* the first output directory on it (malloc'd) */
} disk_use;

/* The directory of path ("." when it has none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

/* Adds run i's outputs to the file system of its directory. */
static bool add_disk_use(disk_use *uses, int *count, const char *mco_path, uint64_t bytes,
                         tm_error *err)
{
    char *dir = dir_of(mco_path);
    if (!dir) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    machine_budget space;
    uint64_t device;
    if (!machine_disk_space(dir, &space, &device, err)) {
        free(dir);
        return false;
    }
    int k = 0;
    while (k < *count && uses[k].device != device)
        k++;
    if (k == *count) {
        uses[k] = (disk_use){.device = device, .space = space, .dir = dir};
        (*count)++;
    } else {
        free(dir);
    }
    uses[k].need += bytes;
    uses[k].runs++;
    return true;
}

static bool check_disk(const resource_request *req, const run_footprint *fps, tm_error *err)
{
    int n = req->file->num_runs, count = 0;
    disk_use *uses = calloc((size_t)n, sizeof *uses);
    bool ok = uses != NULL;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int i = 0; ok && i < n; i++)
        ok = add_disk_use(uses, &count, req->mco_paths[i],
                          fps[i].mco_file + fps[i].json_file + (req->npz ? fps[i].npz_file : 0),
                          err);
    for (int k = 0; ok && k < count; k++) {
        if (uses[k].need <= uses[k].space.bytes)
            continue;
        char need[BYTES_TEXT], have[BYTES_TEXT];
        error_set(
            err, uses[k].dir, 0,
            "the outputs of %s need up to %s here (%d run%s: %s), %s free (%s): "
            "nothing was simulated",
            req->file->path, machine_format_bytes(uses[k].need, need, sizeof need), uses[k].runs,
            uses[k].runs == 1 ? "" : "s", req->npz ? ".mco, JSON and .npz" : ".mco and JSON",
            machine_format_bytes(uses[k].space.bytes, have, sizeof have), uses[k].space.source);
        ok = false;
    }
    for (int k = 0; k < count; k++)
        free(uses[k].dir);
    free(uses);
    return ok;
}

bool resources_check(const resource_request *req, int *threads, tm_error *err)
{
    const mci_file *file = req->file;
    machine_budget host, gpu = {0};
    if (!machine_host_memory(&host, err) ||
        (req->threads == 0 && !machine_gpu_memory(req->gpu_free, &gpu, err)))
        return false;
    run_footprint *fps = calloc((size_t)file->num_runs, sizeof *fps);
    if (!fps) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < file->num_runs; i++) {
        footprint_of_run(&file->runs[i], file->path, &fps[i]);
        threads[i] = 0;
        ok = req->threads > 0 ? check_cpu_run(req, i, &host, &fps[i], &threads[i], err)
                              : check_gpu_run(req, i, &host, &gpu, &fps[i], err);
    }
    ok = ok && check_disk(req, fps, err);
    if (ok && req->threads > 0)
        note_fewer_threads(req, &host, fps, threads);
    free(fps);
    return ok;
}
