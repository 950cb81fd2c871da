/* MCML 1.2.2 physics (Wang, Jacques & Zheng 1995; mcmlgo.c), one function per
 * idea of the paper: hop, drop, spin, cross-or-not, roulette.  A reviewer
 * should be able to put the paper beside this file.
 *
 * Choices (docs/physics.md):
 *  - on a boundary hit the remaining dimensionless step (s - d_b) * mut is
 *    kept and spent in the next layer, as MCML does;
 *  - all-or-none Fresnel reflection (MCML's PARTIALREFLECTION = 0);
 *  - out-of-grid deposits and escapes go to the last bin, as MCML.
 *
 * Speed (bench/results.md): everything a step does is inlined into the step
 * loop (cpu_photon_simulate), so that the photon is a set of local variables
 * the compiler keeps in registers: its address is never passed to a function
 * that is not inlined.  The common step makes no call at all: -ln xi and the
 * azimuth's cos and sin are polynomials (cpu_math.h) instead of libm calls,
 * which would also force every live floating-point register to the stack
 * (all XMM registers are caller-saved). */
#include "cpu_photon.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_bessel.h"
#include "cpu_source.h"
#include "detector.h"
#include "fixed_point.h"
#include "rng.h"
#include "time_bins.h"

#define WEIGHT_THRESHOLD 1e-4 /* MCML's Wth */
#define ROULETTE_CHANCE  0.1  /* MCML's CHANCE */
#define COS_ZERO         (1.0 - 1.0e-12)
#define COS_90D          1.0e-6
/* mwc_uniform's largest value, 1 - 2^-32 (exact in a double). */
#define UNIFORM_MAX      (4294967295.0 / 4294967296.0)
#define TWO_PI           6.283185307179586476925286766559

/* A photon draws the random numbers of its steps and deflections ahead of
 * their use (new_step_next, draw_spin_ahead): turning a 32-bit number into
 * -ln xi, into the HG cos theta or into cos psi and sin psi is a long chain
 * of dependent operations, which then runs while the photon's current step
 * is computed instead of delaying it.  A number drawn ahead is not looked at
 * before its use, so each use still gets a fresh uniform independent of
 * everything the photon did before: the order of the draws in the stream
 * differs from MCML's, their distribution does not.  cos theta depends on
 * the layer's g: it is computed for the photon's layer, and again when the
 * photon enters another one (cross_or_not). */
typedef struct photon {
    double x, y, z;
    double ux, uy, uz;
    double w;
    double step_mfp;         /* length of the next step in mean free paths: a new
                                -ln xi, or what is left of a step cut short at a
                                boundary (MCML's sleft) */
    double step_ahead;       /* -ln xi of the new step after that */
    uint32_t u_theta;        /* random integer of the next deflection */
    double cos_theta;        /* its cos theta in the photon's layer */
    double cos_psi, sin_psi; /* its azimuth */
    int layer;
    bool dead;
    double exit_cos; /* dead by leaving the stack: the cosine of its exit direction */
    mwc_state rng;
} photon;

/* Two operations written as SSE2 instructions where there are some (every
 * x86-64 CPU), because the compiler's own versions add a branch:
 *  - the square root of a number known to be >= 0 (libm's sqrt tests its
 *    argument, to set errno on a negative one); the same correctly rounded
 *    operation;
 *  - a < b ? a : b. */
static inline double root(double x)
{
#if defined(__SSE2__)
    return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(x), _mm_set_sd(x)));
#else
    return sqrt(x);
#endif
}

static inline double min_of(double a, double b)
{
#if defined(__SSE2__)
    return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b)));
#else
    return a < b ? a : b;
#endif
}

/* MCML's binning: floor(value / step), clamped into the last bin, for
 * value >= 0 (or a rounding error below 0).  Clamped before the conversion,
 * so that it is defined for any quotient (NaN included). */
static inline size_t bin_index(double value, double inv_step, double last)
{
    return (size_t)(int64_t)min_of(value * inv_step, last);
}

/* The Cartesian grid's cell of coordinate v (x or y; docs/outputs.md,
 * "Cartesian grid"): floor(v / dx + nx / 2), or -1 beyond the grid, where
 * nothing is scored in it (not clamped into the last cell, unlike MCML's
 * binning: bin_index).  NaN is beyond it. */
static inline int xy_cell(const cpu_problem *p, double v)
{
    double c = v * p->xy_inv_dx + 0.5 * p->xy_nx;
    return c >= 0.0 && c < (double)p->xy_nx ? (int)c : -1;
}

/* The next step is a new one: -ln xi drawn ahead, and the one after it
 * drawn. */
static inline void new_step_next(photon *ph)
{
    ph->step_mfp = ph->step_ahead;
    ph->step_ahead = cpu_neg_log_uniform(mwc_next(&ph->rng));
}

/* Deflection cosine for xi = u 2^-32: Henyey-Greenstein (isotropic at
 * g = 0), or the fixed deflection of |g| = 1. */
static inline double spin_theta(const cpu_layer *l, uint32_t u)
{
    if (__builtin_expect(l->phase == CPU_PHASE_FIXED, 0))
        return l->g;
    return cpu_hg_cos_theta(l->g, l->hg_h, u);
}

