/* The planner: where a run's GPU kernel variant is chosen, the API over the
 * tuner (as FFTW's api/apiplan.c sits over its planner).  In this order:
 *   1. the heuristic default (tuner/variant.c);
 *   2. a profile entry for this GPU and problem class (tuner/profile.h):
 *      profile_file, else the search path (exact class, else the nearest
 *      class of the same layer count and mode); none with no_profile; with
 *      no entry, PLAN_TUNE_AUTO tunes first when the run is long enough to
 *      repay it, PLAN_TUNE_ALWAYS tunes in any case, PLAN_TUNE_NEVER never;
 *   3. the explicit knob options, knob by knob.
 * What was used is said on stderr (unless quiet).  The commands (`run`,
 * `gen`, `tune`) fill plan_options from the command line. */
#ifndef TMCML_PLAN_H
#define TMCML_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mci.h"
#include "profile.h"
#include "plan_options.h"
#include "runner.h"
#include "spec.h"
#include "variant.h"

/* The auto mode tunes when the run, timed on the heuristic kernel, is
 * estimated at more than this many times the tuning budget. */
#define PLAN_AUTO_TUNE_PAYBACK     10.0
#define PLAN_AUTO_TUNE_BUDGET      20.0
/* Runs below this many photons per thread slot (SMs x threads per SM) are
 * not estimated: far too short to repay a tuning (plan.c). */
#define PLAN_AUTO_TUNE_MIN_PHOTONS 800.0
/* `tmcml tune`'s budget when none is given. */
#define PLAN_TUNE_BUDGET           60.0

/* The spec for run on runner's device (tuning through runner when no entry
 * applies).  source: a short description of where the variant came from
 * ("profile X.json, exact entry ...", "heuristic"). */
bool plan_choose(const plan_options *opt, const tune_runner *runner, const mci_run *run,
                 kernel_spec *spec, char *source, size_t source_size, tm_error *err);

/* The same for `tmcml gen`, which runs nothing: the profile entry is looked
 * up but never tuned for; dev may be NULL (no GPU here: only profile_file
 * applies, checked against this toolchain alone). */
bool plan_choose_for_gen(const plan_options *opt, const tune_device *dev, const mci_run *run,
                         kernel_spec *spec, char *source, size_t source_size, tm_error *err);

#endif
