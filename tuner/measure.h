/* One candidate measured: its spec built and checked, its kernel compiled
 * (compile time kept apart), the pilot run `repeats` times with the same seed
 * and photons, every run's tallies compared bit for bit with the
 * reference's, the median kernel time kept. */
#ifndef TMCML_MEASURE_H
#define TMCML_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu.h"
#include "mci.h"
#include "search.h"
#include "tally.h"

typedef struct measure_setup {
    gpu_engine *eng;
    const mci_run *run;
    bool score_absorption;
    const tune_options *opt;
    uint64_t photons;           /* the pilot */
    const tally_set *reference; /* NULL: this is the reference (its tallies go to *keep) */
} measure_setup;

/* The spec of a configuration for this run and device, validated (false,
 * with *err, when it is invalid: too much shared memory, ...). */
bool measure_spec(const measure_setup *m, const kernel_knobs *config, bool debug_bias,
                  kernel_spec *spec, tm_error *err);

/* Measures c->config into c (status, timings, registers, ...).  keep: when
 * not NULL, receives the first run's tallies (initialised here; the caller
 * frees them).  False only on an error that leaves the GPU unusable (a
 * sticky fault): a candidate's own failure is its status. */
bool measure_candidate(const measure_setup *m, tune_candidate *c, bool debug_bias, tally_set *keep,
                       tm_error *err);

/* The pilot size: photons that give spec's kernel at least the options'
 * min_kernel_seconds and every thread slot of the GPU at least 64 photons
 * (at most one batch), and the steps per photon seen. */
bool measure_pilot_size(const measure_setup *m, const kernel_spec *spec, uint64_t *photons,
                        double *steps_per_photon, double *kernel_seconds, tm_error *err);

/* Runs spec once for photons and returns its tallies (initialised here). */
bool measure_run_once(const measure_setup *m, const kernel_spec *spec, uint64_t photons,
                      tally_set *t, gpu_stats *stats, tm_error *err);

#endif
