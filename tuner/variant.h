/* Where a kernel variant is made: the documented default heuristic, a
 * profile's winner (tuner/profile.h), then what the user asked for (the knob
 * table's options, gen/knob.h, and the architecture; cli/cli.c parses them
 * from the command line). */
#ifndef TMCML_VARIANT_H
#define TMCML_VARIANT_H

#include <stdbool.h>

#include "error.h"
#include "mci.h"
#include "runner.h"
#include "spec.h"

/* Knobs given explicitly (--tile, --entry, ...: the options of the knob
 * table, gen/knob.h), the target architecture and the test-only variant. */
typedef struct variant_options {
    kernel_knobs knobs; /* the values given */
    unsigned given;     /* bit knob_index(k) set: knob k was given */
    int arch;           /* 0: the device's */
    bool debug_out_of_bounds;
} variant_options;

void variant_options_init(variant_options *v);

/* Sets one knob by its option and value text, as the command line would
 * ("--tile", "48x128"); false with *err on a bad value or option. */
bool variant_options_set(variant_options *v, const char *option, const char *text, tm_error *err);

/* The spec for a run: the heuristic default for the device (tuner/runner.h:
 * the GPU runner fills it from the engine's; dev may be NULL:
 * sm_90 and no shared-memory limit, as for `tmcml gen` without a GPU), then
 * the explicit options.  Validated against the device's shared memory. */
bool variant_spec_for_run(const mci_run *run, bool score_absorption, const tune_device *dev,
                          const variant_options *v, kernel_spec *spec, tm_error *err);

/* The same with a tuned configuration (a profile's entry, tuner/profile.h)
 * between the heuristic and the explicit options; tuned may be NULL.  Its
 * tile is clamped to the grid (a nearest-class entry may be larger). */
struct kernel_knobs;
bool variant_spec_tuned(const mci_run *run, bool score_absorption, const tune_device *dev,
                        const struct kernel_knobs *tuned, const variant_options *v,
                        kernel_spec *spec, tm_error *err);

/* The kernel of a run's variant that scores absorption sets as sets says
 * (spec_for_sets), without a launch
 * bound unless one was given, in the largest block that fits dev's shared
 * memory (at most the variant's; Hopper's when dev is NULL) unless one was
 * given; validated for dev (may be NULL).  When no block fits, the message
 * says what the user can change: fewer sets a call, -A, the CPU engine. */
bool variant_sets_spec(kernel_spec *spec, sets_scoring sets, const variant_options *v,
                       const tune_device *dev, tm_error *err);

/* The same for a configuration tuned for the sets' own shape (a profile
 * entry of num_sets sets, a candidate of their search): its knobs as they
 * are, the launch bound too. */
bool variant_sets_tuned(kernel_spec *spec, sets_scoring sets, const tune_device *dev,
                        tm_error *err);

/* The batch kernel (spec_for_batch) of a run's variant, with the batch
 * heuristic's knobs and the explicit options that a batch kernel has (block
 * size, residency, the last-bin cache); validated for dev (may be NULL). */
bool variant_batch_spec(kernel_spec *spec, const variant_options *v, const tune_device *dev,
                        tm_error *err);

/* Whether v sets any knob of the kernel (then a profile's entry is not
 * looked up: the user chose). */
bool variant_options_given(const variant_options *v);

#endif
