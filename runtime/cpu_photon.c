/* MCML 1.2.2 physics (Wang, Jacques & Zheng 1995; mcmlgo.c), one function per
 * idea of the paper: hop, drop, spin, cross-or-not, roulette.  A reviewer
 * should be able to put the paper beside this file.
 *
 * Choices (docs/physics.md):
 *  - on a boundary hit the remaining dimensionless step (s - d_b) * mut is
 *    kept and spent in the next layer, as MCML does;
 *  - all-or-none Fresnel reflection (MCML's PARTIALREFLECTION = 0);
 *  - out-of-grid deposits and escapes go to the last bin, as MCML. */
#include "cpu_photon.h"

#include <math.h>
#include <stdlib.h>

#include "fixed_point.h"
#include "optics.h"
#include "rng.h"

#define WEIGHT_THRESHOLD 1e-4 /* MCML's Wth */
#define ROULETTE_CHANCE 0.1   /* MCML's CHANCE */
#define COS_ZERO (1.0 - 1.0e-12)
#define COS_90D 1.0e-6

typedef struct photon {
    double x, y, z;
    double ux, uy, uz;
    double w;
    double s;     /* step size of the current hop [cm] */
    double sleft; /* dimensionless step left over at a boundary */
    double residue; /* fraction of a tally unit not yet scored (fixed_point.h) */
    int layer;
    bool dead;
    mwc_state rng;
} photon;

bool cpu_problem_init(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption)
{
    p->layers = calloc((size_t)run->num_layers + 2, sizeof *p->layers);
    if (!p->layers)
        return false;
    p->num_layers = run->num_layers;
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *src = &run->layers[i];
        cpu_layer *l = &p->layers[i];
        l->n = src->n;
        l->mua = src->mua;
        l->mus = src->mus;
        l->mut = src->mua + src->mus;
        l->inv_mut = l->mut > 0.0 ? 1.0 / l->mut : 0.0;
        l->absorbed_fraction = l->mut > 0.0 ? src->mua / l->mut : 0.0;
        l->inv_2g = src->g != 0.0 ? 0.5 / src->g : 0.0;
        l->g = src->g;
        l->z0 = src->z0;
        l->z1 = src->z1;
        l->cos_crit0 = src->cos_crit0;
        l->cos_crit1 = src->cos_crit1;
        l->glass = mci_layer_is_glass(src);
    }
    p->nr = run->nr;
    p->nz = run->nz;
    p->na = run->na;
    p->dr = run->dr;
    p->dz = run->dz;
    p->da = run->da;
    p->inv_dr = 1.0 / run->dr;
    p->inv_dz = 1.0 / run->dz;
    p->inv_da = 1.0 / run->da;
    p->start_weight = 1.0 - optics_specular(run);
    p->first_layer = optics_first_layer(run);
    p->score_absorption = score_absorption;
    p->seed = seed;
    p->multipliers = rng_mwc_multipliers;
    return true;
}

void cpu_problem_free(cpu_problem *p)
{
    free(p->layers);
    p->layers = NULL;
}

/* MCML's binning: floor(value / step), clamped into the last bin. */
static int bin_index(double value, double inv_step, int count)
{
    double f = value * inv_step;
    return f >= (double)(count - 1) ? count - 1 : (int)f;
}

static void launch(const cpu_problem *p, uint64_t index, photon *ph)
{
    ph->x = ph->y = 0.0;
    ph->ux = ph->uy = 0.0;
    ph->uz = 1.0;
    ph->w = p->start_weight;
    ph->s = ph->sleft = 0.0;
    ph->residue = FIXED_POINT_START_RESIDUE;
    ph->layer = p->first_layer;
    ph->z = p->layers[ph->layer].z0;
    ph->dead = false;
    mwc_seed(&ph->rng, p->seed, index, p->multipliers);
}

/* Escape through the top (reflectance) or bottom (transmittance) surface:
 * the whole weight goes into the r-angle bin of the exit direction. */
static void record_escape(const cpu_problem *p, photon *ph, uint64_t *ra, double exit_cos)
{
    int ir = bin_index(sqrt(ph->x * ph->x + ph->y * ph->y), p->inv_dr, p->nr);
    int ia = bin_index(acos(exit_cos), p->inv_da, p->na);
    ra[(size_t)ir * (size_t)p->na + (size_t)ia] += fixed_point_from_weight(ph->w);
    ph->dead = true;
}

static void hop(photon *ph)
{
    ph->x += ph->s * ph->ux;
    ph->y += ph->s * ph->uy;
    ph->z += ph->s * ph->uz;
}

/* New step from -ln(xi)/mut, or the leftover of a boundary hit. */
static void step_size_in_tissue(const cpu_layer *l, photon *ph)
{
    if (ph->sleft == 0.0) {
        ph->s = -log(mwc_uniform_open0(&ph->rng)) * l->inv_mut;
    } else {
        ph->s = ph->sleft * l->inv_mut;
        ph->sleft = 0.0;
    }
}

