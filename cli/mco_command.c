/* The frame of `tmcml plot` and `tmcml conv` (mco_command.h). */
#include "mco_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "option_once.h"

typedef struct mco_files {
    const char *input, *output;
    bool help;
} mco_files;

/* One option of the command's table, given once: the frame's own (-o,
 * --help) or the command's. */
static bool parse_option(const mco_command *cmd, void *ctx, int argc, char **argv, int *i,
                         mco_files *a, options_given *given, tm_error *err)
{
    char help[64];
    snprintf(help, sizeof help, "tmcml %s --help", cmd->name);
    option_read o;
    int got = option_table_read(cmd->options, argc, argv, i, &o, err);
    if (got == 0)
        option_table_unknown(cmd->options, NULL, 0, argv[*i], help, err);
    if (got <= 0)
        return false;
    bool ok = true;
    if (o.row->id == MCO_OPTION_OUTPUT)
        a->output = o.value;
    else if (o.row->id == MCO_OPTION_HELP)
        a->help = true;
    else
        ok = cmd->apply(&o, ctx, err);
    return ok && option_once_read(given, &o, err);
}

/* The words: the .mco and the options; --help ends them. */
static bool parse_words(const mco_command *cmd, void *ctx, int argc, char **argv, mco_files *a,
                        options_given *given, tm_error *err)
{
    for (int i = 1; i < argc && !a->help; i++) {
        const char *w = argv[i];
        if (w[0] == '-' && w[1]) {
            if (!parse_option(cmd, ctx, argc, argv, &i, a, given, err))
                return false;
        } else if (a->input) {
            error_set(err, NULL, 0, "%s: more than one .mco file (\"%s\" and \"%s\")", cmd->name,
                      a->input, w);
            return false;
        } else {
            a->input = w;
        }
    }
    return true;
}

static bool parse(const mco_command *cmd, void *ctx, int argc, char **argv, mco_files *a,
                  tm_error *err)
{
    memset(a, 0, sizeof *a);
    options_given given = {calloc((size_t)argc, sizeof *given.at), 0};
    bool ok = given.at && parse_words(cmd, ctx, argc, argv, a, &given, err);
    if (!given.at)
        error_set(err, NULL, 0, "%s: out of memory", cmd->name);
    free(given.at);
    if (!ok || a->help)
        return ok;
    if (!a->input) {
        error_set(err, NULL, 0, "%s: no .mco file given (tmcml %s --help)", cmd->name, cmd->name);
        return false;
    }
    return !cmd->complete || cmd->complete(ctx, err);
}

/* The output must not replace the .mco it is made from. */
static bool distinct_files(const mco_command *cmd, const char *input, const char *output,
                           tm_error *err)
{
    char *in = fs_resolve(input, NULL), *out = fs_resolve(output, NULL);
    bool same = in && out && strcmp(in, out) == 0;
    free(in);
    free(out);
    if (same)
        error_set(err, output, 0, "%s: %s", cmd->name, cmd->overwrite);
    return !same;
}

/* The .mco can be opened: a missing input is named as such, before its
 * output's directory is looked at (which would be missing too). */
static bool input_opens(const char *input, tm_error *err)
{
    FILE *f = fopen(input, "rb");
    if (!f) {
        error_set(err, input, 0, "cannot open file: %s", strerror(errno));
        return false;
    }
    fclose(f);
    return true;
}

/* The output is checked before the .mco is read, so a typo in -o costs
 * nothing; the write itself is atomic all the same. */
static int write_output(const mco_command *cmd, const void *ctx, const mco_files *a)
{
    tm_error err = {0};
    char *fallback = a->output ? NULL : fs_sibling(a->input, cmd->suffix);
    const char *output = a->output ? a->output : fallback;
    int status = 1;
    if (!output)
        error_set(&err, NULL, 0, "%s: out of memory", cmd->name);
    else if (!input_opens(a->input, &err))
        status = 1;
    else if (!distinct_files(cmd, a->input, output, &err))
        status = 2;
    else if (fs_check_output(output, &err) && cmd->write(a->input, output, ctx, &err))
        status = 0;
    if (status != 0)
        error_print(stderr, &err);
    free(fallback);
    return status;
}

int mco_command_main(const mco_command *cmd, void *ctx, int argc, char **argv)
{
    mco_files a;
    tm_error err = {0};
    if (!parse(cmd, ctx, argc, argv, &a, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    if (a.help) {
        cmd->print_usage(stdout);
        return 0;
    }
    return write_output(cmd, ctx, &a);
}
