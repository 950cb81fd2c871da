/* A photon's start on the CPU for every source but MCML's pencil beam
 * (runtime/io/source.h; docs/physics.md, "Sources"): its position,
 * direction and weight drawn from the photon's own stream, before any
 * number of its steps. */
#ifndef TMCML_CPU_SOURCE_H
#define TMCML_CPU_SOURCE_H

#include "cpu_problem.h"
#include "rng.h"

/* Where and how a photon starts. */
typedef struct cpu_start {
    double x, y, z;
    double ux, uy, uz;
    double w;
} cpu_start;

/* The source's constants of p (source, source_z, fiber_cos_max,
 * fiber_glass_d, the oblique beam's start) from the run; p's layers and
 * first_layer set before. */
void cpu_source_init(cpu_problem *p, const mci_run *run);

/* Draws the start of a photon of p's source (not the pencil) from rng (the
 * oblique beam draws nothing): *s holds the pencil's start on entry (r = 0,
 * along +z, 1 - Rsp, where Rsp is the source's: optics_specular). */
void cpu_source_draw(const cpu_problem *p, mwc_state *rng, cpu_start *s);

/* The cosine, in layer i (above p's first layer, so glass), of a direction
 * whose cosine in the first layer is uz (Snell's law n sin theta kept). */
double cpu_source_cos_in(const cpu_problem *p, int i, double uz);

#endif
