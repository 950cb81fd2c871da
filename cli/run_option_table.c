/* The options of `tmcml run` and its kin as one table (run_option_table.h):
 * the rows the parser, the usage and "did you mean" read, then what each
 * option sets. */
#include "run_option_table.h"

#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "modulation.h"
#include "option_value.h"
#include "precision.h"
#include "spatial_frequencies.h"
#include "time_bins.h"
#include "xy_grid.h"

/* In groups, each applied by its own function (run_option_apply). */
enum run_option_id {
    /* the GPUs: apply_gpu */
    OPT_GPU,
    OPT_FIRST_GPUS,
    OPT_GPUS,
    OPT_GPU_CHUNK,
    /* counts: apply_count */
    OPT_PHOTONS,
    OPT_MAX_PHOTONS,
    OPT_MAX_STEPS,
    OPT_LAUNCH_PHOTONS,
    OPT_REPEATS,
    OPT_RUN,
    OPT_THREADS,
    /* outputs and scores: apply_scoring */
    OPT_NO_ABSORPTION,
    OPT_NPZ,
    OPT_MUA_SETS,
    OPT_OPTICS_SETS,
    OPT_PATH_LENGTHS,
    OPT_JACOBIAN,
    OPT_STDERR,
    OPT_PRECISION,
    OPT_PRECISION_OF,
    OPT_SOURCE,
    OPT_TIME,
    OPT_SPATIAL_FREQUENCIES,
    OPT_MODULATION,
    OPT_XY,
    OPT_DETECTOR,
    /* how a run goes: apply_running */
    OPT_SEED,
    OPT_ENGINE,
    OPT_OUTPUT,
    OPT_ALLOW_OUTSIDE,
    OPT_CHECKPOINT_EVERY,
    OPT_RESUME,
    OPT_NO_BATCH,
    OPT_BATCH_ALL,
    OPT_QUIET,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    /* profiles, tuning, sweeps, the kernel's making: apply_tuning */
    OPT_PROFILES,
    OPT_PROFILE,
    OPT_NO_PROFILE,
    OPT_TUNE,
    OPT_BUDGET,
    OPT_CSV,
    OPT_NR,
    OPT_NZ,
    OPT_ENTRY,
    OPT_CLUSTERS,
    OPT_ARCH,
    OPT_DEBUG_OUT_OF_BOUNDS,
    OPT_DEBUG_WRONG_CANDIDATE,
    OPT_INFO,
    OPT_BATCH,
    OPT_TEMPLATES,
    OPT_CACHE
};

#define OPTIONS RUN_SECTION_OPTIONS
#define GEN     RUN_SECTION_GEN
#define TUNING  RUN_SECTION_TUNING
#define SWEEP   RUN_SECTION_SWEEP
#define VARIANT RUN_SECTION_VARIANT

