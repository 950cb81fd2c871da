#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void cli_print_usage(FILE *s)
{
    fputs("usage: tmcml run FILE.mci [options]\n"
          "       tmcml FILE.mci [-S SEED] [-A] [-G N]      (CUDAMCML/GPU-MCML form)\n"
          "       tmcml --help | --version\n"
          "\n"
          "Simulates every run of an MCML input file and writes, for each run, the\n"
          "MCML 1.2.2 output file named in the .mci and a JSON summary beside it.\n"
          "\n"
          "options:\n"
          "  -S, --seed SEED       random seed (default 1): equal seeds give identical files\n"
          "  -A                    do not score absorption (A arrays written as zeros)\n"
          "  --engine cpu|gpu|auto engine (default auto: the GPU if one is usable, else CPU)\n"
          "  --threads N           CPU engine threads (default: all cores)\n"
          "  -o, --output DIR      directory for the output files (default: current)\n"
          "  -N, --photons N       simulate N photons per run instead of the file's count\n"
          "  -G N                  number of GPUs (GPU-MCML form)\n"
          "  -q, --quiet           no progress line and no per-run report\n"
          "  -h, --help            this text\n"
          "  --version             version and build configuration\n"
          "\n"
          "exit status: 0 all runs written; 1 a run failed (the others are still\n"
          "written); 2 bad command line or input file, nothing simulated.\n",
          s);
}

static bool parse_u64(const char *text, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_positive(const char *name, const char *text, uint64_t max, uint64_t *out,
                           tm_error *err)
{
    if (!parse_u64(text, out) || *out == 0 || *out > max) {
        error_set(err, NULL, 0, "%s: expected a whole number from 1 to %llu (got \"%s\")", name,
                  (unsigned long long)max, text ? text : "");
        return false;
    }
    return true;
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
        opt->engine = CLI_ENGINE_CPU;
    else if (text && strcmp(text, "gpu") == 0)
        opt->engine = CLI_ENGINE_GPU;
    else if (text && strcmp(text, "auto") == 0)
        opt->engine = CLI_ENGINE_AUTO;
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

static bool parse_option(int argc, char **argv, int *i, cli_options *opt, tm_error *err)
{
    const char *a = argv[*i];
    uint64_t v;
    if (is_long(a, "-A")) {
        opt->score_absorption = false;
    } else if (is_long(a, "-q") || is_long(a, "--quiet")) {
        opt->quiet = true;
    } else if (is_long(a, "--seed") || is_short(a, "-S")) {
        const char *text = option_value(argc, argv, i, is_long(a, "--seed") ? 6 : 2);
        if (!parse_u64(text, &v)) {
            error_set(err, NULL, 0, "seed: expected a whole number from 0 to 2^64-1 (got \"%s\")",
                      text ? text : "");
            return false;
        }
        opt->seed = v;
    } else if (is_long(a, "--engine")) {
        return parse_engine(option_value(argc, argv, i, 8), opt, err);
    } else if (is_long(a, "--threads")) {
        if (!parse_positive("--threads", option_value(argc, argv, i, 9), 4096, &v, err))
            return false;
        opt->threads = (int)v;
    } else if (is_long(a, "-o") || is_long(a, "--output")) {
        opt->out_dir = option_value(argc, argv, i, strlen(a));
        if (!opt->out_dir || !*opt->out_dir) {
            error_set(err, NULL, 0, "%s: expected a directory", a);
            return false;
        }
    } else if (is_long(a, "--photons") || is_short(a, "-N")) {
        const char *text = option_value(argc, argv, i, is_long(a, "--photons") ? 9 : 2);
        if (!parse_positive("--photons", text, INT64_MAX, &v, err))
            return false;
        opt->photons = (int64_t)v;
    } else if (is_short(a, "-G")) {
        if (!parse_positive("-G", option_value(argc, argv, i, 2), 64, &v, err))
            return false;
        opt->gpus = (int)v;
    } else {
        error_set(err, NULL, 0, "unknown option \"%s\" (tmcml --help lists them)", a);
        return false;
    }
    return true;
}

static void set_defaults(cli_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->command = CLI_RUN;
    opt->seed = CLI_DEFAULT_SEED;
    opt->score_absorption = true;
    opt->engine = CLI_ENGINE_AUTO;
    opt->gpus = 1;
}

bool cli_parse(int argc, char **argv, cli_options *opt, tm_error *err)
{
    set_defaults(opt);
    int i = 1;
    if (i < argc && strcmp(argv[i], "run") == 0)
        i++;
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
            if (!parse_option(argc, argv, &i, opt, err))
                return false;
        } else if (!opt->input) {
            opt->input = a;
        } else {
            error_set(err, NULL, 0, "more than one input file (\"%s\" and \"%s\")", opt->input, a);
            return false;
        }
    }
    if (!opt->input) {
        error_set(err, NULL, 0, "no input file given (tmcml --help shows the usage)");
        return false;
    }
    return true;
}
