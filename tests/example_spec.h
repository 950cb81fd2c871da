/* The three-layer spec the generator's tests render (test_render.c,
 * test_locale.c): a 50 x 40 x 30 grid, every layer's optics distinct, the
 * neutral knobs. */
#ifndef TMCML_TESTS_EXAMPLE_SPEC_H
#define TMCML_TESTS_EXAMPLE_SPEC_H

#include "spec.h"

static inline kernel_spec example_spec(void)
{
    kernel_spec s;
    spec_init(&s);
    s.num_layers = 3;
    s.nr = 50;
    s.nz = 40;
    s.na = 30;
    s.dr = 0.01;
    s.dz = 0.002;
    s.da = 3.14159265358979323846 / 60;
    for (int i = 0; i < s.num_layers + 2; i++) {
        s.layers[i].n = 1.0 + 0.1 * i;
        s.layers[i].mua = 0.5 * i;
        s.layers[i].mus = 100.0 * i;
        s.layers[i].g = 0.9;
        s.layers[i].z0 = 0.01 * (i - 1);
        s.layers[i].z1 = 0.01 * i;
    }
    return s;
}

#endif
