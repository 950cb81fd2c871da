/* "Did you mean": the word of a list nearest a misspelt one. */
#ifndef TMCML_SUGGEST_H
#define TMCML_SUGGEST_H

/* The word of words[0 .. n-1] fewest single-letter edits (insertions,
 * deletions, substitutions, swaps of neighbours) away from word, if close
 * enough to be what was meant (at most 2 edits, and fewer than its letters
 * after any leading '-'); NULL otherwise. */
const char *suggest_nearest(const char *word, const char *const *words, int n);

#endif
