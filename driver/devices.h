/* The GPUs as a front end asks about them outside a run (`tmcml gen`,
 * `tmcml devices`): the CUDA driver opened for the question and closed. */
#ifndef TMCML_DEVICES_H
#define TMCML_DEVICES_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "runner.h"

/* GPU gpu as the tuner sees a device (its limits), false where there is no
 * driver or no such GPU. */
bool devices_query(int gpu, tune_device *dev);

/* One line a GPU on out (index, name, sm_XY, SMs, shared memory, free and
 * total memory, driver version); false with *err when there is no driver
 * or no GPU (cuda_describe_devices). */
bool devices_describe(FILE *out, tm_error *err);

#endif
