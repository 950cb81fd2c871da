/* Quantities of the layer stack and the run's source that MCML derives once
 * per run: specular reflectance at the top surface and the layer a photon
 * enters first; and the surface's reflectance at any incidence, which a
 * fiber's oblique photons meet. */
#ifndef TMCML_OPTICS_H
#define TMCML_OPTICS_H

#include "mci.h"

/* MCML's Rspecular: Fresnel reflectance at normal incidence between the
 * medium above and layer 1; with a glass layer 1 (mua = mus = 0) the two
 * reflections of the glass slab are combined, r1 + (1-r1)^2 r2 / (1 - r1 r2).
 * The same for the broad beams (normal incidence too); 0 for a point source
 * (no surface crossed); for the oblique beam optics_surface_reflectance at
 * its angle; for a fiber the mean of
 * optics_surface_reflectance over its cone of directions (docs/physics.md,
 * "Sources"), the mean of what its photons lose at launch. */
double optics_specular(const mci_run *run);

/* Layer (1-based) where photons start: 1, or 2 when layer 1 is glass (then
 * num_layers + 1, the medium below, when the stack is that one glass layer);
 * a point source's own layer. */
int optics_first_layer(const mci_run *run);

/* Unpolarised Fresnel reflectance from a medium of index n1 into one of n2
 * at incidence cosine cos_i (0 <= cos_i <= 1): 1 under total internal
 * reflection. */
double optics_fresnel(double n1, double n2, double cos_i);

/* The top surface's reflectance for light from the medium above (index
 * n_above) at incidence cosine cos_i: optics_fresnel into layer 1 (n1),
 * or, with a glass layer 1 (glass1), its two surfaces (the second into
 * layer 2, n2) combined as optics_specular combines them. */
double optics_surface_reflectance(double n_above, double n1, bool glass1, double n2, double cos_i);

/* A fiber's cosine of its cone's half angle in the medium above:
 * sqrt(1 - (NA / n_above)^2). */
double optics_fiber_cos_max(const mci_run *run);

#endif
