/* The output arrays: every array a run produces is declared once, as a row
 * of output_table[] (runtime/io/output_arrays.c), in the spirit of the knob
 * table (gen/knob.c) and Lua's ltm.c.  A row gives the array's name (MCML's
 * .mco section, the library's and Python's name), its dimensions from the
 * grid, its unit, the integer tally it comes from, MCML 1.2.2's
 * normalisation, its .mco section and whether -A leaves it zero.
 *
 * The rooms loop over the table instead of naming arrays: the tallies'
 * allocation, sums, comparison and digest (tally.c), the normalisation
 * (result.c), the .mco writer and reader (mco.c, mco_read.c), the
 * checkpoint (checkpoint.c), the JSON summary's arrays and their units
 * (summary.c), the footprint (runtime/engine/footprint.c), the
 * GPU engine's device tallies (runtime/engine/gpu.c), the MPI reduction
 * (driver/ranks.c), the library's arrays and their enumeration
 * (api/outcome.c) and the Python package, which reads the names
 * from the library.  docs/outputs.md: how to add an array. */
#ifndef TMCML_OUTPUT_ARRAYS_H
#define TMCML_OUTPUT_ARRAYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ORDER OUTPUT: the rows of output_table[], which is also the order of
 * tmcml.h's tmcml_array (the library's ABI: a row's index is its
 * TMCML_ constant), of the .mco's sections after RAT (MCML 1.2.2's), and of
 * the fields below.  The rows that are tallies (tallied), in the table's
 * order, are the integer tally arrays: their order is the checkpoint file's,
 * the tallies digest's and the GPU kernel's parameters' (gen/kernel_param.c:
 * a_rz, rd_ra, tt_ra, then counts).  A new array goes at the end; a new
 * tally changes the checkpoint format (its version) and every digest. */
enum {
    OUTPUT_TALLY_A_RZ,
    OUTPUT_TALLY_RD_RA,
    OUTPUT_TALLY_TT_RA,
    OUTPUT_TALLIES, /* the tally arrays of every run (the GPU kernel's) */
    /* Optional tallies, after every run's: the partial path lengths, only
     * in runs that ask for them (mci_run.path_lengths; NULL otherwise). */
    OUTPUT_TALLY_RD_PATH = OUTPUT_TALLIES,
    OUTPUT_TALLY_TT_PATH,
    /* Time-resolved escapes (mci_run.time_nt > 0): weight per ring and time
     * bin, the same units as Rd_ra's and Tt_ra's, so each sums to them. */
    OUTPUT_TALLY_RD_RT,
    OUTPUT_TALLY_TT_RT,
    /* The fiber detectors' collected weight (mci_run.fiber_count > 0). */
    OUTPUT_TALLY_RD_FIBER,
    /* The derivatives' terms (mci_run.jacobian; docs/physics.md,
     * "Derivatives"): per ring (JR) or angle (JA) of the escapes, layer and
     * term (output_jacobian_term), weight x cm or weight x count.  Not rows
     * of output_table[] (no output is one of them bin for bin): their own
     * rows are output_jacobian_tallies[], which output_tally() finds. */
    OUTPUT_TALLY_RD_JR,
    OUTPUT_TALLY_RD_JA,
    OUTPUT_TALLY_TT_JR,
    OUTPUT_TALLY_TT_JA,
    /* With time bins or the fiber detector too: per ring and time bin
     * (JT), per detector (JF), layer and term. */
    OUTPUT_TALLY_RD_JT,
    OUTPUT_TALLY_TT_JT,
    OUTPUT_TALLY_RD_JF,
    /* An optics set's weights (mci_run.optics_set; docs/physics.md, "Optics
     * sets"): over its escapes, sum w_k^2, sum w_ref and sum w_ref^2 (w_ref
     * the reference history's weight), for its effective sample size. */
    OUTPUT_TALLY_SET_WEIGHTS,
    /* The escapes' Hankel transforms at the run's spatial frequencies
     * (mci_run.fx; docs/physics.md, "Spatial frequencies"): over the
     * escapes through the top (RD) or the bottom (TT), sum w J0(2 pi fx
     * rho) in the weight's fixed point, its positive and its negative
     * terms apart (output_fx_part), so that the sums stay integers. */
    OUTPUT_TALLY_RD_FX,
    OUTPUT_TALLY_TT_FX,
    /* The reflectance in the frequency domain at the run's modulation
     * frequencies (mci_run.mod_hz; docs/physics.md, "Frequency domain"):
     * per ring and frequency, over the escapes through the top, sum w
     * cos(omega t) and sum w sin(omega t) (t the time of flight) in the
     * weight's fixed point, each sign's terms apart (output_mod_part). */
    OUTPUT_TALLY_RD_MOD,
    /* The Cartesian grid (mci_run.xy_nx; docs/outputs.md, "Cartesian
     * grid"): the escapes through the top (RD) and the bottom (TT) per
     * square cell of the surface, [ix][iy], and the absorbed weight per
     * cell of the x-z plane (every y), [ix][iz]; each the same units as
     * Rd_ra's, Tt_ra's and A_rz's, so that each sums to no more than
     * them (what lands beyond the grid is not scored in it).  Rows of
     * output_table[] bin for bin, after the hidden tallies above. */
    OUTPUT_TALLY_RD_XY,
    OUTPUT_TALLY_TT_XY,
    OUTPUT_TALLY_A_XZ,
    OUTPUT_TALLIES_ALL /* every integer tally array, optional ones too */
};
#define OUTPUT_ARRAYS         38 /* rows of output_table[] */
/* The tallies that are no row of output_table[] (output_hidden_tallies):
 * OUTPUT_TALLY_RD_JR to _RD_MOD. */
