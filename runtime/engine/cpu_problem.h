/* Everything constant over a run of the CPU engine, derived once from its
 * mci_run: the layers as the step wants them, the grid, the source, the
 * absorption sets and the extra tallies asked for (cpu_problem_setup.c).
 * The step (cpu_photon.c) and the sources (cpu_source.c) read it. */
#ifndef TMCML_CPU_PROBLEM_H
#define TMCML_CPU_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu_math.h"
#include "mci.h"

/* How a layer deflects: Henyey-Greenstein (g = 0, isotropic, included), or
 * the one value of g the HG sampling formula cannot take (|g| = 1: a fixed
 * deflection, 0/0 at one xi). */
typedef enum cpu_phase { CPU_PHASE_HG, CPU_PHASE_FIXED } cpu_phase;

/* A layer as the stepping code wants it, with the divisions by constants
 * and the g-only terms of the HG formula done once.  What every step reads
 * comes first (one cache line). */
typedef struct cpu_layer {
    double z0, z1;
    double inv_mut, mut, absorbed_fraction; /* 1/mut, mut, mua/mut */
    /* HG: cos theta = (s + g) q + hg_h xi (1 - xi) q^2, s = 2 xi - 1,
     * q = 1 / (1 + g s), hg_h = 2g (1 - g^2) (cpu_hg_cos_theta). */
    double hg_h;
    cpu_phase phase;
    bool glass;
    double g, n, mua, mus;
    double cos_crit0, cos_crit1;
} cpu_layer;

/* A fiber detector as an escape is tested against it (detector.h): its
 * face's centre and radius (cm), and the least exit cosine it accepts in
 * the medium above. */
typedef struct cpu_fiber {
    double sep, radius, cos_accept;
} cpu_fiber;

/* Everything constant over a run. */
typedef struct cpu_problem {
    int num_layers;
    cpu_layer *layers; /* num_layers + 2, as mci_run.layers */
    int nr, nz, na;
    double dr, dz, da;
    double inv_dr, inv_dz, inv_da;
    double last_ir, last_iz, last_ia;             /* nr - 1, nz - 1, na - 1 */
    double azimuth_table[CPU_AZIMUTH_SECTORS][2]; /* cpu_azimuth */
    double start_weight;                          /* 1 - Rsp */
    int first_layer;
    /* Where photons start (runtime/io/source.h; cpu_source.c): MCML's
     * pencil beam draws nothing; another source draws its position and
     * direction first from the photon's stream. */
    source_desc source;
    double source_z;      /* depth of the start: layers[first_layer].z0, a point's z0 */
    double fiber_cos_max; /* fiber: the cone's cos theta_max in the medium above */
    double fiber_glass_d; /* fiber: the glass layer 1's thickness crossed, or 0 */
    /* The oblique beam's start (drawn from nothing): x, shifted by a glass
     * layer 1's thickness times tan theta in the glass, and the direction
     * refracted into the first layer, (ux, 0, uz). */
    double beam_x, beam_ux, beam_uz;
    bool score_absorption;
    uint64_t max_steps; /* a photon alive after this many steps is trapped */
    /* Stop a photon held in a glass layer (cpu_photon.c, held_in_glass) as
     * soon as it is seen to be held, with the tallies its max_steps steps
     * would give (true, cpu_problem_init's), or step it to max_steps (false:
     * tests/test_glass_held.c compares the two). */
    bool stop_held;
    uint64_t seed;
    const uint32_t *multipliers;
    /* Absorption sets (docs/physics.md, "Absorption sets"): 0, or the number
     * of sets of per-layer mua scored from each history, which the layers
     * above sample with the reference mua (the per-layer minimum).  Per set k
     * and layer i (as layers[], num_layers + 2 a set): */
    int num_sets;
    /* mut_k,i - mut_ref,i (1/cm): the extra attenuation a cm of path costs
     * set k, its mua's (>= 0) and, with optics sets, its mus's too */
    double *set_extra_mut;
    double *set_fraction; /* mua_k,i / mut_ref,i: a set's share of an interaction */
    /* Optics sets (docs/physics.md, "Optics sets"): sets of their own mus
     * and g too, reweighted at each interaction by their collision and
     * deflection densities over the reference's: ln(mus_k,i / mus_ref,i)
     * and g_k,i per layer and set; NULL (scatter false) when every set has
     * the run's mus and g. */
    bool scatter;
    double *set_log_mus;
    double *set_g;
    /* Score each set's weight sums for its effective sample size (the
     * set_w tally: optics sets' runs have it). */
    bool set_weights;
    /* Score each set's partial path lengths (Rd_path, Tt_path of its
     * tally_batch; at most TM_MAX_PATH_LAYERS layers): only with sets, so
     * a run that asks for them without sets is one set of its own mua. */
    bool paths;
    /* Score the derivatives of the escapes (rd_jr, rd_ja, tt_jr, tt_ja of
     * each set's tally_batch; docs/physics.md, "Derivatives"): each
     * photon's path, interactions and Henyey-Greenstein score per layer,
     * in the sets' loop as the path lengths. */
    bool jacobian;
    /* Time-resolved escapes (time_bins.h) and the fiber detectors
     * (detector.h), scored like the path lengths in the sets' loop, whose
     * path per layer gives the time of flight (sum of L_i n_i / c): time_nt
     * bins (0: none) of 1 / time_inv_dt ns; fibers detectors (0: none). */
    int time_nt;
    double time_inv_dt;
    int fibers;
    cpu_fiber fiber[TM_MAX_DETECTORS];
    /* Spatial frequencies (docs/physics.md, "Spatial frequencies"): each
     * escape scores w J0(2 pi fx rho) at fx_count frequencies fx [1/cm]
     * (the run's own array), in the sets' loop as the path lengths; 0:
     * none. */
    int fx_count;
    const double *fx;
    /* Modulation frequencies (docs/physics.md, "Frequency domain"): each
     * escape through the top scores w cos(omega t) and w sin(omega t) into
     * its ring's row at mod_count angular frequencies mod_omega [rad/ns]
     * (2 pi f), t its time of flight (the time bins' sum of L_i n_i / c),
     * in the sets' loop as the path lengths; 0: none. */
    int mod_count;
    double mod_omega[TM_MAX_MODULATIONS];
    /* The Cartesian grid (docs/outputs.md, "Cartesian grid"): each escape
     * and deposit in its cell of xy_nx x xy_nx squares of 1 / xy_inv_dx
     * cm centred on x = y = 0 too (rd_xy, tt_xy, a_xz), with the units of
     * its r-angle or r-z bin, in the sets' loop as the path lengths; 0:
     * none. */
    int xy_nx;
    double xy_inv_dx;
} cpu_problem;

#endif
