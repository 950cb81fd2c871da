/* The frame of the commands that read one .mco and write one file from it
 * (`tmcml plot`, `tmcml conv`): the command line (the .mco and the
 * options of the command's table, each given once: -h, -o FILE and the
 * command's own), the output's name (given,
 * else beside the .mco), its checks before the .mco is read (not the .mco
 * itself, creatable), the messages and the exit status.  Each command
 * gives its usage, its options and the writing. */
#ifndef TMCML_MCO_COMMAND_H
#define TMCML_MCO_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "option_table.h"

/* The ids of the frame's own rows, which every command's table lists
 * (with its own words for the output): -o/--output and -h/--help. */
enum { MCO_OPTION_OUTPUT = -1, MCO_OPTION_HELP = -2 };

typedef struct mco_command {
    const char *name; /* "plot": the messages' first word, "tmcml plot --help" */
    void (*print_usage)(FILE *s);
    const char *suffix;    /* the output's default: the .mco's sibling of this suffix */
    const char *overwrite; /* why the output may not be the .mco ("the figure would ...") */
    const cli_option_table *options; /* the command's, the frame's rows among them */
    /* Sets the command's own option read (ctx: its options); false with
     * err on a bad value.  NULL: it has none beside the frame's. */
    bool (*apply)(const option_read *o, void *ctx, tm_error *err);
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