#define OUTPUT_HIDDEN_TALLIES (OUTPUT_TALLY_RD_MOD + 1 - OUTPUT_TALLY_RD_JR)
/* The parts of a spatial-frequency tally, its slower axis: [part][k] is
 * the sum of the escapes' w J0 of that sign at frequency k. */
typedef enum output_fx_part {
    OUTPUT_FX_POSITIVE,
    OUTPUT_FX_NEGATIVE,
    OUTPUT_FX_PARTS
} output_fx_part;
/* The parts of a modulation tally, its fastest axis: [ring][k][part] is
 * the sum over the ring's escapes of w cos(omega_k t) or w sin(omega_k t)
 * of that sign. */
typedef enum output_mod_part {
    OUTPUT_MOD_COS_POSITIVE,
    OUTPUT_MOD_COS_NEGATIVE,
    OUTPUT_MOD_SIN_POSITIVE,
    OUTPUT_MOD_SIN_NEGATIVE,
    OUTPUT_MOD_PARTS
} output_mod_part;
enum {
    OUTPUT_SET_WEIGHT_SQUARES,
    OUTPUT_REF_WEIGHTS,
    OUTPUT_REF_WEIGHT_SQUARES,
    OUTPUT_SET_WEIGHTS
};

/* The terms a derivative tally keeps per escape bin and layer i, each a
 * sum over the escaping photons of their weight w times: the path S_i
 * (cm), the interactions c_i, and the positive and the negative part of
 * the photon's Henyey-Greenstein score G_i (sum over its deflections in
 * layer i of d ln p / dg).  The derivatives follow (runtime/io/jacobian.h):
 * d/dmua_i = -S, d/dmus_i = C / mus_i - S, d/dg_i = G+ - G-. */
typedef enum output_jacobian_term {
    OUTPUT_TERM_PATH,
    OUTPUT_TERM_COUNT,
    OUTPUT_TERM_SCORE_POS,
    OUTPUT_TERM_SCORE_NEG,
    OUTPUT_TERMS
} output_jacobian_term;
/* The parameters a Jacobian's last axis runs along, in this order. */
typedef enum output_jacobian_param {
    OUTPUT_PARAM_MUA,
    OUTPUT_PARAM_MUS,
    OUTPUT_PARAM_G,
    OUTPUT_PARAMS
} output_jacobian_param;

/* The arrays as fields of tally_batch, tally_set (TYPE: their integer
 * entries) and mcml_result (double), each twice: by name, for code that
 * means one array (an engine scores Rd_ra, the figure draws A_rz), and by
 * number, for code that loops over the table (tally[OUTPUT_TALLY_...],
 * array[row]).  ORDER OUTPUT. */