static const cli_option rows[] = {
    {"--seed", "-S", "SEED", "random seed (default 1): equal seeds give identical files", OPT_SEED,
     OPTIONS, 0, 0},
    {"-A", NULL, NULL, "do not score absorption (A arrays written as zeros)", OPT_NO_ABSORPTION,
     OPTIONS, 0, 0},
    {"--engine", NULL, "cpu|gpu|auto", "engine (default auto: the GPU if one is usable, else CPU)",
     OPT_ENGINE, OPTIONS, 0, 0},
    {"--threads", NULL, "N", "CPU engine threads (default 0: every core)", OPT_THREADS, OPTIONS, 0,
     OPTION_CPU},
    {"--output", "-o", "DIR",
     "directory for the output files (default: current); an\n"
     "output name that is absolute or climbs out of DIR with\n"
     "'..' is refused (docs/outputs.md)",
     OPT_OUTPUT, OPTIONS, 0, 0},
    {"--allow-outside-output-dir", NULL, NULL,
     "with -o, write such names where they point all the same", OPT_ALLOW_OUTSIDE, OPTIONS, 0, 0},
    {"--photons", "-N", "N",
     "simulate N photons per run instead of the file's count\n"
     "(every count: 1000000, 1_000_000 or 1e6)",
     OPT_PHOTONS, OPTIONS, 0, 0},
    {"-G", NULL, "N", "run on the first N GPUs (GPU-MCML's form)", OPT_FIRST_GPUS, OPTIONS, 0,
     OPTION_GPU},
    {"--gpus", NULL, "LIST",
     "run on these GPUs, e.g. 0,2 (tmcml devices lists them);\n"
     "the results do not depend on how many",
     OPT_GPUS, OPTIONS, 0, OPTION_GPU},
    {"--gpu", NULL, "K", "use GPU K (default 0)", OPT_GPU, OPTIONS, 0, OPTION_GPU},
    {"--gpu-chunk", NULL, "N",
     "several GPUs: they take N photons at a time from one\n"
     "counter (default: an equal share each, photons taken\n"
     "back from a GPU that lags and shared out again)",
     OPT_GPU_CHUNK, OPTIONS, 0, OPTION_GPU},
    {"--launch-photons", NULL, "N",
     "GPU: at most N photons per kernel launch (default 2^32);\n"
     "the results do not depend on it",
     OPT_LAUNCH_PHOTONS, OPTIONS, 0, OPTION_GPU},
    {"--checkpoint-every", NULL, "S",
     "write DIR/NAME.ckpt every S seconds of a run (default 600;\n"
     "0: only when a signal (SIGINT, SIGTERM, SIGHUP, ...) stops\n"
     "the run, which also writes NAME.partial.mco and\n"
     ".partial.json)",
     OPT_CHECKPOINT_EVERY, OPTIONS, 0, 0},
    {"--resume", NULL, NULL,
     "continue each run from its DIR/NAME.ckpt (same input, seed\n"
     "and engine): the .mco is bit-identical to an\n"
     "uninterrupted run's; a run whose .mco and JSON are this\n"
     "run's (input, seed, photons, engine) is skipped, another\n"
     "run's refused",
     OPT_RESUME, OPTIONS, 0, 0},
    {"--npz", NULL, NULL,
     "also write NAME.npz beside each .mco: every array, the\n"
     "RAT, the grid and their units for numpy.load",
     OPT_NPZ, OPTIONS, 0, 0},
    {"--mua-sets", NULL, "FILE",
     "score several absorption sets from one simulation: FILE\n"
     "has a line per set, a mua [1/cm] per layer; each set is\n"
     "written as NAME.setK.mco (K from 1; both engines; each\n"
     "set keeps its checkpoint for --resume; docs/outputs.md)",
     OPT_MUA_SETS, OPTIONS, 0, 0},
    {"--optics-sets", NULL, "FILE",
     "score sets of mua, mus and g from one simulation: FILE\n"
     "has a line per set, three values a layer (mua [1/cm],\n"
     "mus [1/cm], g); each set reweighted from the run's\n"
     "histories, written as NAME.setK.mco with its effective\n"
     "sample size in the JSON (both engines; docs/physics.md,\n"
     "\"Optics sets\")",
     OPT_OPTICS_SETS, OPTIONS, 0, 0},
    {"--stderr", NULL, NULL,
     "also estimate the standard error of every output, from\n"
     "64 groups of the run's photons (batch means): Rd, A, Tt\n"
     "in the JSON, every array's as NAME_stderr in NAME.npz\n"
     "(implies --npz; docs/physics.md, \"Uncertainty\")",
     OPT_STDERR, OPTIONS, 0, 0},
    {"--precision", NULL, "P",
     "run each run until the relative standard error of\n"
     "--precision-of's quantity is at most P (1% or 0.01),\n"
     "deciding every 16 groups of photons (64 of 1000 photons,\n"
     "then 64 of 2000, ...): the photons taken depend on the\n"
     "seed alone; implies --stderr; --mua-sets stop together,\n"
     "when every set has reached P (docs/outputs.md)",
     OPT_PRECISION, OPTIONS, 0, 0},
    {"--precision-of", NULL, "Q",
     "Rd (the default), A, Tt, an entry of a 1-D array\n"
     "(Rd_r[40]) or the worst of a range of them (Rd_r[0:100])",
     OPT_PRECISION_OF, OPTIONS, 0, 0},
    {"--max-photons", NULL, "N",
     "stop there if the precision is not reached (an error):\n"
     "the default is the run's photon count (-N, the .mci)",
     OPT_MAX_PHOTONS, OPTIONS, 0, 0},
    {"--path-lengths", NULL, NULL,
     "also score the mean path [cm] per layer of the weight\n"
     "leaving the top and bottom (per ring and in total;\n"
     "extra .mco sections, JSON, npz; the CPU engine, or a\n"
     "GPU with --mua-sets)",
     OPT_PATH_LENGTHS, OPTIONS, 0, 0},
    {"--jacobian", NULL, NULL,
     "also score the derivatives of Rd, Tt, Rd_r, Tt_r, Rd_a\n"
     "and Tt_a by each layer's mua, mus and g, from the same\n"
     "photons (Rd_r_jacobian...: the .npz, implied; on the\n"
     "GPU those of the escapes, with --time or --detector\n"
     "the CPU engine; docs/physics.md, \"Derivatives\")",
     OPT_JACOBIAN, OPTIONS, 0, 0},
    {"--time", NULL, "DT:NT",
     "also score reflectance and transmittance against time\n"
     "of flight: NT bins of DT ns, the last collecting the\n"
     "rest (Rd_rt, Rd_t, Tt_rt, Tt_t)",
     OPT_TIME, OPTIONS, 0, 0},
    {"--source", NULL, "SOURCE",
     "where photons start (default pencil, MCML's): gaussian:W\n"
     "(1/e^2 radius W cm), flat:R, point:Z (isotropic, Z cm\n"
     "deep), fiber:R:NA, oblique:ANGLE (a beam at ANGLE\n"
     "degrees of incidence in the x-z plane, 0 to 90\n"
     "excluded, entering at x = y = 0; needs --xy and the CPU\n"
     "engine; docs/physics.md, \"Sources\")",
     OPT_SOURCE, OPTIONS, 0, 0},
    {"--xy", NULL, "DX:NX",
     "also score on a Cartesian grid of NX x NX square cells\n"
     "of DX cm centred on the entry point: Rd_xy, Tt_xy\n"
     "[x][y] and A_xz [x][z] (every y), 1/cm2, nothing\n"
     "beyond the grid; NX 1 to 4096, (2 NX^2 + NX nz) x 8\n"
     "bytes a thread (the CPU engine; docs/outputs.md)",
     OPT_XY, OPTIONS, 0, 0},
    {"--detector", NULL, "fiber:SEP:RADIUS:NA",
     "also score a fiber detector on the surface: a face of\n"
     "RADIUS cm centred SEP cm from the beam, numerical\n"
     "aperture NA (Rd_fiber); each --detector adds one, at\n"
     "most 16, all scored from the same photons",
     OPT_DETECTOR, OPTIONS, 0, OPTION_REPEATABLE},
    {"--spatial-frequencies", NULL, "LIST",
     "also score R(fx) and T(fx), the escapes' Hankel\n"
     "transforms, at spatial frequencies in 1/cm: 0,0.5,1 or\n"
     "START:STEP:STOP (0:0.5:26, STOP included), /mm after\n"
     "the list for 1/mm (Rd_fx, Tt_fx; both engines, the GPU\n"
     "up to 128 frequencies in a run's own kernel)",
     OPT_SPATIAL_FREQUENCIES, OPTIONS, 0, 0},
    {"--modulation", NULL, "LIST",
     "also score the reflectance's amplitude and phase lag\n"
     "at modulation frequencies: 100MHz, 50,100,200MHz or\n"
     "START:STEP:STOP (100:100:500MHz); Hz, kHz, MHz or GHz,\n"
     "a number without one taking the next given (else Hz);\n"
     "each --modulation adds its list (Rd_r_ac, Rd_r_phase,\n"
     "Rd_ac, Rd_phase; both engines, the GPU up to 32 in a\n"
     "run's own kernel)",
     OPT_MODULATION, OPTIONS, 0, OPTION_REPEATABLE},
    {"--no-batch", NULL, NULL,
     "simulate the runs one at a time (default: runs of one\n"
     "kernel shape share launches; the outputs are the same)",
     OPT_NO_BATCH, OPTIONS, 0, 0},
    {"--batch-all", NULL, NULL,
     "batch big runs too (default: a run of 20 photons or\n"
     "more per thread the GPUs hold runs alone)",
     OPT_BATCH_ALL, OPTIONS, 0, 0},
    {"--max-steps", NULL, "N",
     "stop a photon still alive after N steps and count its\n"
     "weight as trapped (default 10^7; docs/physics.md)",
     OPT_MAX_STEPS, OPTIONS, 0, 0},
    {"--quiet", "-q", NULL, "no progress line and no per-run report", OPT_QUIET, OPTIONS, 0, 0},
    {"--verbose", NULL, NULL, "kernel compile and launch details on stderr", OPT_VERBOSE, OPTIONS,
     0, 0},
    {"--templates", NULL, "DIR", "read the kernel templates from DIR (experiments)", OPT_TEMPLATES,
     OPTIONS, 0, OPTION_GPU},
    {"--cache", NULL, "DIR", "cubin cache directory (\"\" disables the cache)", OPT_CACHE, OPTIONS,
     0, OPTION_EMPTY_OK | OPTION_GPU},
    {"--help", "-h", NULL, "this text", OPT_HELP, OPTIONS, 0, 0},
    {"--version", NULL, NULL, "version and build configuration", OPT_VERSION, OPTIONS, 0, 0},
    {"--run", NULL, "K", "gen, tune and sweep: run K of the file (default 1)", OPT_RUN, GEN, 0, 0},
    {"--info", NULL, NULL,
     "gen: compile the source with NVRTC and report registers,\n"
     "spills and stack",
     OPT_INFO, GEN, 0, 0},
    {"--batch", NULL, NULL, "gen: the kernel that simulates runs of K's shape together", OPT_BATCH,
     GEN, 0, 0},
    {"--profiles", NULL, "DIR", "profile directory searched first (tune stores there)",
     OPT_PROFILES, TUNING, 0, OPTION_GPU},
    {"--profile", NULL, "FILE", "take the kernel variant from this profile file only", OPT_PROFILE,
     TUNING, 0, OPTION_GPU},
    {"--no-profile", NULL, NULL, "no profile: the heuristic variant (and explicit options)",
     OPT_NO_PROFILE, TUNING, 0, OPTION_GPU},
    {"--tune", NULL, "never|auto|always",
     "run: tune first when no profile entry applies (auto:\n"
     "when the run is long enough to repay it; default auto)",
     OPT_TUNE, TUNING, 0, OPTION_GPU},
    {"--budget", NULL, "SECONDS", "tuning time (tune: 60; run --tune: 20)", OPT_BUDGET, TUNING, 0,
     OPTION_GPU},
    {"--repeats", NULL, "N", "timings per candidate, the median is kept (default 3)", OPT_REPEATS,
     TUNING, 0, OPTION_GPU},
    {"--csv", NULL, "FILE", "tune: every measurement (default tune-STEM.csv)", OPT_CSV, TUNING, 0,
     0},
    {"--nr", NULL, "A:B:STEP", "the tiles' NR, from A to B by STEP, or one (required)", OPT_NR,
     SWEEP, RUN_ONLY_SWEEP, 0},
    {"--nz", NULL, "A:B:STEP", "the tiles' NZ, likewise (required)", OPT_NZ, SWEEP, RUN_ONLY_SWEEP,
     0},
    {"--entry", NULL, "32,64", "the entry widths in bits timed (default 32)", OPT_ENTRY, SWEEP,
     RUN_ONLY_SWEEP, 0},
    {"--clusters", NULL, "1,2,4",
     "the thread-block cluster sizes timed (default the\n"
     "launch's own: 1 unless --cluster says otherwise)",
     OPT_CLUSTERS, SWEEP, RUN_ONLY_SWEEP, 0},
    {"--arch", NULL, "sm_XY", "compile for this architecture (default: the GPU's, else sm_90)",
     OPT_ARCH, VARIANT, 0, OPTION_GPU},
    /* test-only variants: tests/test_gpu.c's fault, tests/test_tuner_gpu.sh */
    {"--debug-out-of-bounds", NULL, NULL, "", OPT_DEBUG_OUT_OF_BOUNDS, VARIANT, 0, OPTION_HIDDEN},
    {"--debug-wrong-candidate", NULL, NULL, "", OPT_DEBUG_WRONG_CANDIDATE, TUNING, 0,
     OPTION_HIDDEN},
};

