/* libtmcml: Monte Carlo simulation of light in layered tissue, with the
 * semantics of MCML 1.2.2, from C (docs/library.md).
 *
 * Three opaque handles, each with its own delete:
 *   tmcml_session  what stays alive across calls: the GPU context and the
 *                  last kernel module, the kernel variant of each problem
 *                  shape, and the last error.  A loop of runs that changes
 *                  only optical properties compiles its kernel once.
 *   tmcml_problem  what to simulate: layers and grid (from arrays or a .mci).
 *   tmcml_result   what a run produced: every MCML quantity, the integer
 *                  tallies and how the run went.
 *
 * Errors: every function that can fail returns a tmcml_status and leaves the
 * message (naming the parameter, or file:line) in its session, to be read
 * with tmcml_session_message; every call replaces the message of the call
 * before.  A NULL pointer where the call needs one is TMCML_ERR_ARGUMENT
 * naming it ("out: NULL"); a NULL session is TMCML_ERR_ARGUMENT alone, with
 * nowhere to keep a message.  The functions that cannot fail read a NULL
 * handle as an empty one (0, "", zeros, NULL) and write nothing through a
 * NULL output pointer.  The library never prints and never exits.
 *
 * Threads: a session serialises the calls made on it (one at a time; the
 * others wait), so a message belongs to the last failed call of its session.
 * Use one session per thread for parallel runs; tmcml_session_cancel may be
 * called from any thread or from a signal handler.  tmcml_session_delete
 * may be called while another thread's call on the session is under way or
 * waiting for its turn: it cancels the first, refuses the others
 * (TMCML_ERR_CANCELLED, no message) and waits for them all to return before
 * it frees the session.  A call made after the delete has begun is the
 * caller's race to avoid: it would touch a freed session.  The results and
 * problems of a session are not tied to it and outlive it.
 *
 * Units are MCML's: lengths in cm, coefficients in 1/cm.
 *
 *     tmcml_session *s = tmcml_session_new();
 *     tmcml_layer layer = {1.37, 1.0, 100.0, 0.9, 0.1};
 *     tmcml_grid grid = {0.01, 0.01, 40, 50, 1};
 *     tmcml_problem *p;
 *     tmcml_options opt;
 *     tmcml_result *r;
 *     tmcml_options_init(&opt);
 *     opt.photons = 100000;
 *     if (tmcml_problem_new(s, &layer, 1, 1.0, 1.0, &grid, &p) != TMCML_OK ||
 *         tmcml_run(s, p, &opt, &r) != TMCML_OK)
 *         fprintf(stderr, "%s\n", tmcml_session_message(s));
 */
#ifndef TMCML_H
#define TMCML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TMCML_API __attribute__((visibility("default")))
#else
#define TMCML_API
#endif

/* tmcml_version(): tmcml's version ("0.1.0"), the one `tmcml --version`,
 * tmcml.pc and Python's tmcml.__version__ report (docs/install.md).  The
 * interface's: a change of TMCML_ABI_VERSION (the shared library's SONAME,
 * libtmcml.so.N) means recompiling callers. */
#define TMCML_ABI_VERSION 1
TMCML_API const char *tmcml_version(void);

typedef enum tmcml_status {
    TMCML_OK = 0,
    TMCML_ERR_ARGUMENT = 1,  /* a bad parameter: the message names it */
    TMCML_ERR_FILE = 2,      /* a file could not be read, parsed or written: "file:line: what" */
    TMCML_ERR_MEMORY = 3,    /* out of memory */
    TMCML_ERR_NO_GPU = 4,    /* the GPU engine was asked for and none can be used */
    TMCML_ERR_ENGINE = 5,    /* the simulation failed (kernel compile, GPU fault, tuning) */
    TMCML_ERR_CANCELLED = 6, /* the progress callback or tmcml_session_cancel stopped the run */
    TMCML_ERR_STATE = 7      /* a call out of order (a result without tallies, ...) */
} tmcml_status;

/* "ok", "bad argument", ...: static text. */
TMCML_API const char *tmcml_status_name(tmcml_status status);

/* ---- sessions ------------------------------------------------------------------ */

typedef struct tmcml_session tmcml_session;

/* A new session (no GPU opened yet: that happens at its first GPU run).
 * NULL only when out of memory.  The caller owns it: tmcml_session_delete. */
TMCML_API tmcml_session *tmcml_session_new(void);
/* Closes the GPU context, if one was opened, and frees s (NULL: nothing).
 * A call on s under way on another thread is cancelled as by
 * tmcml_session_cancel and returns TMCML_ERR_CANCELLED (a run within a
 * fraction of a second; a kernel being compiled, or a tuning under way, ends
 * first); calls waiting for their turn return TMCML_ERR_CANCELLED at once.
 * Returns once they have all returned.  Not from a progress callback of a
 * run on s (it would wait for itself). */
TMCML_API void tmcml_session_delete(tmcml_session *s);

/* The message of the last failed call on s ("" when none failed); valid
 * until the next call on s, or its delete. */
TMCML_API const char *tmcml_session_message(const tmcml_session *s);
/* Its status (TMCML_OK when none failed). */
TMCML_API tmcml_status tmcml_session_status(const tmcml_session *s);

/* Asks the run under way on s to stop: it returns TMCML_ERR_CANCELLED soon
 * (the photons already handed out are finished first).  Async-signal-safe
 * and thread-safe; a call on s (a run) clears the request when it starts. */
TMCML_API void tmcml_session_cancel(tmcml_session *s);

/* What the session has done so far, for measuring warm starts. */
typedef struct tmcml_session_stats {
    uint64_t runs;         /* runs completed */
    uint64_t gpu_runs;     /* of which on the GPU */
    uint64_t compiles;     /* kernels compiled by NVRTC (not found in the cubin cache) */
    uint64_t module_loads; /* kernels loaded onto the GPU (compiled or from the cache) */
    uint64_t plans;        /* kernel variants chosen (once per problem shape and policy) */
} tmcml_session_stats;
TMCML_API void tmcml_session_stats_get(const tmcml_session *s, tmcml_session_stats *stats);

/* ---- GPUs ------------------------------------------------------------------------ */

typedef struct tmcml_device {
    int index;
    char name[256];
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    uint64_t total_memory, free_memory; /* bytes */
    int driver_version;                 /* e.g. 13000 */
} tmcml_device;

/* Fills up to max entries of out with the GPUs of this machine; *count gets
 * how many there are.  TMCML_ERR_NO_GPU (with *count = 0 and the reason as
 * the message) where there is no driver or no GPU. */
TMCML_API tmcml_status tmcml_devices(tmcml_session *s, tmcml_device *out, int max, int *count);

/* ---- problems -------------------------------------------------------------------- */

typedef struct tmcml_problem tmcml_problem;

/* One layer: refractive index, absorption and scattering coefficients
 * [1/cm], anisotropy, thickness [cm].  Five doubles, so an n x 5 array of
 * doubles is an array of layers. */
typedef struct tmcml_layer {
    double n, mua, mus, g, d;
} tmcml_layer;

/* MCML's grid: steps [cm] and bin counts in z, r and angle. */
typedef struct tmcml_grid {
    double dz, dr;
    int nz, nr, na;
} tmcml_grid;

/* A problem from arrays: num_layers layers (top first) between media of
 * indices n_above and n_below.  Checked with the rules of a .mci file
 * (runtime/io/mci.c): TMCML_ERR_ARGUMENT names the parameter ("layer 2: mua
 * must not be negative (-1)").  The caller owns *out: tmcml_problem_delete. */
TMCML_API tmcml_status tmcml_problem_new(tmcml_session *s, const tmcml_layer *layers,
                                         int num_layers, double n_above, double n_below,
                                         const tmcml_grid *grid, tmcml_problem **out);

