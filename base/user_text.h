/* Text files that users write (.mci, --mua-sets CSV, .mco read back): one
 * rule for every reader, so that a file saved by a spreadsheet or an editor
 * reads alike everywhere.
 *
 * - A UTF-8 byte-order mark at the start (Excel's "CSV UTF-8" writes one)
 *   is skipped: it is no character of the text, only a note of its encoding.
 * - A NUL byte anywhere is refused at its line: no text file holds one, and a
 *   C string would end there, silently dropping the rest of the file.  A
 *   UTF-16 file (Windows' "Unicode" text) is ASCII with a NUL after every
 *   character, so the message says how to save it instead. */
#ifndef TMCML_USER_TEXT_H
#define TMCML_USER_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* text past its UTF-8 byte-order mark, or text itself when it has none. */
const char *user_text_skip_bom(const char *text);

/* False, with *err "path:LINE: the file contains a NUL byte ...", when the
 * size bytes of text hold one. */
bool user_text_check(const char *path, const char *text, size_t size, tm_error *err);

/* Reads path as fs_read_file does (at most max bytes; regular_only), then
 * checks it (user_text_check) and drops its byte-order mark: the text
 * returned (malloc'd, NUL-terminated, *size its length when size is not
 * NULL) starts with the first character.  NULL with *err otherwise. */
char *user_text_read(const char *path, size_t max, bool regular_only, size_t *size, tm_error *err);

#endif
