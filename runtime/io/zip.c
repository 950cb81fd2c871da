/* Stored zip members and the central directory (runtime/io/zip.h). */
#include "zip.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* Versions needed to extract: 2.0 for stored members, 4.5 for ZIP64. */
#define ZIP_VERSION      20
#define ZIP64_VERSION    45
#define ZIP_MADE_BY_UNIX (3 << 8)                  /* the external attributes are a Unix mode */
#define ZIP_DOS_DATE     ((0 << 9) | (1 << 5) | 1) /* 1980-01-01 */
#define ZIP_MODE_0644    (UINT32_C(0100644) << 16)

struct zip_entry {
    char *name;
    uint32_t crc;
    uint64_t size, offset;
};

/* Little-endian fields into a small header buffer. */
typedef struct zip_buf {
    unsigned char b[64];
    size_t n;
} zip_buf;

static void put(zip_buf *h, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        h->b[h->n++] = (unsigned char)(v >> (8 * i));
}

static void zip_write(zip_writer *z, const void *data, size_t size)
{
    if (z->ok && size > 0 && fwrite(data, 1, size, z->stream) != size)
        z->ok = false;
    z->offset += size;
}

void zip_begin(zip_writer *z, FILE *stream)
{
    memset(z, 0, sizeof *z);
    z->stream = stream;
    z->zip64_at = ZIP_CLASSIC_MAX;
    z->ok = true;
}

