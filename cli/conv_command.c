#include "conv_command.h"

#include <stdio.h>

#include "conv.h"
#include "mco.h"
#include "mco_command.h"

enum { CONV_BEAM };

static const cli_option rows[] = {
    {"--beam", NULL, "gaussian:W|flat:R",
     "a Gaussian beam of 1/e^2 radius W (cm), or a flat\n"
     "(top-hat) beam of radius R (cm)",
     CONV_BEAM, 0, 0, 0},
    {"--output", "-o", "FILE", "the convolved .mco (default: OUT.conv.mco beside OUT.mco)",
     MCO_OPTION_OUTPUT, 0, 0, 0},
    {"--help", "-h", NULL, "this text", MCO_OPTION_HELP, 0, 0, 0},
};

static const cli_option_table conv_options_table = {"conv: ", rows,
                                                    (int)(sizeof rows / sizeof *rows)};

static void print_usage(FILE *s)
{
    fputs("usage: tmcml conv OUT.mco --beam gaussian:W|flat:R [-o FILE]\n"
          "\n"
          "Convolves the pencil-beam response of an MCML 1.2.2 output file (tmcml's or\n"
          "MCML's own) with a broad beam of unit power, as MCML's CONV does: exact for a\n"
          "laterally uniform medium, up to the ring grid (docs/physics.md, \"Broad beams by\n"
          "convolution\").  Rd_r, Tt_r, A_rz, Rd_ra and Tt_ra are convolved; the totals,\n"
          "A_z, A_l, Rd_a and Tt_a do not change.  The last r bin, MCML's collection of\n"
          "everything beyond the grid, is not spread and collects what the beam carries\n"
          "beyond it.  The header comment records the beam.\n"
          "\n"
          "\n",
          s);
    option_table_usage(&conv_options_table, 0, s);
    fputs("\n"
          "exit status: 0 written; 1 the .mco unreadable or the output not written\n"
          "(nothing left behind); 2 bad command line.\n",
          s);
}

/* conv's own option, --beam: the beam, as conv_beam_parse reads it. */
typedef struct conv_options {
    conv_beam beam;
    bool have_beam;
} conv_options;

static bool beam_option(const option_read *read, void *ctx, tm_error *err)
{
    conv_options *o = ctx;
    if (!conv_beam_parse(read->value, &o->beam, err)) {
        tm_error named = {0}; /* the option as the user wrote it */
        error_set(&named, NULL, 0, "--%s", err->message);
        *err = named;
        return false;
    }
    o->have_beam = true;
    return true;
}

static bool beam_given(const void *ctx, tm_error *err)
{
    const conv_options *o = ctx;
    if (!o->have_beam)
        error_set(err, NULL, 0, "conv: no beam given (--beam gaussian:W or --beam flat:R, cm)");
    return o->have_beam;
}

static bool convolve_file(const char *input, const char *output, const void *ctx, tm_error *err)
{
    const conv_options *o = ctx;
    mco_data data;
    if (!mco_read(input, &data, err))
        return false;
    mcml_result out;
    if (!conv_check_input(&data.run, data.comment, input, err)) {
        mco_free(&data);
        return false;
    }
    bool ok = conv_result(&data.result, data.run.dr, &o->beam, &out, err);
    if (ok) {
        char comment[1024];
        conv_comment(&o->beam, data.comment ? data.comment : "", comment, sizeof comment);
        mci_run beamed = data.run; /* shallow: the header names the beam as its source */
        beamed.source = conv_beam_source(&o->beam);
        ok = mco_write(output, &beamed, &out, comment, err);
        result_free(&out);
    }
    mco_free(&data);
    return ok;
}

int conv_command(int argc, char **argv)
{
    static const mco_command conv = {
        .name = "conv",
        .print_usage = print_usage,
        .suffix = ".conv.mco",
        .overwrite = "the output would overwrite the .mco it is made from",
        .options = &conv_options_table,
        .apply = beam_option,
        .complete = beam_given,
        .write = convolve_file,
    };
    conv_options o = {0};
    return mco_command_main(&conv, &o, argc, argv);
}
