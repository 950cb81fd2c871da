#include "error.h"

#include <stdarg.h>
#include <string.h>

/* Control bytes from a file or a command line (an escape sequence in a
 * token, say) must not reach the terminal: each becomes '?'.  Newlines and
 * tabs stay (compiler logs are several lines). */
static void scrub(char *s)
{
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
            *s = '?';
}

void error_set(tm_error *err, const char *file, int line, const char *fmt, ...)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    scrub(err->file);
    scrub(err->message);
}

const char *error_format(const tm_error *err, char *buf, size_t size)
{
    if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->message);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, err->message);
    else
        snprintf(buf, size, "%s", err->message);
    return buf;
}

void error_print(FILE *stream, const tm_error *err)
{
    char buf[sizeof err->file + sizeof err->message + 32];
    fprintf(stream, "tmcml: %s\n", error_format(err, buf, sizeof buf));
}
