/* What the tests of lookup tables through the public header share
 * (test_api_lut.c, test_api_lut_errors.c): the slab of their tables, their
 * runs' options and the engine they run on, the CPU or (case gpu) the GPU. */
#ifndef TMCML_TESTS_API_LUT_H
#define TMCML_TESTS_API_LUT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tmcml.h"

#define SEED 20261129u
#define DR   0.05

static tmcml_engine engine = TMCML_ENGINE_CPU;

/* A slab (photons end soon) of n 1.37, g 0.8, d 0.5 cm between air, nr
 * rings of DR: its table of mua[0 .. k) by musp[0 .. m) made by strategy. */
static inline void lut_slab_spec(tmcml_lut_spec *spec, int nr, const double *mua, int k,
                                 const double *musp, int m, tmcml_lut_strategy strategy)
{
    tmcml_lut_spec_init(spec);
    spec->n = 1.37;
    spec->g = 0.8;
    spec->d = 0.5;
    spec->nr = nr;
    spec->dr = DR;
    spec->mua = mua;
    spec->num_mua = k;
    spec->musp = musp;
    spec->num_musp = m;
    spec->strategy = strategy;
}

/* A table of 16 simulations either way, each long enough (about 0.1 s)
 * that a cancel comes in the middle of it: the runs' 16 mua (a batch of 4
 * mus' each), the sets' 16 mus' (4 mua each); the slab, nr rings. */
typedef struct lut_long_table {
    double mua[16], musp[16];
    tmcml_lut_spec spec;
    int64_t photons;
} lut_long_table;

static inline void lut_long_table_of(lut_long_table *t, int nr, tmcml_lut_strategy strategy)
{
    bool runs = strategy == TMCML_LUT_RUNS;
    int k = runs ? 16 : 4, m = runs ? 4 : 16;
    for (int i = 0; i < k; i++)
        t->mua[i] = 0.1 * pow(20.0, (double)i / (k - 1));
    for (int j = 0; j < m; j++)
        t->musp[j] = 5.0 + 15.0 * j / (m - 1);
    lut_slab_spec(&t->spec, nr, t->mua, k, t->musp, m, strategy);
    t->photons = runs ? 6000 : 20000;
}

/* photons of seed SEED on engine, 2 threads; progress (NULL: none) called
 * with user every 2 ms. */
static inline void lut_options(tmcml_options *o, int64_t photons, tmcml_progress_fn progress,
                               void *user)
{
    tmcml_options_init(o);
    o->photons = photons;
    o->seed = SEED;
    o->engine = engine;
    o->threads = 2;
    if (progress) {
        o->progress = progress;
        o->progress_user = user;
        o->progress_interval = 0.002;
    }
}

/* engine the GPU when there is one: true; false, with a line saying the
 * case is skipped, when there is none. */
static inline bool lut_use_gpu(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_device dev;
    int count = 0;
    bool gpu = tmcml_devices(s, &dev, 1, &count) == TMCML_OK && count > 0;
    tmcml_session_delete(s);
    if (!gpu) {
        printf("SKIP: no GPU\n");
        return false;
    }
    engine = TMCML_ENGINE_GPU;
    return true;
}

#endif
