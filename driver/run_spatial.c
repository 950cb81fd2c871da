/* --spatial-frequencies for tmcml run (driver/run_spatial.h). */
#include "run_spatial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_limits.h"

bool run_spatial_options(driver_options *opt, tm_error *err)
{
    return driver_own_kernel_group(opt, "--spatial-frequencies", "Rd_fx and Tt_fx", opt->fx_count,
                                   TM_MAX_GPU_SPATIAL_FREQUENCIES, err);
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
