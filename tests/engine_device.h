/* The engine's device as the tuner sees it (driver/gpu_runner.h), as an
 * expression: the GPU tests pass it straight to variant_spec_for_run; the
 * GPU tests' engine opened, and their cases run on it. */
#ifndef TMCML_TESTS_ENGINE_DEVICE_H
#define TMCML_TESTS_ENGINE_DEVICE_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"

#include "gpu.h"
#include "gpu_runner.h"

static inline const tune_device *device_of(const gpu_engine *eng)
{
    static _Thread_local tune_device dev;
    gpu_runner_device(gpu_engine_device(eng), &dev);
    return &dev;
}

/* A GPU test's engine on GPU 0: 0, or 77 (ctest's skip) with the reason
 * on stdout when there is no GPU, or 1 when it would not open. */
static inline int engine_device_open(gpu_engine **eng)
{
    tm_error err = {0};
    if (gpu_device_count(&err) < 1) {
        char text[2048];
        printf("no GPU: skipped (%s)\n", error_format(&err, text, sizeof text));
        return 77;
    }
    if (!gpu_engine_open(0, eng, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    return 0;
}

/* check_case_run on GPU 0 (*eng open while the case runs) when on_gpu,
 * else on the CPU alone (*eng stays NULL); engine_device_open's status
 * when the GPU is not there. */
static inline int engine_device_run_case(gpu_engine **eng, bool on_gpu, const char *name,
                                         const check_case *cases, size_t n, const char *usage)
{
    int opened = on_gpu ? engine_device_open(eng) : 0;
    if (opened != 0)
        return opened;
    int status = check_case_run(name, cases, n, usage);
    if (*eng)
        gpu_engine_close(*eng);
    return status;
}

#endif
