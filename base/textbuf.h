/* A growing text buffer for printf-style pieces of any total length (a
 * kernel spec key with 64 immediate layers, a checkpoint's input text).
 * ok turns false, for good, when memory runs out; textbuf_take then gives
 * NULL. */
#ifndef TMCML_TEXTBUF_H
#define TMCML_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct textbuf {
    char *s;
    size_t len, cap;
    bool ok;
} textbuf;

#define TEXTBUF_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0, true                                                                           \
    }

__attribute__((format(printf, 2, 3))) void textbuf_add(textbuf *t, const char *fmt, ...);

/* x exactly, without noise digits: "0.01" rather than
 * "0.010000000000000000" (%.17g only when fewer digits do not read back as
 * x; NaN and infinities as printf writes them). */
void textbuf_add_double(textbuf *t, double x);

/* The text (malloc'd, "" when nothing was added), or NULL when memory ran
 * out; the buffer is empty afterwards. */
char *textbuf_take(textbuf *t);

#endif
