/* The command line (cli.h): every option of the commands into one cli_options,
 * the kernel variant's among them, and the usage text. */
#include "cli.h"
#include "compile.h"
#include "knob.h"
#include "detector.h"
#include "number_parse.h"
#include "option_once.h"
#include "option_value.h"
#include "precision.h"
#include "suggest.h"
#include "text_escape.h"
#include "time_bins.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel variant options: the knob table's and --arch. */
static void print_variant_usage(FILE *out)
{
    char knobs[4096];
    knobs_usage(knobs, sizeof knobs);
    fprintf(
        out,
        "kernel variant (GPU engine, `gen`, `tune`, `sweep`):\n%s"
        "  --arch sm_XY          compile for this architecture (default: the GPU's, else sm_90)\n",
        knobs);
}

void cli_print_usage(FILE *s)
{
    fputs("usage: tmcml run FILE.mci [options]\n"
          "       tmcml FILE.mci [-S SEED] [-A] [-G N]      (CUDAMCML/GPU-MCML form)\n"
          "       tmcml gen FILE.mci [variant options] [--run K] [-o KERNEL.cu] [--info]\n"
          "       tmcml tune FILE.mci [--run K] [-A] [--budget SECONDS] [--profiles DIR] [--csv "
          "FILE]\n"
          "       tmcml sweep FILE.mci --nr A:B:STEP --nz A:B:STEP [--entry 32,64]\n"
          "                  [--clusters 1,2,4] [-o PREFIX]\n"
          "       tmcml plot OUT.mco [-o FIG.png] [--no-stderr]   (a PNG figure: fluence map,\n"
          "                  Rd(r), A(z), their errors' bands: tmcml plot --help)\n"
          "       tmcml conv OUT.mco --beam gaussian:W|flat:R [-o FILE]   (a broad beam's\n"
          "                  response by convolution: tmcml conv --help)\n"
          "       tmcml lut --mua AXIS --musp AXIS -o OUT [options]   (a lookup table of\n"
          "                  reflectance over mua and mus': tmcml lut --help)\n"
          "       tmcml devices\n"
          "       tmcml profiles list|show|check [--profiles DIR]   (tmcml profiles --help)\n"
          "       tmcml --help | --version\n"
          "\n"
          "Simulates every run of an MCML input file and writes, for each run, the\n"
          "MCML 1.2.2 output file named in the .mci and a JSON summary beside it.\n"
          "\n"
          "options:\n"
          "  -S, --seed SEED       random seed (default 1): equal seeds give identical files\n"
          "  -A                    do not score absorption (A arrays written as zeros)\n"
          "  --engine cpu|gpu|auto engine (default auto: the GPU if one is usable, else CPU)\n"
          "  --threads N           CPU engine threads (default 0: every core)\n"
          "  -o, --output DIR      directory for the output files (default: current); an\n"
          "                        output name that is absolute or climbs out of DIR with\n"
          "                        '..' is refused (docs/outputs.md)\n"
          "  --allow-outside-output-dir\n"
          "                        with -o, write such names where they point all the same\n"
          "  -N, --photons N       simulate N photons per run instead of the file's count\n"
          "                        (every count: 1000000, 1_000_000 or 1e6)\n"
          "  -G N                  run on the first N GPUs (GPU-MCML's form)\n"
          "  --gpus LIST           run on these GPUs, e.g. 0,2 (tmcml devices lists them);\n"
          "                        the results do not depend on how many\n"
          "  --gpu K               use GPU K (default 0)\n"
          "  --gpu-chunk N         several GPUs: they take N photons at a time from one\n"
          "                        counter (default: an equal share each, photons taken\n"
          "                        back from a GPU that lags and shared out again)\n"
          "  --launch-photons N    GPU: at most N photons per kernel launch (default 2^32);\n"
          "                        the results do not depend on it\n"
          "  --checkpoint-every S  write DIR/NAME.ckpt every S seconds of a run (default 600;\n"
          "                        0: only when a signal (SIGINT, SIGTERM, SIGHUP, ...) stops\n"
          "                        the run, which also writes NAME.partial.mco and\n"
          "                        .partial.json)\n"
          "  --resume              continue each run from its DIR/NAME.ckpt (same input, seed\n"
          "                        and engine): the .mco is bit-identical to an\n"
          "                        uninterrupted run's; a run whose .mco and JSON are this\n"
          "                        run's (input, seed, photons, engine) is skipped, another\n"
          "                        run's refused\n"
          "  --npz                 also write NAME.npz beside each .mco: every array, the\n"
          "                        RAT, the grid and their units for numpy.load\n"
          "  --mua-sets FILE       score several absorption sets from one simulation: FILE\n"
          "                        has a line per set, a mua [1/cm] per layer; each set is\n"
          "                        written as NAME.setK.mco (K from 1; both engines; each\n"
          "                        set keeps its checkpoint for --resume; docs/outputs.md)\n"
          "  --optics-sets FILE    score sets of mua, mus and g from one simulation: FILE\n"
          "                        has a line per set, three values a layer (mua [1/cm],\n"
          "                        mus [1/cm], g); each set reweighted from the run's\n"
          "                        histories, written as NAME.setK.mco with its effective\n"
          "                        sample size in the JSON (both engines; docs/physics.md,\n"
          "                        \"Optics sets\")\n"
          "  --stderr              also estimate the standard error of every output, from\n"
          "                        64 groups of the run's photons (batch means): Rd, A, Tt\n"
          "                        in the JSON, every array's as NAME_stderr in NAME.npz\n"
          "                        (implies --npz; docs/physics.md, \"Uncertainty\")\n"
          "  --precision P         run each run until the relative standard error of\n"
          "                        --precision-of's quantity is at most P (1% or 0.01),\n"
          "                        deciding every 16 groups of photons (64 of 1000 photons,\n"
          "                        then 64 of 2000, ...): the photons taken depend on the\n"
          "                        seed alone; implies --stderr; --mua-sets stop together,\n"
          "                        when every set has reached P (docs/outputs.md)\n"
          "  --precision-of Q      Rd (the default), A, Tt, an entry of a 1-D array\n"
          "                        (Rd_r[40]) or the worst of a range of them (Rd_r[0:100])\n"
          "  --max-photons N       stop there if the precision is not reached (an error):\n"
          "                        the default is the run's photon count (-N, the .mci)\n"
          "  --path-lengths        also score the mean path [cm] per layer of the weight\n"
          "                        leaving the top and bottom (per ring and in total;\n"
          "                        extra .mco sections, JSON, npz; the CPU engine, or a\n"
          "                        GPU with --mua-sets)\n"
          "  --jacobian            also score the derivatives of Rd, Tt, Rd_r, Tt_r, Rd_a\n"
          "                        and Tt_a by each layer's mua, mus and g, from the same\n"
          "                        photons (Rd_r_jacobian...: the .npz, implied; on the\n"
          "                        GPU those of the escapes, with --time or --detector\n"
          "                        the CPU engine; docs/physics.md, \"Derivatives\")\n"
          "  --time DT:NT          also score reflectance and transmittance against time\n"
          "                        of flight: NT bins of DT ns, the last collecting the\n"
          "                        rest (Rd_rt, Rd_t, Tt_rt, Tt_t)\n"
          "  --source SOURCE       where photons start (default pencil, MCML's): gaussian:W\n"
          "                        (1/e^2 radius W cm), flat:R, point:Z (isotropic, Z cm\n"
          "                        deep), fiber:R:NA (docs/physics.md, \"Sources\")\n"
          "  --detector fiber:SEP:RADIUS:NA\n"
          "                        also score a fiber detector on the surface: a face of\n"
          "                        RADIUS cm centred SEP cm from the beam, numerical\n"
          "                        aperture NA (Rd_fiber)\n"
          "  --no-batch            simulate the runs one at a time (default: runs of one\n"
          "                        kernel shape share launches; the outputs are the same)\n"
          "  --batch-all           batch big runs too (default: a run of 20 photons or\n"
          "                        more per thread the GPUs hold runs alone)\n"
          "  --max-steps N         stop a photon still alive after N steps and count its\n"
          "                        weight as trapped (default 10^7; docs/physics.md)\n"
          "  -q, --quiet           no progress line and no per-run report\n"
          "  --verbose             kernel compile and launch details on stderr\n"
          "  --templates DIR       read the kernel templates from DIR (experiments)\n"
          "  --cache DIR           cubin cache directory (\"\" disables the cache)\n"
          "  -h, --help            this text\n"
          "  --version             version and build configuration\n"
          "\n"
          "gen: writes the generated CUDA source of run K (default 1) for reading;\n"
          "  --info compiles it with NVRTC and reports registers, spills and stack;\n"
          "  --batch gives the kernel that simulates runs of K's shape together.\n"
          "\n"
          "profiles and tuning (GPU engine):\n"
          "  --profiles DIR        profile directory searched first (tune stores there)\n"
          "  --profile FILE        take the kernel variant from this profile file only\n"
          "  --no-profile          no profile: the heuristic variant (and explicit options)\n"
          "  --tune never|auto|always\n"
          "                        run: tune first when no profile entry applies (auto:\n"
          "                        when the run is long enough to repay it; default auto)\n"
          "  --budget SECONDS      tuning time (tune: 60; run --tune: 20)\n"
          "  --repeats N           timings per candidate, the median is kept (default 3)\n"
          "  --csv FILE            tune: every measurement (default tune-STEM.csv)\n"
          "tune: measures kernel variants of run K on this GPU and stores the fastest\n"
          "  in the GPU's profile; sweep: times every tile NR x NZ of a grid and writes\n"
          "  PREFIX.csv and a heat map PREFIX.eBITS.png per entry width (default\n"
          "  PREFIX sweep-STEM), PREFIX.eBITS.cN.png per cluster size N > 1 (the tile\n"
          "  shared by a thread-block cluster); explicit variant options fix the launch.\n"
          "\n",
          s);
    print_variant_usage(s);
    fputs("\n"
          "environment: TMCML_MEMORY_LIMIT, TMCML_GPU_MEMORY_LIMIT, TMCML_DISK_LIMIT\n"
          "  (bytes, e.g. 8G) replace the available host memory, GPU memory and disk\n"
          "  space that runs are checked against before they start; TMCML_PROFILE_DIR\n"
          "  is a profile directory searched after --profiles.  CUDA_DEVICE_MAX_CONNECTIONS\n"
          "  is set to 1 (one hardware work queue a context: faster to open and close)\n"
          "  unless it is set already.\n"
          "\n"
          "exit status: 0 all runs written; 1 a run failed (the others are still\n"
          "written); 2 bad command line or input file, or a run that does not fit in\n"
          "memory or on disk: nothing simulated; 130/143 interrupted.\n",
          s);
}

