/* The engine's device as the tuner sees it (api/gpu_runner.h), as an
 * expression: the GPU tests pass it straight to variant_spec_for_run. */
#ifndef TMCML_TESTS_ENGINE_DEVICE_H
#define TMCML_TESTS_ENGINE_DEVICE_H

#include "gpu.h"
#include "gpu_runner.h"

static inline const tune_device *device_of(const gpu_engine *eng)
{
    static _Thread_local tune_device dev;
    gpu_runner_device(gpu_engine_device(eng), &dev);
    return &dev;
}

#endif
