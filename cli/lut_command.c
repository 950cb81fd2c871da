#include "lut_command.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "fs.h"
#include "lut_resume.h"
#include "lut_table.h"
#include "lut_write.h"
#include "number_parse.h"
#include "option_value.h"
#include "tm_limits.h"

static void print_usage(FILE *s)
{
    fputs("usage: tmcml lut --mua AXIS --musp AXIS -o OUT [options]\n"
          "\n"
          "A lookup table of the diffuse reflectance, total (Rd) and per ring (Rd_r), of\n"
          "one homogeneous layer over a grid of mua and mus' (docs/lut.md), written as\n"
          "OUT.csv and OUT.npz.  Absorption is not scored (only escapes are needed).\n"
          "AXIS is START:STOP:COUNT (evenly spaced), START:STOP:COUNT:log (evenly in\n"
          "log) or a comma list, increasing, in 1/cm; mus = mus' / (1 - g).\n"
          "\n"
          "  --mua AXIS            absorption coefficients (1/cm)\n"
          "  --musp AXIS           reduced scattering coefficients mus' (1/cm)\n"
          "  -o, --output OUT      write OUT.csv and OUT.npz (an ending .csv or .npz of OUT\n"
          "                        is dropped); existing files are replaced atomically\n"
          "  --n N                 refractive index of the layer (default 1.4)\n"
          "  --n-above N           of the medium above (default 1.0)\n"
          "  --n-below N           of the medium below (default 1.0)\n"
          "  --g G                 anisotropy, -1 to below 1 (default 0.9)\n"
          "  --d D                 thickness in cm, or inf (default inf: semi-infinite,\n"
          "                        simulated as 1e8 cm)\n"
          "  --nr N                rings of Rd_r (default 100)\n"
          "  --dr DR               ring width in cm (default 0.01)\n"
          "  -N, --photons N       photons per point (default 100000; 1e6 is accepted)\n"
          "  -S, --seed SEED       random seed (default 1)\n"
          "  --strategy auto|sets|runs\n"
          "                        sets: each mus' one simulation whose mua are absorption\n"
          "                        sets (one history for all mua of a mus': their errors\n"
          "                        are correlated); runs: each point its own simulation, the\n"
          "                        mus' of a mua batched (independent errors across mua);\n"
          "                        auto (default): sets where the engine scores them (the\n"
          "                        CPU engine), else runs\n"
          "  --engine cpu|gpu|auto engine (default auto: the GPU if one is usable)\n"
          "  --gpu K               use GPU K (default 0)\n"
          "  --threads N           CPU engine threads (default 0: every core)\n"
          "  --checkpoint-every S  keep the simulations done in OUT.lut.ckpt every S\n"
          "                        seconds (default 600; 0: only when a signal stops it)\n"
          "  --resume              continue the table OUT.lut.ckpt holds (a stopped one):\n"
          "                        the same options end with the files of an uninterrupted\n"
          "                        table, byte for byte; with no checkpoint, from the start\n"
          "  -q, --quiet           no progress and no report\n"
          "  -h, --help            this text\n"
          "\n"
          "exit status: 0 written; 1 a simulation or a write failed (no file half-written);\n"
          "2 bad command line or an output that cannot be written: nothing simulated or\n"
          "written; 128 + a signal (130 SIGINT, 143 SIGTERM, ...): stopped, the\n"
          "simulations done kept in OUT.lut.ckpt for --resume.\n",
          s);
}

typedef struct lut_args {
    lut_spec spec;
    const char *output, *mua, *musp;
    bool quiet, help;
    bool resume;             /* --resume */
    double checkpoint_every; /* seconds; 0: only on a stop */
} lut_args;

static bool strategy_of(const char *text, lut_strategy *out, tm_error *err)
{
    for (lut_strategy s = LUT_AUTO; s <= LUT_RUNS; s++)
        if (strcmp(text, lut_strategy_name(s)) == 0) {
            *out = s;
            return true;
        }
    error_set(err, NULL, 0, "--strategy: expected auto, sets or runs (got \"%s\")", text);
    return false;
}

static bool engine_of(const char *text, tmcml_engine *out, tm_error *err)
{
    static const char *const names[] = {
        [TMCML_ENGINE_AUTO] = "auto", [TMCML_ENGINE_CPU] = "cpu", [TMCML_ENGINE_GPU] = "gpu"};
    for (int e = 0; e < 3; e++)
        if (strcmp(text, names[e]) == 0) {
            *out = (tmcml_engine)e;
            return true;
        }
    error_set(err, NULL, 0, "--engine: expected cpu, gpu or auto (got \"%s\")", text);
    return false;
}