static inline void draw_spin_ahead(const cpu_problem *p, const cpu_layer *l, photon *ph)
{
    ph->u_theta = mwc_next(&ph->rng);
    ph->cos_theta = spin_theta(l, ph->u_theta);
    cpu_azimuth(p->azimuth_table, mwc_next(&ph->rng), &ph->cos_psi, &ph->sin_psi);
}

/* Another source's start, drawn first from the photon's stream
 * (cpu_source.c); out of line, so the pencil's launch stays as it was. */
static __attribute__((noinline)) void launch_source(const cpu_problem *p, photon *ph)
{
    cpu_start s = {.z = ph->z, .uz = 1.0, .w = ph->w};
    cpu_source_draw(p, &ph->rng, &s);
    ph->x = s.x;
    ph->y = s.y;
    ph->z = s.z;
    ph->ux = s.ux;
    ph->uy = s.uy;
    ph->uz = s.uz;
    ph->w = s.w;
}

/* Photon `index` at the top of its first layer, moving down with weight
 * 1 - Rsp (MCML's pencil beam), or where its source puts it; with its first
 * numbers drawn. */
static inline photon launch(const cpu_problem *p, uint64_t index)
{
    photon ph = {.uz = 1.0, .w = p->start_weight, .layer = p->first_layer};
    ph.z = p->layers[ph.layer].z0;
    mwc_seed(&ph.rng, p->seed, index, p->multipliers);
    if (p->source.kind != SOURCE_PENCIL)
        launch_source(p, &ph);
    ph.step_ahead = cpu_neg_log_uniform(mwc_next(&ph.rng));
    new_step_next(&ph);
    draw_spin_ahead(p, &p->layers[ph.layer], &ph);
    return ph;
}

/* The r-angle bin of an escape at (x, y) with exit direction cosine
 * exit_cos. */
static size_t escape_bin(const cpu_problem *p, double x, double y, double exit_cos)
{
    size_t ir = bin_index(root(x * x + y * y), p->inv_dr, p->last_ir);
    size_t ia = bin_index(acos(exit_cos), p->inv_da, p->last_ia);
    return ir * (size_t)p->na + ia;
}

/* Escape through the top (reflectance) or bottom (transmittance) surface at
 * (x, y): the whole weight w goes into the r-angle bin of the exit
 * direction. */
static void record_escape(const cpu_problem *p, uint64_t *ra, double x, double y, double w,
                          double exit_cos)
{
    ra[escape_bin(p, x, y, exit_cos)] += fixed_point_from_weight(w);
}

/* The escape of a photon that has left the stack (leave): through the top
 * when moving up. */
static void score_escape(const cpu_problem *p, const photon *ph, tally_batch *b)
{
    record_escape(p, ph->uz < 0.0 ? b->rd_ra : b->tt_ra, ph->x, ph->y, ph->w, ph->exit_cos);
}

static inline void hop(photon *ph, double s)
{
    ph->x += s * ph->ux;
    ph->y += s * ph->uy;
    ph->z += s * ph->uz;
}

/* Shortens the step *s to the boundary when it would cross one, keeping the
 * rest (dimensionless) as the next step.  The test is s > (boundary - z) / uz
 * without the division. */
static inline bool hit_boundary(const cpu_layer *l, photon *ph, double *s)
{
    double su = *s * ph->uz;
    double gap_down = l->z1 - ph->z, gap_up = l->z0 - ph->z;
    /* Inside the layer (gap_up <= 0 <= gap_down) su > gap_down implies
     * uz > 0 and su < gap_up implies uz < 0, so the common no-hit case is
     * decided without branching on the sign of uz, which is hard to predict.
     * Rounding can leave z a hair outside the layer after a crossing, so the
     * rare candidates check the direction too. */
    if (!(su > gap_down || su < gap_up))
        return false;
    double gap;
    if (ph->uz > 0.0 && su > gap_down)
        gap = gap_down;
    else if (ph->uz < 0.0 && su < gap_up)
        gap = gap_up;
    else
        return false;
    double db = gap / ph->uz;
    ph->step_mfp = (*s - db) * l->mut;
    if (ph->step_mfp == 0.0) /* nothing left: MCML draws a new step */
        new_step_next(ph);
    *s = db;
    return true;
}

/* Absorption of mua/mut of the weight, scored at the photon's place.  The
 * fraction of a tally unit not yet scored is carried in *residue
 * (fixed_point.h). */
static inline void drop(const cpu_problem *p, const cpu_layer *l, photon *ph, double *residue,
                        tally_batch *b)
{
    double dw = ph->w * l->absorbed_fraction;
    ph->w -= dw;
    if (!p->score_absorption)
        return;
    size_t iz = bin_index(ph->z, p->inv_dz, p->last_iz);
    size_t ir = bin_index(root(ph->x * ph->x + ph->y * ph->y), p->inv_dr, p->last_ir);
    size_t bin = ir * (size_t)p->nz + iz;
    b->a_rz[bin] += fixed_point_deposit(dw, residue);
    if (b->a_rz_exact)
        b->a_rz_exact[bin] += dw;
}

/* New direction after a deflection by theta (HG) and an azimuth psi
 * uniform in [0, 2 pi), MCML's formulas.  sin(theta) / sqrt(1 - uz^2) is
 * computed as one root of a quotient, and sqrt(1 - uz^2)^2 as 1 - uz^2. */