#define OUTPUT_TALLY_FIELDS(TYPE)                                                                  \
    union {                                                                                        \
        struct {                                                                                   \
            TYPE *a_rz, *rd_ra, *tt_ra, *rd_path, *tt_path, *rd_rt, *tt_rt, *rd_fiber;             \
            TYPE *rd_jr, *rd_ja, *tt_jr, *tt_ja, *rd_jt, *tt_jt, *rd_jf, *set_w;                   \
            TYPE *rd_fx_parts, *tt_fx_parts, *rd_mod_parts;                                        \
            TYPE *rd_xy, *tt_xy, *a_xz;                                                            \
        };                                                                                         \
        TYPE *tally[OUTPUT_TALLIES_ALL];                                                           \
    }
#define OUTPUT_RESULT_FIELDS                                                                       \
    union {                                                                                        \
        struct {                                                                                   \
            double *a_l, *a_z, *rd_r, *rd_a, *tt_r, *tt_a, *a_rz, *rd_ra, *tt_ra;                  \
            double *rd_path, *tt_path, *rd_path_total, *tt_path_total;                             \
            double *rd_rt, *rd_t, *tt_rt, *tt_t, *rd_fiber;                                        \
            double *rd_jacobian, *rd_r_jacobian, *rd_a_jacobian;                                   \
            double *tt_jacobian, *tt_r_jacobian, *tt_a_jacobian;                                   \
            double *rd_rt_jacobian, *rd_t_jacobian, *tt_rt_jacobian, *tt_t_jacobian;               \
            double *rd_fiber_jacobian;                                                             \
            double *rd_fx, *tt_fx;                                                                 \
            double *rd_r_ac, *rd_r_phase, *rd_ac, *rd_phase;                                       \
            double *rd_xy, *tt_xy, *a_xz;                                                          \
        };                                                                                         \
        double *array[OUTPUT_ARRAYS];                                                              \
    }

/* The grid axes an array runs along.  ORDER as tmcml.h's tmcml_axis. */
typedef enum output_axis {
    OUTPUT_AXIS_LAYER,    /* num_layers entries, layer 1 first */
    OUTPUT_AXIS_R,        /* nr */
    OUTPUT_AXIS_Z,        /* nz */
    OUTPUT_AXIS_A,        /* na */
    OUTPUT_AXIS_T,        /* nt: the time bins (time_bins.h) */
    OUTPUT_AXIS_DETECTOR, /* the fiber detectors (detector.h): 1 to TM_MAX_DETECTORS */
    /* The derivatives' axes: the layers of the derivative tallies (a
     * tally's grid has them only with its tallies), the terms those keep
     * (OUTPUT_TERMS), and the parameters of a Jacobian (OUTPUT_PARAMS). */
    OUTPUT_AXIS_JACOBIAN_LAYER,
    OUTPUT_AXIS_TERM,
    OUTPUT_AXIS_PARAM,
    /* An optics set's weight sums (OUTPUT_SET_WEIGHTS, or 0 without). */
    OUTPUT_AXIS_SET_WEIGHTS,
    /* The spatial frequencies (mci_run.fx_count), and the parts of their
     * tallies (OUTPUT_FX_PARTS). */
    OUTPUT_AXIS_FX,
    OUTPUT_AXIS_FX_PART,
    /* The modulation frequencies (mci_run.mod_count), and the parts of
     * their tallies (OUTPUT_MOD_PARTS). */
    OUTPUT_AXIS_MOD,
    OUTPUT_AXIS_MOD_PART,
    /* The Cartesian grid's cells along x or y (mci_run.xy_nx: both axes
     * have as many). */
    OUTPUT_AXIS_XY
} output_axis;
#define OUTPUT_MAX_RANK 4

/* MCML 1.2.2's normalisations (mcmlio.c: Sum2DRd, Sum2DA, Sum2DTt, ScaleRdTt,
 * ScaleA), N photons, each entry's tally as weight (tally_weight); the sums
 * are taken on the integers first.  runtime/io/result.c computes them in
 * MCML's order of operations. */
