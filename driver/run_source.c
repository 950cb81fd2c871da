/* --source on tmcml run (driver/run_source.h). */
#include "run_source.h"

bool run_source_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    for (int r = 0; r < file->num_runs; r++) {
        if (!source_check_run(&opt->source, &file->runs[r], "--source", err)) {
            tm_error at = *err;
            error_set(err, file->path, file->runs[r].line, "%s", at.message);
            return false;
        }
        file->runs[r].source = opt->source;
    }
    return true;
}
