/* What the tuner needs of a GPU, and nothing of the engine (Kernel Tuner
 * hands its strategies a runner; FFTW's planner measures only through a
 * plan's interface).  The search (search.c), the sweep, the planner's
 * estimate and the gate measure only through a tune_runner:
 *   - the GPU runner (driver/gpu_runner.h) runs the generated kernel on
 *     the GPU engine;
 *   - the replay runner (replay_runner.h) answers from a recording of a real
 *     tune (recording.h; `tmcml tune` makes one through the recording
 *     runner of recorder.h), so the search, the gate and the profile store
 *     are tested without a GPU.
 * A runner is a table of functions over a context it owns; the caller keeps
 * it alive while the tuner uses it. */
#ifndef TMCML_RUNNER_H
#define TMCML_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "mci.h"
#include "spec.h"

/* The device's limits as the tuner sees them (the heuristic, the candidate
 * space, the pilot size and the profile's device): filled by the GPU runner
 * from the engine's cuda_device_info, or read from a recording. */
typedef struct tune_device {
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t shared_per_block_optin; /* the most one block may opt in to */
    size_t shared_per_sm;          /* bytes an SM's blocks share */
    int max_threads_per_sm, regs_per_sm;
    int driver_version; /* e.g. 13000 */
} tune_device;

/* What identifies a device, copied from *src to *dst: the name, the
 * compute capability, the SMs, the shared memory a block may opt in to and
 * the driver.  tune_device, the engine's cuda_device_info and the profile's
 * device (profile.h) name these fields alike; dst's others are left as
 * they are. */
#define TUNE_DEVICE_IDENTITY_COPY(dst, src)                                                        \
    do {                                                                                           \
        snprintf((dst)->name, sizeof(dst)->name, "%s", (src)->name);                               \
        (dst)->cc_major = (src)->cc_major;                                                         \
        (dst)->cc_minor = (src)->cc_minor;                                                         \
        (dst)->sm_count = (src)->sm_count;                                                         \
        (dst)->shared_per_block_optin = (src)->shared_per_block_optin;                             \
        (dst)->driver_version = (src)->driver_version;                                             \
    } while (0)

/* One run of a spec, as the tuner sees it.  Tallies are not kept: the gate
 * compares digests (tally_set_digest, equal tallies <=> equal digests up to
 * an accidental 64-bit collision). */
typedef struct tune_measurement {
    uint64_t digest; /* tally_set_digest of the run's tallies */
    double steps;    /* hop-drop-spin steps taken (steps per photon) */
    double kernel_seconds;
    /* Photons handed out per second while the launch went from 20 % to
     * 80 % of its photons (0 when too short to tell: gpu_stats). */
    double steady_photons_per_second;
    double compile_seconds; /* 0 from the cubin cache */
    int registers, spill_bytes, blocks_per_sm;
    /* Only for a spec with count_deposits (the pilot's map): nr x nz deposit
     * events of A_rz, row-major [ir][iz], malloc'd (tune_measurement_free);
     * NULL otherwise. */
    uint64_t *deposits;
    int nr, nz;
} tune_measurement;

/* Frees the deposit map (the other fields stay readable). */
void tune_measurement_free(tune_measurement *m);

typedef struct tune_runner {
    const tune_device *device; /* valid as long as the runner */
    /* Runs spec on run's layers for `photons` photons from seed (photon
     * indices 0 .. photons-1) into *out (zeroed first).  False with *err
     * when the run failed (a compile, launch or GPU error): the tuner
     * records the candidate as failed and asks `usable` whether to go on. */
    bool (*run)(void *ctx, const mci_run *run, const kernel_spec *spec, uint64_t photons,
                uint64_t seed, tune_measurement *out, tm_error *err);
    /* False once a fault (a sticky error) has made the device unusable. */
    bool (*usable)(void *ctx);
    /* Seconds on a monotonic clock: the search's budget is spent on it. */
    double (*now)(void *ctx);
    void *ctx;
} tune_runner;

static inline bool tune_runner_run(const tune_runner *r, const mci_run *run,
                                   const kernel_spec *spec, uint64_t photons, uint64_t seed,
                                   tune_measurement *out, tm_error *err)
{
    return r->run(r->ctx, run, spec, photons, seed, out, err);
}

static inline bool tune_runner_usable(const tune_runner *r) { return r->usable(r->ctx); }

static inline double tune_runner_now(const tune_runner *r) { return r->now(r->ctx); }

#endif