static bool zip_remember(zip_writer *z, const char *name, uint32_t crc, uint64_t size)
{
    if (z->count == z->cap) {
        size_t cap = z->cap ? 2 * z->cap : 16;
        zip_entry *e = realloc(z->entries, cap * sizeof *e);
        if (!e)
            return false;
        z->entries = e;
        z->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return false;
    z->entries[z->count++] = (zip_entry){copy, crc, size, z->offset};
    return true;
}

/* A 32-bit field that may be escaped to ZIP64. */
static uint64_t classic(const zip_writer *z, uint64_t v)
{
    return v >= z->zip64_at ? ZIP_CLASSIC_MAX : v;
}

bool zip_add(zip_writer *z, const char *name, const zip_piece *pieces, int count)
{
    uint32_t crc = 0;
    uint64_t size = 0;
    for (int i = 0; i < count; i++) {
        crc = hash_crc32(crc, pieces[i].data, pieces[i].size);
        size += pieces[i].size;
    }
    if (z->ok && !zip_remember(z, name, crc, size)) {
        z->no_memory = true;
        z->ok = false;
    }
    if (!z->ok)
        return false;
    bool big = size >= z->zip64_at; /* the local header has both sizes in ZIP64 or neither */
    size_t name_len = strlen(name);
    zip_buf h = {.n = 0};
    put(&h, ZIP_LOCAL_SIG, 4);
    put(&h, big ? ZIP64_VERSION : ZIP_VERSION, 2);
    put(&h, 0, 2); /* flags */
    put(&h, 0, 2); /* stored */
    put(&h, 0, 2); /* time 00:00 */
    put(&h, ZIP_DOS_DATE, 2);
    put(&h, crc, 4);
    put(&h, classic(z, size), 4);
    put(&h, classic(z, size), 4);
    put(&h, name_len, 2);
    put(&h, big ? 20 : 0, 2);
    zip_write(z, h.b, h.n);
    zip_write(z, name, name_len);
    if (big) {
        h.n = 0;
        put(&h, ZIP64_EXTRA_ID, 2);
        put(&h, 16, 2);
        put(&h, size, 8);
        put(&h, size, 8);
        zip_write(z, h.b, h.n);
    }
    for (int i = 0; i < count; i++)
        zip_write(z, pieces[i].data, pieces[i].size);
    return z->ok;
}

/* One member's central directory record, with a ZIP64 extra field of the
 * escaped values in APPNOTE's order (sizes, then the offset). */
static void zip_central(zip_writer *z, const zip_entry *e)
{
    bool big_size = e->size >= z->zip64_at, big_offset = e->offset >= z->zip64_at;
    int extra = 16 * big_size + 8 * big_offset;
    size_t name_len = strlen(e->name);
    zip_buf h = {.n = 0};
    put(&h, ZIP_CENTRAL_SIG, 4);
    put(&h, ZIP_MADE_BY_UNIX | (extra ? ZIP64_VERSION : ZIP_VERSION), 2);
    put(&h, extra ? ZIP64_VERSION : ZIP_VERSION, 2);
    put(&h, 0, 2); /* flags */
    put(&h, 0, 2); /* stored */
    put(&h, 0, 2);
    put(&h, ZIP_DOS_DATE, 2);
    put(&h, e->crc, 4);
    put(&h, classic(z, e->size), 4);
    put(&h, classic(z, e->size), 4);
    put(&h, name_len, 2);
    put(&h, extra ? extra + 4 : 0, 2);
    put(&h, 0, 2); /* comment */
    put(&h, 0, 2); /* disk */
    put(&h, 0, 2); /* internal attributes */
    put(&h, ZIP_MODE_0644, 4);
    put(&h, classic(z, e->offset), 4);
    zip_write(z, h.b, h.n);
    zip_write(z, e->name, name_len);
    if (!extra)
        return;
    h.n = 0;
    put(&h, ZIP64_EXTRA_ID, 2);
    put(&h, extra, 2);
    if (big_size) {
        put(&h, e->size, 8);
        put(&h, e->size, 8);
    }
    if (big_offset)
        put(&h, e->offset, 8);
    zip_write(z, h.b, h.n);
}

/* The ZIP64 end of central directory record and its locator. */
static void zip64_end(zip_writer *z, uint64_t dir_offset, uint64_t dir_size)
{
    uint64_t at = z->offset;
    zip_buf h = {.n = 0};
    put(&h, ZIP64_END_SIG, 4);
    put(&h, 44, 8); /* the record's size after this field */
    put(&h, ZIP_MADE_BY_UNIX | ZIP64_VERSION, 2);
    put(&h, ZIP64_VERSION, 2);
    put(&h, 0, 4); /* this disk */
    put(&h, 0, 4); /* the directory's disk */
    put(&h, z->count, 8);
    put(&h, z->count, 8);
    put(&h, dir_size, 8);
    put(&h, dir_offset, 8);
    zip_write(z, h.b, h.n);
    h.n = 0;
    put(&h, ZIP64_LOCATOR_SIG, 4);
    put(&h, 0, 4);
    put(&h, at, 8);
    put(&h, 1, 4); /* disks */
    zip_write(z, h.b, h.n);
}

bool zip_end(zip_writer *z)
{
    uint64_t dir_offset = z->offset;
    for (size_t i = 0; z->ok && i < z->count; i++)
        zip_central(z, &z->entries[i]);
    uint64_t dir_size = z->offset - dir_offset;
    bool many = z->count >= ZIP_COUNT_MAX;
    if (many || dir_offset >= z->zip64_at || dir_size >= z->zip64_at)
        zip64_end(z, dir_offset, dir_size);
    zip_buf h = {.n = 0};
    put(&h, ZIP_END_SIG, 4);
    put(&h, 0, 2);
    put(&h, 0, 2);
    put(&h, many ? ZIP_COUNT_MAX : z->count, 2);
    put(&h, many ? ZIP_COUNT_MAX : z->count, 2);
    put(&h, classic(z, dir_size), 4);
    put(&h, classic(z, dir_offset), 4);
    put(&h, 0, 2); /* comment */
    zip_write(z, h.b, h.n);
    for (size_t i = 0; i < z->count; i++)
        free(z->entries[i].name);
    free(z->entries);
    z->entries = NULL;
    z->count = z->cap = 0;
    return z->ok && !ferror(z->stream);
}
