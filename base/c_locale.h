/* Numbers in tmcml's files are always written and read as C writes them
 * ('.' before the decimals), whatever locale the program that loads
 * libtmcml chose: a Python program that calls locale.setlocale(LC_ALL, "")
 * on a German system otherwise got ".mco" files with "0,01", invalid JSON
 * and generated CUDA with "1,909f", and its valid ".mci" files refused.
 * The library never calls setlocale (that is the host's, for every thread);
 * it switches the calling thread alone to a C locale object (uselocale) for
 * as long as it works, and back. */
#ifndef TMCML_C_LOCALE_H
#define TMCML_C_LOCALE_H

#include <locale.h>

/* Makes the calling thread use the C locale; returns the locale it used
 * before, for c_locale_leave.  Calls nest.  Thread-safe; the C locale
 * object is made once per process.  Should it not be made (out of memory),
 * nothing changes and (locale_t)0 is returned. */
locale_t c_locale_enter(void);

/* Gives the calling thread back the locale c_locale_enter returned. */
void c_locale_leave(locale_t previous);

#endif
