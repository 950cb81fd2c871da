/* One hardware work queue a CUDA context for the command line
 * (driver_queues.h says why). */
#include "driver_queues.h"

#include <stdlib.h>

bool driver_queues_apply(void)
{
    if (getenv(DRIVER_QUEUES_VARIABLE))
        return false;
    return setenv(DRIVER_QUEUES_VARIABLE, "1", 0) == 0;
}
