#include "conv_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conv.h"
#include "fs.h"
#include "mco.h"

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
          "  --beam gaussian:W     a Gaussian beam of 1/e^2 radius W (cm)\n"
          "  --beam flat:R         a flat (top-hat) beam of radius R (cm)\n"
          "  -o, --output FILE     the convolved .mco (default: OUT.conv.mco beside OUT.mco)\n"
          "  -h, --help            this text\n"
          "\n"
          "exit status: 0 written; 1 the .mco unreadable or the output not written\n"
          "(nothing left behind); 2 bad command line.\n",
          s);
}

typedef struct conv_args {
    const char *input, *output;
    conv_beam beam;
    bool have_beam, help;
} conv_args;

static bool parse_word(int argc, char **argv, int *i, conv_args *a, tm_error *err)
{
    const char *w = argv[*i], *text = NULL;
    int got = cli_long_value(argc, argv, i, "--output", "a file name", &a->output, err);
    if (got != 0)
        return got > 0;
    got = cli_long_value(argc, argv, i, "--beam", "gaussian:W or flat:R (cm)", &text, err);
    if (got < 0)
        return false;
    if (got > 0) {
        if (!conv_beam_parse(text, &a->beam, err)) {
            tm_error named = {0}; /* the option as the user wrote it */
            error_set(&named, NULL, 0, "--%s", err->message);
            *err = named;
            return false;
        }
        a->have_beam = true;
    } else if (strncmp(w, "-o", 2) == 0) { /* -o FILE or -oFILE */
        a->output = w[2] ? w + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!a->output || !*a->output) {
            error_set(err, NULL, 0, "-o: expected a file name");
            return false;
        }
    } else if (w[0] == '-' && w[1]) {
        error_set(err, NULL, 0, "conv: unknown option \"%s\" (tmcml conv --help)", w);
        return false;
    } else if (a->input) {
        error_set(err, NULL, 0, "conv: more than one .mco file (\"%s\" and \"%s\")", a->input, w);
        return false;
    } else {
        a->input = w;
    }
    return true;
}

static bool parse(int argc, char **argv, conv_args *a, tm_error *err)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            a->help = true;
            return true;
        }
        if (!parse_word(argc, argv, &i, a, err))
            return false;
    }
    if (!a->input)
        error_set(err, NULL, 0, "conv: no .mco file given (tmcml conv --help)");
    else if (!a->have_beam)
        error_set(err, NULL, 0, "conv: no beam given (--beam gaussian:W or --beam flat:R, cm)");
    return a->input && a->have_beam;
}

/* The result must not replace the pencil response it is made from. */
static bool distinct_files(const char *input, const char *output, tm_error *err)
{
    char *in = fs_resolve(input, NULL), *out = fs_resolve(output, NULL);
    bool same = in && out && strcmp(in, out) == 0;
    free(in);
    free(out);
    if (same)
        error_set(err, output, 0, "conv: the output would overwrite the .mco it is made from");
    return !same;
}

static bool convolve_file(const conv_args *a, const char *output, tm_error *err)
{
    mco_data data;
    if (!mco_read(a->input, &data, err))
        return false;
    mcml_result out;
    if (!conv_check_input(&data.run, data.comment, a->input, err)) {
        mco_free(&data);
        return false;
    }
    bool ok = conv_result(&data.result, data.run.dr, &a->beam, &out, err);
    if (ok) {
        char comment[1024];
        conv_comment(&a->beam, data.comment ? data.comment : "", comment, sizeof comment);
        mci_run beamed = data.run; /* shallow: the header names the beam as its source */
        beamed.source = conv_beam_source(&a->beam);
        ok = mco_write(output, &beamed, &out, comment, err);
        result_free(&out);
    }
    mco_free(&data);
    return ok;
}

/* The output is checked before the .mco is read; the write is atomic. */
static int convolve(const conv_args *a)
{
    tm_error err = {0};
    char *fallback = a->output ? NULL : fs_sibling(a->input, ".conv.mco");
    const char *output = a->output ? a->output : fallback;
    int status = 1;
    if (!output)
        error_set(&err, NULL, 0, "conv: out of memory");
    else if (!distinct_files(a->input, output, &err))
        status = 2;
    else if (fs_check_output(output, &err) && convolve_file(a, output, &err))
        status = 0;
    if (status != 0)
        error_print(stderr, &err);
    free(fallback);
    return status;
}

int conv_command(int argc, char **argv)
{
    conv_args a;
    tm_error err = {0};
    if (!parse(argc, argv, &a, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    if (a.help) {
        print_usage(stdout);
        return 0;
    }
    return convolve(&a);
}
