/* Numbers as MCML's .mco prints its arrays ("%12.4E"), without printf.
 *
 * An .mco of a 100 x 100 grid holds 3 * 10^4 such numbers, and printf's
 * exact decimal conversion (~110 ns a number) was most of the time a batch
 * of small runs spent writing its outputs.  The text is printf's byte for
 * byte: number_e12_4 falls back to snprintf wherever its fast path could
 * round differently (runtime/io/number_text.c says why it is exact). */
#ifndef TMCML_NUMBER_TEXT_H
#define TMCML_NUMBER_TEXT_H

#include <stddef.h>

/* Room for one number's text and its NUL ("%12.4E" of any double fits). */
#define NUMBER_TEXT_SIZE 32

/* Writes snprintf(out, NUMBER_TEXT_SIZE, "%12.4E", v)'s text into out and
 * returns its length. */
int number_e12_4(double v, char out[NUMBER_TEXT_SIZE]);

/* How many calls took snprintf's path so far in this process (a test's
 * check that the fast path is the one taken). */
unsigned long number_e12_4_fallbacks(void);

#endif
