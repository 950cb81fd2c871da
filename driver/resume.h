/* A run's progress as a checkpoint (runtime/io/checkpoint.h): started fresh
 * or from DIR/NAME.ckpt (--resume), the photon ranges done so far, and what
 * is left.  `tmcml run` simulates the gaps in order and writes the
 * checkpoint when a signal or the --checkpoint-every timer pauses it. */
#ifndef TMCML_RESUME_H
#define TMCML_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "checkpoint.h"
#include "driver_options.h"
#include "gpu.h"

/* The physics identity of an engine: "cpu <hash of its sources>" or "gpu
 * generator=<hash> nvrtc=<release> sm_<cc>" (gpu: NULL for the CPU), the
 * release as compile_nvrtc_release gives it (patch releases told apart). */
bool resume_physics(const gpu_engine *gpu, char *buf, size_t size, tm_error *err);
/* The same of a GPU of compute capability cc_major.cc_minor, known without
 * its engine (`tmcml lut`, through the library: tmcml_devices). */
bool resume_gpu_physics(int cc_major, int cc_minor, char *buf, size_t size, tm_error *err);

/* Whether what a build of physics `recorded` left (a checkpoint, a finished
 * run's JSON) is this build's (`now`): the same identity, or an earlier
 * one known to give the same tallies bit for bit (resume.c lists them) for
 * a run of this kind (optics_set: one of optics sets, whose GPU kernels
 * some later generators changed). */
bool resume_physics_same(const char *recorded, const char *now, bool optics_set);

/* *ck for run `number` (1-based) of photons run->photons: fresh (no
 * photons done), or read from ckpt_path when resume is set and the file
 * exists (*resumed then true), checked against this run, seed, input and
 * physics.  Its standard errors' groups (checkpoint.h) are kept with
 * --stderr (opt->stderr_groups) and dropped without it. */
bool resume_begin(checkpoint *ck, const driver_options *opt, const mci_run *run, int number,
                  const char *physics, const char *ckpt_path, bool *resumed, tm_error *err);

/* Photons [begin, end) are done. */
bool resume_add(checkpoint *ck, uint64_t begin, uint64_t end, tm_error *err);

/* Photons [begin, end) are done, some of which ck may hold already (a run
 * written early on several GPUs: a launch that ended before its last photon
 * reported part of it). */
bool resume_cover(checkpoint *ck, uint64_t begin, uint64_t end, tm_error *err);

/* The first photons not yet done, [*begin, *end); false when none are left. */
bool resume_next_gap(const checkpoint *ck, uint64_t *begin, uint64_t *end);
/* The same from photon `at` on. */
bool resume_gap_after(const checkpoint *ck, uint64_t at, uint64_t *begin, uint64_t *end);

#endif