typedef enum output_norm {
    OUTPUT_NORM_RA,    /* bin / (4 pi^2 dr^2 sin(da/2) (ir + 1/2) sin(2 (ia + 1/2) da) N) */
    OUTPUT_NORM_R,     /* sum over the second axis / (2 pi (ir + 1/2) dr^2 N) */
    OUTPUT_NORM_A,     /* sum over r / (2 pi da sin((ia + 1/2) da) N) */
    OUTPUT_NORM_RZ,    /* bin / (2 pi (ir + 1/2) dr^2 dz N) */
    OUTPUT_NORM_Z,     /* sum over r / (dz N) */
    OUTPUT_NORM_LAYER, /* sum of the depth bins whose centre lies in the layer / N */
    /* Not MCML's: means, not densities per photon.  A path tally (weight x
     * cm, ring by layer) over the escaping weight of its ring (the sum over
     * angles of the ring's row of the escape tally, tally_paths_of), 0 where
     * none escaped; and the sum over rings over the whole escaping weight. */
    OUTPUT_NORM_PATH,       /* [ir][i]: bin / the ring's escaping weight (cm) */
    OUTPUT_NORM_PATH_TOTAL, /* [i]: sum over r / the whole escaping weight (cm) */
    /* Not MCML's either, but its kind: densities per photon in time. */
    OUTPUT_NORM_RT,    /* bin / (2 pi (ir + 1/2) dr^2 dt N): 1/(cm2 ns) */
    OUTPUT_NORM_T,     /* sum over r / (dt N): 1/ns */
    OUTPUT_NORM_COUNT, /* bin / N: a fraction of the photons */
    /* The derivatives of Rd_r and Tt_r, of Rd_a and Tt_a, and of Rd and Tt
     * (runtime/io/jacobian.c): each term normalised as its escape array,
     * then combined per parameter. */
    OUTPUT_NORM_JACOBIAN_R,
    OUTPUT_NORM_JACOBIAN_A,
    OUTPUT_NORM_JACOBIAN_TOTAL,
    /* Those of Rd_rt and Tt_rt, of Rd_t and Tt_t, and of Rd_fiber. */
    OUTPUT_NORM_JACOBIAN_RT,
    OUTPUT_NORM_JACOBIAN_T,
    OUTPUT_NORM_JACOBIAN_COUNT,
    /* Rd_fx, Tt_fx: each frequency's positive part less its negative / N
     * (the difference taken on the integers). */
    OUTPUT_NORM_FX,
    /* The frequency domain, from the cosine and sine sums C and S (each
     * its positive part less its negative, on the integers): Rd_r_ac, a
     * ring's sqrt(C^2 + S^2) normalised as Rd_r; Rd_r_phase, its
     * atan2(S, C) (rad, a lag positive); Rd_ac and Rd_phase the same of
     * the sums over the rings, the amplitude per photon as Rd. */
    OUTPUT_NORM_MOD_AC_R,
    OUTPUT_NORM_MOD_PHASE_R,
    OUTPUT_NORM_MOD_AC,
    OUTPUT_NORM_MOD_PHASE,
    /* The Cartesian grid (mci_run.xy_dx = DX): Rd_xy, Tt_xy, bin / (DX^2
     * N), 1/cm2; A_xz, bin / (DX dz N), 1/cm2 (per area of the x-z
     * plane, integrated over y). */
    OUTPUT_NORM_XY,
    OUTPUT_NORM_XZ
} output_norm;

/* The optional groups of arrays: a row of one is scored and written only
 * by a run that asks for it (run_options.h says which a run asks for). */
typedef enum output_option {
    OUTPUT_OPTION_NONE,     /* every run's */
    OUTPUT_OPTION_PATHS,    /* the path lengths (mci_run.path_lengths) */
    OUTPUT_OPTION_TIME,     /* time-resolved escapes (mci_run.time_nt) */
    OUTPUT_OPTION_FIBER,    /* the fiber detectors (mci_run.fiber_count) */
    OUTPUT_OPTION_JACOBIAN, /* the derivatives (mci_run.jacobian) */
    OUTPUT_OPTION_OPTICS,   /* an optics set's weights (mci_run.optics_set) */
    OUTPUT_OPTION_FX,       /* the spatial frequencies (mci_run.fx_count) */
    OUTPUT_OPTION_MOD,      /* the modulation frequencies (mci_run.mod_count) */
    OUTPUT_OPTION_XY        /* the Cartesian grid (mci_run.xy_nx) */
} output_option;
#define OUTPUT_OPTIONS 9

/* How the JSON summary (summary.c) shows an array: the 1-D ones a reader
 * wants at a glance, in the table's order after "trapped", each with its
 * unit in "units" (docs/outputs.md, "Units in the JSON summary"). */
typedef enum output_json {
    OUTPUT_JSON_NONE,  /* not in the summary: the .mco, the .npz and the library have it */
    OUTPUT_JSON_LIST,  /* its shown entries (output_first on) as a list */
    OUTPUT_JSON_NUMBER /* one entry (one detector) as a number, several as a list */
} output_json;