/* Every run of a .mci file: *runs gets an array of *count problems, which
 * the caller owns (tmcml_problems_delete).  TMCML_ERR_FILE: "file:line: what". */
TMCML_API tmcml_status tmcml_mci_read(tmcml_session *s, const char *path, tmcml_problem ***runs,
                                      int *count);

/* Writes problems as a .mci file (atomically).  Each needs its photons and
 * output name (a problem read from a .mci has both; one from arrays gets
 * them from tmcml_problem_set_photons and tmcml_problem_set_name). */
TMCML_API tmcml_status tmcml_mci_write(tmcml_session *s, const char *path,
                                       const tmcml_problem *const *runs, int count);

TMCML_API void tmcml_problem_delete(tmcml_problem *p);
/* Deletes each problem and the array (as tmcml_mci_read made them). */
TMCML_API void tmcml_problems_delete(tmcml_problem **runs, int count);

/* The photons of a run when tmcml_options.photons is 0 (1 to 2^63-1). */
TMCML_API tmcml_status tmcml_problem_set_photons(tmcml_session *s, tmcml_problem *p,
                                                 int64_t photons);
/* The output name of the .mci (one word, no '#'). */
TMCML_API tmcml_status tmcml_problem_set_name(tmcml_session *s, tmcml_problem *p, const char *name);
/* Whether runs of p score the partial path lengths (on: nonzero; default
 * 0): TMCML_RD_PATH, TMCML_TT_PATH and their totals (docs/outputs.md,
 * "Path lengths"), also in its .mco and JSON.  The CPU engine scores them:
 * TMCML_ENGINE_GPU is then TMCML_ERR_ARGUMENT and AUTO takes the CPU.  At
 * most 64 layers.  A problem flag, not a tmcml_options field, so that
 * tmcml_options keeps its size (callers allocate it).  New in TMCML_1.1. */
TMCML_API tmcml_status tmcml_problem_set_path_lengths(tmcml_session *s, tmcml_problem *p, int on);
TMCML_API int tmcml_problem_path_lengths(const tmcml_problem *p);
/* Whether runs of p score the derivatives of the escapes with respect to
 * each layer's mua, mus and g (on: nonzero; default 0): the Jacobians
 * TMCML_RD_JACOBIAN to TMCML_TT_A_JACOBIAN, and with time bins or a fiber
 * detector TMCML_RD_RT_JACOBIAN to TMCML_RD_FIBER_JACOBIAN (docs/physics.md,
 * "Derivatives"), from the run's own photons, with standard errors when
 * asked (tmcml_problem_set_stderr).  Both engines score those of the
 * escapes by ring and angle of one problem a call (tmcml_run, or
 * tmcml_run_sets, tmcml_run_optics_sets); those of several problems in a
 * call, of time bins, a detector or path lengths the CPU engine alone
 * (TMCML_ENGINE_GPU is then TMCML_ERR_ARGUMENT and AUTO takes the CPU).
 * At most 64 layers.  The tallies of every other array stay bit
 * for bit those of a run without them.  New in TMCML_1.5. */
TMCML_API tmcml_status tmcml_problem_set_jacobian(tmcml_session *s, tmcml_problem *p, int on);
TMCML_API int tmcml_problem_jacobian(const tmcml_problem *p);
/* Whether runs of p estimate the standard error of every output (on:
 * nonzero; default 0) by batch means (docs/library.md, "Standard errors"): the
 * photons are simulated in 64 groups by index, which depend on the seed
 * and the photon count alone, and the spread of the groups' results gives
 * each array entry's and each total's error (tmcml_result_stderr,
 * tmcml_result_rat_stderr).  The tallies, and so every result, are bit for
 * bit those of a run without it; on a GPU a problem alone costs a
 * launch's tail a group (a batch's, a tail a call).  Honoured by tmcml_run, tmcml_run_batch (each problem that asks),
 * tmcml_run_sets (every set's result) and tmcml_run_checkpointed.  A problem
 * flag, as the path lengths, so that tmcml_options keeps its size; a
 * problem given its photons or name after it keeps it, and a result's
 * problem has it.  New in TMCML_1.4. */
TMCML_API tmcml_status tmcml_problem_set_stderr(tmcml_session *s, tmcml_problem *p, int on);
TMCML_API int tmcml_problem_stderr(const tmcml_problem *p);
/* Runs of p that stop at a precision (docs/library.md, "Runs that stop at
 * a precision"; `tmcml run --precision`'s rules): the photons are simulated
 * in growing groups (64 of 1000, then 64 of 2000, ...) and the run ends at
 * the first decision point where the relative standard error of `of` is at
 * most `relative`, or at max_photons.  relative: within (0, 1), 0 turns it
 * off (of and max_photons then not looked at); of: "Rd" (NULL), "A",
 * "Tt", an entry of a 1-D array ("Rd_r[40]") or the worst of a range of
 * its entries ("Rd_r[0:100]"), checked against p now (it must be scored
 * and not zero in expectation) and again at the run (with its options'
 * absorption); max_photons: 0 (the options' photons, else the problem's)
 * or at least 64000 (the 64 groups of 1000 it decides after).  A bad value
 * is TMCML_ERR_ARGUMENT naming the field.  The decision is taken from the
 * groups alone, so a seed and a precision give the same photons and the
 * same result bit for bit as `tmcml run --precision` on every engine, in
 * a batch, and across a cancel and resume of tmcml_run_checkpointed.  A
 * precision implies standard errors (tmcml_problem_set_stderr).  The
 * result's photons (its problem's, its .mco's and JSON's) are those taken.
 * A run that reaches max_photons first returns TMCML_OK: its result is
 * valid, but the caller must check tmcml_result_precision's met.
 * Honoured by tmcml_run, tmcml_run_checkpointed, tmcml_run_batch (each
 * problem stops on its own; every problem of the call must ask for one, or
 * none: a call that mixes them is TMCML_ERR_ARGUMENT naming the first that
 * differs) and tmcml_run_sets (the sets share their photons: they stop
 * together, when every set has reached it).  New in TMCML_1.4. */
TMCML_API tmcml_status tmcml_problem_set_precision(tmcml_session *s, tmcml_problem *p,
                                                   double relative, const char *of,
                                                   int64_t max_photons);
/* Time-resolved escapes (docs/outputs.md, "Time-resolved"): nt bins of dt
 * ns of time of flight (path x n / c per layer, c = 29.9792458 cm/ns), the
 * last collecting every later escape; nt 0 turns them off (dt is then not
 * looked at).  Runs of p then give TMCML_RD_RT, TMCML_RD_T, TMCML_TT_RT and
 * TMCML_TT_T, also in the .mco and JSON.  The CPU engine scores them, as
 * path lengths.  dt finite > 0, 1 <= nt <= 2^20 and nr x nt <= 2^27, else
 * TMCML_ERR_ARGUMENT naming the value.  New in TMCML_1.1. */
TMCML_API tmcml_status tmcml_problem_set_time_bins(tmcml_session *s, tmcml_problem *p, double dt,
                                                   int nt);
/* nt (0: none), and dt into *dt (may be NULL). */
TMCML_API int tmcml_problem_time_bins(const tmcml_problem *p, double *dt);
/* A fiber detector on the surface (docs/physics.md, "Fiber detector"): a
 * face of radius `radius` cm centred `separation` cm from the beam's axis,
 * numerical aperture na (0 < na <= n of the medium above), in place of
 * every detector p had; radius 0 turns them off.  Runs of p then give
 * TMCML_RD_FIBER, the fraction of the photons it collects.  Both engines
 * score it.  New in TMCML_1.1. */
TMCML_API tmcml_status tmcml_problem_set_fiber_detector(tmcml_session *s, tmcml_problem *p,
                                                        double separation, double radius,
                                                        double na);
/* 1 with one or more detectors (the first's values into the pointers,
 * each may be NULL), else 0. */
