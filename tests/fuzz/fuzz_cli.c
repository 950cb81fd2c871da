/* libFuzzer harness of the command line (cli/option_table.c, cli/cli.c):
 * the input's lines are the words after "tmcml".
 *
 * Each word that begins with '-' is read by the option tables of `run` and
 * of `lut` (option_table_read), and what a read reports must be what its
 * words say: 0 leaves the word unread; 1 names a row whose spelling begins
 * the word, consumes the next word only for a row with a value given as
 * "--name VALUE" or "-X VALUE", gives a value exactly for a row that takes
 * one (the rest of the word after "--name=" or "-X", or the next word), and
 * the same value read from the two words "--name" "VALUE" again; -1 comes
 * with a message naming the row.  Then the whole line goes through
 * cli_parse, which must end with a command or a message, and the help of
 * both tables prints. */
#include "cli.h"
#include "fuzz_util.h"
#include "lut_option_table.h"
#include "run_option_table.h"

#define MAX_WORDS 32

/* The input's lines as words, each its own NUL-terminated copy (a NUL
 * byte ends a word early, as it would in argv). */
static int split_words(const uint8_t *data, size_t size, char **words)
{
    int n = 0;
    size_t start = 0;
    for (size_t k = 0; k <= size && n < MAX_WORDS; k++) {
        if (k < size && data[k] != '\n')
            continue;
        size_t len = k - start;
        words[n] = malloc(len + 1);
        FUZZ_CHECK(words[n] != NULL, "out of memory");
        memcpy(words[n], data + start, len);
        words[n][len] = '\0';
        n++;
        start = k + 1;
    }
    return n;
}

static bool begins(const char *word, const char *spelling)
{
    return spelling && strncmp(word, spelling, strlen(spelling)) == 0;
}

/* The value a word gives its row within itself ("--name=V", "-XV"), or
 * NULL when the word is the spelling alone. */
static const char *inline_value(const cli_option *row, const char *word)
{
    const char *s = begins(word, row->name) ? row->name : row->alias;
    size_t n = strlen(s);
    if (word[n] == '\0')
        return NULL;
    return word[n] == '=' && s[1] == '-' ? word + n + 1 : word + n;
}

/* The row read again from the two words "--name" "VALUE". */
static void check_split(const cli_option_table *t, const option_read *o)
{
    char *argv[] = {"tmcml", (char *)o->row->name, (char *)o->value, NULL};
    int i = 1;
    option_read again;
    tm_error err = {0};
    int got = option_table_read(t, 3, argv, &i, &again, &err);
    bool empty_refused = !*o->value && !(o->row->flags & OPTION_EMPTY_OK);
    FUZZ_CHECK(got == (empty_refused ? -1 : 1) && (got < 0 || (again.row == o->row && i == 2 &&
                                                               strcmp(again.value, o->value) == 0)),
               "%s \"%s\" read as two words: %d", o->row->name, o->value, got);
}

/* One read of words[i] by table t, checked against the words. */
static void check_read(const cli_option_table *t, int argc, char **argv, int i)
{
    option_read o = {0};
    tm_error err = {0};
    int at = i;
    int got = option_table_read(t, argc, argv, &at, &o, &err);
    const char *word = argv[i];
    if (got == 0) {
        FUZZ_CHECK(at == i, "an unread word moved the index");
        return;
    }
    if (got < 0) {
        FUZZ_CHECK(err.message[0] != '\0', "\"%s\" refused without a message", word);
        return;
    }
    const cli_option *row = o.row;
    FUZZ_CHECK(begins(word, row->name) || begins(word, row->alias), "\"%s\" read as %s", word,
               row->name);
    const char *attached = inline_value(row, word);
    FUZZ_CHECK((o.value != NULL) == (row->argument != NULL), "%s: a value %s", row->name,
               o.value ? "for a flag" : "missing");
    if (!row->argument) {
        FUZZ_CHECK(at == i && !attached, "flag %s from \"%s\" took a value", row->name, word);
        return;
    }
    bool next = attached == NULL;
    FUZZ_CHECK(at == i + (next ? 1 : 0), "%s: index %d from %d", row->name, at, i);
    FUZZ_CHECK(o.value == (next ? argv[i + 1] : attached), "%s: the value is not its words'",
               row->name);
    check_split(t, &o);
}

static void print_usage_to_null(void)
{
    FILE *null = fopen("/dev/null", "w");
    FUZZ_CHECK(null != NULL, "/dev/null: cannot open");
    cli_print_usage(null);
    option_table_usage(&lut_options, 0, null);
    fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *words[MAX_WORDS];
    int n = split_words(data, size, words);
    char *argv[MAX_WORDS + 2] = {"tmcml"};
    for (int k = 0; k < n; k++)
        argv[k + 1] = words[k];
    argv[n + 1] = NULL;
    for (int i = 1; i <= n; i++)
        if (argv[i][0] == '-') {
            check_read(&run_options, n + 1, argv, i);
            check_read(&lut_options, n + 1, argv, i);
        }
    cli_options opt;
    tm_error err = {0};
    bool ok = cli_parse(n + 1, argv, &opt, &err);
    FUZZ_CHECK(ok || err.message[0] != '\0', "cli_parse refused without a message");
    if (size == 0)
        print_usage_to_null();
    for (int k = 0; k < n; k++)
        free(words[k]);
    return 0;
}