static inline void spin(const cpu_problem *p, const cpu_layer *l, photon *ph)
{
    double cost = ph->cos_theta;
    double cosp = ph->cos_psi, sinp = ph->sin_psi;
    draw_spin_ahead(p, l, ph);
    double sint2 = 1.0 - cost * cost; /* sin^2 theta */
    double ux = ph->ux, uy = ph->uy, uz = ph->uz;
    if (fabs(uz) > COS_ZERO) { /* along the z axis: the general formula divides by 0 */
        double sint = root(sint2);
        ph->ux = sint * cosp;
        ph->uy = sint * sinp;
        ph->uz = uz >= 0.0 ? cost : -cost;
    } else {
        double perp2 = 1.0 - uz * uz;   /* ux^2 + uy^2 */
        double k = root(sint2 / perp2); /* sin(theta) / sqrt(1 - uz^2) */
        double uz_cosp = uz * cosp;
        ph->ux = k * (ux * uz_cosp - uy * sinp) + ux * cost;
        ph->uy = k * (uy * uz_cosp + ux * sinp) + uy * cost;
        ph->uz = -k * perp2 * cosp + uz * cost;
    }
}

/* Unpolarised Fresnel reflectance from medium n1 to n2 at incidence cosine
 * ca1 (> 0); *ca2 receives the transmission cosine.  MCML's RFresnel.  Out
 * of line: called from three places (the two crossings and held_in_glass),
 * inlined it made the crossing too big to be inlined into the step loop,
 * whose boundary hits then cost a call (skin7_600nm took 13 to 55 % more CPU
 * time). */
static __attribute__((noinline)) double fresnel(double n1, double n2, double ca1, double *ca2)
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
    double sa1 = root(1.0 - ca1 * ca1);
    double sa2 = n1 * sa1 / n2;
    if (sa2 >= 1.0) {
        *ca2 = 0.0;
        return 1.0;
    }
    double c2 = root(1.0 - sa2 * sa2);
    *ca2 = c2;
    double cap = ca1 * c2 - sa1 * sa2; /* cos(a1 + a2) */
    double cam = ca1 * c2 + sa1 * sa2; /* cos(a1 - a2) */
    double sap = sa1 * c2 + ca1 * sa2; /* sin(a1 + a2) */
    double sam = sa1 * c2 - ca1 * sa2; /* sin(a1 - a2) */
    return 0.5 * sam * sam * (cam * cam + cap * cap) / (sap * sap * cam * cam);
}

/* The reflectance a photon meets at the top boundary of layer i, moving up
 * at incidence cosine c = -uz > 0: 1 under total internal reflection (the
 * critical cosine decided first, as in MCML), else Fresnel's; *ct receives
 * the transmission cosine.  The crossing (cross_up_or_not) and the test of
 * a photon held in glass (held_in_glass) both ask this function, so that
 * they decide alike, bit for bit. */
static inline double reflectance_up(const cpu_problem *p, int i, double c, double *ct)
{
    const cpu_layer *l = &p->layers[i];
    return c <= l->cos_crit0 ? 1.0 : fresnel(l->n, p->layers[i - 1].n, c, ct);
}

/* The same at the bottom boundary of layer i, moving down (c = uz > 0). */
static inline double reflectance_down(const cpu_problem *p, int i, double c, double *ct)
{
    const cpu_layer *l = &p->layers[i];
    return c <= l->cos_crit1 ? 1.0 : fresnel(l->n, p->layers[i + 1].n, c, ct);
}

/* Whether a boundary of reflectance r reflects the photon whatever it
 * draws: it crosses when mwc_uniform() > r, never when r >= UNIFORM_MAX
 * (total internal reflection's 1 among them). */
static inline bool reflects_surely(double r) { return r >= UNIFORM_MAX; }

/* The photon leaves the stack with exit direction cosine exit_cos; the
 * caller scores it (score_escape), for the run or for each absorption set. */
static inline void leave(photon *ph, double exit_cos)
{
    ph->exit_cos = exit_cos;
    ph->dead = true;
}

/* At the top boundary of the photon's layer, moving up (uz < 0).  Returns
 * whether it was reflected whatever it drew (reflects_surely). */
static inline bool cross_up_or_not(const cpu_problem *p, photon *ph)
{
    double ni = p->layers[ph->layer].n, nt = p->layers[ph->layer - 1].n;
    double uz = ph->uz, uz1 = 0.0;
    double r = reflectance_up(p, ph->layer, -uz, &uz1);
    if (mwc_uniform(&ph->rng) > r) {
        if (ph->layer == 1) {
            leave(ph, uz1);
        } else {
            ph->layer--;
            ph->ux *= ni / nt;
            ph->uy *= ni / nt;
            ph->uz = -uz1;
        }
        return false;
    }
    ph->uz = -uz;
    return reflects_surely(r);
}

/* At the bottom boundary of the photon's layer, moving down (uz > 0); the
 * same return. */
static inline bool cross_down_or_not(const cpu_problem *p, photon *ph)
{
    double ni = p->layers[ph->layer].n, nt = p->layers[ph->layer + 1].n;
    double uz = ph->uz, uz1 = 0.0;
    double r = reflectance_down(p, ph->layer, uz, &uz1);
    if (mwc_uniform(&ph->rng) > r) {
        if (ph->layer == p->num_layers) {
            leave(ph, uz1);
        } else {
            ph->layer++;
            ph->ux *= ni / nt;
            ph->uy *= ni / nt;
            ph->uz = uz1;
        }
        return false;
    }
    ph->uz = -uz;
    return reflects_surely(r);
}

