/* Text from files and command lines on its way to a terminal.  A profile's
 * device name, an output name from a .mci or a file name may hold escape
 * sequences that, printed raw, retitle the terminal, move the cursor or
 * rewrite lines already shown (a shared profile could spoof what tmcml
 * says).  So everything tmcml prints that may carry such text passes through
 * text_escape: error messages (error_set), and the commands' reports through
 * text_printf. */
#ifndef TMCML_TEXT_ESCAPE_H
#define TMCML_TEXT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Copies s into buf (size > 0) with each control character shown as \xNN:
 * the bytes below 0x20 (but '\n' and '\t' when keep_lines), DEL (0x7f), the
 * C1 controls U+0080..U+009F (\xc2\x9b: terminals obey CSI there too) and
 * every byte that is not part of valid UTF-8 (a lone 0x9b is CSI to an
 * 8-bit terminal).  Valid UTF-8 other than these is kept as it is.  The
 * result is cut at a character boundary when buf is too small.  Returns
 * buf. */
char *text_escape(const char *s, bool keep_lines, char *buf, size_t size);

/* The bytes text_escape needs for s, the NUL included. */
size_t text_escape_size(const char *s, bool keep_lines);

/* fprintf, with the whole formatted text passed through text_escape (lines
 * and tabs kept): the printer of reports that show names from files.
 * Returns what fputs returns (EOF on an error, or when out of memory). */
int text_printf(FILE *stream, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
