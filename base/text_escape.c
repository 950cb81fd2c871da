#include "text_escape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when p does not
 * start one (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF). */
static size_t utf8_length(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* How many bytes at p are shown as they are (0: escape the first byte). */
static size_t text_kept(const unsigned char *p, bool keep_lines)
{
    if (*p < 0x20)
        return keep_lines && (*p == '\n' || *p == '\t') ? 1 : 0;
    if (*p == 0x7f)
        return 0;
    size_t n = utf8_length(p);
    if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) /* U+0080..U+009F: C1 controls */
        return 0;
    return n;
}

/* Walks s: the escaped text into buf when buf is not NULL (cut to size), and
 * the full length it needs either way. */
static size_t text_walk(const char *s, bool keep_lines, char *buf, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t need = 0, len = 0;
    while (*p) {
        size_t n = text_kept(p, keep_lines);
        char esc[4] = {'\\', 'x', digits[*p >> 4], digits[*p & 15]};
        const char *out = n ? (const char *)p : esc;
        size_t out_len = n ? n : 4;
        if (buf && len == need && len + out_len < size) {
            memcpy(buf + len, out, out_len);
            len += out_len;
        }
        need += out_len;
        p += n ? n : 1;
    }
    if (buf)
        buf[len] = '\0';
    return need + 1;
}

char *text_escape(const char *s, bool keep_lines, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    text_walk(s ? s : "", keep_lines, buf, size);
    return buf;
}

size_t text_escape_size(const char *s, bool keep_lines)
{
    return text_walk(s ? s : "", keep_lines, NULL, 0);
}

int text_printf(FILE *stream, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *raw = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!raw)
        return EOF;
    va_start(ap, fmt);
    vsnprintf(raw, (size_t)n + 1, fmt, ap);
    va_end(ap);
    size_t size = text_escape_size(raw, true);
    char *shown = malloc(size);
    int rc = shown ? fputs(text_escape(raw, true, shown, size), stream) : EOF;
    free(shown);
    free(raw);
    return rc;
}