/* At the boundary the photon has just hopped to.  Its depth is set to the
 * boundary's exactly: z + (z_b - z) / uz * uz is z_b only to within an ulp of
 * z, and a photon back from a very deep layer (a 1e300 cm glass layer below)
 * carried an error of 1e284 cm into the thin layers above (the fuzzer found
 * it: results depended on the thickness of a glass layer at the bottom).
 * Returns whether the photon was reflected whatever it drew (only glass
 * asks: held_in_glass). */
static inline bool cross_or_not(const cpu_problem *p, photon *ph)
{
    int layer = ph->layer;
    ph->z = ph->uz < 0.0 ? p->layers[layer].z0 : p->layers[layer].z1;
    bool surely = ph->uz < 0.0 ? cross_up_or_not(p, ph) : cross_down_or_not(p, ph);
    if (ph->layer != layer) /* the deflection drawn ahead, in the new layer */
        ph->cos_theta = spin_theta(&p->layers[ph->layer], ph->u_theta);
    return surely;
}

/* A photon that would never end - alive after max_steps steps (a medium it
 * cannot leave and does not absorb in, or steps too short to move it),
 * moving parallel to a glass layer, or held in one (held_in_glass) - is
 * stopped and its weight counted as trapped: the run ends in bounded time
 * and no weight goes unaccounted. */
static void stop_trapped(photon *ph, tally_batch *b)
{
    b->trapped_photons++;
    b->trapped_units += fixed_point_from_weight(ph->w);
    ph->dead = true;
}

/* Whether a photon in glass that its boundary has just reflected whatever
 * it drew (cross_or_not's return) is held in the layer for ever, so that
 * the step loop would go on until max_steps and then stop it as trapped,
 * with its weight of now: the same tallies as stopping it now, in fewer
 * steps.  It is held when the other boundary, the one it now moves to,
 * reflects it whatever it draws too, and its weight is at or above the
 * roulette's threshold.  Exact, not a physical argument: in glass nothing
 * but these reflections changes the photon's direction, and they flip uz
 * and keep |uz| bit for bit; |uz| is all a boundary's decision looks at
 * (the same reflectance_up and reflectance_down as the crossing, at the
 * same cosine), so it meets the same two certain reflections at every later
 * step; and nothing changes its weight there but the roulette, which a
 * weight at or above the threshold never plays (below it, the photon goes
 * on step by step until the roulette ends it or raises its weight).  Only
 * a photon born in glass (a point source's) is held in practice: one that
 * came in through a boundary can go back out through it (Snell's law is
 * reversible), unless it came in within 10^-6 of grazing from a denser
 * medium, which fresnel then reflects back for ever (MCML's COS_90D): held
 * too, and stopped alike.  p->stop_held false leaves held photons to the
 * step loop (the test that compares the two). */
static inline bool held_in_glass(const cpu_problem *p, const photon *ph)
{
    if (!p->stop_held || ph->w < WEIGHT_THRESHOLD)
        return false;
    double c = fabs(ph->uz), ct;
    double r = ph->uz < 0.0 ? reflectance_up(p, ph->layer, c, &ct)
                            : reflectance_down(p, ph->layer, c, &ct);
    return reflects_surely(r);
}

/* Glass: no interaction, straight to the next boundary, and across it or
 * not; *held: whether the photon is now held in the layer (held_in_glass).
 * Returns the distance hopped, or -1 for a photon moving parallel to the
 * boundaries, which never leaves the layer (MCML drops it without a trace;
 * the caller stops it as trapped, as a held one). */
static inline double hop_in_glass(const cpu_problem *p, photon *ph, bool *held)
{
    const cpu_layer *l = &p->layers[ph->layer];
    *held = false;
    if (ph->uz == 0.0)
        return -1.0;
    double s = ph->uz > 0.0 ? (l->z1 - ph->z) / ph->uz : (l->z0 - ph->z) / ph->uz;
    hop(ph, s);
    /* The hint keeps the test of the other boundary out of the way of the
     * step loop's common path (callgrind on skin7_600nm: the same
     * instructions as without the test, where they were 0.4 % more). */
    *held = __builtin_expect(cross_or_not(p, ph), 0) && held_in_glass(p, ph);
    return s;
}

/* Survival of the lightest: below the threshold a photon lives on with
 * probability CHANCE and weight / CHANCE, which conserves weight on average. */
