/* Sampling each source's start (docs/physics.md, "Sources").  Each draw
 * turns 32-bit numbers of the photon's stream into a position and a
 * direction with the engine's own elementary functions (cpu_math.h:
 * -ln xi, the azimuth's cos and sin) and correctly rounded square roots, so
 * that a start is the same double on every CPU of one instruction set. */
#include "cpu_source.h"

#include <math.h>

#include "optics.h"

#define TWO_M32 0x1p-32

/* The oblique beam's start: refracted by Snell's law into the first layer
 * it scatters in, across a glass layer 1 at the glass's own angle. */
static void oblique_init(cpu_problem *p, const mci_run *run)
{
    double n_above = run->layers[0].n;
    source_refracted(&run->source, n_above, p->layers[p->first_layer].n, &p->beam_ux, &p->beam_uz);
    if (!mci_layer_is_glass(&run->layers[1]))
        return;
    double sg, cg;
    source_refracted(&run->source, n_above, run->layers[1].n, &sg, &cg);
    p->beam_x = cg > 0.0 ? run->layers[1].d * sg / cg : 0.0;
}

void cpu_source_init(cpu_problem *p, const mci_run *run)
{
    p->source = run->source;
    p->source_z = p->layers[p->first_layer].z0;
    p->fiber_cos_max = 1.0;
    p->fiber_glass_d = 0.0;
    p->beam_x = p->beam_ux = 0.0;
    p->beam_uz = 1.0;
    if (run->source.kind == SOURCE_OBLIQUE)
        oblique_init(p, run);
    if (run->source.kind == SOURCE_POINT)
        p->source_z = run->source.depth;
    if (run->source.kind == SOURCE_FIBER) {
        p->fiber_cos_max = optics_fiber_cos_max(run);
        if (mci_layer_is_glass(&run->layers[1]))
            p->fiber_glass_d = run->layers[1].d;
    }
}

/* A point at radius r and a uniform azimuth (one number). */
static void place(const cpu_problem *p, mwc_state *rng, double r, cpu_start *s)
{
    double c, sn;
    cpu_azimuth(p->azimuth_table, mwc_next(rng), &c, &sn);
    s->x = r * c;
    s->y = r * sn;
}

/* sqrt(1 - c^2) from 1 - c and 1 + c, accurate near c = +-1. */
static double sine_of(double one_minus_c, double one_plus_c)
{
    return sqrt(fmax(0.0, one_minus_c * one_plus_c));
}

/* An isotropic direction: cos theta uniform in (-1, 1), never 0 or +-1. */
static void isotropic(const cpu_problem *p, mwc_state *rng, cpu_start *s)
{
    double xi = ((double)mwc_next(rng) + 0.5) * TWO_M32;
    s->uz = 1.0 - 2.0 * xi;
    double st = sine_of(2.0 * xi, 2.0 - 2.0 * xi), c, sn;
    cpu_azimuth(p->azimuth_table, mwc_next(rng), &c, &sn);
    s->ux = st * c;
    s->uy = st * sn;
}

/* A fiber's photon: uniform over its disc, cos theta0 uniform in
 * [cos_max, 1] (uniform in solid angle within the cone), weight 1 - R(theta0)
 * (the surface's Fresnel reflectance at that angle), refracted into the
 * first layer, displaced across a glass layer 1 on its way. */
static void fiber(const cpu_problem *p, mwc_state *rng, cpu_start *s)
{
    place(p, rng, p->source.radius * sqrt((double)mwc_next(rng) * TWO_M32), s);
    double one_minus_c = (double)mwc_next(rng) * TWO_M32 * (1.0 - p->fiber_cos_max);
    double c0 = 1.0 - one_minus_c, s0 = sine_of(one_minus_c, 2.0 - one_minus_c);
    double cp, sp;
    cpu_azimuth(p->azimuth_table, mwc_next(rng), &cp, &sp);
    const cpu_layer *above = &p->layers[0], *l1 = &p->layers[1], *l2 = &p->layers[2];
    s->w = 1.0 - optics_surface_reflectance(above->n, l1->n, l1->glass, l2->n, c0);
    double st = above->n * s0 / p->layers[p->first_layer].n;
    if (st >= 1.0 || s->w <= 0.0) { /* reflected whole: a photon of no weight */
        s->w = 0.0;
        return;
    }
    s->ux = st * cp;
    s->uy = st * sp;
    s->uz = sqrt((1.0 - st) * (1.0 + st));
    if (p->fiber_glass_d > 0.0) {
        double sg = above->n * s0 / l1->n, cg = sqrt(fmax(0.0, (1.0 - sg) * (1.0 + sg)));
        double shift = cg > 0.0 ? p->fiber_glass_d * sg / cg : 0.0;
        s->x += shift * cp;
        s->y += shift * sp;
    }
}

void cpu_source_draw(const cpu_problem *p, mwc_state *rng, cpu_start *s)
{
    switch (p->source.kind) {
    case SOURCE_GAUSSIAN: /* r^2 exponential of mean W^2 / 2 */
        place(p, rng, p->source.radius * sqrt(0.5 * cpu_neg_log_uniform(mwc_next(rng))), s);
        break;
    case SOURCE_FLAT: /* r^2 uniform in [0, R^2) */
        place(p, rng, p->source.radius * sqrt((double)mwc_next(rng) * TWO_M32), s);
        break;
    case SOURCE_POINT:
        s->z = p->source_z;
        s->w = 1.0;
        isotropic(p, rng, s);
        break;
    case SOURCE_FIBER: fiber(p, rng, s); break;
    case SOURCE_OBLIQUE: /* no number drawn: every photon starts alike */
        s->x = p->beam_x;
        s->ux = p->beam_ux;
        s->uz = p->beam_uz;
        break;
    default: break;
    }
}

double cpu_source_cos_in(const cpu_problem *p, int i, double uz)
{
    double st = p->layers[p->first_layer].n * sine_of(1.0 - uz, 1.0 + uz) / p->layers[i].n;
    return sqrt(fmax(0.0, (1.0 - st) * (1.0 + st)));
}
