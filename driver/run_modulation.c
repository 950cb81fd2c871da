/* --modulation for tmcml run (driver/run_modulation.h). */
#include "run_modulation.h"

#include <stdlib.h>

bool run_modulation_options(driver_options *opt, tm_error *err)
{
    if (opt->mod_count == 0)
        return true;
    return driver_take_cpu(opt,
                           "--modulation: Rd_r_ac and Rd_r_phase are scored by the CPU engine "
                           "alone (no GPU kernel scores them yet): use --engine cpu (or auto)",
                           "--modulation: scored by the CPU engine", err);
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
