/* One small error type: where the problem was found (file and line, when
 * known) and what is wrong.  Filled where the problem is found, printed once,
 * at the top (main).  Functions return false/NULL and leave the caller in
 * charge of the message. */
#ifndef TMCML_ERROR_H
#define TMCML_ERROR_H

#include <stdio.h>

typedef struct tm_error {
    char file[512]; /* "" when the error is not about a file */
    int line;       /* 0 when not about a line */
    char message[1024];
} tm_error;

/* Sets *err (when err is not NULL).  file may be NULL, line may be 0. */
void error_set(tm_error *err, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "file:line: message", "file: message" or "message". */
const char *error_format(const tm_error *err, char *buf, size_t size);

/* Prints "tmcml: <error_format>" and a newline to stream. */
void error_print(FILE *stream, const tm_error *err);

#endif