TMCML_API int tmcml_problem_fiber_detector(const tmcml_problem *p, double *separation,
                                           double *radius, double *na);
/* Fiber detectors a problem may have. */
#define TMCML_MAX_FIBER_DETECTORS 16
/* One more fiber detector after those p has (the values as
 * tmcml_problem_set_fiber_detector's, radius > 0), up to
 * TMCML_MAX_FIBER_DETECTORS: runs of p then give TMCML_RD_FIBER with a value
 * a detector, in the order added, each scored from the same photons (each
 * bit for bit what a run of the same seed with that detector alone gives),
 * and TMCML_RD_FIBER_JACOBIAN a [num_layers x 3] block a detector.  Bad
 * values, or one detector too many, are TMCML_ERR_ARGUMENT naming it
 * ("fiber detector 2: ...").  New in TMCML_1.6. */
TMCML_API tmcml_status tmcml_problem_add_fiber_detector(tmcml_session *s, tmcml_problem *p,
                                                        double separation, double radius,
                                                        double na);
/* p's fiber detectors: their count (0: none), and detector k's values
 * (k from 0) into the pointers (each may be NULL; zeros when k is not
 * one of them).  New in TMCML_1.6. */
TMCML_API int tmcml_problem_fiber_detector_at(const tmcml_problem *p, int k, double *separation,
                                              double *radius, double *na);
/* Spatial frequencies (docs/physics.md, "Spatial frequencies"): count
 * frequencies fx[0 .. count-1] in 1/cm (copied), at which runs of p score
 * the Hankel transforms of their escapes, TMCML_RD_FX and TMCML_TT_FX
 * (R(fx) = sum over the escapes through the top of w J0(2 pi fx rho) / N,
 * rho the escape's distance from the beam's axis; R(0) is Rd), also in the
 * .mco and JSON; count 0 turns them off (fx is then not looked at).  Each
 * finite, 0 to 10^4 1/cm (a period of 1 um: finer is no transport
 * problem), 1 to 1024 of them, else TMCML_ERR_ARGUMENT naming the value.
 * Both engines: on the GPU a problem's own kernel, up to 128 of them;
 * several problems in one call, sets, derivatives or more frequencies the
 * CPU engine alone (TMCML_ENGINE_GPU is then TMCML_ERR_ARGUMENT, AUTO takes
 * the CPU).  New in TMCML_1.6. */
TMCML_API tmcml_status tmcml_problem_set_spatial_frequencies(tmcml_session *s, tmcml_problem *p,
                                                             const double *fx, int count);
/* The count of p's spatial frequencies (0: none), and the first `most` of
 * them into fx (may be NULL when most is 0). */
TMCML_API int tmcml_problem_spatial_frequencies(const tmcml_problem *p, double *fx, int most);
/* Modulation frequencies (docs/physics.md, "Frequency domain"): count
 * frequencies hz[0 .. count-1] in Hz (copied), at which runs of p score
 * the reflectance in the frequency domain, sum over the escapes through
 * the top of w exp(-i 2 pi f t), t the time of flight: its amplitude and
 * phase lag per ring, TMCML_RD_R_AC and TMCML_RD_R_PHASE, and over every
 * ring, TMCML_RD_AC and TMCML_RD_PHASE, also in the .mco and JSON; count 0
 * turns them off (hz is then not looked at).  Each finite, 1 kHz to 10 GHz
 * (outside, a value is likelier in the wrong unit), 1 to 256 of them, else
 * TMCML_ERR_ARGUMENT naming the value.  Both engines score them for one
 * problem a call (the GPU up to 32, in a run's own kernel); with sets,
 * derivatives, several problems in a call or more, the CPU engine alone:
 * TMCML_ENGINE_GPU is then TMCML_ERR_ARGUMENT and AUTO takes the CPU.  New
 * in TMCML_1.6. */
TMCML_API tmcml_status tmcml_problem_set_modulation(tmcml_session *s, tmcml_problem *p,
                                                    const double *hz, int count);
/* The count of p's modulation frequencies (0: none), and the first `most`
 * of them into hz (may be NULL when most is 0). */
TMCML_API int tmcml_problem_modulation(const tmcml_problem *p, double *hz, int most);
/* The Cartesian grid (docs/outputs.md, "Cartesian grid"): nx x nx square
 * cells of side dx cm on the surface, centred on the entry point x = y = 0
 * (x, y in [-nx dx / 2, nx dx / 2)), where runs of p also score
 * TMCML_RD_XY and TMCML_TT_XY ([ix][iy], 1/cm2) and TMCML_A_XZ (the
 * absorption in the x-z plane integrated over y, [ix][iz], 1/cm2); what
 * lands beyond the grid is not in it.  nx 0 turns it off (dx is then not
 * looked at).  dx finite, at least 1e-9 cm; 1 <= nx <= 4096 and nx x nz
 * <= 2^27, else TMCML_ERR_ARGUMENT naming the value.  Memory: (2 nx^2 +
 * nx nz) x 8 bytes a CPU thread, x 16 bytes a run.  Both engines score
 * it, the GPU in a run's own kernel: with several problems in one call,
 * sets or derivatives the CPU engine alone (TMCML_ENGINE_GPU is then
 * TMCML_ERR_ARGUMENT and AUTO takes the CPU).
 * It goes with every other output of a beam along the axis, and is the one
 * spatial output of the oblique beam (TMCML_SOURCE_OBLIQUE), whose runs
 * need it.  New in TMCML_1.6. */
TMCML_API tmcml_status tmcml_problem_set_xy(tmcml_session *s, tmcml_problem *p, double dx, int nx);
/* p's grid: its cells along x (0: none, and for a NULL p) and their side
 * into *dx (may be NULL; 0 without a grid). */
TMCML_API int tmcml_problem_xy(const tmcml_problem *p, double *dx);

/* Where the photons of p start (docs/physics.md, "Sources"; default MCML's
 * pencil beam).  The kinds, and what a and b are:
 *   TMCML_SOURCE_PENCIL    MCML's: r = 0 along +z (a, b unused)
 *   TMCML_SOURCE_GAUSSIAN  a Gaussian beam of 1/e^2 radius a cm > 0
 *   TMCML_SOURCE_FLAT      a flat (top-hat) beam of radius a cm > 0
 *   TMCML_SOURCE_POINT     an isotropic point at depth a cm on the axis,
 *                          inside a layer (not on a boundary), weight 1
 *   TMCML_SOURCE_FIBER     a fiber at the surface: radius a cm >= 0,
 *                          numerical aperture b, 0 <= b <= n above
 *   TMCML_SOURCE_OBLIQUE   a beam at a polar angle of incidence of a degrees,
 *                          0 <= a < 90, in the x-z plane, entering at
 *                          x = y = 0, refracted by Snell's law, losing the
 *                          Fresnel reflectance at a (Rsp); needs the
 *                          Cartesian grid (tmcml_problem_set_xy)
 *                          (TMCML_1.6)
 * Bad values: TMCML_ERR_ARGUMENT naming them.  Recorded in the result's .mco
 * and JSON.  Both engines, every kind; the kind is part of the
 * kernel's shape (a batch holds one kind), the parameters are data.  New in
 * TMCML_1.1. */
typedef enum tmcml_source_kind {
    TMCML_SOURCE_PENCIL = 0,
    TMCML_SOURCE_GAUSSIAN = 1,
    TMCML_SOURCE_FLAT = 2,
    TMCML_SOURCE_POINT = 3,
    TMCML_SOURCE_FIBER = 4,
    TMCML_SOURCE_OBLIQUE = 5
} tmcml_source_kind;
TMCML_API tmcml_status tmcml_problem_set_source(tmcml_session *s, tmcml_problem *p, int kind,
                                                double a, double b);
/* p's source kind (TMCML_SOURCE_PENCIL for a NULL p), its a and b (either
 * may be NULL; 0 where the kind has none). */
