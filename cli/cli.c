/* The command line (cli.h): every option of the commands into one cli_options,
 * the kernel variant's among them, and the usage text. */
#include "cli.h"
#include "knob.h"
#include "option_once.h"
#include "run_option_table.h"
#include "suggest.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel variant options: the knob table's and the table's. */
static void print_variant_usage(FILE *out)
{
    char knobs[4096];
    knobs_usage(knobs, sizeof knobs);
    fprintf(out, "kernel variant (GPU engine, `gen`, `tune`, `sweep`):\n%s", knobs);
    option_table_usage(&run_options, RUN_SECTION_VARIANT, out);
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
          "A value follows its option as the next word or after '=' (--seed=5), or\n"
          "attached to a short form (-S5).\n"
          "\n"
          "options:\n",
          s);
    option_table_usage(&run_options, RUN_SECTION_OPTIONS, s);
    fputs("\n"
          "gen: writes the generated CUDA source of run K (default 1) for reading\n"
          "  (-o names its file; default: standard output).\n",
          s);
    option_table_usage(&run_options, RUN_SECTION_GEN, s);
    fputs("\nprofiles and tuning (GPU engine):\n", s);
    option_table_usage(&run_options, RUN_SECTION_TUNING, s);
    fputs("tune: measures kernel variants of run K on this GPU and stores the fastest\n"
          "  in the GPU's profile; sweep: times every tile NR x NZ of a grid and writes\n"
          "  PREFIX.csv and a heat map PREFIX.eBITS.png per entry width (default\n"
          "  PREFIX sweep-STEM), PREFIX.eBITS.cN.png per cluster size N > 1 (the tile\n"
          "  shared by a thread-block cluster); explicit variant options fix the launch.\n"
          "sweep's own options:\n",
          s);
    option_table_usage(&run_options, RUN_SECTION_SWEEP, s);
    fputs("\n", s);
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

/* An option nobody knows, with the nearest of the table's and the knobs'. */
static void unknown_option(const char *a, tm_error *err)
{
    const char *knobs[64];
    int n = 0;
    for (int k = 0; k < knob_count && n < (int)(sizeof knobs / sizeof *knobs); k++)
        knobs[n++] = knob_table[k].option;
    option_table_unknown(&run_options, knobs, n, a, "tmcml --help", err);
}

/* A knob's option (the kernel variant's table, gen/knob.h), as "--knob V"
 * or "--knob=V", given once: 1 parsed, 0 not a knob's, -1 a bad value. */
static int parse_knob_option(int argc, char **argv, int *i, cli_options *opt, options_given *given,
                             tm_error *err)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    char name[64];
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    if (!knob_by_option(name))
        return 0;
    const char *val = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    bool ok = variant_options_set(&opt->run.variant, name, val, err) &&
              option_once(given, name, val, err);
    return ok ? 1 : -1;
}

/* One option's words: the table's (those of the command), else the
 * knobs', given once. */
static bool parse_option(int argc, char **argv, int *i, cli_options *opt, options_given *given,
                         tm_error *err)
{
    int first = *i;
    option_read o;
    int got = option_table_read(&run_options, argc, argv, i, &o, err);
    const cli_option *other = NULL; /* an option of another command */
    if (got > 0 && !run_option_belongs(o.row, opt->command)) {
        other = o.row;
        *i = first;
        got = 0;
    }
    if (got > 0) {
        if ((o.row->flags & (OPTION_GPU | OPTION_CPU)) &&
            opt->one_engine_count < CLI_ONE_ENGINE_MAX)
            opt->one_engine[opt->one_engine_count++] = o.row;
        return run_option_apply(&o, opt, err) && option_once_read(given, &o, err);
    }
    if (got < 0)
        return false;
    int knob = parse_knob_option(argc, argv, i, opt, given, err);
    if (knob == 0 && other)
        error_set(err, NULL, 0, "%s: an option of tmcml sweep only", other->name);
    else if (knob == 0)
        unknown_option(argv[*i], err);
    return knob > 0;
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
    for (; i < argc && opt->command != CLI_HELP && opt->command != CLI_VERSION; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '\0') {
            if (!parse_option(argc, argv, &i, opt, given, err))
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
/* Options of tmcml run and tmcml gen alone: a tuned or swept kernel is one
 * without them (tune and sweep take no --time or --detector either). */
static bool run_and_gen_only(const cli_options *opt, tm_error *err)
{
    const struct {
        const char *name;
        int count;
    } groups[] = {{"--spatial-frequencies", opt->run.fx_count},
                  {"--modulation", opt->run.mod_count},
                  {"--xy", opt->run.xy_nx},
                  {"--source oblique", source_breaks_symmetry(&opt->run.source)}};
    for (size_t k = 0; k < sizeof groups / sizeof *groups; k++)
        if (groups[k].count > 0 && opt->command != CLI_RUN && opt->command != CLI_GEN) {
            error_set(err, NULL, 0,
                      "%s: an option of tmcml run and tmcml gen (tune and sweep time the kernels "
                      "without them)",
                      groups[k].name);
            return false;
        }
    return true;
}

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
    if (!run_and_gen_only(opt, err))
        return false;
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

void cli_engine_notes(const cli_options *opt, FILE *out)
{
    driver_engine engine = opt->run.engine;
    if (opt->command != CLI_RUN || engine == DRIVER_ENGINE_AUTO)
        return;
    unsigned other = engine == DRIVER_ENGINE_CPU ? OPTION_GPU : OPTION_CPU;
    for (int k = 0; k < opt->one_engine_count; k++) {
        const cli_option *row = opt->one_engine[k];
        bool seen = false; /* an option given twice (with one value) is noted once */
        for (int j = 0; j < k; j++)
            seen = seen || opt->one_engine[j] == row;
        if ((row->flags & other) && !seen)
            fprintf(out, "tmcml: note: %s is the %s engine's; --engine %s makes no use of it\n",
                    row->name, other == OPTION_GPU ? "GPU" : "CPU",
                    engine == DRIVER_ENGINE_CPU ? "cpu" : "gpu");
    }
}
