/* Float64 arrays read back from an .npz (runtime/io/npz_reader.h).  The zip
 * records are PKWARE's APPNOTE (runtime/io/zip.c writes them); the .npy
 * header is NumPy's format 1.0: magic, version, a 16-bit length and a
 * Python dict of descr, fortran_order and shape, padded with blanks to a
 * final newline. */
#include "npz_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "tm_limits.h"
#include "zip.h"

#define ZIP_END_BYTES       22
#define ZIP_COMMENT_MAX     65535
#define ZIP64_LOCATOR_BYTES 20
#define ZIP64_END_BYTES     56
#define ZIP_CENTRAL_BYTES   46
#define ZIP_LOCAL_BYTES     30
#define ZIP_FLAG_ENCRYPTED  0x0001
#define NPY_MAGIC           "\x93NUMPY"
#define NPY_MAGIC_BYTES     6
#define NPY_PREFIX_BYTES    10 /* magic, version (2), header length (2) */
#define NPZ_NAME_MAX        256
#define NPY_DIM_MAX         (UINT64_C(1) << 56) /* values of a shape: 8 bytes each still fit 64 bits */

/* ---- bytes of the file ------------------------------------------------------------ */

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* n bytes at offset, which must lie inside the file. */
static bool read_at(const npz_reader *r, uint64_t offset, void *buf, uint64_t n)
{
    if (offset > r->size || n > r->size - offset)
        return false;
    if (n == 0)
        return true;
    return fseeko(r->f, (off_t)offset, SEEK_SET) == 0 && fread(buf, 1, (size_t)n, r->f) == n;
}

static npz_found bad(const npz_reader *r, tm_error *err, const char *what)
{
    error_set(err, r->path, 0, "%s", what);
    return NPZ_BAD;
}

/* ---- the end records --------------------------------------------------------------- */

/* Where the end of central directory record begins: the last one whose
 * comment runs exactly to the end of the file. */
static npz_found find_end(const npz_reader *r, uint64_t *at, unsigned char rec[ZIP_END_BYTES],
                          tm_error *err)
{
    if (r->size < ZIP_END_BYTES)
        return bad(r, err, "not a zip archive: too short for its end record");
    uint64_t tail =
        r->size < ZIP_END_BYTES + ZIP_COMMENT_MAX ? r->size : ZIP_END_BYTES + ZIP_COMMENT_MAX;
    unsigned char *b = malloc((size_t)tail);
    if (!b)
        return bad(r, err, "out of memory reading the archive's end");
    if (!read_at(r, r->size - tail, b, tail)) {
        free(b);
        return bad(r, err, "cannot read the archive's end");
    }
    for (uint64_t i = tail - ZIP_END_BYTES + 1; i-- > 0;)
        if (le(b + i, 4) == ZIP_END_SIG && le(b + i + 20, 2) == tail - i - ZIP_END_BYTES) {
            memcpy(rec, b + i, ZIP_END_BYTES);
            *at = r->size - tail + i;
            free(b);
            return NPZ_FOUND;
        }
    free(b);
    return bad(r, err, "not a zip archive: no end of central directory record");
}

/* The ZIP64 end record, found through its locator just before the end
 * record at end_at: the directory's count, size and offset. */
static npz_found read_zip64_end(npz_reader *r, uint64_t end_at, uint64_t *records_end,
                                tm_error *err)
{
    unsigned char loc[ZIP64_LOCATOR_BYTES], rec[ZIP64_END_BYTES];
    if (end_at < ZIP64_LOCATOR_BYTES ||
        !read_at(r, end_at - ZIP64_LOCATOR_BYTES, loc, sizeof loc) ||
        le(loc, 4) != ZIP64_LOCATOR_SIG)
        return bad(r, err, "its end record asks for ZIP64 records, and there is no locator");
    uint64_t at = le(loc + 8, 8);
    *records_end = end_at - ZIP64_LOCATOR_BYTES;
    if (at > *records_end || *records_end - at < ZIP64_END_BYTES ||
        !read_at(r, at, rec, sizeof rec) || le(rec, 4) != ZIP64_END_SIG)
        return bad(r, err, "its ZIP64 locator points at no ZIP64 end record");
    if (le(loc + 4, 4) != 0 || le(rec + 16, 4) != 0 || le(rec + 20, 4) != 0)
        return bad(r, err, "a zip archive of several parts");
    r->entries = le(rec + 32, 8);
    r->dir_bytes = le(rec + 40, 8);
    r->dir_offset = le(rec + 48, 8);
    *records_end = at;
    return NPZ_FOUND;
}

