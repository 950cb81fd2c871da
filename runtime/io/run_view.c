/* A run as the kernel generator sees it (runtime/io/run_view.h). */
#include "run_view.h"

problem_shape run_view_shape(const mci_run *run, bool score_absorption)
{
    return (problem_shape){.num_layers = run->num_layers,
                           .nr = run->nr,
                           .nz = run->nz,
                           .na = run->na,
                           .score_absorption = score_absorption,
                           .time_bins = run->time_nt > 0,
                           .fiber = run->fiber_radius > 0.0};
}

void run_view_layers(const mci_run *run, spec_layer *layers)
{
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *l = &run->layers[i];
        layers[i] =
            (spec_layer){l->n, l->mua, l->mus, l->g, l->z0, l->z1, l->cos_crit0, l->cos_crit1};
    }
}