static inline void roulette(photon *ph)
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
    photon ph = launch(p, index);
    if (ph.layer > p->num_layers) { /* the whole stack is one glass layer */
        record_escape(p, b->tt_ra, ph.x, ph.y, ph.w, ph.uz);
        return;
    }
    double residue = FIXED_POINT_START_RESIDUE;
    uint64_t steps = 0;
    /* In a local: tally stores (uint64_t too) could alias p->max_steps, which
     * the loop would then reload at every step. */
    const uint64_t max_steps = p->max_steps;
    const cpu_layer *l = &p->layers[ph.layer];
    for (;;) {
        steps++;
        if (l->glass) {
            bool held;
            if (hop_in_glass(p, &ph, &held) < 0.0 || held) {
                stop_trapped(&ph, b);
                break;
            }
            if (ph.dead) {
                score_escape(p, &ph, b);
                break;
            }
            l = &p->layers[ph.layer];
        } else {
            double s = ph.step_mfp * l->inv_mut;
            /* A step hits a boundary rarely (4 % of the steps on skin): the
             * hint keeps the crossing code out of the common path. */
            if (__builtin_expect(hit_boundary(l, &ph, &s), 0)) {
                hop(&ph, s);
                cross_or_not(p, &ph);
                if (ph.dead) {
                    score_escape(p, &ph, b);
                    break;
                }
                l = &p->layers[ph.layer];
            } else {
                hop(&ph, s);
                drop(p, l, &ph, &residue, b);
                spin(p, l, &ph);
                new_step_next(&ph);
            }
        }
        if (ph.w < WEIGHT_THRESHOLD) {
            roulette(&ph);
            if (ph.dead)
                break;
        }
        if (__builtin_expect(steps >= max_steps, 0)) {
            stop_trapped(&ph, b);
            break;
        }
    }
    b->steps += steps;
}

/* ---- Absorption sets (docs/physics.md, "Absorption sets").  The history is
 * the reference's (the layers' mua are the per-layer minimum over the sets);
 * set k's weight is the reference weight times exp(-extra[k]), extra[k] =
 * sum_i (mua_k,i - mua_ref,i) L_i over the photon's path so far, and every
 * deposit, escape and trapped weight of the reference is scored for each set
 * with that weight instead. */
typedef struct set_track {
    double extra[TM_MAX_ABSORPTION_SETS];
    double residue[TM_MAX_ABSORPTION_SETS]; /* each set's deposits' remainder (drop) */
    double
        path[TM_MAX_PATH_LAYERS + 2]; /* with p->paths or p->jacobian: L_i, cm in layer i so far */
    double flight;                    /* with time bins or modulation: sum of L_i n_i so far (cm) */
    /* With p->jacobian (docs/physics.md, "Derivatives"): the interactions
     * c_i in layer i so far, and the sum over its deflections there of the
     * Henyey-Greenstein score d ln p(cos theta; g_i) / dg_i. */
    double collisions[TM_MAX_PATH_LAYERS + 2];
    double hg_score[TM_MAX_PATH_LAYERS + 2];
} set_track;

/* A path of s cm in layer i. */
static inline void sets_path(const cpu_problem *p, set_track *t, int i, double s)
{
    const double *extra_mut = p->set_extra_mut + (size_t)i * p->num_sets;
    for (int k = 0; k < p->num_sets; k++)
        t->extra[k] += extra_mut[k] * s;
    if (p->paths || p->jacobian)
        t->path[i] += s;
    if (p->time_nt || p->mod_count)
        t->flight += s * p->layers[i].n;
}

/* An interaction in layer l (index i) of a photon of reference weight w
 * before it: set k deposits w_k mua_k,i / mut_ref,i; then the reference
 * weight loses its own share, as drop's. */
static inline void sets_drop(const cpu_problem *p, const cpu_layer *l, int i, photon *ph,
                             set_track *t, tally_batch *sets)
{
    double w = ph->w;
    ph->w -= w * l->absorbed_fraction;
    if (!p->score_absorption)
        return;
    size_t iz = bin_index(ph->z, p->inv_dz, p->last_iz);
    size_t ir = bin_index(root(ph->x * ph->x + ph->y * ph->y), p->inv_dr, p->last_ir);
    size_t bin = ir * (size_t)p->nz + iz;
    int ix = p->xy_nx ? xy_cell(p, ph->x) : -1;
    size_t xz = ix >= 0 ? (size_t)ix * (size_t)p->nz + iz : 0;
    const double *fraction = p->set_fraction + (size_t)i * p->num_sets;
    for (int k = 0; k < p->num_sets; k++) {
        double dw = w * exp(-t->extra[k]) * fraction[k];
        uint64_t units = fixed_point_deposit(dw, &t->residue[k]);
        sets[k].a_rz[bin] += units;
        /* The deposit's own units: A_xz sums to A_rz's where the grid
         * covers the deposits. */
        if (ix >= 0)
            sets[k].a_xz[xz] += units;
    }
}

/* Set k's escaping weight w_k times the photon's path in each layer, into
 * the ring's row of its path tally (docs/outputs.md, "Path lengths"). */
static void sets_escape_paths(const cpu_problem *p, const photon *ph, const set_track *t, size_t ir,
                              tally_batch *sets)
{
    int nl = p->num_layers;
    for (int k = 0; k < p->num_sets; k++) {
        double w = ph->w * exp(-t->extra[k]);
        uint64_t *row = (ph->uz < 0.0 ? sets[k].rd_path : sets[k].tt_path) + ir * (size_t)nl;
        for (int i = 1; i <= nl; i++)
            row[i - 1] += tally_path_units(w * t->path[i]);
    }
}

/* ln p_HG(mu; g) for |g| < 1, but for its constant -ln 2. */
static inline double hg_log_density(double mu, double g)
{
    return log(1.0 - g * g) - 1.5 * log(1.0 + g * g - 2.0 * g * mu);
}

/* An interaction in layer l (index i) of optics sets, deflecting by
 * cos theta = mu, after its deposits: each set's likelihood ratio takes
 * this collision's mus_k / mus_ref and this deflection's
 * p_HG(mu; g_k) / p_HG(mu; g_ref) (docs/physics.md, "Optics sets"). */
