/* --time and --detector for tmcml run (driver/run_timed.h). */
#include "run_timed.h"

#include <stdio.h>

#include "detector.h"
#include "time_bins.h"

static bool asked(const driver_options *opt) { return opt->time_nt > 0 || opt->fiber_count > 0; }

void run_timed_options(driver_options *opt)
{
    /* On the GPU a run's own kernel scores them, or the sets' kernel
     * (templates/timed.cu, sets.cu), not a batch's (the outputs are the
     * same either way). */
    if (asked(opt))
        opt->no_batch = true;
}

bool run_timed_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    for (int r = 0; asked(opt) && r < file->num_runs; r++) {
        mci_run *run = &file->runs[r];
        tm_error why = {0};
        if ((opt->time_nt > 0 &&
             !time_bins_check("--time", opt->time_dt, opt->time_nt, run->nr, &why)) ||
            !detector_check_all("--detector", opt->fibers, opt->fiber_count, run->layers[0].n,
                                &why)) {
            error_set(err, file->path, run->line, "%s", why.message);
            return false;
        }
        run->time_dt = opt->time_dt;
        run->time_nt = opt->time_nt;
        run->fiber_count = opt->fiber_count;
        for (int k = 0; k < opt->fiber_count; k++)
            run->fibers[k] = opt->fibers[k];
    }
    return true;
}
