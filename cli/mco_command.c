/* The frame of `tmcml plot` and `tmcml conv` (mco_command.h). */
#include "mco_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fs.h"

typedef struct mco_files {
    const char *input, *output;
    bool help;
} mco_files;

/* -o FILE, -oFILE, --output FILE, the .mco, or a word refused. */
static bool parse_word(const mco_command *cmd, int argc, char **argv, int *i, mco_files *a,
                       tm_error *err)
{
    const char *w = argv[*i];
    int got = cli_long_value(argc, argv, i, "--output", "a file name", &a->output, err);
    if (got != 0)
        return got > 0;
    if (strncmp(w, "-o", 2) == 0) { /* -o FILE or -oFILE */
        a->output = w[2] ? w + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!a->output || !*a->output) {
            error_set(err, NULL, 0, "-o: expected a file name");
            return false;
        }
    } else if (w[0] == '-' && w[1]) {
        error_set(err, NULL, 0, "%s: unknown option \"%s\" (tmcml %s --help)", cmd->name, w,
                  cmd->name);
        return false;
    } else if (a->input) {
        error_set(err, NULL, 0, "%s: more than one .mco file (\"%s\" and \"%s\")", cmd->name,
                  a->input, w);
        return false;
    } else {
        a->input = w;
    }
    return true;
}

static bool parse(const mco_command *cmd, void *ctx, int argc, char **argv, mco_files *a,
                  tm_error *err)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            a->help = true;
            return true;
        }
        int own = cmd->option ? cmd->option(argc, argv, &i, ctx, err) : 0;
        if (own < 0 || (own == 0 && !parse_word(cmd, argc, argv, &i, a, err)))
            return false;
    }
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
