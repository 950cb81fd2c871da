#include "optics.h"

#include <math.h>

/* Nodes of the midpoint rule for a fiber's mean specular reflectance: the
 * reflectance is smooth in cos theta except at a total internal reflection's
 * edge, where the rule's error is at most 1/nodes (docs/physics.md). */
#define FIBER_SPECULAR_NODES 65536

static double normal_fresnel(double n1, double n2)
{
    double r = (n1 - n2) / (n1 + n2);
    return r * r;
}

/* MCML's Rsp at normal incidence (bit for bit as before sources). */
static double pencil_specular(const mci_run *run)
{
    const mci_layer *l = run->layers;
    double r1 = normal_fresnel(l[0].n, l[1].n);
    if (!mci_layer_is_glass(&l[1]))
        return r1;
    double r2 = normal_fresnel(l[1].n, l[2].n);
    return r1 + (1.0 - r1) * (1.0 - r1) * r2 / (1.0 - r1 * r2);
}

double optics_fresnel(double n1, double n2, double cos_i)
{
    if (n1 == n2)
        return 0.0;
    double sin_i = sqrt(fmax(0.0, 1.0 - cos_i * cos_i));
    double sin_t = n1 / n2 * sin_i;
    if (sin_t >= 1.0)
        return 1.0;
    double cos_t = sqrt(1.0 - sin_t * sin_t);
    double rs = (n1 * cos_i - n2 * cos_t) / (n1 * cos_i + n2 * cos_t);
    double rp = (n1 * cos_t - n2 * cos_i) / (n1 * cos_t + n2 * cos_i);
    return 0.5 * (rs * rs + rp * rp);
}

double optics_surface_reflectance(double n_above, double n1, bool glass1, double n2, double cos_i)
{
    double r1 = optics_fresnel(n_above, n1, cos_i);
    if (!glass1 || r1 >= 1.0)
        return r1;
    /* The angle in the glass from Snell's law; r1 < 1 means it exists. */
    double sin_1 = n_above / n1 * sqrt(fmax(0.0, 1.0 - cos_i * cos_i));
    double r2 = optics_fresnel(n1, n2, sqrt(fmax(0.0, 1.0 - sin_1 * sin_1)));
    return r1 + (1.0 - r1) * (1.0 - r1) * r2 / (1.0 - r1 * r2);
}

double optics_fiber_cos_max(const mci_run *run)
{
    double s = run->source.na / run->layers[0].n;
    return sqrt(fmax(0.0, 1.0 - s * s));
}

/* The mean of the surface's reflectance over the fiber's directions,
 * uniform in cos theta over [cos_max, 1] (uniform in solid angle). */
static double fiber_specular(const mci_run *run)
{
    const mci_layer *l = run->layers;
    bool glass = mci_layer_is_glass(&l[1]);
    double c = optics_fiber_cos_max(run), width = 1.0 - c;
    if (width == 0.0)
        return optics_surface_reflectance(l[0].n, l[1].n, glass, l[2].n, 1.0);
    double sum = 0.0;
    for (int k = 0; k < FIBER_SPECULAR_NODES; k++)
        sum += optics_surface_reflectance(l[0].n, l[1].n, glass, l[2].n,
                                          c + width * (k + 0.5) / FIBER_SPECULAR_NODES);
    return sum / FIBER_SPECULAR_NODES;
}

/* The surface's reflectance at the oblique beam's angle: unpolarised
 * Fresnel, a glass layer 1's two surfaces combined as MCML's Rsp.  At 0
 * degrees it is the pencil's Rsp bit for bit (optics_fresnel's rs and rp
 * are then +-(n1 - n2) / (n1 + n2), as normal_fresnel's r). */
static double oblique_specular(const mci_run *run)
{
    const mci_layer *l = run->layers;
    return optics_surface_reflectance(l[0].n, l[1].n, mci_layer_is_glass(&l[1]), l[2].n,
                                      source_incidence_cos(&run->source));
}

double optics_specular(const mci_run *run)
{
    switch (run->source.kind) {
    case SOURCE_POINT: return 0.0;
    case SOURCE_FIBER: return fiber_specular(run);
    case SOURCE_OBLIQUE: return oblique_specular(run);
    default: return pencil_specular(run);
    }
}

int optics_first_layer(const mci_run *run)
{
    if (run->source.kind == SOURCE_POINT)
        return source_point_layer(&run->source, run);
    return mci_layer_is_glass(&run->layers[1]) ? 2 : 1;
}
