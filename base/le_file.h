/* Binary files of little-endian numbers and length-prefixed texts, with an
 * FNV-1a 64 checksum of every byte: the writer and the reader that tmcml's
 * checkpoints (runtime/io/checkpoint.c, driver/lut_checkpoint.c) share, each
 * file format its own fields on top.  Both stop at the first failure and
 * remember it (ok), so a format writes or reads its fields in a row and
 * looks once at the end. */
#ifndef TMCML_LE_FILE_H
#define TMCML_LE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

typedef struct le_writer {
    FILE *f;
    uint64_t sum; /* FNV-1a 64 of every byte put */
    bool ok;      /* false from the first failed write on (nothing more is put) */
} le_writer;

/* A writer at the start of f. */
le_writer le_writer_start(FILE *f);

void le_put(le_writer *w, const void *data, size_t n);
/* v as n little-endian bytes (n <= 8). */
void le_put_uint(le_writer *w, uint64_t v, int n);
void le_put_u32(le_writer *w, uint32_t v);
void le_put_u64(le_writer *w, uint64_t v);
/* A double as its IEEE 754 bits (u64): read back, the same double. */
void le_put_double(le_writer *w, double x);
/* A text as its length (u32) and its bytes, no NUL. */
void le_put_text(le_writer *w, const char *s);

typedef struct le_reader {
    FILE *f;
    const char *path; /* named by the errors */
    const char *kind; /* "tmcml checkpoint": "not a valid KIND: ..." */
    uint64_t sum;     /* FNV-1a 64 of every byte read */
    uint64_t left;    /* bytes it may still read; UINT64_MAX: to the end of f */
    bool ok;          /* false from the first failure on (err says why) */
    tm_error *err;
} le_reader;

/* A reader at the start of f, of at most left bytes (UINT64_MAX: no
 * bound). */
le_reader le_reader_start(FILE *f, const char *path, const char *kind, uint64_t left,
                          tm_error *err);

/* The file is not a valid one of its kind: "not a valid KIND: what" (the
 * first failure's message is kept). */
void le_bad(le_reader *r, const char *what);

/* n bytes into data ("truncated" when fewer are left); zeros once the
 * reader has failed, as every getter's value then is. */
void le_get(le_reader *r, void *data, size_t n);
/* n little-endian bytes (n <= 8) as a number. */
uint64_t le_get_uint(le_reader *r, int n);
uint32_t le_get_u32(le_reader *r);
uint64_t le_get_u64(le_reader *r);
double le_get_double(le_reader *r);
/* A text le_put_text wrote, malloc'd, of at most most bytes ("a text field
 * is too long") and no more than is left to read, so that a damaged length
 * asks for no more memory than that; a NUL byte inside is refused.  NULL
 * once the reader has failed. */
char *le_get_text(le_reader *r, uint64_t most);

#endif
