/* What a runner hands back (tuner/runner.h). */
#include "runner.h"

#include <stdlib.h>

void tune_measurement_free(tune_measurement *m)
{
    free(m->deposits);
    m->deposits = NULL;
}