TMCML_API int tmcml_problem_source(const tmcml_problem *p, double *a, double *b);

TMCML_API int tmcml_problem_num_layers(const tmcml_problem *p);
/* Layer i, 1 to num_layers; 0 is the medium above and num_layers + 1 the
 * medium below (only n is meaningful there).  False outside that range. */
TMCML_API int tmcml_problem_layer(const tmcml_problem *p, int i, tmcml_layer *layer);
/* The grid (all zeros for a NULL p). */
TMCML_API void tmcml_problem_grid(const tmcml_problem *p, tmcml_grid *grid);
/* The photons set (or read from the .mci); 0 when none. */
TMCML_API int64_t tmcml_problem_photons(const tmcml_problem *p);
/* The output name set (or read from the .mci); "" when none.  Owned by p. */
TMCML_API const char *tmcml_problem_name(const tmcml_problem *p);

/* ---- running ------------------------------------------------------------------------ */

typedef enum tmcml_engine {
    TMCML_ENGINE_AUTO = 0, /* the GPU when one can be used, else the CPU */
    TMCML_ENGINE_CPU = 1,  /* the double-precision CPU engine */
    TMCML_ENGINE_GPU = 2   /* the GPU, or TMCML_ERR_NO_GPU */
} tmcml_engine;

/* How the GPU kernel variant is chosen (the run command's options). */
typedef enum tmcml_policy {
    TMCML_POLICY_PROFILE = 0,   /* a profile entry, else the heuristic (--tune never) */
    TMCML_POLICY_HEURISTIC = 1, /* the heuristic only (--no-profile) */
    TMCML_POLICY_AUTO = 2,      /* as PROFILE, but tune first when no entry applies and the
                                   run is long enough to repay it (the command's default) */
    TMCML_POLICY_TUNE = 3       /* tune and store a profile entry (--tune always) */
} tmcml_policy;

/* Called on the thread that called tmcml_run, at most every
 * progress_interval seconds while the run goes and once at its end: photons
 * done of total.  A nonzero return cancels the run (TMCML_ERR_CANCELLED).
 * It runs while the session is busy: of the session's functions it may call
 * tmcml_session_cancel only. */
typedef int (*tmcml_progress_fn)(uint64_t done, uint64_t total, void *user);

typedef struct tmcml_options {
    int64_t photons;            /* 0: the problem's (tmcml_problem_set_photons, the .mci) */
    uint64_t seed;              /* equal seeds give bit-identical tallies (default 1) */
    tmcml_engine engine;        /* default TMCML_ENGINE_AUTO */
    int absorption;             /* 1: score absorption (default); 0: MCML's -A, A arrays zero */
    int threads;                /* CPU engine threads; 0: every core (default) */
    int gpu;                    /* GPU index (default 0) */
    tmcml_policy policy;        /* default TMCML_POLICY_PROFILE */
    const char *cache_dir;      /* cubin cache; NULL: the default, "": none */
    const char *profile_dir;    /* profile directory searched first (tuning stores there); NULL */
    uint32_t max_steps;         /* steps after which a photon is trapped; 0: the default */
    tmcml_progress_fn progress; /* may be NULL */
    void *progress_user;
    double progress_interval; /* seconds (default 0.1) */
} tmcml_options;

/* The defaults above. */
TMCML_API void tmcml_options_init(tmcml_options *opt);

typedef struct tmcml_result tmcml_result;

/* Simulates p with opt (NULL: the defaults).  The caller owns *out
 * (tmcml_result_delete).  On failure *out is NULL and nothing is kept. */
TMCML_API tmcml_status tmcml_run(tmcml_session *s, const tmcml_problem *p, const tmcml_options *opt,
                                 tmcml_result **out);

/* The most problems of one tmcml_run_batch call. */
#define TMCML_BATCH_MAX 1000000

/* Simulates problems[0 .. count-1], which share one kernel shape (layer
 * count and grid: TMCML_ERR_ARGUMENT names the first that does not), with
 * opt (NULL: the defaults; opt->photons, when set, is each problem's), in as
 * few launches as the GPU allows (docs/batches.md), and gives
 * out[i], problem i's result, equal bit for bit to tmcml_run of problem i
 * with the same options.  The caller owns out[0 .. count-1]; on failure all
 * are NULL and nothing is kept.  The progress callback counts the photons of
 * every problem. */
TMCML_API tmcml_status tmcml_run_batch(tmcml_session *s, const tmcml_problem *const *problems,
                                       int count, const tmcml_options *opt, tmcml_result **out);

/* Absorption sets (docs/physics.md, "Absorption sets"): simulates p once
 * and scores num_sets sets of per-layer absorption coefficients from the
 * same photon histories, exact in expectation.  mua_sets[k * L + i - 1] is
 * set k's mua [1/cm] of layer i (L = tmcml_problem_num_layers(p); p's own
 * mua are not used), each 0 or within the .mci's range; 1 to
 * TMCML_MUA_SETS_MAX sets.  out[k] (the caller owns out[0 .. num_sets-1]) is
 * set k's result: its problem is p with set k's mua, its photons and seed
 * the run's, so it writes and reads like any result.  A set far above the
 * per-layer minimum costs variance (docs/physics.md has figures).  The CPU
 * engine scores every array of every set.  A GPU kernel scores the sets'
 * escapes (RAT's Rd and Tt, Rd_* and Tt_*) and trapped weight, without
 * absorption: with opt->absorption = 0 the GPU runs them (and
 * TMCML_ENGINE_AUTO takes it when there is one); with absorption
 * TMCML_ENGINE_GPU is TMCML_ERR_ARGUMENT and AUTO takes the CPU.  On
 * failure all out[k] are NULL.  New in TMCML_1.1. */
#define TMCML_MUA_SETS_MAX 256
TMCML_API tmcml_status tmcml_run_sets(tmcml_session *s, const tmcml_problem *p,
                                      const double *mua_sets, int num_sets,
                                      const tmcml_options *opt, tmcml_result **out);
/* Optics sets (docs/physics.md, "Optics sets"): simulates p once, with its
 * own mus and g and each layer's smallest mua over the sets, and scores
 * num_sets (1 .. 256) sets of per-layer (mua, mus, g) from those histories,
 * each reweighted by the likelihood ratio of its collisions, path lengths
 * and deflections (exact in expectation).  optics: num_sets x num_layers x
 * 3, set k's (mua, mus, g) of layer i at [(k * num_layers + i - 1) * 3].
 * out[k] is set k's result, as tmcml_run_sets's, with its effective sample
 * size (tmcml_result_ess).  A layer that scatters keeps scattering (mus >
 * 0), one that does not (glass, mus 0) keeps mus 0 and its g, |g| < 1, a
 * layer of g +-1 keeps it; else TMCML_ERR_ARGUMENT naming the set, layer
 * and parameter, before any photon runs.  Both engines score them (the
 * histories are set 0's optics).  New in TMCML_1.5. */
TMCML_API tmcml_status tmcml_run_optics_sets(tmcml_session *s, const tmcml_problem *p,
                                             const double *optics, int num_sets,
                                             const tmcml_options *opt, tmcml_result **out);
/* An optics set's effective sample size: Kish's (sum w)^2 / sum w^2 over
 * its escapes, as a fraction of the reference history's (1: as good as a
 * run of its own photons; below TMCML_LOW_ESS its errors rest on a few
 * heavy histories: docs/physics.md).  TMCML_ERR_ARGUMENT for a NULL r or
 * out, TMCML_ERR_STATE (*out NaN) for a result that is not an optics set's,
 * or an optics set's of which nothing escaped.
 * New in TMCML_1.5. */
#define TMCML_LOW_ESS 0.1
TMCML_API tmcml_status tmcml_result_ess(const tmcml_result *r, double *out);

