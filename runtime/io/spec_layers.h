/* A run's layers as the kernels see them: the one conversion from the .mci
 * model (runtime/io/mci.h) to the spec's layer values (gen/spec.h), used by
 * the GPU engine for the table it uploads and by the heuristic for the
 * values an immediate variant bakes in. */
#ifndef TMCML_SPEC_LAYERS_H
#define TMCML_SPEC_LAYERS_H

#include "mci.h"
#include "spec.h"

/* run->layers, the media above and below included: layers[0 .. num_layers
 * + 1]. */
void spec_layers_of_run(const mci_run *run, spec_layer *layers);

#endif