/* The options with a number: 1 parsed, 0 not one of them, -1 bad. */
static int parse_number_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    lut_spec *sp = &a->spec;
    const struct {
        const char *name;
        double *value;
    } reals[] = {{"--n", &sp->n},
                 {"--n-above", &sp->n_above},
                 {"--n-below", &sp->n_below},
                 {"--g", &sp->g},
                 {"--d", &sp->d},
                 {"--dr", &sp->dr}};
    const char *text = NULL;
    for (size_t k = 0; k < sizeof reals / sizeof *reals; k++) {
        int got = cli_long_value(argc, argv, i, reals[k].name, "a number", &text, err);
        if (got != 0)
            return got > 0 && option_number(reals[k].name, text, reals[k].value == &sp->d,
                                            reals[k].value, err)
                       ? 1
                       : -1;
    }
    const struct {
        const char *name;
        int *value;
        int min, max;
    } ints[] = {{"--nr", &sp->nr, 1, (int)MCI_MAX_BINS},
                {"--threads", &sp->threads, 0, 4096},
                {"--gpu", &sp->gpu, 0, 1023}};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
        int got = cli_long_value(argc, argv, i, ints[k].name, "a whole number", &text, err);
        if (got != 0)
            return got > 0 && option_whole(ints[k].name, text, ints[k].min, ints[k].max,
                                           ints[k].value, err)
                       ? 1
                       : -1;
    }
    return 0;
}

/* The options with a word: 1 parsed, 0 not one of them, -1 bad. */
static int parse_word_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *text = NULL;
    int got;
    if ((got = cli_long_value(argc, argv, i, "--mua", "START:STOP:COUNT[:log] or a list", &a->mua,
                              err)) != 0 ||
        (got = cli_long_value(argc, argv, i, "--musp", "START:STOP:COUNT[:log] or a list", &a->musp,
                              err)) != 0 ||
        (got = cli_long_value(argc, argv, i, "--output", "a name", &a->output, err)) != 0)
        return got;
    if ((got = cli_long_value(argc, argv, i, "--strategy", "auto, sets or runs", &text, err)) != 0)
        return got > 0 && strategy_of(text, &a->spec.strategy, err) ? 1 : -1;
    if ((got = cli_long_value(argc, argv, i, "--engine", "cpu, gpu or auto", &text, err)) != 0)
        return got > 0 && engine_of(text, &a->spec.engine, err) ? 1 : -1;
    return 0;
}

/* --checkpoint-every S (0 to a week, as `tmcml run`'s) and --resume: 1
 * parsed, 0 not one of them, -1 bad. */
static int parse_stop_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *text = NULL;
    if (strcmp(argv[*i], "--resume") == 0) {
        a->resume = true;
        return 1;
    }
    int got = cli_long_value(argc, argv, i, "--checkpoint-every", "seconds", &text, err);
    if (got <= 0)
        return got;
    double v;
    if (option_number("--checkpoint-every", text, false, &v, err) && v >= 0 && v <= 604800) {
        a->checkpoint_every = v;
        return 1;
    }
    error_set(err, NULL, 0,
              "--checkpoint-every: expected seconds, from 0 (only on a signal) to 604800 (got "
              "\"%s\")",
              text);
    return -1;
}

/* -o OUT, -N N, -S SEED (the value attached or the next word), and
 * --photons, --seed: 1 parsed, 0 not one of them, -1 bad. */
static int parse_photons_seed_output(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *w = argv[*i], *text = NULL;
    int got, which = -1; /* 0 output, 1 photons, 2 seed */
    if ((got = cli_long_value(argc, argv, i, "--photons", "a number", &text, err)) != 0)
        which = 1;
    else if ((got = cli_long_value(argc, argv, i, "--seed", "a number", &text, err)) != 0)
        which = 2;
    else if (w[0] == '-' && strchr("oNS", w[1]) && w[1]) {
        which = w[1] == 'o' ? 0 : w[1] == 'N' ? 1 : 2;
        text = w[2] ? w + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        got = text && *text ? 1 : -1;
        if (got < 0)
            error_set(err, NULL, 0, "-%c: expected a value", w[1]);
    }
    if (got <= 0)
        return got;
    if (which == 0)
        a->output = text;
    else if (which == 1)
        got = option_count("--photons", text, 9.2e18, &a->spec.photons, err) ? 1 : -1;
    else
        got = option_seed("--seed", text, &a->spec.seed, err) ? 1 : -1;
    return got;
}

