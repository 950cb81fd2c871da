/* The GPUs outside a run (devices.h). */
#include "devices.h"

#include "cuda_driver.h"
#include "gpu_runner.h"

bool devices_query(int gpu, tune_device *dev)
{
    cuda_driver *drv;
    tm_error ignored;
    if (!cuda_open(&drv, &ignored))
        return false;
    cuda_device_info info;
    bool ok = cuda_device_query(drv, gpu, &info, &ignored);
    cuda_close(drv);
    if (ok)
        gpu_runner_device(&info, dev);
    return ok;
}

bool devices_describe(FILE *out, tm_error *err) { return cuda_describe_devices(out, err); }
