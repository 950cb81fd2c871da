/* --spatial-frequencies for tmcml run (driver/run_spatial.h). */
#include "run_spatial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_limits.h"

/* Why the GPU cannot score opt's frequencies (into why), or false. */
static bool gpu_fault(const driver_options *opt, char *why, size_t size)
{
    if (opt->fx_count > TM_MAX_GPU_SPATIAL_FREQUENCIES)
        snprintf(why, size, "of %d frequencies (a GPU kernel scores at most %d)", opt->fx_count,
                 TM_MAX_GPU_SPATIAL_FREQUENCIES);
    else if (opt->mua_sets)
        snprintf(why, size, "with %s", opt->optics_sets ? "--optics-sets" : "--mua-sets");
    else if (opt->jacobian)
        snprintf(why, size, "with --jacobian");
    else
        return false;
    return true;
}

bool run_spatial_options(driver_options *opt, tm_error *err)
{
    if (opt->fx_count == 0)
        return true;
    opt->no_batch = true; /* a run's own GPU kernel scores them, not a batch's */
    char why[96];
    if (!gpu_fault(opt, why, sizeof why))
        return true;
    char refusal[256], note[160];
    snprintf(refusal, sizeof refusal,
             "--spatial-frequencies %s: Rd_fx and Tt_fx are then scored by the CPU engine alone: "
             "use --engine cpu (or auto)",
             why);
    snprintf(note, sizeof note, "--spatial-frequencies %s: scored by the CPU engine", why);
    return driver_take_cpu(opt, refusal, note, err);
}

bool run_spatial_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    for (int r = 0; opt->fx_count > 0 && r < file->num_runs; r++) {
        mci_run *run = &file->runs[r];
        free(run->fx);
        if (!mci_list_copy(opt->fx, opt->fx_count, &run->fx, &run->fx_count)) {
            error_set(err, NULL, 0, "out of memory");
            return false;
        }
    }
    return true;
}