const cli_option_table run_options = {"", rows, (int)(sizeof rows / sizeof *rows)};

_Static_assert(TM_MAX_DETECTORS == 16, "--detector's help says at most 16");

_Static_assert(DRIVER_ENGINE_AUTO == 0 && DRIVER_ENGINE_CPU == 1 && DRIVER_ENGINE_GPU == 2,
               "option_engine's order");

static bool parse_engine(const char *text, cli_options *opt, tm_error *err)
{
    int e;
    if (!option_engine(text, &e, err))
        return false;
    opt->run.engine = (driver_engine)e;
    return true;
}

static bool parse_tune_mode(const char *text, cli_options *opt, tm_error *err)
{
    static const char *const names[] = {"auto", "never", "always"};
    for (int k = 0; k < 3; k++)
        if (strcmp(text, names[k]) == 0) {
            opt->run.tune_mode = (plan_tune_mode)k;
            return true;
        }
    error_set(err, NULL, 0, "--tune: expected never, auto or always (got \"%s\")", text);
    return false;
}

static bool parse_gpu_number(const char *option, const char *text, int *gpu, tm_error *err)
{
    uint64_t v;
    if (!option_u64(text, &v) || v >= DRIVER_MAX_GPU_NUMBER) {
        error_set(err, NULL, 0, "%s: expected a GPU number (got \"%s\")", option, text);
        return false;
    }
    *gpu = (int)v;
    return true;
}

