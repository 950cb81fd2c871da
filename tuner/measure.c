/* One candidate measured (tuner/measure.h). */
#include "measure.h"
#include "tm_limits.h"

#include <stdlib.h>
#include <string.h>

#include "variant.h"

bool measure_spec(const measure_setup *m, const kernel_knobs *config, bool debug_bias,
                  kernel_spec *spec, tm_error *err)
{
    variant_options none;
    variant_options_init(&none);
    /* Validated there against the device's shared memory; the bias changes
     * no size. */
    if (!variant_spec_tuned(m->run, m->score_absorption, m->runner->device, config, &none, spec,
                            err) ||
        (m->opt->num_sets > 0 &&
         !variant_sets_tuned(spec,
                             (sets_scoring){m->opt->num_sets, m->opt->sets_paths,
                                            m->opt->sets_jacobian, m->opt->sets_optics},
                             m->runner->device, err)))
        return false;
    spec->debug_bias = debug_bias;
    return true;
}

bool measure_run_once(const measure_setup *m, const kernel_spec *spec, uint64_t photons,
                      tune_measurement *out, tm_error *err)
{
    return tune_runner_run(m->runner, m->run, spec, photons, m->opt->seed, out, err);
}

/* A pilot gives every thread slot of the GPU at least this many photons, so
 * that the window timed (20 % to 80 % of the photons handed out) is a steady
 * state: with 8 per thread on the intralipid slab, where one photon can take
 * 10^6 steps, threads were still on their first few photons there and the
 * rate came out 10x a long run's (H200). */
#define PILOT_PHOTONS_PER_THREAD 64

bool measure_pilot_size(const measure_setup *m, const kernel_spec *spec, uint64_t *photons,
                        double *steps_per_photon, double *kernel_seconds, tm_error *err)
{
    const tune_device *dev = m->runner->device;
    uint64_t n = (uint64_t)PILOT_PHOTONS_PER_THREAD * (uint64_t)dev->sm_count *
                 (uint64_t)(dev->max_threads_per_sm > 0 ? dev->max_threads_per_sm : 2048);
    for (;;) {
        tune_measurement stats;
        if (!measure_run_once(m, spec, n, &stats, err))
            return false;
        *steps_per_photon = stats.steps / (double)n;
        tune_measurement_free(&stats);
        double want = m->opt->min_kernel_seconds;
        if (stats.kernel_seconds >= want || n >= TUNE_MAX_PILOT_PHOTONS) {
            *photons = n;
            if (kernel_seconds)
                *kernel_seconds = stats.kernel_seconds;
            return true;
        }
        /* Aim 30 % past the target: kernel time grows a little less than
         * linearly while the GPU fills up. */
        double scale = stats.kernel_seconds > 0 ? 1.3 * want / stats.kernel_seconds : 16;
        double next = (double)n * (scale < 16 ? scale : 16);
        n = next >= (double)TUNE_MAX_PILOT_PHOTONS ? TUNE_MAX_PILOT_PHOTONS : (uint64_t)next;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[TUNE_MAX_REPEATS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, by_value);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The rate of one timing: steady state, or the whole launch when it was
 * too short to tell. */
static double rate_of(const measure_setup *m, const tune_measurement *stats)
{
    if (stats->steady_photons_per_second > 0)
        return stats->steady_photons_per_second;
    return stats->kernel_seconds > 0 ? (double)m->photons / stats->kernel_seconds : 0;
}

/* A failure of the candidate itself, or of the GPU (then false). */
static bool candidate_failed(const measure_setup *m, tune_candidate *c, tune_status status,
                             const tm_error *why, tm_error *err)
{
    c->status = status;
    error_format(why, c->why, sizeof c->why);
    if (tune_runner_usable(m->runner))
        return true;
    *err = *why;
    return false;
}

/* The repeats after the first: timings, and the gate on every one. */
static bool time_repeats(const measure_setup *m, tune_candidate *c, const kernel_spec *spec,
                         uint64_t expect, tm_error *err)
{
    int repeats = m->opt->repeats < 1 ? 1 : m->opt->repeats;
    if (repeats > TUNE_MAX_REPEATS)
        repeats = TUNE_MAX_REPEATS;
    while (c->timings < repeats) {
        tune_measurement stats;
        tm_error why = {0};
        if (!measure_run_once(m, spec, m->photons, &stats, &why))
            return candidate_failed(m, c, TUNE_FAILED, &why, err);
        tune_measurement_free(&stats); /* nothing malloc'd: no deposits counted */
        if (stats.digest != expect) {
            c->status = TUNE_MISMATCH;
            snprintf(c->why, sizeof c->why, "repeat %d: tallies differ from the first run",
                     c->timings + 1);
            return true;
        }
        c->rates[c->timings] = rate_of(m, &stats);
        c->seconds[c->timings++] = stats.kernel_seconds;
    }
    return true;
}

bool measure_candidate(const measure_setup *m, tune_candidate *c, bool debug_bias, uint64_t *keep,
                       tm_error *err)
{
    kernel_spec spec;
    tm_error why = {0};
    c->timings = 0;
    if (!measure_spec(m, &c->config, debug_bias, &spec, &why)) {
        c->status = TUNE_SKIPPED;
        error_format(&why, c->why, sizeof c->why);
        return true;
    }
    tune_measurement stats;
    if (!measure_run_once(m, &spec, m->photons, &stats, &why))
        return candidate_failed(m, c, TUNE_FAILED, &why, err);
    c->compile_seconds = stats.compile_seconds;
    c->registers = stats.registers;
    c->blocks_per_sm = stats.blocks_per_sm;
    if (stats.spill_bytes > 0) {
        c->status = TUNE_SKIPPED;
        snprintf(c->why, sizeof c->why, "spills %d bytes to local memory", stats.spill_bytes);
        return true;
    }
    c->rates[c->timings] = rate_of(m, &stats);
    c->seconds[c->timings++] = stats.kernel_seconds;
    /* The gate: the same photons must give the same integers, bit for bit. */
    uint64_t first = stats.digest;
    tune_measurement_free(&stats);
    if (m->reference && first != *m->reference) {
        c->status = TUNE_MISMATCH;
        snprintf(c->why, sizeof c->why,
                 "tallies differ from the reference kernel's for the same seed and photons "
                 "(bit-identity gate): a bug in this variant");
        return true;
    }
    c->status = TUNE_MEASURED;
    bool ok = time_repeats(m, c, &spec, first, err);
    if (keep && c->status == TUNE_MEASURED)
        *keep = first;
    if (c->status == TUNE_MEASURED) {
        c->median_seconds = median(c->seconds, c->timings);
        c->photons_per_second = median(c->rates, c->timings);
    }
    return ok;
}
