/* "Did you mean" (cli/suggest.h): optimal string alignment distance,
 * which counts a swap of neighbouring letters ("--seeed", "--tiel") as one
 * edit. */
#include "suggest.h"

#include <stdbool.h>
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
