/* --spatial-frequencies for tmcml run (driver/run_spatial.h). */
#include "run_spatial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool run_spatial_options(driver_options *opt, tm_error *err)
{
    if (opt->fx_count == 0)
        return true;
    if (opt->engine == DRIVER_ENGINE_GPU) {
        error_set(err, NULL, 0,
                  "--spatial-frequencies: Rd_fx and Tt_fx are scored by the CPU engine alone "
                  "(no GPU kernel scores them yet): use --engine cpu (or auto)");
        return false;
    }
    if (opt->engine == DRIVER_ENGINE_AUTO && !opt->quiet)
        fprintf(stderr, "tmcml: --spatial-frequencies: scored by the CPU engine\n");
    opt->engine = DRIVER_ENGINE_CPU;
    return true;
}

bool run_spatial_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    size_t bytes = (size_t)opt->fx_count * sizeof *opt->fx;
    for (int r = 0; opt->fx_count > 0 && r < file->num_runs; r++) {
        mci_run *run = &file->runs[r];
        free(run->fx);
        if (!(run->fx = malloc(bytes))) {
            run->fx_count = 0;
            error_set(err, NULL, 0, "out of memory");
            return false;
        }
        memcpy(run->fx, opt->fx, bytes);
        run->fx_count = opt->fx_count;
    }
    return true;
}
