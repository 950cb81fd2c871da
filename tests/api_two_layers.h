/* The problem the tests of an optional output through the public header
 * share (test_api_paths.c, test_api_time.c): two layers on a 20 x 20 x 4
 * grid, 4000 photons of seed 7 on the engine asked for. */
#ifndef TMCML_TESTS_API_TWO_LAYERS_H
#define TMCML_TESTS_API_TWO_LAYERS_H

#include "tmcml.h"

static const tmcml_layer layers[2] = {
    {1.4, 0.5, 50.0, 0.8, 0.05},
    {1.4, 1.0, 30.0, 0.9, 0.1},
};
static const tmcml_grid grid = {0.01, 0.01, 20, 20, 4};

static inline void options(tmcml_options *opt, tmcml_engine engine)
{
    tmcml_options_init(opt);
    opt->engine = engine;
    opt->photons = 4000;
    opt->seed = 7;
}

#endif
