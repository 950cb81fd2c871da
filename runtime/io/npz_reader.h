/* Reading float64 arrays back from an .npz: what tmcml writes
 * (runtime/io/npz.c: a zip of stored .npy members, ZIP64 records only where
 * a size or an offset needs them, each .npy of format version 1.0), and
 * numpy.savez's archives of the same kind.  `tmcml plot` reads a run's
 * standard errors (the NAME_stderr members of `tmcml run --stderr`) so.
 *
 * The file is distrusted: every offset, size, count and length it gives is
 * checked against the file's own length and the records around it before
 * it is used.  A damaged or hostile file is refused with a message naming
 * the file and what is wrong; it is never read past its end and never
 * makes the reader ask for more memory than the caller's array.  Members
 * are found through the central directory and read with the CRC-32 it
 * records checked. */
#ifndef TMCML_NPZ_READER_H
#define TMCML_NPZ_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "npz.h"

typedef enum npz_found {
    NPZ_BAD = -1,   /* refused: *err names the file and says why */
    NPZ_ABSENT = 0, /* no file at the path, or no member of the name */
    NPZ_FOUND = 1
} npz_found;

/* An open archive and where its central directory lies. */
typedef struct npz_reader {
    FILE *f;
    const char *path;               /* the caller's, named by the errors */
    uint64_t size;                  /* bytes of the file */
    uint64_t dir_offset, dir_bytes; /* the central directory */
    uint64_t entries;               /* its records */
} npz_reader;

/* Opens the regular file path and finds its central directory.
 * NPZ_FOUND: open (npz_close it); NPZ_ABSENT: nothing at path; NPZ_BAD:
 * *err.  Only NPZ_FOUND leaves anything to close. */
npz_found npz_open(npz_reader *r, const char *path, tm_error *err);
void npz_close(npz_reader *r);

/* A member found: its bytes in the file and what its .npy header says. */
typedef struct npz_member {
    uint64_t offset, size; /* the .npy's bytes: header, then values */
    uint32_t crc;          /* their CRC-32, as the central directory records it */
    uint64_t header_bytes; /* the magic, the version, the length and the dict */
    char descr[16];        /* the dtype: "<f8" is float64, little-endian */
    bool fortran_order;
    int rank;
    uint64_t dims[NPZ_MAX_RANK];
    uint64_t count; /* the dims multiplied (1 for rank 0) */
} npz_member;

/* The member name.npy (name without ".npy", e.g. "Rd_r_stderr"), its
 * header read and checked: NPZ_FOUND with *m, NPZ_ABSENT, or NPZ_BAD. */
npz_found npz_find(npz_reader *r, const char *name, npz_member *m, tm_error *err);

/* The values of name.npy, which must be float64 ('<f8') in C order of
 * exactly the shape dims[0 .. rank) (rank <= NPZ_MAX_RANK), into values
 * (the dims multiplied of them): NPZ_FOUND, NPZ_ABSENT (values untouched)
 * or NPZ_BAD (values undefined). */
npz_found npz_read_float64(npz_reader *r, const char *name, int rank, const uint64_t *dims,
                           double *values, tm_error *err);

#endif
