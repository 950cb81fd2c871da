/* Reading back what tmcml writes, for the tests of `tmcml lut`
 * (test_lut.c), of the library's tables (test_api_lut*.c) and runs
 * (api_run_checks.h): a whole file, a member of an uncompressed .npz
 * (runtime/io/npz.c's: stored, each .npy's header then its little-endian
 * data), and its doubles against the caller's. */
#ifndef TMCML_TESTS_NPZ_READ_H
#define TMCML_TESTS_NPZ_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's bytes, NUL-terminated, and their count in *size; NULL when it
 * cannot be read. */
static inline char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            buf[n] = '\0';
            *size = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    if (f)
        fclose(f);
    return buf;
}

/* Whether path holds size bytes, those of bytes (a copy read before). */
static inline bool same_file(const char *path, const char *bytes, size_t size)
{
    size_t now_size = 0;
    char *now = read_all(path, &now_size);
    bool same = now && bytes && now_size == size && memcmp(now, bytes, size) == 0;
    free(now);
    return same;
}

static inline uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

/* The bytes after the .npy header of the stored member name ("Rd.npy"), and
 * the header's text; NULL when absent. */
static inline const unsigned char *npz_member(const char *zip, size_t size, const char *name,
                                              char *header, size_t header_size)
{
    size_t len = strlen(name);
    for (size_t at = 0; at + 30 + len < size; at++) {
        const unsigned char *p = (const unsigned char *)zip + at;
        if (memcmp(p, "PK\3\4", 4) != 0 || le16(p + 26) != len || memcmp(p + 30, name, len) != 0)
            continue;
        const unsigned char *npy = p + 30 + len + le16(p + 28);
        size_t hlen = le16(npy + 8);
        snprintf(header, header_size, "%.*s", (int)hlen, (const char *)npy + 10);
        return npy + 10 + hlen;
    }
    return NULL;
}

static inline double le_double(const unsigned char *p)
{
    uint64_t bits = 0;
    for (int b = 7; b >= 0; b--)
        bits = bits << 8 | p[b];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* How many of the member name's first count doubles differ from
 * values[0 .. count), bit for bit: all count when zip (NULL: none) has no
 * such member, *found (may be NULL) then false. */
static inline size_t npz_differing(const char *zip, size_t size, const char *name,
                                   const double *values, size_t count, bool *found)
{
    char header[256];
    const unsigned char *data = zip ? npz_member(zip, size, name, header, sizeof header) : NULL;
    if (found)
        *found = data != NULL;
    if (!data)
        return count;
    size_t differ = 0;
    for (size_t i = 0; i < count; i++) {
        double v = le_double(data + 8 * i);
        differ += memcmp(&v, &values[i], sizeof v) != 0;
    }
    return differ;
}

#endif
