/* Checksummed little-endian files (le_file.h). */
#include "le_file.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

le_writer le_writer_start(FILE *f) { return (le_writer){f, HASH_FNV1A_START, true}; }

void le_put(le_writer *w, const void *data, size_t n)
{
    if (!w->ok)
        return;
    w->sum = hash_fnv1a(w->sum, data, n);
    w->ok = fwrite(data, 1, n, w->f) == n;
}

void le_put_uint(le_writer *w, uint64_t v, int n)
{
    unsigned char b[8];
    for (int k = 0; k < n; k++)
        b[k] = (unsigned char)(v >> (8 * k));
    le_put(w, b, (size_t)n);
}

void le_put_u32(le_writer *w, uint32_t v) { le_put_uint(w, v, 4); }
void le_put_u64(le_writer *w, uint64_t v) { le_put_uint(w, v, 8); }

void le_put_double(le_writer *w, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    le_put_u64(w, bits);
}

void le_put_text(le_writer *w, const char *s)
{
    le_put_u32(w, (uint32_t)strlen(s));
    le_put(w, s, strlen(s));
}

le_reader le_reader_start(FILE *f, const char *path, const char *kind, uint64_t left, tm_error *err)
{
    return (le_reader){f, path, kind, HASH_FNV1A_START, left, true, err};
}

void le_bad(le_reader *r, const char *what)
{
    if (r->ok)
        error_set(r->err, r->path, 0, "not a valid %s: %s", r->kind, what);
    r->ok = false;
}

void le_get(le_reader *r, void *data, size_t n)
{
    if (r->ok && (n > r->left || fread(data, 1, n, r->f) != n))
        le_bad(r, "truncated");
    if (!r->ok) {
        memset(data, 0, n);
        return;
    }
    r->left -= n;
    r->sum = hash_fnv1a(r->sum, data, n);
}

uint64_t le_get_uint(le_reader *r, int n)
{
    unsigned char b[8];
    le_get(r, b, (size_t)n);
    uint64_t v = 0;
    for (int k = 0; k < n; k++)
        v |= (uint64_t)b[k] << (8 * k);
    return v;
}

uint32_t le_get_u32(le_reader *r) { return (uint32_t)le_get_uint(r, 4); }
uint64_t le_get_u64(le_reader *r) { return le_get_uint(r, 8); }

double le_get_double(le_reader *r)
{
    uint64_t bits = le_get_u64(r);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

char *le_get_text(le_reader *r, uint64_t most)
{
    uint64_t n = le_get_u32(r);
    if (r->ok && n > most)
        le_bad(r, "a text field is too long");
    if (r->ok && n > r->left)
        le_bad(r, "truncated");
    char *s = r->ok ? malloc((size_t)n + 1) : NULL;
    if (r->ok && !s) {
        error_set(r->err, r->path, 0, "out of memory");
        r->ok = false;
    }
    if (!s)
        return NULL;
    le_get(r, s, (size_t)n);
    s[n] = '\0';
    if (r->ok && strlen(s) != n)
        le_bad(r, "a text field holds a NUL byte");
    return s;
}
