/* A run as the kernel generator sees it: its problem shape (gen/shape.h)
 * and its layers as spec values (gen/spec.h).  The one conversion from the
 * .mci model (runtime/io/mci.h): the GPU engine takes the layer table it
 * uploads from it, the heuristic the values an immediate variant bakes in,
 * the planner and the session the shape a variant is chosen for. */
#ifndef TMCML_RUN_VIEW_H
#define TMCML_RUN_VIEW_H

#include <stdbool.h>

#include "mci.h"
#include "shape.h"
#include "spec.h"

/* The shape of run scored with (true) or without (-A) A_rz. */
problem_shape run_view_shape(const mci_run *run, bool score_absorption);

/* run->layers, the media above and below included: layers[0 .. num_layers
 * + 1]. */
void run_view_layers(const mci_run *run, spec_layer *layers);

#endif