/* --gpus 0,2: GPU numbers separated by commas (one may repeat: two
 * engines then share that GPU). */
static bool parse_gpu_list(const char *text, cli_options *opt, tm_error *err)
{
    char item[32];
    opt->run.gpu_list_count = 0;
    for (const char *p = text; p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (opt->run.gpu_list_count == DRIVER_MAX_GPUS || len >= sizeof item) {
            error_set(err, NULL, 0,
                      "--gpus: expected at most %d GPU numbers, e.g. 0,2 (got \"%s\")",
                      DRIVER_MAX_GPUS, text);
            return false;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (!parse_gpu_number("--gpus", item, &opt->run.gpu_list[opt->run.gpu_list_count++], err))
            return false;
        p = comma ? comma + 1 : NULL;
    }
    return true;
}

static bool parse_arch(const char *text, int *arch, tm_error *err)
{
    char *end = NULL;
    long x = strncmp(text, "sm_", 3) == 0 && text[3] ? strtol(text + 3, &end, 10) : 0;
    if (end && !*end && x >= 50 && x <= 200) {
        *arch = (int)x;
        return true;
    }
    error_set(err, NULL, 0, "--arch: expected sm_XY, e.g. sm_90 (got \"%s\")", text);
    return false;
}

/* The options that choose GPUs. */
static bool apply_gpu(int id, const char *v, cli_options *opt, tm_error *err)
{
    uint64_t n;
    opt->run.gpu_chosen = true;
    switch (id) {
    case OPT_GPU: return parse_gpu_number("--gpu", v, &opt->run.gpu_index, err);
    case OPT_FIRST_GPUS:
        if (!option_positive("-G", v, DRIVER_MAX_GPUS, &n, err))
            return false;
        opt->run.gpus = (int)n;
        return true;
    case OPT_GPUS: return parse_gpu_list(v, opt, err);
    default: return option_positive("--gpu-chunk", v, UINT64_C(1) << 32, &opt->run.gpu_chunk, err);
    }
}

/* The options of a count: photons, steps, launches, the run's number. */
static bool apply_count(int id, const char *v, cli_options *opt, tm_error *err)
{
    uint64_t n;
    switch (id) {
    case OPT_PHOTONS:
        if (!option_positive("--photons", v, INT64_MAX, &n, err))
            return false;
        opt->run.photons = (int64_t)n;
        return true;
    case OPT_MAX_PHOTONS:
        if (!option_positive("--max-photons", v, INT64_MAX, &n, err))
            return false;
        opt->run.max_photons = (int64_t)n;
        return true;
    case OPT_MAX_STEPS:
        if (!option_positive("--max-steps", v, UINT32_MAX, &n, err))
            return false;
        opt->run.max_steps = (uint32_t)n;
        return true;
    case OPT_LAUNCH_PHOTONS:
        return option_positive("--launch-photons", v, UINT64_C(1) << 32, &opt->run.launch_photons,
                               err);
    case OPT_REPEATS:
        if (!option_positive("--repeats", v, 9, &n, err))
            return false;
        opt->run.repeats = (int)n;
        return true;
    case OPT_RUN:
        if (!option_positive("--run", v, 1000000, &n, err))
            return false;
        opt->run_number = (int)n;
        return true;
    default: /* OPT_THREADS; 0: every core, as the library's tmcml_options.threads */
        if (!option_u64(v, &n) || n > 4096) {
            error_set(err, NULL, 0,
                      "--threads: expected a whole number from 0 (every core) to 4096 (got \"%s\")",
                      v);
            return false;
        }
        opt->run.threads = (int)n;
        return true;
    }
}

/* --detector, once a detector: each parsed into the next of the run's,
 * the second and later named by their number in messages ("--detector
 * 2"), beyond TM_MAX_DETECTORS refused. */
static bool add_detector(const char *v, driver_options *r, tm_error *err)
{
    int k = r->fiber_count + 1;
    if (k > TM_MAX_DETECTORS) {
        error_set(err, NULL, 0,
                  "--detector: at most %d detectors in a run (got a %dth, \"%s\"): run the "
                  "others in another run with the same seed",
                  TM_MAX_DETECTORS, k, v);
        return false;
    }
    char name[32];
    if (!detector_parse(v, detector_name("--detector", k, k, name, sizeof name), &r->fibers[k - 1],
                        err))
        return false;
    r->fiber_count = k;
    return true;
}

/* The options that add outputs or scores to a run. */
static bool apply_scoring(int id, const char *v, cli_options *opt, tm_error *err)
{
    driver_options *r = &opt->run;
    switch (id) {
    case OPT_NO_ABSORPTION: r->score_absorption = false; return true;
    case OPT_NPZ: r->npz = true; return true;
    case OPT_MUA_SETS: r->mua_sets = v; return true;
    case OPT_OPTICS_SETS:
        r->mua_sets = v; /* the file, read as the optics' */
        r->optics_sets = true;
        return true;
    case OPT_PATH_LENGTHS: r->path_lengths = true; return true;
    case OPT_JACOBIAN: r->jacobian = r->npz = true; return true;
    case OPT_STDERR:
        r->stderr_groups = r->npz = true; /* the arrays' errors go there */
        return true;
    case OPT_PRECISION:
        r->stderr_groups = r->npz = true;
        return precision_parse_value(v, "--precision", &r->precision, err);
    case OPT_PRECISION_OF: r->precision_of = v; return true;
    case OPT_SOURCE: return source_parse(v, "--source", &r->source, err);
    case OPT_TIME: return time_bins_parse(v, &r->time_dt, &r->time_nt, err);
    case OPT_SPATIAL_FREQUENCIES: return spatial_frequencies_parse(v, r->fx, &r->fx_count, err);
    case OPT_MODULATION: return modulation_parse(v, r->mod_hz, &r->mod_count, err);
    case OPT_XY: return xy_grid_parse(v, &r->xy_dx, &r->xy_nx, err);
    default: /* OPT_DETECTOR */ return add_detector(v, r, err);
    }
}

/* The options of profiles, tuning, sweeps and the kernel's making. */
static bool apply_tuning(int id, const char *v, cli_options *opt, tm_error *err)
{
    driver_options *r = &opt->run;
    switch (id) {
    case OPT_PROFILES: r->profile_dir = v; return true;
    case OPT_PROFILE: r->profile_file = v; return true;
    case OPT_NO_PROFILE: r->no_profile = true; return true;
    case OPT_TUNE: return parse_tune_mode(v, opt, err);
    case OPT_BUDGET:
        return option_seconds("--budget", v, 0, true, 86400, "more than 0 and at most 86400",
                              &r->budget, err);
    case OPT_CSV: opt->csv_path = v; return true;
    case OPT_NR: opt->sweep_nr = v; return true;
    case OPT_NZ: opt->sweep_nz = v; return true;
    case OPT_ENTRY: opt->sweep_entries = v; return true;
    case OPT_CLUSTERS: opt->sweep_clusters = v; return true;
    case OPT_ARCH: return parse_arch(v, &r->variant.arch, err);
    case OPT_DEBUG_OUT_OF_BOUNDS: r->variant.debug_out_of_bounds = true; return true;
    case OPT_DEBUG_WRONG_CANDIDATE: r->debug_wrong_candidate = true; return true;
    case OPT_INFO: opt->gen_info = true; return true;
    case OPT_BATCH: opt->gen_batch = true; return true;
    case OPT_TEMPLATES: r->template_dir = v; return true;
    default: /* OPT_CACHE */ r->cache_dir = v; return true;
    }
}

/* The options of how a run goes: engine, output, checkpoints, batches. */
static bool apply_running(int id, const char *v, cli_options *opt, tm_error *err)
{
    driver_options *r = &opt->run;
    switch (id) {
    case OPT_SEED: return option_seed("--seed", v, &r->seed, err);
    case OPT_ENGINE: return parse_engine(v, opt, err);
    case OPT_OUTPUT: r->out_dir = v; return true;
    case OPT_ALLOW_OUTSIDE: r->allow_outside_out_dir = true; return true;
    case OPT_CHECKPOINT_EVERY: return option_checkpoint_every(v, &r->checkpoint_every, err);
    case OPT_RESUME: r->resume = true; return true;
    case OPT_NO_BATCH: r->no_batch = true; return true;
    case OPT_BATCH_ALL: r->batch_all = true; return true;
    case OPT_QUIET: r->quiet = true; return true;
    case OPT_VERBOSE: r->verbose = true; return true;
    case OPT_HELP: opt->command = CLI_HELP; return true;
    default: /* OPT_VERSION */ opt->command = CLI_VERSION; return true;
    }
}

bool run_option_belongs(const cli_option *row, cli_command command)
{
    return !(row->commands & RUN_ONLY_SWEEP) || command == CLI_SWEEP;
}

bool run_option_apply(const option_read *o, cli_options *opt, tm_error *err)
{
    int id = o->row->id;
    if (id <= OPT_GPU_CHUNK)
        return apply_gpu(id, o->value, opt, err);
    if (id <= OPT_THREADS)
        return apply_count(id, o->value, opt, err);
    if (id <= OPT_DETECTOR)
        return apply_scoring(id, o->value, opt, err);
    if (id <= OPT_VERSION)
        return apply_running(id, o->value, opt, err);
    return apply_tuning(id, o->value, opt, err);
}
