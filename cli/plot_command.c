#include "plot_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fs.h"
#include "mco.h"
#include "plot_mco.h"

static void print_usage(FILE *s)
{
    fputs("usage: tmcml plot OUT.mco [-o FIG.png]\n"
          "\n"
          "Draws one PNG figure of an MCML 1.2.2 output file (tmcml's or MCML's own):\n"
          "the fluence A_rz/mu_a in r-z on a log colour scale, mirrored about r = 0,\n"
          "with the layer interfaces; R_d(r) and A(z) on log axes.  MCML's overflow\n"
          "bins (the last r bin, and the last z bin when the grid ends inside the\n"
          "tissue) are left out.\n"
          "\n"
          "  -o, --output FIG.png  the figure (default: OUT.png beside OUT.mco)\n"
          "  -h, --help            this text\n"
          "\n"
          "exit status: 0 written; 1 the .mco unreadable or the figure not written\n"
          "(nothing left behind); 2 bad command line.\n",
          s);
}

typedef struct plot_args {
    const char *input, *output;
    bool help;
} plot_args;

static bool parse(int argc, char **argv, plot_args *a, tm_error *err)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
            a->help = true;
            return true;
        }
        int got = cli_long_value(argc, argv, &i, "--output", "a file name", &a->output, err);
        if (got < 0)
            return false;
        if (got > 0)
            continue;
        if (strncmp(w, "-o", 2) == 0) { /* -o FILE or -oFILE */
            a->output = w[2] ? w + 2 : i + 1 < argc ? argv[++i] : NULL;
            if (!a->output || !*a->output) {
                error_set(err, NULL, 0, "-o: expected a file name");
                return false;
            }
        } else if (w[0] == '-' && w[1]) {
            error_set(err, NULL, 0, "plot: unknown option \"%s\" (tmcml plot --help)", w);
            return false;
        } else if (a->input) {
            error_set(err, NULL, 0, "plot: more than one .mco file (\"%s\" and \"%s\")", a->input,
                      w);
            return false;
        } else {
            a->input = w;
        }
    }
    if (!a->input) {
        error_set(err, NULL, 0, "plot: no .mco file given (tmcml plot --help)");
        return false;
    }
    return true;
}

/* The figure must not replace the data it is drawn from. */
static bool distinct_files(const char *input, const char *output, tm_error *err)
{
    char *in = fs_resolve(input, NULL), *out = fs_resolve(output, NULL);
    bool same = in && out && strcmp(in, out) == 0;
    free(in);
    free(out);
    if (same)
        error_set(err, output, 0, "plot: the figure would overwrite the .mco it is drawn from");
    return !same;
}

/* The output is checked before the .mco is read, so a typo in -o costs
 * nothing; the write itself is atomic all the same. */
static int plot(const plot_args *a)
{
    tm_error err = {0};
    char *fallback = a->output ? NULL : fs_sibling(a->input, ".png");
    const char *output = a->output ? a->output : fallback;
    mco_data data;
    int status = 1;
    if (!output)
        error_set(&err, NULL, 0, "plot: out of memory");
    else if (!distinct_files(a->input, output, &err))
        status = 2;
    else if (fs_check_output(output, &err) && mco_read(a->input, &data, &err)) {
        if (plot_mco_write_png(output, &data, fs_base_name(a->input), &err))
            status = 0;
        mco_free(&data);
    }
    if (status != 0)
        error_print(stderr, &err);
    free(fallback);
    return status;
}

int plot_command(int argc, char **argv)
{
    plot_args a;
    tm_error err = {0};
    if (!parse(argc, argv, &a, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    if (a.help) {
        print_usage(stdout);
        return 0;
    }
    return plot(&a);
}
