/* One candidate measured: its spec built and checked, its kernel compiled
 * (compile time kept apart), the pilot run `repeats` times with the same seed
 * and photons, every run's tallies compared bit for bit with the
 * reference's, the median kernel time kept. */
#ifndef TMCML_MEASURE_H
#define TMCML_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "mci.h"
#include "runner.h"
#include "candidate.h"

typedef struct measure_setup {
    const tune_runner *runner;
    const mci_run *run;
    bool score_absorption;
    const tune_options *opt;
    uint64_t photons;          /* the pilot */
    const uint64_t *reference; /* the reference's tallies digest; NULL: this is the reference */
} measure_setup;

/* The spec of a configuration for this run and device, validated (false,
 * with *err, when it is invalid: too much shared memory, ...). */
bool measure_spec(const measure_setup *m, const kernel_knobs *config, bool debug_bias,
                  kernel_spec *spec, tm_error *err);

/* Measures c->config into c (status, timings, registers, ...).  keep: when
 * not NULL, receives the first run's tallies digest.  False only on an
 * error that leaves the GPU unusable (a sticky fault): a candidate's own
 * failure is its status. */
bool measure_candidate(const measure_setup *m, tune_candidate *c, bool debug_bias, uint64_t *keep,
                       tm_error *err);

/* The pilot size: photons that give spec's kernel at least the options'
 * min_kernel_seconds and every thread slot of the GPU at least 64 photons
 * (at most one batch), and the steps per photon seen. */
bool measure_pilot_size(const measure_setup *m, const kernel_spec *spec, uint64_t *photons,
                        double *steps_per_photon, double *kernel_seconds, tm_error *err);

/* Runs spec once for photons with the options' seed (the runner's run):
 * *out is the caller's to free (tune_measurement_free). */
bool measure_run_once(const measure_setup *m, const kernel_spec *spec, uint64_t photons,
                      tune_measurement *out, tm_error *err);

#endif
