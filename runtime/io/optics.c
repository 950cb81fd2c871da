#include "optics.h"

static double normal_fresnel(double n1, double n2)
{
    double r = (n1 - n2) / (n1 + n2);
    return r * r;
}

double optics_specular(const mci_run *run)
{
    const mci_layer *l = run->layers;
    double r1 = normal_fresnel(l[0].n, l[1].n);
    if (!mci_layer_is_glass(&l[1]))
        return r1;
    double r2 = normal_fresnel(l[1].n, l[2].n);
    return r1 + (1.0 - r1) * (1.0 - r1) * r2 / (1.0 - r1 * r2);
}

int optics_first_layer(const mci_run *run) { return mci_layer_is_glass(&run->layers[1]) ? 2 : 1; }