/* The central directory from the end records, checked to lie in the file
 * before them and to have room for its records. */
static npz_found read_directory(npz_reader *r, tm_error *err)
{
    unsigned char rec[ZIP_END_BYTES];
    uint64_t end_at, records_end;
    if (find_end(r, &end_at, rec, err) != NPZ_FOUND)
        return NPZ_BAD;
    if (le(rec + 4, 2) != 0 || le(rec + 6, 2) != 0)
        return bad(r, err, "a zip archive of several parts");
    r->entries = le(rec + 10, 2);
    r->dir_bytes = le(rec + 12, 4);
    r->dir_offset = le(rec + 16, 4);
    records_end = end_at;
    if ((r->entries == ZIP_COUNT_MAX || r->dir_bytes == ZIP_CLASSIC_MAX ||
         r->dir_offset == ZIP_CLASSIC_MAX) &&
        read_zip64_end(r, end_at, &records_end, err) != NPZ_FOUND)
        return NPZ_BAD;
    if (r->dir_offset > records_end || r->dir_bytes > records_end - r->dir_offset) {
        error_set(err, r->path, 0,
                  "its central directory (%llu bytes at offset %llu) does not lie inside the "
                  "file (%llu bytes)",
                  (unsigned long long)r->dir_bytes, (unsigned long long)r->dir_offset,
                  (unsigned long long)r->size);
        return NPZ_BAD;
    }
    if (r->entries > r->dir_bytes / ZIP_CENTRAL_BYTES) {
        error_set(err, r->path, 0, "%llu members do not fit its central directory of %llu bytes",
                  (unsigned long long)r->entries, (unsigned long long)r->dir_bytes);
        return NPZ_BAD;
    }
    return NPZ_FOUND;
}

npz_found npz_open(npz_reader *r, const char *path, tm_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    /* O_NONBLOCK: a FIFO in the file's place must not hang the reader. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return NPZ_ABSENT;
        error_set(err, path, 0, "cannot open: %s", strerror(errno));
        return NPZ_BAD;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return bad(r, err, "not a regular file");
    }
    r->f = fdopen(fd, "rb");
    if (!r->f) {
        close(fd);
        return bad(r, err, "cannot open: out of memory");
    }
    r->size = (uint64_t)st.st_size;
    if (read_directory(r, err) != NPZ_FOUND) {
        npz_close(r);
        return NPZ_BAD;
    }
    return NPZ_FOUND;
}

void npz_close(npz_reader *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
}

/* ---- a member's records ---------------------------------------------------------- */

/* A central record's sizes and local header offset, the escaped ones from
 * its ZIP64 extra field (extra, n bytes) in APPNOTE's order. */
static bool zip64_fields(const unsigned char *extra, uint64_t n, uint64_t *usize, uint64_t *csize,
                         uint64_t *offset)
{
    for (uint64_t at = 0; at + 4 <= n;) {
        uint64_t id = le(extra + at, 2), len = le(extra + at + 2, 2);
        if (len > n - at - 4)
            return false;
        if (id == ZIP64_EXTRA_ID) {
            const unsigned char *p = extra + at + 4;
            uint64_t *fields[3] = {usize, csize, offset}, used = 0;
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != ZIP_CLASSIC_MAX)
                    continue;
                if (used + 8 > len)
                    return false;
                *fields[i] = le(p + used, 8);
                used += 8;
            }
            return true;
        }
        at += 4 + len;
    }
    return false;
}

/* The matching central record rec (its extra field at extra_at, n bytes):
 * the member's stored bytes, after its local header. */