/* A long run kept in a checkpoint file (docs/library.md, "Checkpoints"):
 * the photons done are written to `path` (atomically) every `every`
 * seconds, and when the run is cancelled (tmcml_session_cancel, a nonzero
 * answer of the progress callback, tmcml_session_delete); a call with
 * resume = 1 continues from the file, and the result is then bit for bit
 * tmcml_run's of the same problem and options, wherever the run stopped.
 * The file is removed when the run ends.  A file that is another run's (its
 * problem, photons, seed, -A, max_steps or the engine's physics code
 * differ) is refused with TMCML_ERR_FILE naming what differs, and kept; a
 * file at path without resume is refused too (it is a stopped run's work). */
typedef struct tmcml_checkpoint {
    const char *path; /* the checkpoint file */
    double every; /* seconds between checkpoints while the run goes on; 0: only when cancelled */
    int resume;   /* 1: continue from path when it exists */
} tmcml_checkpoint;

/* path NULL, every 600 s (as `tmcml run`), resume 0.  New in TMCML_1.2. */
TMCML_API void tmcml_checkpoint_init(tmcml_checkpoint *ck);

/* tmcml_run, kept in ck's file.  Cancelled, it returns TMCML_ERR_CANCELLED
 * with the photons done kept in the file (the message says how many); on
 * another failure the file is as it was last written.  New in TMCML_1.2. */
TMCML_API tmcml_status tmcml_run_checkpointed(tmcml_session *s, const tmcml_problem *p,
                                              const tmcml_options *opt, const tmcml_checkpoint *ck,
                                              tmcml_result **out);

/* ---- lookup tables --------------------------------------------------------------------- */

/* A lookup table (docs/lut.md, `tmcml lut`'s): the diffuse reflectance,
 * total and per ring, of one homogeneous layer over a grid of mua and
 * mus', without absorption scoring.  How its points are simulated: */
typedef enum tmcml_lut_strategy {
    TMCML_LUT_AUTO = 0, /* sets (both engines score them without absorption); runs with a
                           precision, and with spatial frequencies on the GPU */
    TMCML_LUT_SETS = 1, /* each mus' one simulation whose mua are absorption sets (in chunks
                           of TMCML_MUA_SETS_MAX), seed S for every mus' */
    TMCML_LUT_RUNS = 2  /* each point its own simulation, the mus' of one mua batched; mua
                           number i (from 0) with seed S + i */
} tmcml_lut_strategy;

typedef struct tmcml_lut_spec {
    double n;           /* refractive index of the layer */
    double n_above;     /* of the medium above */
    double n_below;     /* of the medium below */
    double g;           /* anisotropy, -1 to below 1; mus = mus' / (1 - g) */
    double d;           /* thickness in cm; INFINITY (or 1e8): semi-infinite, as 1e8 cm */
    const double *mua;  /* num_mua absorption coefficients [1/cm], increasing */
    int num_mua;        /* 1 to 1000000 */
    const double *musp; /* num_musp reduced scattering coefficients [1/cm], increasing */
    int num_musp;       /* 1 to 1000000 */
    int nr;             /* rings of Rd_r ... */
    double dr;          /* ... of dr cm each */
    tmcml_lut_strategy strategy;
} tmcml_lut_spec;

/* `tmcml lut`'s defaults: n 1.4, n_above and n_below 1, g 0.9, d INFINITY,
 * nr 100, dr 0.01 cm, strategy AUTO; no axes (mua, musp NULL, counts 0).
 * New in TMCML_1.3. */
TMCML_API void tmcml_lut_spec_init(tmcml_lut_spec *spec);

/* What a table call did (filled also when it fails or is cancelled). */
typedef struct tmcml_lut_info {
    tmcml_lut_strategy strategy; /* the one used: SETS or RUNS */
    char engine[8];              /* "cpu" or "gpu": every simulation's ("" before the first) */
    double rsp;                  /* specular reflectance, the same at every point (not in Rd) */
    uint64_t trapped_photons;    /* photons stopped as never ending (docs/physics.md), over the
                                    simulations done: mua 0 in a thick layer? */
    int simulations;             /* the table's: sets num_musp x ceil(num_mua / 256), runs
                                    num_mua */
    int done;                    /* of them done (whole): resumed or simulated */
    int resumed;                 /* of them read from the checkpoint */
    int kept;                    /* of them the checkpoint file holds as the call returns (0
                                    without one, or once the finished table removed it) */
    int64_t points_done;         /* the points of the simulations done */
} tmcml_lut_info;

/* Simulates the table spec with opt's photons a point, seed S, engine,
 * threads, GPU, policy, directories, max_steps and progress callback
 * (opt->absorption is not looked at: a table scores none).  rd[j * num_mua
 * + i] gets Rd of (musp[j], mua[i]), rd_r[(j * num_mua + i) * nr + ir] its
 * Rd_r [1/cm2]; every point is, bit for bit, what `tmcml lut` gives it
 * (sets: tmcml_run_sets of the mus' with seed S; runs: tmcml_run of the
 * point with seed S + i) and what the same table gives whenever it is
 * stopped and continued.  info (may be NULL) says what was done.
 *
 * Checked before anything runs, TMCML_ERR_ARGUMENT naming the field: the
 * axes (counts, each value 0 or a coefficient the .mci accepts,
 * increasing), the indices, g < 1, d > 0 or INFINITY, dr, nr, the table's
 * size (num_musp x num_mua x nr at most 2^27), opt->photons >= 1, each
 * point's layer by the .mci rules.  The progress callback counts the
 * whole table's photons (sets: opt->photons a simulation; runs: a point);
 * its nonzero answer or tmcml_session_cancel stops the table: the
 * simulation in flight is discarded (a table is kept a simulation at a
 * time) and TMCML_ERR_CANCELLED returned.
 *
 * ck (NULL: none) keeps the simulations done in a file, the one `tmcml
 * lut` keeps in OUT.lut.ckpt (docs/lut.md, "Stops and --resume"): written
 * after a simulation when ck->every seconds have passed since the last (0:
 * only when stopped), when the table is cancelled, and when a simulation
 * fails; removed when the table is done.  ck->resume continues from the
 * file; one of another table (its values, axes, photons, seed, strategy,
 * max_steps, or another engine's physics) or damaged is refused with
 * TMCML_ERR_FILE naming what differs, and a file at path without resume
 * too (a stopped table's work); the file is then left as it was.  Failed
 * or cancelled, the points of the simulations done (info) hold their
 * values.  New in TMCML_1.3. */
TMCML_API tmcml_status tmcml_lut(tmcml_session *s, const tmcml_lut_spec *spec,
                                 const tmcml_options *opt, const tmcml_checkpoint *ck, double *rd,
                                 double *rd_r, tmcml_lut_info *info);

/* A table's standard errors, and a table of one precision (docs/lut.md,
 * "Error bars and a table of one precision"): what tmcml_lut_with_errors is
 * asked, and, marked out, what it gives.  A struct new in TMCML_1.4, apart
 * from tmcml_lut_spec, whose size TMCML_1.3 fixed. */
typedef struct tmcml_lut_errors {
    double precision;       /* 0: every point opt->photons (its errors given); within (0,
                                 1): each point runs until `of`'s relative standard error is
                                 at most this (strategy AUTO is then RUNS; SETS refused) */
    const char *of;         /* with a precision: "Rd" (NULL), an entry of Rd_r ("Rd_r[3]")
                                 or the worst of a range of them ("Rd_r[0:10]") */
    int64_t max_photons;    /* with a precision: a point's most photons, 0 (opt->photons)
                                 or at least 64000 */
    double *rd_stderr;      /* out [num_musp][num_mua] (NULL: not wanted): Rd's standard
                                 error */
    double *rd_r_stderr;    /* out [num_musp][num_mua][nr] (may be NULL): Rd_r's */
    int64_t *photons;       /* out [num_musp][num_mua] (may be NULL): each point's photons */
    double *reached;        /* out [num_musp][num_mua] (may be NULL): the relative standard
                                 error of `of` (Rd without a precision); INFINITY for a value 0 */
    int64_t points_short;   /* out: points that took max_photons short of the precision */
    uint64_t photons_total; /* out: the photons of the points done (saturated at 2^64 - 1) */
} tmcml_lut_errors;

