/* A command's options as one table (option_table.h): reading an option's
 * words, its usage lines and the "unknown option" message. */
#include "option_table.h"

#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* The usage's help column: "  -S, --seed SEED       random seed". */
#define HELP_COLUMN 24
/* The usage's width: a help line that would pass it with "(repeatable)"
 * leaves that to a line of its own. */
#define USAGE_WIDTH 80
#define REPEATABLE  "(repeatable)"

static bool is_long_form(const char *spelling) { return spelling[0] == '-' && spelling[1] == '-'; }

/* How argv[i] spells the row's option: 2 whole ("--seed", "-S"), 1 with
 * its value in the same word ("--seed=5", "-S5"; *inline_value set), 0
 * not at all. */
static int spelt(const cli_option *row, const char *spelling, const char *word,
                 const char **inline_value)
{
    if (!spelling)
        return 0;
    size_t n = strlen(spelling);
    if (strncmp(word, spelling, n) != 0)
        return 0;
    if (word[n] == '\0')
        return 2;
    if (is_long_form(spelling) && word[n] == '=') {
        *inline_value = word + n + 1;
        return 1;
    }
    /* "-S5": a short form's value attached (a flag's "-qx" is no option) */
    if (!is_long_form(spelling) && row->argument) {
        *inline_value = word + n;
        return 1;
    }
    return 0;
}

/* The row argv[i] names, the whole word before one that takes a value
 * from the same word: "--seed" is not "--seeds" and "-S5" is -S. */
static const cli_option *row_of(const cli_option_table *t, const char *word, int *how,
                                const char **inline_value)
{
    const cli_option *partial = NULL;
    const char *partial_value = NULL;
    for (int k = 0; k < t->count; k++) {
        const cli_option *row = &t->rows[k];
        const char *v = NULL;
        int s = spelt(row, row->name, word, &v);
        if (s == 0)
            s = spelt(row, row->alias, word, &v);
        if (s == 2) {
            *how = 2;
            return row;
        }
        if (s == 1 && !partial) {
            partial = row;
            partial_value = v;
        }
    }
    *how = partial ? 1 : 0;
    *inline_value = partial_value;
    return partial;
}

int option_table_read(const cli_option_table *t, int argc, char **argv, int *i, option_read *got,
                      tm_error *err)
{
    int how = 0;
    const char *inline_value = NULL;
    const cli_option *row = row_of(t, argv[*i], &how, &inline_value);
    if (!row)
        return 0;
    got->row = row;
    got->value = NULL;
    if (!row->argument) {
        if (how == 1) {
            error_set(err, NULL, 0, "%s takes no value (got \"%s\")", row->name, argv[*i]);
            return -1;
        }
        return 1;
    }
    const char *value = how == 1 ? inline_value : *i + 1 < argc ? argv[++*i] : NULL;
    if (!value || (!*value && !(row->flags & OPTION_EMPTY_OK))) {
        error_set(err, NULL, 0, "%s: expected a value (%s %s)", row->name, row->name,
                  row->argument);
        return -1;
    }
    got->value = value;
    return 1;
}

/* "(repeatable)" after a help line that ends at column `at`: on it when
 * it fits the usage's width, else on a line of its own. */
static void print_repeatable(int at, FILE *out)
{
    if (at + 1 + (int)strlen(REPEATABLE) < USAGE_WIDTH)
        fprintf(out, " %s", REPEATABLE);
    else
        fprintf(out, "\n%*s%s", HELP_COLUMN, "", REPEATABLE);
}

static void print_row(const cli_option *row, FILE *out)
{
    char left[96];
    snprintf(left, sizeof left, "%s%s%s%s%s", row->alias ? row->alias : "", row->alias ? ", " : "",
             row->name, row->argument ? " " : "", row->argument ? row->argument : "");
    int width = HELP_COLUMN - 2;
    bool fits = (int)strlen(left) < width;
    fprintf(out, "  %s", left);
    if (!fits)
        fprintf(out, "\n%*s", HELP_COLUMN, "");
    else
        fprintf(out, "%*s", width - (int)strlen(left), "");
    for (const char *p = row->help; *p;) {
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);
        fprintf(out, "%.*s", len, p);
        if (!end && (row->flags & OPTION_REPEATABLE)) /* on the last line, or after it */
            print_repeatable(HELP_COLUMN + len, out);
        fputc('\n', out);
        if (!end)
            break;
        p = end + 1;
        fprintf(out, "%*s", HELP_COLUMN, "");
    }
}

void option_table_usage(const cli_option_table *t, int section, FILE *out)
{
    for (int k = 0; k < t->count; k++)
        if (!(t->rows[k].flags & OPTION_HIDDEN) && t->rows[k].section == section)
            print_row(&t->rows[k], out);
}

void option_table_unknown(const cli_option_table *t, const char *const *more, int more_count,
                          const char *word, const char *help, tm_error *err)
{
    const char **names = malloc((size_t)(2 * t->count + more_count + 1) * sizeof *names);
    int n = 0;
    for (int k = 0; names && k < t->count; k++) {
        if (t->rows[k].flags & OPTION_HIDDEN)
            continue;
        names[n++] = t->rows[k].name;
        if (t->rows[k].alias)
            names[n++] = t->rows[k].alias;
    }
    for (int k = 0; names && k < more_count; k++)
        names[n++] = more[k];
    const char *near = names ? suggest_nearest(word, names, n) : NULL;
    if (near)
        error_set(err, NULL, 0, "%sunknown option \"%s\": did you mean %s? (%s lists them)",
                  t->prefix, word, near, help);
    else
        error_set(err, NULL, 0, "%sunknown option \"%s\" (%s lists them)", t->prefix, word, help);
    free(names);
}