/* Shortens the step to the boundary when it would cross one, keeping the
 * rest (dimensionless) for after the boundary. */
static bool hit_boundary(const cpu_layer *l, photon *ph)
{
    /* s > (boundary - z) / uz, tested without the division on the common
     * no-hit path. */
    double gap;
    if (ph->uz > 0.0) {
        gap = l->z1 - ph->z;
        if (ph->s * ph->uz <= gap)
            return false;
    } else if (ph->uz < 0.0) {
        gap = l->z0 - ph->z;
        if (ph->s * ph->uz >= gap)
            return false;
    } else {
        return false;
    }
    double db = gap / ph->uz;
    ph->sleft = (ph->s - db) * l->mut;
    ph->s = db;
    return true;
}

static void drop(const cpu_problem *p, const cpu_layer *l, photon *ph, tally_batch *b)
{
    double dw = ph->w * l->absorbed_fraction;
    ph->w -= dw;
    if (!p->score_absorption)
        return;
    int iz = bin_index(ph->z, p->inv_dz, p->nz);
    int ir = bin_index(sqrt(ph->x * ph->x + ph->y * ph->y), p->inv_dr, p->nr);
    size_t bin = (size_t)ir * (size_t)p->nz + (size_t)iz;
    b->a_rz[bin] += fixed_point_deposit(dw, &ph->residue);
    if (b->a_rz_exact)
        b->a_rz_exact[bin] += dw;
}

/* Henyey-Greenstein deflection cosine; isotropic for g = 0. */
static double spin_theta(const cpu_layer *l, mwc_state *rng)
{
    double xi = mwc_uniform(rng);
    double g = l->g;
    if (g == 0.0)
        return 2.0 * xi - 1.0;
    if (g == 1.0 || g == -1.0) /* a fixed deflection; the formula is 0/0 at one xi */
        return g;
    double t = (1.0 - g * g) / (1.0 - g + 2.0 * g * xi);
    double cost = (1.0 + g * g - t * t) * l->inv_2g;
    return cost < -1.0 ? -1.0 : (cost > 1.0 ? 1.0 : cost);
}

/* An azimuth psi uniform in [0, 2 pi) as cos psi = c / q, sin psi = s / q,
 * from a point (u, v) uniform in the unit disc (Marsaglia's polar method):
 * the angle of (u, v) is uniform, and (u^2 - v^2, 2uv) / (u^2 + v^2) is
 * (cos, sin) of twice that angle.  ~2.5 random numbers and no sincos call,
 * which was a third of the CPU engine's instructions. */
static void azimuth(mwc_state *rng, double *c, double *s, double *q)
{
    double u, v, r2;
    do {
        u = 2.0 * mwc_uniform(rng) - 1.0;
        v = 2.0 * mwc_uniform(rng) - 1.0;
        r2 = u * u + v * v;
    } while (r2 > 1.0 || r2 == 0.0);
    *c = u * u - v * v;
    *s = 2.0 * u * v;
    *q = r2;
}

/* New direction after a deflection by theta (HG) and an azimuth psi
 * (uniform), MCML's formulas with the azimuth as (c, s) / q: cos psi = c / q,
 * sin psi = s / q, which leaves one division per spin. */
static void spin(const cpu_layer *l, photon *ph)
{
    double cost = spin_theta(l, &ph->rng);
    double sint = sqrt(1.0 - cost * cost);
    double c, s, q;
    azimuth(&ph->rng, &c, &s, &q);
    double ux = ph->ux, uy = ph->uy, uz = ph->uz;
    if (fabs(uz) > COS_ZERO) { /* along the z axis: the general formula divides by 0 */
        double k = sint / q;
        ph->ux = k * c;
        ph->uy = k * s;
        ph->uz = uz >= 0.0 ? cost : -cost;
    } else {
        double temp = sqrt(1.0 - uz * uz);
        double k = sint / (q * temp); /* sin(theta) / (q sqrt(1 - uz^2)) */
        ph->ux = k * (ux * uz * c - uy * s) + ux * cost;
        ph->uy = k * (uy * uz * c + ux * s) + uy * cost;
        ph->uz = -k * temp * temp * c + uz * cost;
    }
}

/* Unpolarised Fresnel reflectance from medium n1 to n2 at incidence cosine
 * ca1 (> 0); *ca2 receives the transmission cosine.  MCML's RFresnel. */