typedef struct output_array {
    const char *name; /* MCML's: the .mco section, the library's and Python's name */
    int rank;
    output_axis axes[OUTPUT_MAX_RANK]; /* slowest first: A_rz[ir * nz + iz] */
    const char *unit;                  /* "1/(cm2 sr)"; "-" for none */
    int tally;                         /* OUTPUT_TALLY_...: the tally it is or is summed from */
    bool tallied;     /* it is that tally, bin for bin (tmcml_result_tallies gives it) */
    output_norm norm; /* how its tally becomes MCML's quantity */
    /* A tally's whole sum / N is this RAT scalar: offsetof(mcml_result, rd)
     * and so on; 0 for none. */
    size_t total;
    bool absorption; /* scored only with absorption: zero under -A */
    /* Optional: only in a run that asks for its group (the path lengths,
     * the time bins, the fiber detector); elsewhere its array is NULL and
     * every loop over the table skips it (the .mco, the JSON, the digest and
     * the checkpoint of a run without it are as before it existed).  A path
     * array's tally, for the normalisation, is the escape tally whose weight
     * it is the mean over (path_of). */
    output_option option;
    int path_of; /* OUTPUT_TALLY_RD_RA or _TT_RA: the weight it is the mean over */
    /* The .mco section: the lines before its numbers (its name last, after
     * MCML's comments; no final newline), the printf format of one number,
     * and numbers a line (1, or MCML's 5 for a 2-D array).  NULL: not in
     * the .mco (the Jacobians: the .npz and the library have them). */
    const char *mco_title;
    const char *mco_number;
    int mco_per_line;
    output_json json; /* in the JSON summary, where a run has it */
} output_array;

extern const output_array output_table[OUTPUT_ARRAYS];

/* The rows of the tallies that are no output bin for bin, OUTPUT_TALLY_RD_JR
 * to _RD_MOD in that order (the derivatives' terms, an optics set's weight
 * sums, the spatial frequencies' and the modulation frequencies' parts): shape, option and name as a tally
 * row's, never an output. */
extern const output_array output_hidden_tallies[OUTPUT_HIDDEN_TALLIES];

/* The grid the arrays are sized by. */
typedef struct output_grid {
    int nr, nz, na, num_layers;
    int nt, detectors; /* the optional axes: 0 where a run has none */
    int jacobian_layers;
    int set_weights; /* OUTPUT_SET_WEIGHTS with an optics set's, else 0 */
    int frequencies; /* the spatial frequencies; 0 where a run has none */
    int modulations; /* the modulation frequencies; 0 where a run has none */
    int xy;          /* the Cartesian grid's cells along x (and y); 0: none */
} output_grid;

/* Entries along an axis. */
uint64_t output_axis_length(output_axis axis, const output_grid *g);
/* The axis an optional group adds to the grid (its tallies' second axis,
 * after r or the spatial frequencies' parts, or their only one: the layers
 * of the path lengths, the time bins, the detectors, the layers of the
 * derivatives, the frequencies), and the
 * grid of that axis alone, length entries long (every other axis 0). */
output_axis output_option_axis(output_option group);
output_grid output_option_grid(output_option group, int length);
/* Entries of the array: its dimensions multiplied. */
uint64_t output_bins(const output_array *o, const output_grid *g);
/* Whether every axis of o has entries in g: a row of two groups (the
 * derivatives of the time-resolved escapes) exists only with both. */
bool output_has_axes(const output_array *o, const output_grid *g);
/* Entries it is kept in (mcml_result): a layer array also keeps the media
 * above and below, MCML's A_l[0] and A_l[num_layers + 1], which no output
 * shows. */
uint64_t output_stored(const output_array *o, const output_grid *g);
/* Where its first shown entry is in what is kept: 1 for a layer array. */
int output_first(const output_array *o);

/* The row that is integer tally k (0 <= k < OUTPUT_TALLIES_ALL), and its
 * bins: output_tally_bins for every run's tallies (their grid has no
 * layers), output_tally_grid_bins for any. */
const output_array *output_tally(int k);
uint64_t output_tally_bins(int k, int nr, int nz, int na);
uint64_t output_tally_grid_bins(int k, const output_grid *g);

/* The row named name (MCML's spelling), or NULL. */
const output_array *output_by_name(const char *name);

#endif
