#include "lut_command.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lut_axis.h"
#include "lut_check.h"
#include "lut_run.h"
#include "lut_table.h"
#include "option_value.h"
#include "precision.h"
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
          "                        is dropped; OUT's directory is made when missing);\n"
          "                        existing files are replaced atomically\n"
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
          "  --stderr              each point's standard errors (Rd_stderr, Rd_r_stderr and\n"
          "                        its photons in OUT.npz and OUT.csv; docs/lut.md)\n"
          "  --precision P         each point simulated until the relative standard error\n"
          "                        of --precision-of's quantity is at most P (2% or 0.02),\n"
          "                        a point of high absorption taking more photons than one\n"
          "                        of low; -N is then a point's most photons (at least\n"
          "                        64000); implies --stderr and --strategy runs; a point\n"
          "                        short of P at its most is an error (exit 1, files\n"
          "                        written)\n"
          "  --precision-of Q      Rd (default), Rd_r[I] or the worst of Rd_r[I:J]\n"
          "  --max-photons N       a point's most photons with --precision (default -N)\n"
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
    lut_request req; /* the table, its options and checkpoint, as the library takes them */
    lut_axis mua, musp;
    const char *output, *mua_text, *musp_text;
    bool help;
} lut_args;

static bool strategy_of(const char *text, tmcml_lut_strategy *out, tm_error *err)
{
    for (lut_strategy s = LUT_AUTO; s <= LUT_RUNS; s++)
        if (strcmp(text, lut_strategy_name(s)) == 0) {
            *out = (tmcml_lut_strategy)s;
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
    tmcml_lut_spec *sp = &a->req.spec;
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
                {"--threads", &a->req.opt.threads, 0, 4096},
                {"--gpu", &a->req.opt.gpu, 0, 1023}};
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
    if ((got = cli_long_value(argc, argv, i, "--mua", "START:STOP:COUNT[:log] or a list",
                              &a->mua_text, err)) != 0 ||
        (got = cli_long_value(argc, argv, i, "--musp", "START:STOP:COUNT[:log] or a list",
                              &a->musp_text, err)) != 0 ||
        (got = cli_long_value(argc, argv, i, "--output", "a name", &a->output, err)) != 0)
        return got;
    if ((got = cli_long_value(argc, argv, i, "--strategy", "auto, sets or runs", &text, err)) != 0)
        return got > 0 && strategy_of(text, &a->req.spec.strategy, err) ? 1 : -1;
    if ((got = cli_long_value(argc, argv, i, "--engine", "cpu, gpu or auto", &text, err)) != 0)
        return got > 0 && engine_of(text, &a->req.opt.engine, err) ? 1 : -1;
    return 0;
}

/* --stderr, --precision P, --precision-of Q and --max-photons N (as
 * `tmcml run`'s): 1 parsed, 0 not one of them, -1 bad. */
static int parse_errors_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    tmcml_lut_errors *e = &a->req.errors;
    const char *text = NULL;
    int got;
    if (strcmp(argv[*i], "--stderr") == 0)
        got = 1;
    else if ((got = cli_long_value(argc, argv, i, "--precision", "a relative error (2%)", &text,
                                   err)) != 0)
        got = got > 0 && precision_parse_value(text, "--precision", &e->precision, err) ? 1 : -1;
    else if ((got = cli_long_value(argc, argv, i, "--precision-of", "Rd or Rd_r[I] or Rd_r[I:J]",
                                   &e->of, err)) != 0)
        ;
    else if ((got = cli_long_value(argc, argv, i, "--max-photons", "a number", &text, err)) != 0)
        got = got > 0 && option_count("--max-photons", text, 9.2e18, &e->max_photons, err) ? 1 : -1;
    a->req.errors_asked = a->req.errors_asked || got > 0;
    return got;
}

/* --checkpoint-every S (0 to a week, as `tmcml run`'s) and --resume: 1
 * parsed, 0 not one of them, -1 bad. */
static int parse_stop_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *text = NULL;
    if (strcmp(argv[*i], "--resume") == 0) {
        a->req.ck.resume = 1;
        return 1;
    }
    int got = cli_long_value(argc, argv, i, "--checkpoint-every", "seconds", &text, err);
    if (got <= 0)
        return got;
    double v;
    if (option_number("--checkpoint-every", text, false, &v, err) && v >= 0 && v <= 604800) {
        a->req.ck.every = v;
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
        got = option_count("--photons", text, 9.2e18, &a->req.opt.photons, err) ? 1 : -1;
    else
        got = option_seed("--seed", text, &a->req.opt.seed, err) ? 1 : -1;
    return got;
}