static inline void sets_scatter(const cpu_problem *p, const cpu_layer *l, int i, double mu,
                                set_track *t)
{
    const double *log_mus = p->set_log_mus + (size_t)i * p->num_sets;
    const double *g = p->set_g + (size_t)i * p->num_sets;
    double own = l->phase == CPU_PHASE_HG ? hg_log_density(mu, l->g) : 0.0;
    for (int k = 0; k < p->num_sets; k++) {
        double deflection = g[k] != l->g ? hg_log_density(mu, g[k]) - own : 0.0;
        t->extra[k] -= log_mus[k] + deflection;
    }
}

/* An interaction in layer i, deflecting by cos theta = mu: its factor
 * mus_i / mut_i of the weight counts in c_i, and d ln p_HG(mu; g) / dg =
 * -2g / (1 - g^2) + 3 (mu - g) / (1 + g^2 - 2 g mu) in the layer's score
 * (3 mu at g = 0; a layer of |g| = 1 has none: its derivative is NaN). */
static inline void jacobian_interaction(const cpu_layer *l, int i, double mu, set_track *t)
{
    t->collisions[i] += 1.0;
    if (l->phase == CPU_PHASE_HG) {
        double g = l->g;
        t->hg_score[i] += -2.0 * g / (1.0 - g * g) + 3.0 * (mu - g) / (1.0 + g * g - 2.0 * g * mu);
    }
}

/* An escape into each set's weight sums: its own weight squared, the
 * reference's and its square (the sets' effective sample sizes). */
static void sets_escape_weights(const cpu_problem *p, const photon *ph, const set_track *t,
                                tally_batch *sets)
{
    uint64_t w = tally_path_units(ph->w), w2 = tally_path_units(ph->w * ph->w);
    for (int k = 0; k < p->num_sets; k++) {
        double wk = ph->w * exp(-t->extra[k]);
        uint64_t *sums = sets[k].set_w;
        sums[OUTPUT_SET_WEIGHT_SQUARES] += tally_path_units(wk * wk);
        sums[OUTPUT_REF_WEIGHTS] += w;
        sums[OUTPUT_REF_WEIGHT_SQUARES] += w2;
    }
}

/* w times each layer's terms into one row of a derivative tally. */
static void jacobian_row(const cpu_problem *p, const set_track *t, double w, uint64_t *row)
{
    for (int i = 1; i <= p->num_layers; i++) {
        double score = t->hg_score[i];
        uint64_t *terms = row + (size_t)(i - 1) * OUTPUT_TERMS;
        terms[OUTPUT_TERM_PATH] += tally_path_units(w * t->path[i]);
        terms[OUTPUT_TERM_COUNT] += tally_path_units(w * t->collisions[i]);
        if (score > 0.0)
            terms[OUTPUT_TERM_SCORE_POS] += tally_path_units(w * score);
        else if (score < 0.0)
            terms[OUTPUT_TERM_SCORE_NEG] += tally_path_units(-w * score);
    }
}

/* Set k's escape into its derivative tallies: the rows of its ring and
 * angle, of its ring's time bin (time_bin: ring x nt + bin) with time bins,
 * and each detector's row with its share (fiber[d]; fiber NULL: none). */
static void sets_escape_jacobian(const cpu_problem *p, const photon *ph, const set_track *t,
                                 size_t bin, size_t time_bin, const double *fiber,
                                 tally_batch *sets)
{
    size_t ir = bin / (size_t)p->na, ia = bin % (size_t)p->na;
    size_t row = (size_t)p->num_layers * OUTPUT_TERMS;
    bool down = ph->uz >= 0.0;
    for (int k = 0; k < p->num_sets; k++) {
        tally_batch *s = &sets[k];
        double w = ph->w * exp(-t->extra[k]);
        jacobian_row(p, t, w, (down ? s->tt_jr : s->rd_jr) + ir * row);
        jacobian_row(p, t, w, (down ? s->tt_ja : s->rd_ja) + ia * row);
        if (p->time_nt)
            jacobian_row(p, t, w, (down ? s->tt_jt : s->rd_jt) + time_bin * row);
        for (int d = 0; fiber && d < p->fibers; d++)
            if (fiber[d] > 0.0)
                jacobian_row(p, t, w * fiber[d], s->rd_jf + (size_t)d * row);
    }
}

/* The time bin of an escape after an optical path of `flight` cm (sum of
 * L_i n_i): time of flight flight / c, binned as space, the last bin
 * collecting every later escape. */
static size_t escape_time_bin(const cpu_problem *p, double flight)
{
    double it = floor(flight / TIME_LIGHT_CM_PER_NS * p->time_inv_dt);
    return it < (double)(p->time_nt - 1) ? (size_t)it : (size_t)(p->time_nt - 1);
}

/* The share of an escape each fiber detector collects, into share[d]: 0
 * outside its acceptance cone, else the fraction of the escape's circle
 * inside its face (detector.h).  False when the escape is through the
 * bottom or every share is 0.  A detector's share depends on the escape
 * alone, not on the others: each tallies what it would alone. */
static bool escape_fiber_shares(const cpu_problem *p, const photon *ph, double *share)
{
    if (ph->uz >= 0.0)
        return false;
    double r = root(ph->x * ph->x + ph->y * ph->y);
    bool any = false;
    for (int d = 0; d < p->fibers; d++) {
        const cpu_fiber *f = &p->fiber[d];
        share[d] =
            ph->exit_cos < f->cos_accept ? 0.0 : detector_fiber_fraction(r, f->sep, f->radius);
        any = any || share[d] > 0.0;
    }
    return any;
}