/* No precision, no output arrays, the outs zero.  New in TMCML_1.4. */
TMCML_API void tmcml_lut_errors_init(tmcml_lut_errors *errors);

/* tmcml_lut, each point with its standard errors (batch means of 64
 * groups, docs/physics.md "Uncertainty"), and with errors->precision each
 * point stopping on its own as tmcml_problem_set_precision's runs do: a
 * point of high absorption takes more photons than one of low, so a table
 * of one precision costs fewer photons than a uniform count reaching it
 * everywhere.  Every point is, bit for bit, tmcml_run's of its problem
 * with tmcml_problem_set_stderr (and set_precision) and the seed tmcml_lut
 * gives it; its values are those of tmcml_lut without errors when there is
 * no precision.  The outs are filled for the simulations done also when
 * the call fails or is cancelled.  A point that reaches max_photons first
 * is not a failure (TMCML_OK): points_short counts them.  Checked before
 * anything runs, TMCML_ERR_ARGUMENT naming the field: precision (0, or
 * within (0, 1)), of (a quantity of every point, not zero in expectation),
 * max_photons, strategy SETS with a precision.  ck keeps the errors with
 * the values; a checkpoint of the table without errors, or with another
 * precision, is another table's.  New in TMCML_1.4. */
TMCML_API tmcml_status tmcml_lut_with_errors(tmcml_session *s, const tmcml_lut_spec *spec,
                                             const tmcml_options *opt, const tmcml_checkpoint *ck,
                                             double *rd, double *rd_r, tmcml_lut_errors *errors,
                                             tmcml_lut_info *info);

/* A table's spatial frequencies, an SFDI table (docs/lut.md, "Spatial
 * frequencies: an SFDI table"): what tmcml_lut_with_frequencies is asked,
 * and, marked out, what it gives.  A struct new in TMCML_1.6, apart from
 * tmcml_lut_spec, whose size TMCML_1.3 fixed. */
typedef struct tmcml_lut_frequencies {
    const double *fx;     /* count spatial frequencies [1/cm], as
                               tmcml_problem_set_spatial_frequencies takes them */
    int count;            /* 1 to 1024 */
    double *rd_fx;        /* out [num_musp][num_mua][count]: each point's R(fx), the
                               reflectance's Hankel transform (R(0) is Rd bit for bit) */
    double *rd_fx_stderr; /* out [num_musp][num_mua][count] (NULL: not wanted): its standard
                               errors; only with errors (tmcml_lut_with_frequencies) */
} tmcml_lut_frequencies;

/* tmcml_lut, or with errors (not NULL) tmcml_lut_with_errors, each point
 * also scoring R(fx) at fx->fx: every point is, bit for bit, the run of
 * its problem with tmcml_problem_set_spatial_frequencies (and the seed
 * tmcml_lut gives it), and its Rd, Rd_r and errors are those of the table
 * without frequencies.  The engines: the CPU scores them with either
 * strategy; the GPU in a point's own kernel alone (up to 128 frequencies),
 * so on the GPU strategy AUTO is RUNS with each point of a row its own
 * simulation (the row kept and resumed as one), and SETS or more than 128
 * frequencies are the CPU engine's (TMCML_ENGINE_GPU is then
 * TMCML_ERR_ARGUMENT naming why, AUTO takes the CPU).  Checked before
 * anything runs, TMCML_ERR_ARGUMENT naming the field: the frequencies as
 * tmcml_problem_set_spatial_frequencies checks them ("spatial frequencies:
 * ..."), rd_fx NULL, rd_fx_stderr without errors, num_musp x num_mua x
 * count above 2^27.  ck keeps R(fx) with the values; a checkpoint of the
 * table without frequencies, or with others, is another table's.  New in
 * TMCML_1.6. */
TMCML_API tmcml_status tmcml_lut_with_frequencies(tmcml_session *s, const tmcml_lut_spec *spec,
                                                  const tmcml_options *opt,
                                                  const tmcml_checkpoint *ck, double *rd,
                                                  double *rd_r, tmcml_lut_errors *errors,
                                                  const tmcml_lut_frequencies *fx,
                                                  tmcml_lut_info *info);

/* ---- results -------------------------------------------------------------------------- */

TMCML_API void tmcml_result_delete(tmcml_result *r);

/* The problem as simulated (its photons are the run's).  Owned by r. */
TMCML_API const tmcml_problem *tmcml_result_problem(const tmcml_result *r);

/* RAT: specular reflectance, diffuse reflectance, absorbed fraction,
 * transmittance. */
typedef struct tmcml_rat {
    double rsp, rd, a, tt;
} tmcml_rat;
TMCML_API void tmcml_result_rat(const tmcml_result *r, tmcml_rat *rat);

/* MCML's arrays, normalised as MCML 1.2.2 does.  2-D arrays are row-major
 * with r first: A_rz[ir * nz + iz], Rd_ra[ir * na + ia].  The functions
 * tmcml_array_* below describe each (a caller may list them all without
 * naming any: 0 .. tmcml_array_count() - 1, this order). */
