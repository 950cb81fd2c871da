/* The C locale for the calling thread (base/c_locale.h). */
#include "c_locale.h"

#include <pthread.h>

static locale_t c_locale_object;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

/* Made once and kept for the life of the process: freeing it could pull it
 * from under a thread still using it. */
static void c_locale_make(void) { c_locale_object = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

locale_t c_locale_enter(void)
{
    pthread_once(&c_locale_once, c_locale_make);
    return c_locale_object ? uselocale(c_locale_object) : (locale_t)0;
}

void c_locale_leave(locale_t previous)
{
    if (previous)
        uselocale(previous);
}
