/* --modulation for tmcml run (driver/run_modulation.h). */
#include "run_modulation.h"

#include <stdlib.h>

#include "tm_limits.h"

bool run_modulation_options(driver_options *opt, tm_error *err)
{
    return driver_own_kernel_group(opt, "--modulation", "Rd_r_ac and Rd_r_phase", opt->mod_count,
                                   TM_MAX_GPU_MODULATIONS, err);
}

bool run_modulation_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    bool ok = true;
    for (int r = 0; ok && opt->mod_count > 0 && r < file->num_runs; r++) {
        free(file->runs[r].mod_hz);
        ok = mci_list_copy(opt->mod_hz, opt->mod_count, &file->runs[r].mod_hz,
                           &file->runs[r].mod_count);
    }
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    return ok;
}