static npz_found member_bytes(const npz_reader *r, const unsigned char *rec, uint64_t extra_at,
                              const char *member, npz_member *m, tm_error *err)
{
    uint64_t csize = le(rec + 20, 4), usize = le(rec + 24, 4), local = le(rec + 42, 4);
    uint64_t n = le(rec + 30, 2);
    if (le(rec + 10, 2) != 0 || (le(rec + 8, 2) & ZIP_FLAG_ENCRYPTED)) {
        error_set(err, r->path, 0,
                  "%s is compressed or encrypted (method %u): only stored members "
                  "are read (numpy.savez, not savez_compressed)",
                  member, (unsigned)le(rec + 10, 2));
        return NPZ_BAD;
    }
    if (csize == ZIP_CLASSIC_MAX || usize == ZIP_CLASSIC_MAX || local == ZIP_CLASSIC_MAX) {
        unsigned char *extra = malloc(n ? (size_t)n : 1);
        bool ok = extra && read_at(r, extra_at, extra, n) &&
                  zip64_fields(extra, n, &usize, &csize, &local);
        free(extra);
        if (!ok) {
            error_set(err, r->path, 0, "%s: its ZIP64 sizes are missing or cut short", member);
            return NPZ_BAD;
        }
    }
    if (csize != usize) {
        error_set(err, r->path, 0, "%s: %llu bytes stored for %llu: not a stored member", member,
                  (unsigned long long)csize, (unsigned long long)usize);
        return NPZ_BAD;
    }
    unsigned char loc[ZIP_LOCAL_BYTES];
    size_t len = strlen(member);
    char name[NPZ_NAME_MAX];
    if (local > r->dir_offset || r->dir_offset - local < ZIP_LOCAL_BYTES ||
        !read_at(r, local, loc, sizeof loc) || le(loc, 4) != ZIP_LOCAL_SIG ||
        le(loc + 26, 2) != len || !read_at(r, local + ZIP_LOCAL_BYTES, name, len) ||
        memcmp(name, member, len) != 0 || le(loc + 8, 2) != 0) {
        error_set(err, r->path, 0, "%s: no local header of its name at offset %llu", member,
                  (unsigned long long)local);
        return NPZ_BAD;
    }
    uint64_t data = local + ZIP_LOCAL_BYTES + len + le(loc + 28, 2);
    if (data > r->dir_offset || usize > r->dir_offset - data) {
        error_set(err, r->path, 0,
                  "%s: %llu bytes at offset %llu run into the central directory at %llu", member,
                  (unsigned long long)usize, (unsigned long long)data,
                  (unsigned long long)r->dir_offset);
        return NPZ_BAD;
    }
    m->offset = data;
    m->size = usize;
    m->crc = (uint32_t)le(rec + 16, 4);
    return NPZ_FOUND;
}

/* The central record of member (name.npy), or NPZ_ABSENT. */
static npz_found find_record(const npz_reader *r, const char *member, npz_member *m, tm_error *err)
{
    size_t len = strlen(member);
    uint64_t at = r->dir_offset, end = r->dir_offset + r->dir_bytes;
    for (uint64_t k = 0; k < r->entries; k++) {
        unsigned char rec[ZIP_CENTRAL_BYTES];
        if (end - at < ZIP_CENTRAL_BYTES || !read_at(r, at, rec, sizeof rec) ||
            le(rec, 4) != ZIP_CENTRAL_SIG) {
            error_set(err, r->path, 0, "central directory record %llu of %llu is damaged",
                      (unsigned long long)k + 1, (unsigned long long)r->entries);
            return NPZ_BAD;
        }
        uint64_t n = le(rec + 28, 2), extra = le(rec + 30, 2), comment = le(rec + 32, 2);
        uint64_t bytes = ZIP_CENTRAL_BYTES + n + extra + comment;
        if (bytes > end - at) {
            error_set(err, r->path, 0, "central directory record %llu runs past the directory",
                      (unsigned long long)k + 1);
            return NPZ_BAD;
        }
        char name[NPZ_NAME_MAX];
        if (n == len && read_at(r, at + ZIP_CENTRAL_BYTES, name, n) && memcmp(name, member, n) == 0)
            return member_bytes(r, rec, at + ZIP_CENTRAL_BYTES + n, member, m, err);
        at += bytes;
    }
    return NPZ_ABSENT;
}

/* ---- the .npy header ----------------------------------------------------------------- */

typedef struct npy_text {
    const char *at, *end;
} npy_text;

static void skip_blanks(npy_text *t)
{
    while (t->at < t->end && (*t->at == ' ' || *t->at == '\t'))
        t->at++;
}

/* The character c next (after blanks), taken. */
static bool take(npy_text *t, char c)
{
    skip_blanks(t);
    if (t->at < t->end && *t->at == c) {
        t->at++;
        return true;
    }
    return false;
}

