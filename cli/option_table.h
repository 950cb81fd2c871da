/* A command's options as one table: each row names an option, its other
 * spelling, the value it takes and its help, so that the parser, the usage
 * text (and the manual page made from it: packaging/man.cmake), "did you
 * mean" and the rule that an option is given once (unless its row says it
 * repeats) all read the same rows and cannot drift apart (issue 47: --source was parsed but missing from
 * the help, and only some options took the "--name=value" form).
 *
 * Every valued option takes its value as "--name VALUE" or "--name=VALUE",
 * and by its short form as "-X VALUE" or "-XVALUE". */
#ifndef TMCML_OPTION_TABLE_H
#define TMCML_OPTION_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

enum {
    OPTION_HIDDEN = 1u << 0,   /* test-only: parsed, left out of the usage */
    OPTION_EMPTY_OK = 1u << 1, /* its value may be "" (--cache "": no cache) */
    OPTION_GPU = 1u << 2,      /* the GPU engine's: a CPU run does nothing with it */
    OPTION_CPU = 1u << 3,      /* the CPU engine's: a GPU run does nothing with it */
    /* Each time given it adds one more (--detector: a detector each), its
     * apply refusing past its limit; the usage says "(repeatable)".  An
     * option without it is given once (option_once.h). */
    OPTION_REPEATABLE = 1u << 4,
};

typedef struct cli_option {
    const char *name;     /* "--seed"; "-A" for an option with no long form */
    const char *alias;    /* the short form, "-S"; NULL if none */
    const char *argument; /* the value's name in the usage, "SEED"; NULL: a flag */
    const char *help;     /* the usage's text, '\n' between its lines */
    int id;               /* the command's own number for it, for its switch */
    int section;          /* the usage's part that lists it */
    unsigned commands;    /* the commands (bits of the table owner's numbering) that
                             take it; 0: every command of the table */
    unsigned flags;       /* OPTION_* */
} cli_option;

typedef struct cli_option_table {
    const char *prefix; /* of the messages: "lut: " ("" for run's) */
    const cli_option *rows;
    int count;
} cli_option_table;

/* What one option's words gave. */
typedef struct option_read {
    const cli_option *row;
    const char *value; /* NULL for a flag */
} option_read;

/* The row that argv[*i] names, its value read (the next word, or after
 * '=', or attached to a short form): 1 with *i on the option's last word,
 * 0 when no row names it (*i unchanged), -1 when its value is missing or a
 * flag is given one (*err names the option). */
int option_table_read(const cli_option_table *t, int argc, char **argv, int *i, option_read *got,
                      tm_error *err);

/* The rows of one section of the usage, as lines "  -S, --seed SEED
 * help", the help at column 24 (on the next line when the left side is
 * too wide), a repeatable option's ending "(repeatable)". */
void option_table_usage(const cli_option_table *t, int section, FILE *out);

/* "unknown option" for word, with the nearest of the table's options (and
 * of more[0 .. more_count), options kept in another table: the kernel
 * variant's knobs) when one is near ("did you mean --source?"); help names
 * the usage ("tmcml lut --help"). */
void option_table_unknown(const cli_option_table *t, const char *const *more, int more_count,
                          const char *word, const char *help, tm_error *err);

#endif
