/* A zip archive of stored (uncompressed) members, written front to back to
 * a stream: what NumPy's .npz is (runtime/io/npz.c).  PKWARE's APPNOTE:
 * each member is a local header, its name and its bytes; the central
 * directory lists them at the end.  ZIP64 records are written only where a
 * size, an offset or the member count does not fit the classic fields, so
 * a small archive is a plain zip every reader takes.  The members carry a
 * fixed time stamp (1980-01-01 00:00, DOS time's first day): equal contents
 * give equal archives. */
#ifndef TMCML_ZIP_H
#define TMCML_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The records' signatures and the escapes of the classic fields (PKWARE's
 * APPNOTE 4.3): the writer's (zip.c) and the reader's (npz_reader.c). */
#define ZIP_LOCAL_SIG     0x04034b50u
#define ZIP_CENTRAL_SIG   0x02014b50u
#define ZIP_END_SIG       0x06054b50u
#define ZIP64_END_SIG     0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP64_EXTRA_ID    0x0001
#define ZIP_CLASSIC_MAX   0xffffffffu /* a classic 32-bit field's escape: the value is ZIP64's */
#define ZIP_COUNT_MAX     0xffffu     /* the classic member count's */

/* One piece of a member's bytes: a member is the concatenation of its
 * pieces (an .npy's header, then its array). */
typedef struct zip_piece {
    const void *data;
    size_t size;
} zip_piece;

typedef struct zip_entry zip_entry; /* private: a member for the directory */

typedef struct zip_writer {
    FILE *stream;
    uint64_t offset; /* bytes written */
    /* Sizes and offsets at or above this are written as ZIP64 fields:
     * 0xffffffff (the classic fields' escape value); tests lower it. */
    uint64_t zip64_at;
    zip_entry *entries;
    size_t count, cap;
    bool ok;        /* false once a write failed (ferror) or memory ran out */
    bool no_memory; /* why ok is false, when it was memory */
} zip_writer;

void zip_begin(zip_writer *z, FILE *stream);

/* Appends the member name (ASCII, '/' between folders) with the bytes of
 * its pieces; false once anything has failed. */
bool zip_add(zip_writer *z, const char *name, const zip_piece *pieces, int count);

/* Writes the central directory and frees the writer's memory; false when
 * this or an earlier write failed (the stream's ferror, or no_memory). */
bool zip_end(zip_writer *z);

#endif