/* A quoted string ('...' or "..."), printable, into out (size bytes). */
static bool quoted(npy_text *t, char *out, size_t size)
{
    skip_blanks(t);
    if (t->at >= t->end || (*t->at != '\'' && *t->at != '"'))
        return false;
    char q = *t->at++;
    size_t n = 0;
    for (; t->at < t->end && *t->at != q; t->at++) {
        if (*t->at < ' ' || *t->at > '~' || n + 1 >= size)
            return false;
        out[n++] = *t->at;
    }
    out[n] = '\0';
    return take(t, q);
}

static bool word(npy_text *t, const char *w)
{
    skip_blanks(t);
    size_t n = strlen(w);
    if ((size_t)(t->end - t->at) < n || memcmp(t->at, w, n) != 0)
        return false;
    t->at += n;
    return true;
}

/* A tuple of whole numbers: (), (n,), (n), (a, b), (a, b, c,). */
static bool shape(npy_text *t, npz_member *m)
{
    if (!take(t, '('))
        return false;
    m->rank = 0;
    m->count = 1;
    while (!take(t, ')')) {
        skip_blanks(t);
        if (m->rank == NPZ_MAX_RANK || t->at >= t->end || *t->at < '0' || *t->at > '9')
            return false;
        uint64_t d = 0;
        while (t->at < t->end && *t->at >= '0' && *t->at <= '9') {
            d = d * 10 + (uint64_t)(*t->at++ - '0');
            if (d > NPY_DIM_MAX)
                return false;
        }
        if (d && m->count > NPY_DIM_MAX / d)
            return false;
        m->count *= d;
        m->dims[m->rank++] = d;
        if (!take(t, ',')) {
            if (!take(t, ')'))
                return false;
            break;
        }
    }
    return true;
}

/* One "'key': value" of the dict; seen[] marks the keys met. */
static bool dict_entry(npy_text *t, npz_member *m, bool seen[3])
{
    char key[32];
    if (!quoted(t, key, sizeof key) || !take(t, ':'))
        return false;
    int k = strcmp(key, "descr") == 0           ? 0
            : strcmp(key, "fortran_order") == 0 ? 1
            : strcmp(key, "shape") == 0         ? 2
                                                : -1;
    if (k < 0 || seen[k])
        return false;
    seen[k] = true;
    if (k == 0)
        return quoted(t, m->descr, sizeof m->descr);
    if (k == 1) {
        m->fortran_order = word(t, "True");
        return m->fortran_order || word(t, "False");
    }
    return shape(t, m);
}

/* The dict, then blanks to the final newline. */
static bool parse_header(const char *h, size_t n, npz_member *m)
{
    npy_text t = {h, h + n};
    bool seen[3] = {false, false, false};
    if (n == 0 || h[n - 1] != '\n' || !take(&t, '{'))
        return false;
    t.end--; /* the newline */
    while (!take(&t, '}')) {
        if (!dict_entry(&t, m, seen))
            return false;
        if (!take(&t, ',')) {
            if (!take(&t, '}'))
                return false;
            break;
        }
    }
    skip_blanks(&t);
    return t.at == t.end && seen[0] && seen[1] && seen[2];
}

/* The .npy's magic, version and header, from the member's bytes. */
static npz_found read_header(const npz_reader *r, const char *member, npz_member *m, tm_error *err)
{
    unsigned char pre[NPY_PREFIX_BYTES];
    if (m->size < NPY_PREFIX_BYTES || !read_at(r, m->offset, pre, sizeof pre) ||
        memcmp(pre, NPY_MAGIC, NPY_MAGIC_BYTES) != 0) {
        error_set(err, r->path, 0, "%s is not a .npy array (no \\x93NUMPY magic)", member);
        return NPZ_BAD;
    }
    if (pre[6] != 1 || pre[7] != 0) {
        error_set(err, r->path, 0, "%s: .npy format version %u.%u; only 1.0 is read", member,
                  pre[6], pre[7]);
        return NPZ_BAD;
    }
    uint64_t n = le(pre + 8, 2);
    char h[NPY_HEADER_MAX_BYTES];
    if (n > sizeof h || n > m->size - NPY_PREFIX_BYTES) {
        error_set(err, r->path, 0, "%s: a .npy header of %llu bytes in a member of %llu", member,
                  (unsigned long long)n, (unsigned long long)m->size);
        return NPZ_BAD;
    }
    if (!read_at(r, m->offset + NPY_PREFIX_BYTES, h, n) || !parse_header(h, (size_t)n, m)) {
        error_set(err, r->path, 0,
                  "%s: its .npy header is not NumPy's dict of descr, fortran_order and shape "
                  "(at most %d dimensions)",
                  member, NPZ_MAX_RANK);
        return NPZ_BAD;
    }
    m->header_bytes = NPY_PREFIX_BYTES + n;
    return NPZ_FOUND;
}

