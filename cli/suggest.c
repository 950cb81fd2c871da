/* "Did you mean" (cli/suggest.h): optimal string alignment distance,
 * which counts a swap of neighbouring letters ("--seeed", "--tiel") as one
 * edit. */
#include "suggest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 64

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

static int edits(const char *a, const char *b)
{
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > MAX_WORD || m > MAX_WORD)
        return MAX_WORD;
    static _Thread_local int d[MAX_WORD + 1][MAX_WORD + 1];
    for (int i = 0; i <= n; i++)
        d[i][0] = i;
    for (int j = 0; j <= m; j++)
        d[0][j] = j;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[n][m];
}

const char *suggest_nearest(const char *word, const char *const *words, int n)
{
    const char *best = NULL;
    int best_edits = 3;
    bool best_extends = false;
    for (int i = 0; i < n; i++) {
        int e = edits(word, words[i]);
        /* between equals, one the word begins ("tun" is "tune", not "run"),
         * else one of its length ("--nzp" is "--npz", a swap, not "--nz") */
        bool extends = strncmp(words[i], word, strlen(word)) == 0;
        bool same_length = strlen(words[i]) == strlen(word);
        bool better =
            e < best_edits || (best && e == best_edits && !best_extends &&
                               (extends || (same_length && strlen(best) != strlen(word))));
        if (better) {
            best = words[i];
            best_edits = e;
            best_extends = extends;
        }
    }
    /* fewer edits than letters: "rn" is "run", but "ab" is not "gen" */
    size_t letters = strlen(word) - strspn(word, "-");
    return best && (size_t)best_edits < letters ? best : NULL;
}

static bool listed(const char **options, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(options[i]) == len && strncmp(options[i], name, len) == 0)
            return true;
    return false;
}

int suggest_usage_options(void (*print_usage)(FILE *), char **storage, const char ***options)
{
    size_t size = 0;
    FILE *f = open_memstream(storage, &size);
    *options = NULL;
    if (!f)
        return -1;
    print_usage(f);
    if (fclose(f) != 0)
        return -1;
    const char **list = malloc((size / 3 + 1) * sizeof *list);
    if (!list) {
        free(*storage);
        *storage = NULL;
        return -1;
    }
    int n = 0;
    char *text = *storage;
    for (char *p = text; (p = strstr(p, "--")) != NULL;) {
        /* an option begins a word: "--name", its end at the first letter
         * that is not a letter, digit or '-' */
        bool starts_word = p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '[' ||
                           p[-1] == '(' || p[-1] == '|' || p[-1] == '\0';
        size_t len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        char *end = p + len;
        if (!starts_word || len <= 3 || listed(list, n, p, len)) {
            p = end;
            continue;
        }
        list[n++] = p;
        bool last = *end == '\0';
        *end = '\0'; /* what ended it is a blank or punctuation: not needed */
        if (last)
            break;
        p = end + 1;
    }
    *options = list;
    return n;
}
