/* "Did you mean": the word of a list nearest a misspelt one. */
#ifndef TMCML_SUGGEST_H
#define TMCML_SUGGEST_H

#include <stdio.h>

/* The word of words[0 .. n-1] fewest single-letter edits (insertions,
 * deletions, substitutions, swaps of neighbours) away from word, if close
 * enough to be what was meant (at most 2 edits, and fewer than its letters
 * after any leading '-'); NULL otherwise. */
const char *suggest_nearest(const char *word, const char *const *words, int n);

/* The long options ("--name") a usage text names, each once, in order, as
 * pointers into *storage (malloc'd; the caller frees it and the array).
 * The usage text is the one list of options, so suggestions never offer an
 * option that does not exist.  Returns the count, -1 when out of memory. */
int suggest_usage_options(void (*print_usage)(FILE *), char **storage, const char ***options);

#endif
