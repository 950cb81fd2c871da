/* The per-photon random streams (docs/rng.md), host side: the
 * multiplier table generated at build time and the generator from
 * templates/rng_mwc.h, which the CUDA kernels include unchanged. */
#ifndef TMCML_RNG_H
#define TMCML_RNG_H

#include <stdint.h>

#include "rng_mwc.h"

/* The generator's name in JSON summaries. */
#define RNG_MWC_NAME "mwc-per-photon"

/* MWC_MULTIPLIER_COUNT safe-prime multipliers, generated at build time by
 * tools/mwc_multipliers.c (never a copied file). */
extern const uint32_t rng_mwc_multipliers[MWC_MULTIPLIER_COUNT];

#endif