static double fresnel(double n1, double n2, double ca1, double *ca2)
{
    if (n1 == n2) {
        *ca2 = ca1;
        return 0.0;
    }
    if (ca1 > COS_ZERO) {
        *ca2 = ca1;
        double r = (n2 - n1) / (n2 + n1);
        return r * r;
    }
    if (ca1 < COS_90D) {
        *ca2 = 0.0;
        return 1.0;
    }
    double sa1 = sqrt(1.0 - ca1 * ca1);
    double sa2 = n1 * sa1 / n2;
    if (sa2 >= 1.0) {
        *ca2 = 0.0;
        return 1.0;
    }
    double c2 = sqrt(1.0 - sa2 * sa2);
    *ca2 = c2;
    double cap = ca1 * c2 - sa1 * sa2; /* cos(a1 + a2) */
    double cam = ca1 * c2 + sa1 * sa2; /* cos(a1 - a2) */
    double sap = sa1 * c2 + ca1 * sa2; /* sin(a1 + a2) */
    double sam = sa1 * c2 - ca1 * sa2; /* sin(a1 - a2) */
    return 0.5 * sam * sam * (cam * cam + cap * cap) / (sap * sap * cam * cam);
}

/* At the top boundary of the photon's layer, moving up (uz < 0). */
static void cross_up_or_not(const cpu_problem *p, photon *ph, tally_batch *b)
{
    const cpu_layer *l = &p->layers[ph->layer];
    double ni = l->n, nt = p->layers[ph->layer - 1].n;
    double uz = ph->uz, uz1 = 0.0;
    double r = -uz <= l->cos_crit0 ? 1.0 : fresnel(ni, nt, -uz, &uz1);
    if (mwc_uniform(&ph->rng) > r) {
        if (ph->layer == 1) {
            record_escape(p, ph, b->rd_ra, uz1);
        } else {
            ph->layer--;
            ph->ux *= ni / nt;
            ph->uy *= ni / nt;
            ph->uz = -uz1;
        }
    } else {
        ph->uz = -uz;
    }
}

/* At the bottom boundary of the photon's layer, moving down (uz > 0). */
static void cross_down_or_not(const cpu_problem *p, photon *ph, tally_batch *b)
{
    const cpu_layer *l = &p->layers[ph->layer];
    double ni = l->n, nt = p->layers[ph->layer + 1].n;
    double uz = ph->uz, uz1 = 0.0;
    double r = uz <= l->cos_crit1 ? 1.0 : fresnel(ni, nt, uz, &uz1);
    if (mwc_uniform(&ph->rng) > r) {
        if (ph->layer == p->num_layers) {
            record_escape(p, ph, b->tt_ra, uz1);
        } else {
            ph->layer++;
            ph->ux *= ni / nt;
            ph->uy *= ni / nt;
            ph->uz = uz1;
        }
    } else {
        ph->uz = -uz;
    }
}

static void cross_or_not(const cpu_problem *p, photon *ph, tally_batch *b)
{
    if (ph->uz < 0.0)
        cross_up_or_not(p, ph, b);
    else
        cross_down_or_not(p, ph, b);
}

/* Glass: no interaction, straight to the next boundary.  A photon moving
 * parallel to the boundaries of a glass layer never leaves it: MCML kills it. */
static void hop_in_glass(const cpu_problem *p, photon *ph, tally_batch *b)
{
    const cpu_layer *l = &p->layers[ph->layer];
    if (ph->uz == 0.0) {
        ph->dead = true;
        return;
    }
    ph->s = ph->uz > 0.0 ? (l->z1 - ph->z) / ph->uz : (l->z0 - ph->z) / ph->uz;
    hop(ph);
    cross_or_not(p, ph, b);
}

static void hop_drop_spin_in_tissue(const cpu_problem *p, photon *ph, tally_batch *b)
{
    const cpu_layer *l = &p->layers[ph->layer];
    step_size_in_tissue(l, ph);
    if (hit_boundary(l, ph)) {
        hop(ph);
        cross_or_not(p, ph, b);
    } else {
        hop(ph);
        drop(p, l, ph, b);
        spin(l, ph);
    }
}

/* Survival of the lightest: below the threshold a photon lives on with
 * probability CHANCE and weight / CHANCE, which conserves weight on average. */
static void roulette(photon *ph)
{
    if (ph->w == 0.0)
        ph->dead = true;
    else if (mwc_uniform(&ph->rng) < ROULETTE_CHANCE)
        ph->w /= ROULETTE_CHANCE;
    else
        ph->dead = true;
}

void cpu_photon_simulate(const cpu_problem *p, uint64_t index, tally_batch *b)
{
    photon ph;
    launch(p, index, &ph);
    if (ph.layer > p->num_layers) { /* the whole stack is one glass layer */
        record_escape(p, &ph, b->tt_ra, 1.0);
        return;
    }
    uint64_t steps = 0;
    while (!ph.dead) {
        steps++;
        if (p->layers[ph.layer].glass)
            hop_in_glass(p, &ph, b);
        else
            hop_drop_spin_in_tissue(p, &ph, b);
        if (ph.w < WEIGHT_THRESHOLD && !ph.dead)
            roulette(&ph);
    }
    b->steps += steps;
}
