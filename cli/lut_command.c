#include "lut_command.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver_options.h"
#include "lut_check.h"
#include "lut_option_table.h"
#include "lut_table.h"
#include "option_once.h"
#include "precision.h"

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
          "A value follows its option as the next word or after '=' (--n=1.33).\n"
          "\n",
          s);
    option_table_usage(&lut_options, 0, s);
    fputs("\n"
          "exit status: 0 written; 1 a simulation or a write failed (no file half-written);\n"
          "2 bad command line or an output that cannot be written: nothing simulated or\n"
          "written; 128 + a signal (130 SIGINT, 143 SIGTERM, ...): stopped, the\n"
          "simulations done kept in OUT.lut.ckpt for --resume.\n",
          s);
}

/* One option's words, given once (option_once.h). */
static bool parse_option(int argc, char **argv, int *i, lut_args *a, options_given *given,
                         tm_error *err)
{
    option_read o;
    int got = option_table_read(&lut_options, argc, argv, i, &o, err);
    if (got == 0)
        option_table_unknown(&lut_options, NULL, 0, argv[*i], "tmcml lut --help", err);
    return got > 0 && lut_option_apply(&o, a, err) && option_once_read(given, &o, err);
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
static const lut_names option_names = {"--n",  "--n-above", "--n-below",
                                       "--g",  "--d",       "--dr",
                                       "--nr", "lut: ",     "--spatial-frequencies"};

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

/* --spatial-frequencies that the GPU does not score (with --strategy
 * sets, or more than its kernel scores: lut_fx_cpu_only) are the CPU
 * engine's, as `tmcml run` takes them: --engine gpu refused naming why,
 * auto the CPU, said unless quiet.  Decided here to name the options; the
 * library decides the same by the same rule. */
static bool fx_engine(lut_request *q, tm_error *err)
{
    char why[128];
    if (!lut_fx_cpu_only(q->fx_count, (lut_strategy)q->spec.strategy, why, sizeof why))
        return true;
    if (q->opt.engine == TMCML_ENGINE_GPU) {
        error_set(err, NULL, 0,
                  "lut: --spatial-frequencies %s: Rd_fx is then scored by the CPU engine "
                  "alone: use --engine cpu (or auto)%s",
                  why, q->spec.strategy == TMCML_LUT_SETS ? ", or --strategy runs" : "");
        return false;
    }
    if (q->opt.engine == TMCML_ENGINE_AUTO && !q->quiet)
        fprintf(stderr, "tmcml: --spatial-frequencies %s: scored by the CPU engine\n", why);
    q->opt.engine = TMCML_ENGINE_CPU;
    return true;
}

/* The words: options alone, each given once; --help ends them. */
static bool parse_words(int argc, char **argv, lut_args *a, tm_error *err)
{
    options_given given = {calloc((size_t)argc, sizeof *given.at), 0};
    bool ok = given.at != NULL;
    if (!ok)
        error_set(err, NULL, 0, "lut: out of memory");
    for (int i = 1; ok && i < argc && !a->help; i++) {
        ok = argv[i][0] == '-' && argv[i][1];
        if (!ok)
            error_set(err, NULL, 0, "lut: unexpected word \"%s\" (tmcml lut --help)", argv[i]);
        else
            ok = parse_option(argc, argv, &i, a, &given, err);
    }
    free(given.at);
    return ok;
}

static bool parse(int argc, char **argv, lut_args *a, tm_error *err)
{
    set_defaults(a);
    if (!parse_words(argc, argv, a, err))
        return false;
    if (a->help)
        return true;
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
    if (!lut_check_size(sp->num_musp, sp->num_mua, sp->nr, &option_names, err))
        return false;
    if (a->req.fx_count == 0)
        return true;
    return lut_check_fx_size(sp->num_musp, sp->num_mua, a->req.fx_count, &option_names, err) &&
           fx_engine(&a->req, err);
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