typedef enum tmcml_array {
    TMCML_A_L = 0, /* [num_layers], layer 1 first [-] */
    TMCML_A_Z,     /* [nz] [1/cm] */
    TMCML_RD_R,    /* [nr] [1/cm2] */
    TMCML_RD_A,    /* [na] [1/sr] */
    TMCML_TT_R,    /* [nr] [1/cm2] */
    TMCML_TT_A,    /* [na] [1/sr] */
    TMCML_A_RZ,    /* [nr x nz] [1/cm3] */
    TMCML_RD_RA,   /* [nr x na] [1/(cm2 sr)] */
    TMCML_TT_RA,   /* [nr x na] [1/(cm2 sr)] */
    /* Optional (TMCML_1.1): only in a run of a problem with path lengths
     * (tmcml_problem_set_path_lengths); mean paths, not MCML densities. */
    TMCML_RD_PATH,       /* [nr x num_layers] [cm]: per ring, the mean path in each layer of
                            the weight leaving the top (0 where none left) */
    TMCML_TT_PATH,       /* [nr x num_layers] [cm]: the same through the bottom */
    TMCML_RD_PATH_TOTAL, /* [num_layers] [cm]: over every ring */
    TMCML_TT_PATH_TOTAL, /* [num_layers] [cm] */
    /* Optional (TMCML_1.1): only in a run of a problem with time bins
     * (tmcml_problem_set_time_bins); nt the number of bins, dt their width. */
    TMCML_RD_RT, /* [nr x nt] [1/(cm2 ns)]: reflectance per area and time of flight */
    TMCML_RD_T,  /* [nt] [1/ns]: the same over every ring; sum x dt = Rd */
    TMCML_TT_RT, /* [nr x nt] [1/(cm2 ns)] */
    TMCML_TT_T,  /* [nt] [1/ns] */
    /* Optional (TMCML_1.1): only with fiber detectors
     * (tmcml_problem_set_fiber_detector, tmcml_problem_add_fiber_detector). */
    TMCML_RD_FIBER, /* [detectors] [-]: the fraction of the photons each detector collects */
    /* Optional (TMCML_1.5): only in a run of a problem with the derivatives
     * (tmcml_problem_set_jacobian).  Each is an escape array's derivative
     * by each layer's mua, mus and g: its shape the escape array's, then
     * num_layers, then 3 (mua, mus, g), in its unit per 1/cm, per 1/cm and
     * per unit g; NaN where a layer has no such derivative (docs/physics.md,
     * "Derivatives"). */
    TMCML_RD_JACOBIAN,   /* [num_layers x 3]: of Rd [-] */
    TMCML_RD_R_JACOBIAN, /* [nr x num_layers x 3]: of Rd_r [1/cm2] */
    TMCML_RD_A_JACOBIAN, /* [na x num_layers x 3]: of Rd_a [1/sr] */
    TMCML_TT_JACOBIAN,   /* [num_layers x 3]: of Tt [-] */
    TMCML_TT_R_JACOBIAN, /* [nr x num_layers x 3]: of Tt_r [1/cm2] */
    TMCML_TT_A_JACOBIAN, /* [na x num_layers x 3]: of Tt_a [1/sr] */
    /* ... and with time bins or a fiber detector too: */
    TMCML_RD_RT_JACOBIAN,    /* [nr x nt x num_layers x 3]: of Rd_rt [1/(cm2 ns)] */
    TMCML_RD_T_JACOBIAN,     /* [nt x num_layers x 3]: of Rd_t [1/ns] */
    TMCML_TT_RT_JACOBIAN,    /* [nr x nt x num_layers x 3]: of Tt_rt [1/(cm2 ns)] */
    TMCML_TT_T_JACOBIAN,     /* [nt x num_layers x 3]: of Tt_t [1/ns] */
    TMCML_RD_FIBER_JACOBIAN, /* [detectors x num_layers x 3]: of Rd_fiber [-] */
    /* Optional (TMCML_1.6): only in a run of a problem with spatial
     * frequencies (tmcml_problem_set_spatial_frequencies), one value a
     * frequency, in its order. */
    TMCML_RD_FX, /* [frequencies] [-]: R(fx), the reflectance's Hankel transform */
    TMCML_TT_FX, /* [frequencies] [-]: T(fx), the transmittance's */
    /* Optional (TMCML_1.6): only in a run of a problem with modulation
     * frequencies (tmcml_problem_set_modulation), one value a frequency,
     * in its order; the phase lag positive, in (-pi, pi]. */
    TMCML_RD_R_AC,    /* [nr x modulations] [1/cm2]: the amplitude of Rd_r */
    TMCML_RD_R_PHASE, /* [nr x modulations] [rad]: its phase lag */
    TMCML_RD_AC,      /* [modulations] [-]: the amplitude of Rd */
    TMCML_RD_PHASE,   /* [modulations] [rad]: its phase lag */
    /* Optional (TMCML_1.6): only in a run of a problem with a Cartesian
     * grid (tmcml_problem_set_xy) of nx x nx cells of side dx centred on
     * the entry point, x the slower axis, cell ix covering x in
     * [(ix - nx/2) dx, (ix + 1 - nx/2) dx); what lands beyond the grid is
     * not in it.  Integer tallies, as TMCML_A_RZ's. */
    TMCML_RD_XY, /* [nx x nx] [1/cm2]: the diffuse reflectance per area, [ix][iy] */
    TMCML_TT_XY, /* [nx x nx] [1/cm2]: the transmittance per area, [ix][iy] */
    TMCML_A_XZ   /* [nx x nz] [1/cm2]: the absorption per area of the x-z plane
                  * (integrated over y), [ix][iz] */
} tmcml_array;
/* The array (owned by r, valid until tmcml_result_delete) and its length in
 * *count; NULL (count 0) for an unknown array or an optional one r does not
 * have. */
TMCML_API const double *tmcml_result_array(const tmcml_result *r, tmcml_array which, size_t *count);

/* Standard errors (tmcml_problem_set_stderr; docs/library.md, "Standard
 * errors"): of a result of a problem that asked for them, the
 * estimate's groups (64; 0: the result has none), each array's standard
 * error entry for entry (the layout and count of tmcml_result_array; NULL,
 * count 0, for a result without them or an array it lacks), and RAT's (rsp
 * 0: it is exact).  An entry is NaN where the run had fewer than two groups
 * (a run of fewer than two photons).  A result read from an .mco and a
 * convolution have none; a checkpointed run, stopped or continued from its
 * file, has tmcml_run's (the file keeps the groups).
 * tmcml_result_rat_stderr takes no session, so it keeps no message:
 * TMCML_ERR_ARGUMENT for a NULL r or out, TMCML_ERR_STATE for a result
 * without them (*out then NaN but rsp 0).  New in TMCML_1.4. */
TMCML_API int tmcml_result_stderr_groups(const tmcml_result *r);
TMCML_API const double *tmcml_result_stderr(const tmcml_result *r, tmcml_array which,
                                            size_t *count);
TMCML_API tmcml_status tmcml_result_rat_stderr(const tmcml_result *r, tmcml_rat *out);

/* A precision run's outcome (tmcml_problem_set_precision). */
typedef struct tmcml_precision {
    double asked;        /* the relative standard error asked */
    double reached;      /* the one reached (the worst entry's, for a range) */
    int64_t photons;     /* the photons taken */
    int64_t max_photons; /* the most it could take */
    int met;             /* 1: reached <= asked; 0: it stopped at max_photons short of it */
} tmcml_precision;

/* r's precision: TMCML_ERR_ARGUMENT for a NULL r or out, TMCML_ERR_STATE
 * for a result of a problem without a precision (or read from an .mco).
 * New in TMCML_1.4. */
TMCML_API tmcml_status tmcml_result_precision(const tmcml_result *r, tmcml_precision *out);

/* The integer tallies the arrays come from, each count as its low and high
 * 64 bits (counts are 128-bit); which must be an array whose
 * tmcml_array_has_tallies is 1:
 *   TMCML_A_RZ, TMCML_RD_RA, TMCML_TT_RA  2^24 units per unit of weight
 *                                         (docs/fixed-point.md);
 *   TMCML_RD_PATH, TMCML_TT_PATH          2^24 units per weight x cm (path
 *                                         lengths);
 *   TMCML_RD_RT, TMCML_TT_RT              2^24 units per unit of weight
 *                                         (time bins);
 *   TMCML_RD_FIBER                        2^24 units per unit of weight
 *                                         (fiber detector);
 *   TMCML_RD_XY, TMCML_TT_XY, TMCML_A_XZ  2^24 units per unit of weight
 *                                         (the Cartesian grid, TMCML_1.6).
 * count must be the array's length.  TMCML_ERR_ARGUMENT for another array;
 * TMCML_ERR_STATE for a result read from an .mco, which has none, and for
 * the tallies of an optional group (path lengths, time bins, fiber
 * detector, Cartesian grid) that the run did not score. */
TMCML_API tmcml_status tmcml_result_tallies(tmcml_session *s, const tmcml_result *r,
                                            tmcml_array which, uint64_t *low, uint64_t *high,
                                            size_t count);

/* The arrays described, from the library's table of them (so that a
 * caller, the Python package for one, needs no copy of the list): how many
 * there are (later versions may add some at the end), and of each its name
 * (MCML's: "Rd_ra", the .mco section), its unit ("1/(cm2 sr)"; "-" for
 * none), the grid axes it runs along, whether tmcml_result_tallies gives
 * its integer tallies, and whether it is absorption, left zero by a run
 * without absorption scoring (options.absorption = 0, -A).  An unknown
 * array has a NULL name and unit, no axes and 0 for the others. */
