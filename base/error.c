#include "error.h"
#include "text_escape.h"

#include <stdarg.h>
#include <string.h>

void error_set(tm_error *err, const char *file, int line, const char *fmt, ...)
{
    if (!err)
        return;
    /* Names from files and command lines (an escape sequence in a token,
     * say) must not reach the terminal raw: control characters are shown
     * as \xNN.  Newlines and tabs stay (compiler logs are several lines). */
    char raw[sizeof err->message], where[sizeof err->file];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    text_escape(file ? file : "", false, where, sizeof where); /* file may be err->file */
    memcpy(err->file, where, sizeof where);
    err->line = line;
    text_escape(raw, true, err->message, sizeof err->message);
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
