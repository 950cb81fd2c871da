#include "plot_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "mco.h"
#include "mco_command.h"
#include "mco_stderr.h"
#include "plot_mco.h"

enum { PLOT_NO_STDERR };

static const cli_option rows[] = {
    {"--output", "-o", "FIG.png", "the figure (default: OUT.png beside OUT.mco)", MCO_OPTION_OUTPUT,
     0, 0, 0},
    {"--no-stderr", NULL, NULL, "no bands, whatever OUT.npz holds", PLOT_NO_STDERR, 0, 0, 0},
    {"--help", "-h", NULL, "this text", MCO_OPTION_HELP, 0, 0, 0},
};

static const cli_option_table plot_options_table = {"plot: ", rows,
                                                    (int)(sizeof rows / sizeof *rows)};

static void print_usage(FILE *s)
{
    fputs("usage: tmcml plot OUT.mco [-o FIG.png] [--no-stderr]\n"
          "\n"
          "Draws one PNG figure of an MCML 1.2.2 output file (tmcml's or MCML's own):\n"
          "the fluence A_rz/mu_a in r-z on a log colour scale, mirrored about r = 0,\n"
          "with the layer interfaces; R_d(r) and A(z) on log axes.  MCML's overflow\n"
          "bins (the last r bin, and the last z bin when the grid ends inside the\n"
          "tissue) are left out.\n"
          "\n"
          "Where OUT.npz lies beside OUT.mco with the standard errors of `tmcml run\n"
          "--stderr`, R_d(r) and A(z) lie on shaded bands from value - error to value +\n"
          "error (cut at the axis's bottom).  An OUT.npz whose values are not OUT.mco's\n"
          "(another run's) or that cannot be read is said so on stderr, and the figure\n"
          "drawn without bands.\n"
          "\n"
          "\n",
          s);
    option_table_usage(&plot_options_table, 0, s);
    fputs("\n"
          "exit status: 0 written; 1 the .mco unreadable or the figure not written\n"
          "(nothing left behind); 2 bad command line.\n",
          s);
}

/* plot's own option: --no-stderr. */
typedef struct plot_options {
    bool no_stderr;
} plot_options;

static bool plot_option(const option_read *o, void *ctx, tm_error *err)
{
    (void)o; /* its one option: --no-stderr */
    (void)err;
    ((plot_options *)ctx)->no_stderr = true;
    return true;
}

/* The standard errors from the .npz beside the .mco, into errors: none
 * (silently) where there is no .npz or it has no errors; none, said on
 * stderr, where it cannot be read or is another run's. */
static void read_errors(const char *input, const mco_data *m, double *errors[OUTPUT_ARRAYS])
{
    tm_error err = {0};
    char *npz = fs_sibling(input, ".npz");
    npz_found found = npz ? mco_stderr_read(npz, m, fs_base_name(input), errors, &err) : NPZ_ABSENT;
    if (found == NPZ_BAD) {
        char text[2048];
        fprintf(stderr, "tmcml plot: %s; drawn without error bands\n",
                error_format(&err, text, sizeof text));
    }
    free(npz);
}

static bool plot_file(const char *input, const char *output, const void *ctx, tm_error *err)
{
    const plot_options *o = ctx;
    mco_data data;
    if (!mco_read(input, &data, err))
        return false;
    double *errors[OUTPUT_ARRAYS] = {NULL};
    if (!o->no_stderr)
        read_errors(input, &data, errors);
    bool ok = plot_mco_write_png_errors(output, &data, (const double *const *)errors,
                                        fs_base_name(input), err);
    mco_stderr_free(errors);
    mco_free(&data);
    return ok;
}

int plot_command(int argc, char **argv)
{
    static const mco_command plot = {
        .name = "plot",
        .print_usage = print_usage,
        .suffix = ".png",
        .overwrite = "the figure would overwrite the .mco it is drawn from",
        .options = &plot_options_table,
        .apply = plot_option,
        .write = plot_file,
    };
    plot_options o = {0};
    return mco_command_main(&plot, &o, argc, argv);
}