TMCML_API int tmcml_array_count(void);
TMCML_API const char *tmcml_array_name(tmcml_array which);
TMCML_API const char *tmcml_array_unit(tmcml_array which);
typedef enum tmcml_axis {
    TMCML_AXIS_LAYER = 0,    /* the layers, layer 1 first: the problem's layer count */
    TMCML_AXIS_R = 1,        /* grid.nr */
    TMCML_AXIS_Z = 2,        /* grid.nz */
    TMCML_AXIS_A = 3,        /* grid.na */
    TMCML_AXIS_T = 4,        /* the time bins (tmcml_problem_set_time_bins); TMCML_1.1 */
    TMCML_AXIS_DETECTOR = 5, /* the fiber detectors: 1 to 16 (TMCML_1.6; 1 before); TMCML_1.1 */
    /* A Jacobian's last axis: 3, the parameters mua, mus, g in this order
     * (tmcml_problem_set_jacobian); TMCML_1.5. */
    TMCML_AXIS_PARAM = 8,
    /* The spatial frequencies (tmcml_problem_set_spatial_frequencies);
     * TMCML_1.6. */
    TMCML_AXIS_FX = 10,
    /* The modulation frequencies (tmcml_problem_set_modulation);
     * TMCML_1.6. */
    TMCML_AXIS_MODULATION = 12,
    /* The Cartesian grid's cells along x, or y (tmcml_problem_set_xy: nx);
     * TMCML_1.6. */
    TMCML_AXIS_XY = 14
} tmcml_axis;
#define TMCML_ARRAY_MAX_DIMS 4
/* The number of axes (1 to 4 today), each into axes[] (may be NULL), the
 * slowest-varying first; 0 for an unknown array. */
TMCML_API int tmcml_array_dims(tmcml_array which, tmcml_axis axes[TMCML_ARRAY_MAX_DIMS]);
TMCML_API int tmcml_array_has_tallies(tmcml_array which);
TMCML_API int tmcml_array_absorption(tmcml_array which);
/* Whether it is optional, there only in runs of a problem with path
 * lengths (tmcml_problem_set_path_lengths); tmcml_result_array gives NULL
 * for it elsewhere.  New in TMCML_1.1. */
TMCML_API int tmcml_array_path_lengths(tmcml_array which);
/* Which optional group it is of: 0 every run's, 1 the path lengths, 2 the
 * time bins, 3 the fiber detector, 4 the derivatives (TMCML_1.5), 6 the
 * spatial frequencies, 7 the modulation frequencies, 8 the Cartesian grid
 * (TMCML_1.6); -1 for an unknown array.  New in TMCML_1.1. */
TMCML_API int tmcml_array_option(tmcml_array which);
/* The array's shape in r's grid: the number of axes, and each axis's
 * length into shape[] (may be NULL); their product is tmcml_result_array's
 * count.  0 for an unknown array or a NULL r. */
TMCML_API int tmcml_result_array_shape(const tmcml_result *r, tmcml_array which,
                                       size_t shape[TMCML_ARRAY_MAX_DIMS]);

/* Where the GPU kernel came from. */
typedef enum tmcml_kernel_origin {
    TMCML_KERNEL_NONE = 0,     /* the CPU engine, or a result read from an .mco */
    TMCML_KERNEL_COMPILED = 1, /* compiled by NVRTC in this run */
    TMCML_KERNEL_CACHED = 2,   /* loaded from the on-disk cubin cache */
    TMCML_KERNEL_WARM = 3      /* the session's module, already loaded */
} tmcml_kernel_origin;

/* How the run went.  Strings are owned by r. */
typedef struct tmcml_info {
    uint64_t photons; /* photons simulated (the arrays' normalisation) */
    uint64_t seed;
    int absorption;      /* 0 for -A */
    int has_tallies;     /* 0 for a result read from an .mco */
    const char *engine;  /* "cpu", "gpu", or "" (read from an .mco) */
    int threads;         /* CPU threads (0 on the GPU) */
    const char *device;  /* GPU name, or "" */
    const char *variant; /* where the kernel variant came from ("heuristic", "profile FILE,
                            exact entry ..."), or "" */
    const char *kernel;  /* the kernel's spec key, or "" */
    tmcml_kernel_origin kernel_origin;
    /* Seconds: the whole call; choosing the variant; NVRTC; the launches
     * (with their tally downloads) or the CPU engine's work; the rest
     * (wall - compile - kernel: engine start, module load, uploads,
     * allocation, normalisation). */
    double wall_seconds, plan_seconds, compile_seconds, kernel_seconds, overhead_seconds;
    double steps;             /* hop-drop-spin steps of all photons */
    uint64_t trapped_photons; /* photons stopped as never ending (docs/physics.md) */
    double trapped_weight;    /* their weight per photon: Rsp + Rd + A + Tt + this = 1 */
    uint64_t tallies_digest;  /* the JSON summary's tallies_digest (FNV-1a of every count) */
    const char *comment;      /* the .mco's comment line (tmcml's provenance, or MCML's) */
} tmcml_info;
/* A NULL r gives zeros and "" strings. */
TMCML_API void tmcml_result_info(const tmcml_result *r, tmcml_info *info);

/* Writes r as MCML 1.2.2's .mco to path (atomically) and, for a run of this
 * library, its JSON summary beside it (NAME.json), exactly as the run
 * command writes them: equal runs and seeds give byte-identical .mco files.
 * A problem from arrays without a name is named after the file (path's last
 * component) in the .mco's InParm, as a .mci written by tmcml_mci_write or
 * save_mci names it by default. */
TMCML_API tmcml_status tmcml_result_write_mco(tmcml_session *s, const tmcml_result *r,
                                              const char *path);

/* Draws r as `tmcml plot` draws an .mco (one design: the fluence map in r-z
 * mirrored about r = 0 with the layer interfaces, R_d(r) and A(z) on log
 * axes; docs/cli.md, "Pictures") and writes the PNG to path (atomically: on
 * failure nothing is left).  name goes into the figure's title; NULL or "": the
 * problem's output name, else path's last component.  New in TMCML_1.1. */
TMCML_API tmcml_status tmcml_result_plot(tmcml_session *s, const tmcml_result *r, const char *path,
                                         const char *name);

/* Reads an MCML 1.2.2 .mco (MCML's, CUDAMCML's or tmcml's) into a result
 * without tallies.  The caller owns *out. */
TMCML_API tmcml_status tmcml_result_read_mco(tmcml_session *s, const char *path,
                                             tmcml_result **out);

/* A broad beam of unit power, axially symmetric about r = 0. */
typedef enum tmcml_beam_kind {
    TMCML_BEAM_GAUSSIAN = 1, /* irradiance 2/(pi W^2) exp(-2 r^2 / W^2): radius W at 1/e^2 */
    TMCML_BEAM_FLAT = 2      /* irradiance 1/(pi R^2) for r < R: a top hat */
} tmcml_beam_kind;
typedef struct tmcml_beam {
    tmcml_beam_kind kind;
    double radius; /* cm: W or R, finite and >= 0 (0: the pencil itself) */
} tmcml_beam;

/* r's response to the beam instead of the pencil: its ring arrays (Rd_r,
 * Tt_r, A_rz, Rd_ra, Tt_ra) convolved as MCML's CONV does (exact for a
 * laterally uniform medium, up to the ring grid: docs/physics.md, "Broad
 * beams by convolution"), the other arrays and RAT unchanged.  The last r
 * bin (everything beyond the grid) is not spread and collects what the beam
 * carries beyond the grid.  *out is a new result without tallies, whose
 * comment names the beam (tmcml_result_write_mco writes `tmcml conv`'s
 * file: for a result read from an .mco, byte for byte).  A bad beam is
 * TMCML_ERR_ARGUMENT naming it.  The time-resolved arrays and the
 * derivatives, linear in the escapes too, are kept: those with an r axis
 * (Rd_rt, Rd_r_jacobian, ...) convolved, the rest copied.  The path lengths
 * (means, not densities) and a detector (its reading is not made of rings)
 * are left out.  The caller owns *out.  New in TMCML_1.1. */
TMCML_API tmcml_status tmcml_result_convolve(tmcml_session *s, const tmcml_result *r,
                                             const tmcml_beam *beam, tmcml_result **out);

#ifdef __cplusplus
}
#endif

#endif