static bool parse_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *w = argv[*i];
    if (strcmp(w, "-q") == 0 || strcmp(w, "--quiet") == 0) {
        a->quiet = true;
        return true;
    }
    int got = parse_number_option(argc, argv, i, a, err);
    if (got == 0)
        got = parse_word_option(argc, argv, i, a, err);
    if (got == 0)
        got = parse_photons_seed_output(argc, argv, i, a, err);
    if (got == 0)
        got = parse_stop_option(argc, argv, i, a, err);
    if (got == 0)
        error_set(err, NULL, 0, "lut: unknown option \"%s\" (tmcml lut --help)", w);
    return got > 0;
}

static void set_defaults(lut_args *a)
{
    memset(a, 0, sizeof *a);
    a->spec = (lut_spec){.n = 1.4,
                         .n_above = 1.0,
                         .n_below = 1.0,
                         .g = 0.9,
                         .d = INFINITY,
                         .nr = 100,
                         .dr = 0.01,
                         .photons = 100000,
                         .seed = DRIVER_DEFAULT_SEED,
                         .strategy = LUT_AUTO,
                         .engine = TMCML_ENGINE_AUTO};
    a->checkpoint_every = DRIVER_DEFAULT_CHECKPOINT_SECONDS;
}

/* An index of refraction option within the .mci's range. */
static bool check_index(const char *option, double n, tm_error *err)
{
    if (n >= MCI_MIN_N && n <= MCI_MAX_N)
        return true;
    error_set(err, NULL, 0, "%s %g: expected a refractive index from %g to %g", option, n,
              MCI_MIN_N, MCI_MAX_N);
    return false;
}

/* Every number option by its own name, before any problem is made of
 * them (whose messages would name the .mci's fields: dz for --dr). */
static bool check_layer(const lut_spec *sp, tm_error *err)
{
    if (!check_index("--n", sp->n, err) || !check_index("--n-above", sp->n_above, err) ||
        !check_index("--n-below", sp->n_below, err))
        return false;
    if (!(sp->dr >= MCI_MIN_STEP && isfinite(sp->dr))) {
        error_set(err, NULL, 0, "--dr %g: expected a ring width of at least %g cm", sp->dr,
                  MCI_MIN_STEP);
        return false;
    }
    if (!(sp->g >= -1.0 && sp->g < 1.0)) {
        error_set(err, NULL, 0,
                  "--g %g: expected -1 to below 1 (mus = mus' / (1 - g): g = 1 scatters only "
                  "forward, which no mus' describes)",
                  sp->g);
        return false;
    }
    if (!(sp->d > 0.0)) {
        error_set(err, NULL, 0, "--d %g: expected a thickness above 0 cm, or inf", sp->d);
        return false;
    }
    return true;
}

/* The table's Rd_r within what one output array may hold (MCI_MAX_BINS:
 * 1 GiB of doubles), checked before any memory is asked for. */
static bool check_size(const lut_spec *sp, tm_error *err)
{
    double values = (double)sp->musp.count * sp->mua.count * sp->nr;
    if (values <= (double)MCI_MAX_BINS)
        return true;
    error_set(err, NULL, 0,
              "lut: %d mus' x %d mua x %d rings is %.3g values of Rd_r, more than 2^27 (1 GiB): "
              "make the table or --nr smaller, or split it",
              sp->musp.count, sp->mua.count, sp->nr, values);
    return false;
}

static bool parse(int argc, char **argv, lut_args *a, tm_error *err)
{
    set_defaults(a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            a->help = true;
            return true;
        }
        if (argv[i][0] != '-' || !argv[i][1]) {
            error_set(err, NULL, 0, "lut: unexpected word \"%s\" (tmcml lut --help)", argv[i]);
            return false;
        }
        if (!parse_option(argc, argv, &i, a, err))
            return false;
    }
    if (!a->mua || !a->musp || !a->output) {
        error_set(err, NULL, 0, "lut: %s is required (tmcml lut --help)",
                  !a->mua    ? "--mua"
                  : !a->musp ? "--musp"
                             : "-o OUT");
        return false;
    }
    if (!check_layer(&a->spec, err))
        return false;
    if (isinf(a->spec.d))
        a->spec.d = LUT_SEMI_INFINITE_D;
    a->spec.progress = !a->quiet && isatty(2);
    return lut_axis_parse("--mua", a->mua, &a->spec.mua, err) &&
           lut_axis_parse("--musp", a->musp, &a->spec.musp, err) && check_size(&a->spec, err);
}

