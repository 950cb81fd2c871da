/* Growing text buffers (base/textbuf.h). */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textbuf_add(textbuf *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (!t->ok || n < 0) {
        t->ok = false;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = 2 * (t->len + (size_t)n + 1);
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->ok = false;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* %.15g or %.16g when that reads back as x, else %.17g: fewer than 15
 * digits would turn 10 into "1e+01". */
void textbuf_add_double(textbuf *t, double x)
{
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        if (strtod(text, NULL) == x)
            break;
    }
    textbuf_add(t, "%s", text);
}

char *textbuf_take(textbuf *t)
{
    char *s = t->ok ? t->s : NULL;
    if (!t->ok)
        free(t->s);
    else if (!s)
        s = calloc(1, 1);
    *t = (textbuf)TEXTBUF_INIT;
    return s;
}
