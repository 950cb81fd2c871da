/* A run's layers as the kernels see them (runtime/io/spec_layers.h). */
#include "spec_layers.h"

void spec_layers_of_run(const mci_run *run, spec_layer *layers)
{
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *l = &run->layers[i];
        layers[i] =
            (spec_layer){l->n, l->mua, l->mus, l->g, l->z0, l->z1, l->cos_crit0, l->cos_crit1};
    }
}
