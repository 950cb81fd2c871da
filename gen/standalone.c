/* The generated source with its headers inlined (gen/standalone.h). */
#include "standalone.h"

#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

/* The header a line includes by a quoted name, or -1: the line (up to its
 * newline, len bytes) is #include "NAME" with optional blanks around the #. */
static int included_header(const render_output *src, const char *line, size_t len)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '#')
        return -1;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < 8 || strncmp(p, "include", 7) != 0)
        return -1;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '"')
        return -1;
    const char *name = p;
    while (p < end && *p != '"')
        p++;
    if (p == end)
        return -1;
    size_t n = (size_t)(p - name);
    for (size_t h = 0; h < src->num_headers; h++)
        if (strlen(src->headers[h].name) == n && strncmp(src->headers[h].name, name, n) == 0)
            return (int)h;
    return -1;
}

/* text into out, line by line, each included header inlined the first time
 * (inlined[h] then true; the headers are finitely many, so this ends). */
static void inline_text(textbuf *out, const render_output *src, const char *text, bool *inlined)
{
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        int h = included_header(src, line, len);
        if (h < 0) {
            textbuf_add(out, "%.*s%s", (int)len, line, nl ? "\n" : "");
        } else if (!inlined[h]) {
            inlined[h] = true;
            const render_header *hd = &src->headers[h];
            textbuf_add(out, "// ---- %s, inlined by tmcml gen (NVRTC gets it by name) ----\n",
                        hd->name);
            inline_text(out, src, hd->text, inlined);
            size_t n = strlen(hd->text);
            textbuf_add(out, "%s// ---- end of %s ----\n", n && hd->text[n - 1] != '\n' ? "\n" : "",
                        hd->name);
        }
        line += len + (nl ? 1 : 0);
    }
}

char *standalone_source(const render_output *src)
{
    bool *inlined = calloc(src->num_headers + 1, sizeof *inlined);
    if (!inlined)
        return NULL;
    textbuf out = TEXTBUF_INIT;
    inline_text(&out, src, src->source, inlined);
    free(inlined);
    return textbuf_take(&out);
}