npz_found npz_find(npz_reader *r, const char *name, npz_member *m, tm_error *err)
{
    memset(m, 0, sizeof *m);
    char member[NPZ_NAME_MAX];
    if ((size_t)snprintf(member, sizeof member, "%s.npy", name) >= sizeof member) {
        error_set(err, r->path, 0, "no member name is as long as \"%s\"", name);
        return NPZ_BAD;
    }
    npz_found found = find_record(r, member, m, err);
    return found == NPZ_FOUND ? read_header(r, member, m, err) : found;
}

/* ---- values ----------------------------------------------------------------------- */

/* "(5,)", "(3, 4)": a shape as NumPy prints it. */
static const char *shape_text(int rank, const uint64_t *dims, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", d ? ", " : "",
                                 (unsigned long long)dims[d]);
    if (used < size)
        snprintf(buf + used, size - used, "%s)", rank == 1 ? "," : "");
    return buf;
}

static bool same_shape(const npz_member *m, int rank, const uint64_t *dims)
{
    if (m->rank != rank)
        return false;
    for (int d = 0; d < rank; d++)
        if (m->dims[d] != dims[d])
            return false;
    return true;
}

/* The member's kind and shape are the ones asked for, its bytes theirs. */
static npz_found check_array(const npz_reader *r, const char *name, const npz_member *m, int rank,
                             const uint64_t *dims, tm_error *err)
{
    char got[96], want[96];
    if (strcmp(m->descr, "<f8") != 0) {
        error_set(err, r->path, 0, "%s: dtype '%s', expected '<f8' (float64, little-endian)", name,
                  m->descr);
        return NPZ_BAD;
    }
    if (m->fortran_order) {
        error_set(err, r->path, 0, "%s: in Fortran order, expected C order", name);
        return NPZ_BAD;
    }
    if (rank < 0 || rank > NPZ_MAX_RANK) {
        error_set(err, r->path, 0, "%s: asked for %d dimensions (0 to %d)", name, rank,
                  NPZ_MAX_RANK);
        return NPZ_BAD;
    }
    if (!same_shape(m, rank, dims)) {
        error_set(err, r->path, 0, "%s: shape %s, expected %s", name,
                  shape_text(m->rank, m->dims, got, sizeof got),
                  shape_text(rank, dims, want, sizeof want));
        return NPZ_BAD;
    }
    if (m->size - m->header_bytes != m->count * 8) {
        error_set(err, r->path, 0, "%s: %llu bytes of values where shape %s needs %llu", name,
                  (unsigned long long)(m->size - m->header_bytes),
                  shape_text(m->rank, m->dims, got, sizeof got), (unsigned long long)m->count * 8);
        return NPZ_BAD;
    }
    return NPZ_FOUND;
}

npz_found npz_read_float64(npz_reader *r, const char *name, int rank, const uint64_t *dims,
                           double *values, tm_error *err)
{
    npz_member m;
    npz_found found = npz_find(r, name, &m, err);
    if (found != NPZ_FOUND || check_array(r, name, &m, rank, dims, err) != NPZ_FOUND)
        return found == NPZ_FOUND ? NPZ_BAD : found;
    unsigned char header[NPY_PREFIX_BYTES + NPY_HEADER_MAX_BYTES];
    unsigned char *bytes = (unsigned char *)values;
    if (!read_at(r, m.offset, header, m.header_bytes) ||
        !read_at(r, m.offset + m.header_bytes, bytes, m.count * 8)) {
        error_set(err, r->path, 0, "%s: cannot read its values", name);
        return NPZ_BAD;
    }
    uint32_t crc =
        hash_crc32(hash_crc32(0, header, (size_t)m.header_bytes), bytes, (size_t)(m.count * 8));
    if (crc != m.crc) {
        error_set(err, r->path, 0, "%s: damaged (CRC-32 %08x, the directory says %08x)", name,
                  (unsigned)crc, (unsigned)m.crc);
        return NPZ_BAD;
    }
    for (uint64_t i = 0; i < m.count; i++) {
        uint64_t bits = le(bytes + 8 * i, 8);
        memcpy(&values[i], &bits, sizeof bits);
    }
    return NPZ_FOUND;
}
