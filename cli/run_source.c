/* --source on tmcml run (cli/run_source.h). */
#include "run_source.h"

#include <stdio.h>

/* Sources whose launch the GPU kernel has (templates/photon.cu); the
 * others run on the CPU engine. */
static bool gpu_has_source(source_kind kind) { return kind == SOURCE_PENCIL; }

bool run_source_options(cli_options *opt, tm_error *err)
{
    if (gpu_has_source(opt->source.kind))
        return true;
    const char *name = source_kind_name(opt->source.kind);
    if (opt->engine == CLI_ENGINE_GPU) {
        error_set(err, NULL, 0,
                  "--source %s: this source is simulated by the CPU engine (the GPU kernel has "
                  "none yet): --engine cpu",
                  name);
        return false;
    }
    if (opt->engine == CLI_ENGINE_AUTO && !opt->quiet)
        fprintf(stderr, "tmcml: --source %s: this source is simulated by the CPU engine\n", name);
    opt->engine = CLI_ENGINE_CPU;
    return true;
}

bool run_source_runs(const cli_options *opt, mci_file *file, tm_error *err)
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