/* A signed score into the fixed-point tally of its sign's part: pos for
 * score >= 0, else neg, each rounded as every escape, so that the sums
 * stay integers (docs/fixed-point.md, "Signed scores"). */
static inline void score_signed(double score, uint64_t *pos, uint64_t *neg)
{
    if (score >= 0.0)
        *pos += fixed_point_from_weight(score);
    else
        *neg += fixed_point_from_weight(-score);
}

/* Set k's escape into its spatial-frequency tallies: at each frequency,
 * its weight w_k times J0(2 pi fx rho), rho the escape's distance from the
 * axis (docs/physics.md, "Spatial frequencies"), rounded as every escape
 * (w_k J0(0) is w_k, so frequency 0 scores the escape tally's units) into
 * the part of its sign: integers, whatever the sign. */
static void sets_escape_fx(const cpu_problem *p, const photon *ph, const set_track *t,
                           tally_batch *sets)
{
    double j0[TM_MAX_SPATIAL_FREQUENCIES];
    double omega = TWO_PI * root(ph->x * ph->x + ph->y * ph->y);
    int nf = p->fx_count;
    for (int f = 0; f < nf; f++)
        j0[f] = cpu_bessel_j0(omega * p->fx[f]);
    for (int k = 0; k < p->num_sets; k++) {
        double w = ph->w * exp(-t->extra[k]);
        uint64_t *parts = ph->uz < 0.0 ? sets[k].rd_fx_parts : sets[k].tt_fx_parts;
        for (int f = 0; f < nf; f++)
            score_signed(w * j0[f], &parts[OUTPUT_FX_POSITIVE * nf + f],
                         &parts[OUTPUT_FX_NEGATIVE * nf + f]);
    }
}

/* An escape through the top into set k's modulation tallies, its ring's
 * row: at each frequency, its weight w_k times cos(omega t) and times
 * sin(omega t), t = flight / c its time of flight as the time bins take
 * it (docs/physics.md, "Frequency domain"), each into the part of its
 * sign.  sin(omega t) > 0 is a lag: the phase atan2(S, C) is positive. */
static void sets_escape_mod(const cpu_problem *p, const photon *ph, const set_track *t, size_t ir,
                            tally_batch *sets)
{
    double c[TM_MAX_MODULATIONS], s[TM_MAX_MODULATIONS];
    double time = t->flight / TIME_LIGHT_CM_PER_NS;
    int nf = p->mod_count;
    for (int f = 0; f < nf; f++) {
        c[f] = cos(p->mod_omega[f] * time);
        s[f] = sin(p->mod_omega[f] * time);
    }
    for (int k = 0; k < p->num_sets; k++) {
        double w = ph->w * exp(-t->extra[k]);
        uint64_t *row = sets[k].rd_mod_parts + ir * (size_t)nf * OUTPUT_MOD_PARTS;
        for (int f = 0; f < nf; f++) {
            uint64_t *parts = row + (size_t)f * OUTPUT_MOD_PARTS;
            score_signed(w * c[f], &parts[OUTPUT_MOD_COS_POSITIVE],
                         &parts[OUTPUT_MOD_COS_NEGATIVE]);
            score_signed(w * s[f], &parts[OUTPUT_MOD_SIN_POSITIVE],
                         &parts[OUTPUT_MOD_SIN_NEGATIVE]);
        }
    }
}

/* An escape's cell of the Cartesian grid, ix * nx + iy, or -1 beyond it. */
static long escape_xy_cell(const cpu_problem *p, const photon *ph)
{
    int ix = xy_cell(p, ph->x), iy = xy_cell(p, ph->y);
    return ix >= 0 && iy >= 0 ? (long)ix * p->xy_nx + iy : -1;
}

static void sets_escape(const cpu_problem *p, const photon *ph, const set_track *t,
                        tally_batch *sets)
{
    size_t bin = escape_bin(p, ph->x, ph->y, ph->exit_cos);
    size_t ir = bin / (size_t)p->na;
    size_t time_bin = p->time_nt ? ir * (size_t)p->time_nt + escape_time_bin(p, t->flight) : 0;
    double share[TM_MAX_DETECTORS];
    const double *fiber = p->fibers > 0 && escape_fiber_shares(p, ph, share) ? share : NULL;
    long cell = p->xy_nx ? escape_xy_cell(p, ph) : -1;
    for (int k = 0; k < p->num_sets; k++) {
        double w = ph->w * exp(-t->extra[k]);
        uint64_t units = fixed_point_from_weight(w);
        (ph->uz < 0.0 ? sets[k].rd_ra : sets[k].tt_ra)[bin] += units;
        /* The escape's own units: each time tally sums to its escape
         * tally, the grid's to no more than it. */
        if (p->time_nt)
            (ph->uz < 0.0 ? sets[k].rd_rt : sets[k].tt_rt)[time_bin] += units;
        if (cell >= 0)
            (ph->uz < 0.0 ? sets[k].rd_xy : sets[k].tt_xy)[cell] += units;
        for (int d = 0; fiber && d < p->fibers; d++)
            if (fiber[d] > 0.0)
                sets[k].rd_fiber[d] += fixed_point_from_weight(w * fiber[d]);
    }
    if (p->paths)
        sets_escape_paths(p, ph, t, ir, sets);
    if (p->set_weights)
        sets_escape_weights(p, ph, t, sets);
    if (p->jacobian)
        sets_escape_jacobian(p, ph, t, bin, time_bin, fiber, sets);
    if (p->fx_count)
        sets_escape_fx(p, ph, t, sets);
    if (p->mod_count && ph->uz < 0.0)
        sets_escape_mod(p, ph, t, ir, sets);
}

