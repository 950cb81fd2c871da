/* Where a run's GPU kernel variant is chosen, in this order:
 *   1. the heuristic default (runtime/variant.c);
 *   2. a profile entry for this GPU and problem class (tuner/profile.h):
 *      --profile FILE, else the search path (exact class, else the nearest
 *      class of the same layer count and mode); none with --no-profile;
 *      with no entry, `--tune auto` tunes first when the run is long enough
 *      to repay it, `--tune always` tunes in any case, `never` never;
 *   3. the explicit variant options (--tile, --block, ...), knob by knob.
 * What was used is said on stderr (unless quiet). */
#ifndef TMCML_VARIANT_CHOICE_H
#define TMCML_VARIANT_CHOICE_H

#include <stdbool.h>

#include "cli.h"
#include "gpu.h"
#include "mci.h"
#include "spec.h"

/* The auto mode tunes when the run, timed on the heuristic kernel, is
 * estimated at more than this many times the tuning budget. */
#define VARIANT_AUTO_TUNE_PAYBACK 10.0
#define VARIANT_AUTO_TUNE_BUDGET 20.0
/* Runs below this many photons per thread slot (SMs x threads per SM) are
 * not estimated: far too short to repay a tuning (variant_choice.c). */
#define VARIANT_AUTO_TUNE_MIN_PHOTONS 800.0

/* source: a short description of where the variant came from ("profile
 * X.json, exact entry", "heuristic", ...). */
bool variant_choose(const cli_options *opt, gpu_engine *eng, const mci_run *run, kernel_spec *spec,
                    char *source, size_t source_size, tm_error *err);

/* The same for `tmcml gen` (which runs nothing): the profile entry is
 * looked up but never tuned for; dev may be NULL (no GPU here: only
 * --profile FILE applies, checked against this toolchain alone). */
bool variant_choose_for_gen(const cli_options *opt, const cuda_device_info *dev,
                            const mci_run *run, kernel_spec *spec, char *source,
                            size_t source_size, tm_error *err);

#endif
