/* A run as the kernel generator sees it (runtime/io/run_view.h). */
#include "run_view.h"

#include <math.h>

problem_shape run_view_shape(const mci_run *run, bool score_absorption)
{
    return (problem_shape){.num_layers = run->num_layers,
                           .nr = run->nr,
                           .nz = run->nz,
                           .na = run->na,
                           .score_absorption = score_absorption,
                           .source = (int)run->source.kind,
                           .time_bins = run->time_nt > 0,
                           .fiber = run->fiber_count > 0,
                           .fibers = run->fiber_count > 1 ? run->fiber_count : 0,
                           .fx = run->fx_count,
                           .mod = run->mod_count,
                           .xy = run->xy_nx};
}

_Static_assert(SOURCE_KINDS == SHAPE_SOURCE_KINDS, "gen/shape.h's source kinds");

/* The medium above is never a photon's layer, so its record carries a
 * source's parameters (docs/physics.md, "Sources"; templates/source.cu reads
 * them): through spec_layer's fields, which layer_records_fill copies (z0,
 * z1, g, cos_crit0, cos_crit1) or sums (mut = mua + mus), so that every
 * placement, the immediate one too, gets them.  n stays n above.
 *   z0         the kind's first parameter (source_kind_table): W, R or z0
 *   z1         fiber: 1 - cos theta_max (in double, then rounded once)
 *   g          fiber: n above / n of layer 1
 *   cos_crit0  fiber under a glass layer 1: n of layer 1 / n of layer 2
 *   cos_crit1  fiber: n above / n of the first layer (Snell's law to it)
 *   mua        fiber under a glass layer 1: its thickness (record's mut)
 * and for the oblique beam, whose photons all start alike (oblique_record):
 *   z0         x of the start: a glass layer 1's thickness x tan theta there
 *   z1, cos_crit1  ux and uz of the direction refracted into the first layer
 * A pencil run's record is MCML's medium above, as before. */
static void oblique_record(const mci_run *run, spec_layer *above)
{
    const mci_layer *l = run->layers;
    int first = mci_layer_is_glass(&l[1]) ? 2 : 1;
    double sin_t, cos_t;
    source_refracted(&run->source, l[0].n, l[first].n, &sin_t, &cos_t);
    above->z1 = sin_t;
    above->cos_crit1 = cos_t;
    if (first == 2) {
        double sin_g, cos_g;
        source_refracted(&run->source, l[0].n, l[1].n, &sin_g, &cos_g);
        above->z0 = cos_g > 0.0 ? l[1].d * sin_g / cos_g : 0.0;
    }
}

static void source_record(const mci_run *run, spec_layer *above)
{
    const source_desc *s = &run->source;
    const mci_layer *l = run->layers;
    bool glass = mci_layer_is_glass(&l[1]);
    double n0 = l[0].n, s_max = s->na / n0;
    int first = glass ? 2 : 1;
    *above = (spec_layer){.n = n0, .z0 = source_value(s, 0)};
    if (s->kind == SOURCE_OBLIQUE) {
        *above = (spec_layer){.n = n0};
        oblique_record(run, above);
        return;
    }
    if (s->kind != SOURCE_FIBER)
        return;
    /* 1 - sqrt(1 - s^2) without cancellation */
    above->z1 = s_max * s_max / (1.0 + sqrt(fmax(0.0, 1.0 - s_max * s_max)));
    above->g = n0 / l[1].n;
    above->cos_crit0 = glass ? l[1].n / l[2].n : 0.0;
    above->cos_crit1 = n0 / l[first].n;
    above->mua = glass ? l[1].d : 0.0;
}

void run_view_layers(const mci_run *run, spec_layer *layers)
{
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *l = &run->layers[i];
        layers[i] =
            (spec_layer){l->n, l->mua, l->mus, l->g, l->z0, l->z1, l->cos_crit0, l->cos_crit1};
    }
    if (!source_is_pencil(&run->source))
        source_record(run, &layers[0]);
}
