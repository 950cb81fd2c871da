/* Text files that users write (user_text.h). */
#include "user_text.h"

#include <stdlib.h>
#include <string.h>

#include "fs.h"

#define UTF8_BOM     "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3

const char *user_text_skip_bom(const char *text)
{
    return strncmp(text, UTF8_BOM, UTF8_BOM_LEN) == 0 ? text + UTF8_BOM_LEN : text;
}

/* A byte-order mark of UTF-16 (either order) at the start. */
static bool utf16_mark(const char *text, size_t size)
{
    const unsigned char *b = (const unsigned char *)text;
    return size >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF));
}

bool user_text_check(const char *path, const char *text, size_t size, tm_error *err)
{
    const char *nul = memchr(text, '\0', size);
    if (!nul)
        return true;
    int line = 1;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    error_set(err, path, line,
              "the file contains a NUL byte: not a text file%s (save the file as UTF-8 or ASCII)",
              utf16_mark(text, size) ? " but UTF-16" : ", or UTF-16 text");
    return false;
}

char *user_text_read(const char *path, size_t max, bool regular_only, size_t *size, tm_error *err)
{
    size_t len = 0;
    char *text = fs_read_file(path, max, regular_only, &len, err);
    if (!text)
        return NULL;
    if (!user_text_check(path, text, len, err)) {
        free(text);
        return NULL;
    }
    size_t skip = (size_t)(user_text_skip_bom(text) - text);
    memmove(text, text + skip, len - skip + 1);
    if (size)
        *size = len - skip;
    return text;
}