static bool parse_option(int argc, char **argv, int *i, lut_args *a, tm_error *err)
{
    const char *w = argv[*i];
    if (strcmp(w, "-q") == 0 || strcmp(w, "--quiet") == 0) {
        a->req.quiet = true;
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
        got = parse_errors_option(argc, argv, i, a, err);
    if (got == 0)
        error_set(err, NULL, 0, "lut: unknown option \"%s\" (tmcml lut --help)", w);
    return got > 0;
}

static void set_defaults(lut_args *a)
{
    memset(a, 0, sizeof *a);
    tmcml_lut_spec_init(&a->req.spec);
    tmcml_options_init(&a->req.opt);
    a->req.opt.photons = 100000;
    a->req.opt.seed = DRIVER_DEFAULT_SEED;
    tmcml_checkpoint_init(&a->req.ck); /* every 600 s, as `tmcml run`'s */
    tmcml_lut_errors_init(&a->req.errors);
}

/* The options by their names, in the library's rules (driver/lut_check.h). */
static const lut_names option_names = {"--n", "--n-above", "--n-below", "--g",
                                       "--d", "--dr",      "--nr",      "lut: "};

/* Every number option by its own name, before any problem is made of
 * them (whose messages would name the .mci's fields: dz for --dr). */
static bool check_layer(const tmcml_lut_spec *sp, tm_error *err)
{
    lut_spec layer = {.n = sp->n,
                      .n_above = sp->n_above,
                      .n_below = sp->n_below,
                      .g = sp->g,
                      .d = sp->d,
                      .dr = sp->dr};
    return lut_check_layer(&layer, &option_names, err);
}

/* The error options by their own names, before the library checks them
 * by its fields' (a point's most photons are -N's unless --max-photons). */
static bool check_errors(lut_request *q, tm_error *err)
{
    const tmcml_lut_errors *e = &q->errors;
    if (e->precision == 0.0 && (e->of || e->max_photons)) {
        error_set(err, NULL, 0, "lut: %s: only with --precision",
                  e->of ? "--precision-of" : "--max-photons");
        return false;
    }
    if (e->precision > 0.0 && q->spec.strategy == TMCML_LUT_SETS) {
        error_set(err, NULL, 0,
                  "lut: --precision with --strategy sets: the absorption sets of a mus' share "
                  "its photons, so its points cannot stop on their own; use --strategy runs "
                  "(the default with --precision)");
        return false;
    }
    int64_t most = e->max_photons ? e->max_photons : q->opt.photons;
    if (e->precision > 0.0 && most < PRECISION_MIN_PHOTONS) {
        error_set(err, NULL, 0,
                  "lut: --precision needs at least %lld photons a point (the 64 groups of %d "
                  "it decides after), and a point may take %lld: raise %s",
                  (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK, (long long)most,
                  e->max_photons ? "--max-photons" : "-N (a point's most photons)");
        return false;
    }
    return true;
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
    if (!a->mua_text || !a->musp_text || !a->output) {
        error_set(err, NULL, 0, "lut: %s is required (tmcml lut --help)",
                  !a->mua_text    ? "--mua"
                  : !a->musp_text ? "--musp"
                                  : "-o OUT");
        return false;
    }
    tmcml_lut_spec *sp = &a->req.spec;
    if (!check_layer(sp, err) || !check_errors(&a->req, err))
        return false;
    if (isinf(sp->d))
        sp->d = LUT_SEMI_INFINITE_D;
    a->req.progress = !a->req.quiet && isatty(2);
    if (!lut_axis_parse("--mua", a->mua_text, &a->mua, err) ||
        !lut_axis_parse("--musp", a->musp_text, &a->musp, err))
        return false;
    sp->mua = a->mua.values;
    sp->num_mua = a->mua.count;
    sp->musp = a->musp.values;
    sp->num_musp = a->musp.count;
    return lut_check_size(sp->num_musp, sp->num_mua, sp->nr, &option_names, err);
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
            a.req.csv = csv;
            a.req.npz = npz;
            a.req.ck.path = ckpt;
            status = lut_run(s, &a.req);
        } else {
            fprintf(stderr, "tmcml: out of memory\n");
            status = 1;
        }
        tmcml_session_delete(s);
        free(csv);
        free(npz);
        free(ckpt);
    }
    lut_axis_free(&a.mua);
    lut_axis_free(&a.musp);
    return status;
}
