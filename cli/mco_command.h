/* The frame of the commands that read one .mco and write one file from it
 * (`tmcml plot`, `tmcml conv`): the command line (-h, -o FILE, --output
 * FILE, the .mco, the command's own options), the output's name (given,
 * else beside the .mco), its checks before the .mco is read (not the .mco
 * itself, creatable), the messages and the exit status.  Each command
 * gives its usage, its options and the writing. */
#ifndef TMCML_MCO_COMMAND_H
#define TMCML_MCO_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

typedef struct mco_command {
    const char *name; /* "plot": the messages' first word, "tmcml plot --help" */
    void (*print_usage)(FILE *s);
    const char *suffix;    /* the output's default: the .mco's sibling of this suffix */
    const char *overwrite; /* why the output may not be the .mco ("the figure would ...") */
    /* The command's own option at argv[*i] (ctx: its options): 1 taken
     * (*i past its value), 0 not one of them, -1 bad (err).  NULL: none. */
    int (*option)(int argc, char **argv, int *i, void *ctx, tm_error *err);
    /* After the command line: false (err) for an option it lacks.  NULL:
     * none required. */
    bool (*complete)(const void *ctx, tm_error *err);
    /* Reads input and writes output (checked already); false with err. */
    bool (*write)(const char *input, const char *output, const void *ctx, tm_error *err);
} mco_command;

/* Runs cmd on argv (argv[0] is the command's word), with ctx its options.
 * Returns the exit status: 0 written (or the usage asked for); 1 the .mco
 * unreadable or the output not written (nothing left behind); 2 a bad
 * command line, or an output that would overwrite the .mco.  Errors are
 * printed to stderr. */
int mco_command_main(const mco_command *cmd, void *ctx, int argc, char **argv);

#endif
