#include "plot_command.h"

#include <stdio.h>

#include "fs.h"
#include "mco.h"
#include "mco_command.h"
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

static bool plot_file(const char *input, const char *output, const void *ctx, tm_error *err)
{
    (void)ctx; /* plot has no options of its own */
    mco_data data;
    if (!mco_read(input, &data, err))
        return false;
    bool ok = plot_mco_write_png(output, &data, fs_base_name(input), err);
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
        .write = plot_file,
    };
    return mco_command_main(&plot, NULL, argc, argv);
}