/* OUT without a .csv or .npz ending, then the ending. */
static char *output_name(const char *out, const char *ending)
{
    size_t n = strlen(out);
    if (n > 4 && (strcmp(out + n - 4, ".csv") == 0 || strcmp(out + n - 4, ".npz") == 0))
        n -= 4;
    char *name = malloc(n + strlen(ending) + 1);
    if (name)
        sprintf(name, "%.*s%s", (int)n, out, ending);
    return name;
}

/* Every point's values as the library checks them: each mus' with the
 * first mua and each mua with the first mus' (the layer's other values are
 * common). */
static bool check_points(tmcml_session *s, const lut_spec *sp, tm_error *err)
{
    for (int j = 0; j < sp->musp.count + sp->mua.count; j++) {
        bool musp = j < sp->musp.count;
        double mua = musp ? sp->mua.values[0] : sp->mua.values[j - sp->musp.count];
        tmcml_problem *p =
            lut_point_problem(s, sp, mua, musp ? sp->musp.values[j] : sp->musp.values[0], err);
        if (!p)
            return false;
        tmcml_problem_delete(p);
    }
    return true;
}

static void report(const lut_args *a, const char *csv, const char *npz, const lut_table *t,
                   double seconds)
{
    if (t->trapped > 0)
        fprintf(stderr,
                "tmcml: warning: %llu photons were stopped as never ending (docs/physics.md): "
                "mua 0 in a thick layer?\n",
                (unsigned long long)t->trapped);
    char resumed[64] = "";
    if (t->made < t->calls)
        snprintf(resumed, sizeof resumed, " (%d of them resumed)", t->calls - t->made);
    if (!a->quiet)
        printf("tmcml lut: %s and %s: %d mus' x %d mua, %lld photons a point, strategy %s, "
               "engine %s, %d simulations%s, %.2f s\n",
               csv, npz, t->m, t->k, (long long)a->spec.photons, lut_strategy_name(t->strategy),
               t->engine, t->calls, resumed, seconds);
}

/* Planned and checked, the checkpoint read back with --resume (exit 2),
 * simulated (a stop exits 128 + the signal, lut_resume.h), written (exit 1
 * on failure, the simulations done kept in the checkpoint). */
static int make_table(const lut_args *a, tmcml_session *s, const char *csv, const char *npz,
                      const char *ckpt)
{
    tm_error err = {0};
    lut_plan plan;
    lut_table t = {0};
    lut_resume r;
    lut_resume_init(&r, ckpt, a->resume, a->checkpoint_every, a->quiet);
    double start = clock_now();
    int status = 2;
    if (check_points(s, &a->spec, &err) && lut_plan_choose(s, &a->spec, &plan, &err) &&
        fs_check_output(npz, &err) && fs_check_output(csv, &err) &&
        lut_resume_begin(&r, s, &a->spec, &plan, &t, &err)) {
        status = 1;
        if (lut_resume_simulate(&r, &a->spec, &plan, &t, &err) &&
            lut_write_npz(npz, &a->spec, &t, &err) && lut_write_csv(csv, &a->spec, &t, &err))
            status = 0;
    }
    if (status == 0) {
        lut_resume_end(&r);
        report(a, csv, npz, &t, clock_now() - start);
    } else {
        error_print(stderr, &err);
        if (status == 1)
            lut_resume_keep(&r, &t);
    }
    lut_table_free(&t);
    return status;
}

int lut_command(int argc, char **argv)
{
    lut_args a;
    tm_error err = {0};
    bool ok = parse(argc, argv, &a, &err);
    int status = 2;
    if (!ok) {
        error_print(stderr, &err);
    } else if (a.help) {
        print_usage(stdout);
        status = 0;
    } else {
        char *csv = output_name(a.output, ".csv"), *npz = output_name(a.output, ".npz");
        char *ckpt = output_name(a.output, ".lut.ckpt");
        tmcml_session *s = tmcml_session_new();
        if (csv && npz && ckpt && s) {
            status = make_table(&a, s, csv, npz, ckpt);
        } else {
            fprintf(stderr, "tmcml: out of memory\n");
            status = 1;
        }
        tmcml_session_delete(s);
        free(csv);
        free(npz);
        free(ckpt);
    }
    lut_axis_free(&a.spec.mua);
    lut_axis_free(&a.spec.musp);
    return status;
}