/* An option nobody knows, with the nearest one the usage names. */
static void unknown_option(const char *a, tm_error *err)
{
    char *storage = NULL;
    const char **options = NULL;
    int n = suggest_usage_options(cli_print_usage, &storage, &options);
    const char *near = n > 0 ? suggest_nearest(a, options, n) : NULL;
    if (near)
        error_set(err, NULL, 0, "unknown option \"%s\": did you mean %s? (tmcml --help lists them)",
                  a, near);
    else
        error_set(err, NULL, 0, "unknown option \"%s\" (tmcml --help lists them)", a);
    free(options);
    free(storage);
}

/* Value of an option given as "-S12" (attached) or "-S 12" (next word). */
static const char *option_value(int argc, char **argv, int *i, size_t name_len)
{
    if (argv[*i][name_len])
        return argv[*i] + name_len;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static bool parse_engine(const char *text, cli_options *opt, tm_error *err)
{
    if (text && strcmp(text, "cpu") == 0)
        opt->run.engine = DRIVER_ENGINE_CPU;
    else if (text && strcmp(text, "gpu") == 0)
        opt->run.engine = DRIVER_ENGINE_GPU;
    else if (text && strcmp(text, "auto") == 0)
        opt->run.engine = DRIVER_ENGINE_AUTO;
    else {
        error_set(err, NULL, 0, "--engine: expected cpu, gpu or auto (got \"%s\")",
                  text ? text : "");
        return false;
    }
    return true;
}

static bool is_long(const char *arg, const char *name) { return strcmp(arg, name) == 0; }

static bool is_short(const char *arg, const char *name)
{
    return strncmp(arg, name, strlen(name)) == 0;
}

static bool parse_tune_mode(const char *text, cli_options *opt, tm_error *err)
{
    static const char *const names[] = {"auto", "never", "always"};
    for (int k = 0; k < 3; k++)
        if (text && strcmp(text, names[k]) == 0) {
            opt->run.tune_mode = (plan_tune_mode)k;
            return true;
        }
    error_set(err, NULL, 0, "--tune: expected never, auto or always (got \"%s\")",
              text ? text : "");
    return false;
}

/* A number of seconds in [lo, hi] (above lo when lo_excluded); range says
 * what is expected in the message. */
static bool parse_seconds(const char *option, const char *text, double lo, bool lo_excluded,
                          double hi, const char *range, double *out, tm_error *err)
{
    double v = lo - 1;
    number_status s = text ? number_parse(text, &v) : NUMBER_NONE;
    if (s == NUMBER_TOO_SMALL) {
        number_error_set(err, NULL, 0, option, text, s);
        return false;
    }
    bool above = lo_excluded ? v > lo : v >= lo;
    if (s != NUMBER_OK || !(above && v <= hi)) {
        error_set(err, NULL, 0, "%s: expected seconds, %s (got \"%s\")", option, range,
                  text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

/* --checkpoint-every SECONDS: 0 (only when a signal stops the run) to a week. */
static bool parse_checkpoint_every(const char *text, cli_options *opt, tm_error *err)
{
    return parse_seconds("--checkpoint-every", text, 0, false, 604800,
                         "from 0 (only on a signal) to 604800", &opt->run.checkpoint_every, err);
}

static bool parse_budget(const char *text, cli_options *opt, tm_error *err)
{
    return parse_seconds("--budget", text, 0, true, 86400, "more than 0 and at most 86400",
                         &opt->run.budget, err);
}

int cli_long_value(int argc, char **argv, int *i, const char *name, const char *what,
                   const char **value, tm_error *err)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
        return 0;
    const char *v = a[n] == '=' ? a + n + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!v || !*v) {
        error_set(err, NULL, 0, "%s: expected %s", name, what);
        return -1;
    }
    *value = v;
    return 1;
}

/* Options of profiles, tune and sweep: 1 consumed, 0 not one of them, -1 bad. */
static int parse_tuning_option(int argc, char **argv, int *i, cli_options *opt, tm_error *err)
{
    const char *a = argv[*i];
    if (is_long(a, "--no-profile")) {
        opt->run.no_profile = true;
        return 1;
    }
    if (is_long(a, "--debug-wrong-candidate")) {
        opt->run.debug_wrong_candidate = true; /* test-only (tests/test_tuner_gpu.sh) */
        return 1;
    }
    if (is_long(a, "--tune"))
        return parse_tune_mode(option_value(argc, argv, i, 6), opt, err) ? 1 : -1;
    if (is_long(a, "--budget"))
        return parse_budget(option_value(argc, argv, i, 8), opt, err) ? 1 : -1;
    if (is_long(a, "--repeats")) {
        uint64_t v;
        if (!option_positive("--repeats", option_value(argc, argv, i, 9), 9, &v, err))
            return -1;
        opt->run.repeats = (int)v;
        return 1;
    }
    const struct {
        const char *name, *what;
        const char **text;
        bool sweep_only;
    } valued[] = {
        {"--profiles", "a directory", &opt->run.profile_dir, false},
        {"--profile", "a profile file", &opt->run.profile_file, false},
        {"--csv", "a file name", &opt->csv_path, false},
        {"--nr", "A:B:STEP", &opt->sweep_nr, true},
        {"--nz", "A:B:STEP", &opt->sweep_nz, true},
        {"--entry", "32, 64 or 32,64", &opt->sweep_entries, true},
        {"--clusters", "cluster sizes such as 1,2,4", &opt->sweep_clusters, true},
    };
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++) {
        if (valued[k].sweep_only && opt->command != CLI_SWEEP)
            continue;
        int got =
            cli_long_value(argc, argv, i, valued[k].name, valued[k].what, valued[k].text, err);
        if (got != 0)
            return got;
    }
    return 0;
}

static bool parse_gpu_number(const char *option, const char *text, int *gpu, tm_error *err)
{
    uint64_t v;
    if (!option_u64(text, &v) || v >= DRIVER_MAX_GPU_NUMBER) {
        error_set(err, NULL, 0, "%s: expected a GPU number (got \"%s\")", option, text ? text : "");
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

/* The options that choose GPUs: 1 when parsed, 0 when not one of them, -1
 * on error. */
static int parse_gpu_option(int argc, char **argv, int *i, cli_options *opt, tm_error *err)
{
    const char *a = argv[*i];
    uint64_t v;
    bool ok = true;
    if (is_long(a, "--gpu")) {
        ok = parse_gpu_number("--gpu", option_value(argc, argv, i, 5), &opt->run.gpu_index, err);
    } else if (is_short(a, "-G")) {
        ok = option_positive("-G", option_value(argc, argv, i, 2), DRIVER_MAX_GPUS, &v, err);
        opt->run.gpus = (int)v;
    } else if (is_long(a, "--gpus")) {
        const char *text = option_value(argc, argv, i, 6);
        ok = text && parse_gpu_list(text, opt, err);
        if (!text)
            error_set(err, NULL, 0, "--gpus: expected GPU numbers, e.g. 0,2");
    } else if (is_long(a, "--gpu-chunk")) {
        ok = option_positive("--gpu-chunk", option_value(argc, argv, i, 11), UINT64_C(1) << 32,
                             &opt->run.gpu_chunk, err);
    } else {
        return 0;
    }
    opt->run.gpu_chosen = true;
    return ok ? 1 : -1;
}

static bool parse_arch(const char *text, int *arch)
{
    if (!text || strncmp(text, "sm_", 3) != 0 || !text[3])
        return false;
    char *end;
    long x = strtol(text + 3, &end, 10);
    if (*end || x < 50 || x > 200)
        return false;
    *arch = (int)x;
    return true;
}

/* The kernel variant options (the knob table's, --arch and the test-only
 * --debug-out-of-bounds): 1 when parsed, 0 when not one of them, -1 on a
 * bad value. */
static int parse_variant_option(int argc, char **argv, int *i, variant_options *v, tm_error *err)
{
    const char *a = argv[*i];
    if (strcmp(a, "--debug-out-of-bounds") == 0) {
        v->debug_out_of_bounds = true; /* test-only variant (tests/test_gpu.c fault) */
        return 1;
    }
    bool arch = strcmp(a, "--arch") == 0;
    if (!arch && !knob_by_option(a))
        return 0;
    const char *val = *i + 1 < argc ? argv[++*i] : NULL;
    if (!arch)
        return variant_options_set(v, a, val, err) ? 1 : -1;
    if (parse_arch(val, &v->arch))
        return 1;
    error_set(err, NULL, 0, "--arch: expected sm_XY, e.g. sm_90 (got \"%s\")", val ? val : "");
    return -1;
}

static bool parse_option(int argc, char **argv, int *i, cli_options *opt, tm_error *err)
{
    const char *a = argv[*i];
    uint64_t v;
    int tuning = parse_tuning_option(argc, argv, i, opt, err);
    if (tuning != 0)
        return tuning > 0;
    int variant = parse_variant_option(argc, argv, i, &opt->run.variant, err);
    if (variant != 0)
        return variant > 0;
    int gpus = parse_gpu_option(argc, argv, i, opt, err);
    if (gpus != 0)
        return gpus > 0;
    if (is_long(a, "-A")) {
        opt->run.score_absorption = false;
    } else if (is_long(a, "-q") || is_long(a, "--quiet")) {
        opt->run.quiet = true;
    } else if (is_long(a, "--seed") || is_short(a, "-S")) {
        const char *text = option_value(argc, argv, i, is_long(a, "--seed") ? 6 : 2);
        if (!option_seed("--seed", text, &opt->run.seed, err))
            return false;
    } else if (is_long(a, "--engine")) {
        return parse_engine(option_value(argc, argv, i, 8), opt, err);
    } else if (is_long(a, "--threads")) {
        /* 0: every core, as the library's tmcml_options.threads */
        const char *text = option_value(argc, argv, i, 9);
        if (!option_u64(text, &v) || v > 4096) {
            error_set(err, NULL, 0,
                      "--threads: expected a whole number from 0 (every core) to 4096 (got \"%s\")",
                      text ? text : "");
            return false;
        }
        opt->run.threads = (int)v;
    } else if (is_long(a, "-o") || is_long(a, "--output")) {
        opt->run.out_dir = option_value(argc, argv, i, strlen(a));
        if (!opt->run.out_dir || !*opt->run.out_dir) {
            error_set(err, NULL, 0, "%s: expected a directory", a);
            return false;
        }
    } else if (is_long(a, "--photons") || is_short(a, "-N")) {
        const char *text = option_value(argc, argv, i, is_long(a, "--photons") ? 9 : 2);
        if (!option_positive("--photons", text, INT64_MAX, &v, err))
            return false;
        opt->run.photons = (int64_t)v;
    } else if (is_long(a, "--max-steps")) {
        if (!option_positive("--max-steps", option_value(argc, argv, i, 11), UINT32_MAX, &v, err))
            return false;
        opt->run.max_steps = (uint32_t)v;
    } else if (is_long(a, "--checkpoint-every")) {
        if (!parse_checkpoint_every(option_value(argc, argv, i, 18), opt, err))
            return false;
    } else if (is_long(a, "--resume")) {
        opt->run.resume = true;
    } else if (is_long(a, "--allow-outside-output-dir")) {
        opt->run.allow_outside_out_dir = true;
    } else if (is_long(a, "--npz")) {
        opt->run.npz = true;
    } else if (is_long(a, "--mua-sets")) {
        opt->run.mua_sets = option_value(argc, argv, i, 10);
        if (!opt->run.mua_sets || !*opt->run.mua_sets) {
            error_set(err, NULL, 0, "--mua-sets: expected a file of absorption sets");
            return false;
        }
    } else if (is_long(a, "--optics-sets")) {
        opt->run.mua_sets = option_value(argc, argv, i, 13);
        opt->run.optics_sets = true;
        if (!opt->run.mua_sets || !*opt->run.mua_sets) {
            error_set(err, NULL, 0, "--optics-sets: expected a file of optics sets");
            return false;
        }
    } else if (is_long(a, "--path-lengths")) {
        opt->run.path_lengths = true;
    } else if (is_long(a, "--jacobian")) {
        opt->run.jacobian = true;
        opt->run.npz = true;
    } else if (is_long(a, "--precision")) {
        if (!precision_parse_value(option_value(argc, argv, i, 11), "--precision",
                                   &opt->run.precision, err))
            return false;
        opt->run.stderr_groups = true;
        opt->run.npz = true;
    } else if (is_long(a, "--precision-of")) {
        opt->run.precision_of = option_value(argc, argv, i, 14);
        if (!opt->run.precision_of || !*opt->run.precision_of) {
            error_set(err, NULL, 0, "--precision-of: expected a quantity (Rd, Rd_r[40], ...)");
            return false;
        }
    } else if (is_long(a, "--max-photons")) {
        if (!option_positive("--max-photons", option_value(argc, argv, i, 13), INT64_MAX, &v, err))
            return false;
        opt->run.max_photons = (int64_t)v;
    } else if (is_long(a, "--stderr")) {
        opt->run.stderr_groups = true;
        opt->run.npz = true; /* the arrays' errors go there */
    } else if (is_long(a, "--source")) {
        if (!source_parse(option_value(argc, argv, i, 8), "--source", &opt->run.source, err))
            return false;
    } else if (is_long(a, "--time")) {
        if (!time_bins_parse(option_value(argc, argv, i, 6), &opt->run.time_dt, &opt->run.time_nt,
                             err))
            return false;
    } else if (is_long(a, "--detector")) {
        if (!detector_parse(option_value(argc, argv, i, 10), &opt->run.fiber_sep,
                            &opt->run.fiber_radius, &opt->run.fiber_na, err))
            return false;
    } else if (is_long(a, "--no-batch")) {
        opt->run.no_batch = true;
    } else if (is_long(a, "--batch-all")) {
        opt->run.batch_all = true;
    } else if (is_long(a, "--batch")) {
        opt->gen_batch = true;
    } else if (is_long(a, "--launch-photons")) {
        if (!option_positive("--launch-photons", option_value(argc, argv, i, 16), UINT64_C(1) << 32,
                             &v, err))
            return false;
        opt->run.launch_photons = v;
    } else if (is_long(a, "--templates") || is_long(a, "--cache")) {
        const char *dir = option_value(argc, argv, i, strlen(a));
        if (!dir) {
            error_set(err, NULL, 0, "%s: expected a directory", a);
            return false;
        }
        *(is_long(a, "--cache") ? &opt->run.cache_dir : &opt->run.template_dir) = dir;
    } else if (is_long(a, "--verbose")) {
        opt->run.verbose = true;
    } else if (is_long(a, "--info")) {
        opt->gen_info = true;
    } else if (is_long(a, "--run")) {
        if (!option_positive("--run", option_value(argc, argv, i, 5), 1000000, &v, err))
            return false;
        opt->run_number = (int)v;
    } else {
        unknown_option(a, err);
        return false;
    }
    return true;
}

static void set_defaults(cli_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->command = CLI_RUN;
    driver_options_init(&opt->run);
    opt->run_number = 1;
}

/* A first word that names no command and no file, and looks like a
 * command rather than a file name (no '.' or '/'): "tmcml rn x.mci" is a
 * misspelt command, not two input files. */
static bool unknown_command(const char *w, tm_error *err)
{
    static const char *const commands[] = {"run",  "gen", "tune",    "sweep",   "plot",
                                           "conv", "lut", "devices", "profiles"};
    if (w[0] == '-' || strpbrk(w, "./") || access(w, F_OK) == 0)
        return false;
    const char *near = suggest_nearest(w, commands, (int)(sizeof commands / sizeof *commands));
    if (near)
        error_set(err, NULL, 0, "unknown command \"%s\": did you mean \"tmcml %s\"?", w, near);
    else
        error_set(
            err, NULL, 0,
            "unknown command \"%s\" (commands: run, gen, tune, sweep, plot, conv, lut, devices, "
            "profiles; or an input file FILE.mci; tmcml --help shows the usage)",
            w);
    return true;
}

/* The first word may name a command; words of commands still to come are
 * refused rather than taken for an input file. */
static bool parse_command(int argc, char **argv, int *i, cli_options *opt, tm_error *err)
{
    static const char *const later[] = {"bench"};
    if (*i >= argc)
        return true;
    const char *w = argv[*i];
    if (strcmp(w, "run") == 0) {
        ++*i;
    } else if (strcmp(w, "gen") == 0) {
        opt->command = CLI_GEN;
        ++*i;
    } else if (strcmp(w, "tune") == 0) {
        opt->command = CLI_TUNE;
        ++*i;
    } else if (strcmp(w, "sweep") == 0) {
        opt->command = CLI_SWEEP;
        ++*i;
    } else if (strcmp(w, "devices") == 0) {
        opt->command = CLI_DEVICES;
        ++*i;
    } else if (strcmp(w, "profiles") == 0) {
        opt->command = CLI_PROFILES; /* its words are profiles_command's to parse */
        ++*i;
    } else if (strcmp(w, "plot") == 0) {
        opt->command = CLI_PLOT; /* its words are plot_command's to parse */
        ++*i;
    } else if (strcmp(w, "conv") == 0) {
        opt->command = CLI_CONV; /* its words are conv_command's to parse */
        ++*i;
    } else if (strcmp(w, "lut") == 0) {
        opt->command = CLI_LUT; /* its words are lut_command's to parse */
        ++*i;
    } else {
        for (size_t k = 0; k < sizeof later / sizeof *later; k++)
            if (strcmp(w, later[k]) == 0) {
                error_set(err, NULL, 0, "tmcml %s is not available in this version", w);
                return false;
            }
        return !unknown_command(w, err);
    }
    return true;
}

/* The words after the command: options, each given once (option_once.h),
 * and the input file. */
static bool parse_words(int argc, char **argv, int i, cli_options *opt, options_given *given,
                        tm_error *err)
{
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (is_long(a, "-h") || is_long(a, "--help")) {
            opt->command = CLI_HELP;
            return true;
        }
        if (is_long(a, "--version")) {
            opt->command = CLI_VERSION;
            return true;
        }
        if (a[0] == '-' && a[1] != '\0') {
            int first = i;
            if (!parse_option(argc, argv, &i, opt, err) || !option_once(given, argv, first, i, err))
                return false;
        } else if (!opt->run.input) {
            opt->run.input = a;
        } else {
            error_set(err, NULL, 0, "more than one input file (\"%s\" and \"%s\")", opt->run.input,
                      a);
            return false;
        }
    }
    return true;
}

/* What the words must have given together. */
static bool parse_complete(cli_options *opt, tm_error *err)
{
    if (opt->command == CLI_HELP || opt->command == CLI_VERSION)
        return true;
    if (opt->command == CLI_GEN)
        opt->gen_output = opt->run.out_dir; /* gen -o names the source file */
    if (opt->command == CLI_SWEEP && (!opt->sweep_nr || !opt->sweep_nz)) {
        error_set(err, NULL, 0, "sweep: --nr A:B:STEP and --nz A:B:STEP are required");
        return false;
    }
    if (!opt->run.input && opt->command != CLI_DEVICES) {
        error_set(err, NULL, 0, "no input file given (tmcml --help shows the usage)");
        return false;
    }
    return true;
}

bool cli_parse(int argc, char **argv, cli_options *opt, tm_error *err)
{
    set_defaults(opt);
    int i = 1;
    if (!parse_command(argc, argv, &i, opt, err))
        return false;
    if (opt->command == CLI_PROFILES || opt->command == CLI_PLOT || opt->command == CLI_CONV ||
        opt->command == CLI_LUT)
        return true;
    options_given given = {calloc((size_t)argc, sizeof *given.at), 0};
    if (!given.at) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    bool ok = parse_words(argc, argv, i, opt, &given, err);
    free(given.at);
    return ok && parse_complete(opt, err);
}
