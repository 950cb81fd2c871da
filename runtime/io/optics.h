/* Quantities of the layer stack that MCML derives once per run: specular
 * reflectance at the top surface and the layer a photon enters first. */
#ifndef TMCML_OPTICS_H
#define TMCML_OPTICS_H

#include "mci.h"

/* MCML's Rspecular: Fresnel reflectance at normal incidence between the
 * medium above and layer 1; with a glass layer 1 (mua = mus = 0) the two
 * reflections of the glass slab are combined, r1 + (1-r1)^2 r2 / (1 - r1 r2). */
double optics_specular(const mci_run *run);

/* Layer (1-based) where photons start: 1, or 2 when layer 1 is glass (then
 * num_layers + 1, the medium below, when the stack is that one glass layer). */
int optics_first_layer(const mci_run *run);

#endif