static void sets_trapped(const cpu_problem *p, photon *ph, const set_track *t, tally_batch *sets)
{
    for (int k = 0; k < p->num_sets; k++) {
        sets[k].trapped_photons++;
        sets[k].trapped_units += fixed_point_from_weight(ph->w * exp(-t->extra[k]));
    }
    ph->dead = true;
}

/* A quarter of a tally unit (2^-24 weight): a weight below it rounds to no
 * unit (fixed_point_from_weight rounds below half a unit to 0), and so does
 * any smaller one, whatever exp's last bit (sets_held). */
#define SET_QUARTER_UNIT 0x1p-26

/* Whether stopping a photon held in glass layer i (held_in_glass) now
 * scores for every set what its steps to max_steps would: the reference
 * weight stays, and so does a set's W e^-extra[k] where the set absorbs no
 * more than the reference in the layer (its extra mua 0).  A set that
 * absorbs more loses weight at every later hop, e^-extra[k] falling to
 * whatever max_steps leaves: stopped now, it is scored alike once its
 * weight rounds to no unit, now and after any more hops. */
static bool sets_held(const cpu_problem *p, int i, const photon *ph, const set_track *t)
{
    const double *extra_mut = p->set_extra_mut + (size_t)i * p->num_sets;
    for (int k = 0; k < p->num_sets; k++)
        if (extra_mut[k] > 0.0 && !(ph->w * exp(-t->extra[k]) < SET_QUARTER_UNIT))
            return false;
    return true;
}

/* The step loop of cpu_photon_simulate, each hop also added to the sets'
 * paths, each score made for every set. */
static uint64_t sets_steps(const cpu_problem *p, photon *ph, set_track *t, tally_batch *sets)
{
    uint64_t steps = 0;
    const cpu_layer *l = &p->layers[ph->layer];
    for (;;) {
        steps++;
        int i = ph->layer;
        if (l->glass) {
            bool held;
            double s = hop_in_glass(p, ph, &held);
            if (s < 0.0) {
                sets_trapped(p, ph, t, sets);
                break;
            }
            sets_path(p, t, i, s);
            if (held && sets_held(p, i, ph, t)) {
                sets_trapped(p, ph, t, sets);
                break;
            }
            if (ph->dead) {
                sets_escape(p, ph, t, sets);
                break;
            }
            l = &p->layers[ph->layer];
        } else {
            double s = ph->step_mfp * l->inv_mut;
            bool boundary = hit_boundary(l, ph, &s);
            hop(ph, s);
            sets_path(p, t, i, s);
            if (boundary) {
                cross_or_not(p, ph);
                if (ph->dead) {
                    sets_escape(p, ph, t, sets);
                    break;
                }
                l = &p->layers[ph->layer];
            } else {
                sets_drop(p, l, i, ph, t, sets);
                if (p->scatter)
                    sets_scatter(p, l, i, ph->cos_theta, t);
                if (p->jacobian)
                    jacobian_interaction(l, i, ph->cos_theta, t);
                spin(p, l, ph);
                new_step_next(ph);
            }
        }
        if (ph->w < WEIGHT_THRESHOLD) {
            roulette(ph);
            if (ph->dead)
                break;
        }
        if (steps >= p->max_steps) {
            sets_trapped(p, ph, t, sets);
            break;
        }
    }
    return steps;
}

void cpu_photon_simulate_sets(const cpu_problem *p, uint64_t index, tally_batch *sets)
{
    photon ph = launch(p, index);
    set_track t;
    for (int k = 0; k < p->num_sets; k++) {
        t.extra[k] = 0.0;
        t.residue[k] = FIXED_POINT_START_RESIDUE;
    }
    if (p->paths || p->jacobian)
        for (int i = 0; i <= p->num_layers + 1; i++)
            t.path[i] = t.collisions[i] = t.hg_score[i] = 0.0;
    t.flight = 0.0;
    /* Glass layers at the top are crossed before launch: straight down, or
     * a fiber's or the oblique beam's photon at its angle there.  A point
     * source starts inside. */
    bool slanted = p->source.kind == SOURCE_FIBER || p->source.kind == SOURCE_OBLIQUE;
    for (int i = 1; i < ph.layer && i <= p->num_layers && p->source.kind != SOURCE_POINT; i++) {
        double d = p->layers[i].z1 - p->layers[i].z0;
        sets_path(p, &t, i, slanted ? d / cpu_source_cos_in(p, i, ph.uz) : d);
    }
    uint64_t steps = 0;
    if (ph.layer > p->num_layers) { /* the whole stack is one glass layer */
        ph.exit_cos = ph.uz;
        sets_escape(p, &ph, &t, sets);
    } else {
        steps = sets_steps(p, &ph, &t, sets);
    }
    for (int k = 0; k < p->num_sets; k++)
        sets[k].steps += steps;
}
