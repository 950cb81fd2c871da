/* runtime/io/npz_reader.c and mco_stderr.c: float64 arrays read back from
 * .npz files, and an .mco's standard errors from the .npz beside it.
 *   - good files: npz.c's own (members of rank 0 to 2, with their ZIP64
 *     records forced), the .npy header forms NumPy writes;
 *   - refused, with the file named: a missing member is absent, a missing
 *     file absent; a directory, a FIFO (without hanging); every prefix of a
 *     good file (truncated); every byte of it flipped (refused, or read
 *     with the right values: never wrong values); a wrong dtype, byte
 *     order, Fortran order, shape, version, magic and malformed headers;
 *     hostile sizes and offsets (the directory, a member, a header length,
 *     dims whose product overflows), compressed and encrypted members;
 *   - mco_stderr_read: a run's errors read from its .npz, laid out as the
 *     .mco's arrays; a value changed below the .mco's printed digits still
 *     the .mco's, one changed beyond them another run's; no error members
 *     and no file: absent; a negative error refused.
 *   test_npz_reader numpy   the reader on numpy.savez's files (77 without numpy) */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fs.h"
#include "mco.h"
#include "mco_stderr.h"
#include "npz.h"
#include "npz_reader.h"
#include "run_grid.h"
#include "zip.h"

static char tmpdir[] = "/tmp/tmcml_test_npz_reader.XXXXXX";

static char *path_of(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static unsigned char *slurp(const char *path, size_t *size)
{
    tm_error err;
    return (unsigned char *)fs_read_text(path, size, &err);
}

static void spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size);
    if (f)
        fclose(f);
}

/* ---- reading one member --------------------------------------------------------- */

/* name read from path with the shape dims[0 .. rank); *err kept. */
static npz_found read_member(const char *path, const char *name, int rank, const uint64_t *dims,
                             double *values, tm_error *err)
{
    npz_reader r;
    npz_found found = npz_open(&r, path, err);
    if (found != NPZ_FOUND)
        return found;
    found = npz_read_float64(&r, name, rank, dims, values, err);
    npz_close(&r);
    return found;
}

/* Refused, the message naming path and holding needle. */
static void expect_bad(const char *path, const char *name, int rank, const uint64_t *dims,
                       const char *needle)
{
    double v[64];
    tm_error err = {0};
    npz_found found = read_member(path, name, rank, dims, v, &err);
    CHECK_MSG(found == NPZ_BAD, "%s: %s read (%d), expected refused with \"%s\"", path, name,
              (int)found, needle);
    if (found == NPZ_BAD) {
        CHECK_MSG(strcmp(err.file, path) == 0, "the error names \"%s\", not %s", err.file, path);
        CHECK_CONTAINS(err.message, needle);
    }
}

/* ---- npz.c's own files ------------------------------------------------------------- */

static const double vec[5] = {1.5, -2.25, 0, 1e-300, 6.02214076e23};
/* vec and more: the values of hand-made members of up to 8. */
static const double values8[8] = {1.5, -2.25, 0, 1e-300, 6.02214076e23, 7, 8, 9};
static const double mat[6] = {1, 2, 3, 4, 5, 6};
static const double one = 0.125;
static const uint64_t counts[2] = {7, 8};

/* good.npz: vec (5,), mat (2, 3), one (), counts (uint64), a text. */
static void write_good(const char *path)
{
    npz_array a[5] = {
        {.name = "vec", .rank = 1, .dims = {5}, .values = vec, .unit = "cm"},
        {.name = "mat", .rank = 2, .dims = {2, 3}, .values = mat, .unit = "-"},
        {.name = "one", .values = &one, .unit = "-"},
        {.name = "counts",
         .rank = 1,
         .dims = {2},
         .kind = NPZ_UINT64,
         .counts = counts,
         .unit = "-"},
        {.name = "note", .kind = NPZ_TEXT, .text = "hello", .unit = "-"},
    };
    tm_error err = {0};
    CHECK_MSG(npz_write_arrays(path, a, 5, &err), "%s", err.message);
}

static bool read_good(const char *path, tm_error *err)
{
    double v[6];
    const uint64_t d5[1] = {5}, d23[2] = {2, 3};
    if (read_member(path, "vec", 1, d5, v, err) != NPZ_FOUND || memcmp(v, vec, sizeof vec) != 0)
        return false;
    if (read_member(path, "mat", 2, d23, v, err) != NPZ_FOUND || memcmp(v, mat, sizeof mat) != 0)
        return false;
    return read_member(path, "one", 0, NULL, v, err) == NPZ_FOUND && v[0] == one;
}

static void test_good(void)
{
    const char *good = path_of("good.npz");
    write_good(good);
    tm_error err = {0};
    CHECK_MSG(read_good(good, &err), "%s", err.message);
    double v[8];
    const uint64_t d5[1] = {5}, d2[1] = {2};
    CHECK(read_member(good, "absent", 1, d5, v, &err) == NPZ_ABSENT);
    CHECK(read_member(good, "ve", 1, d5, v, &err) == NPZ_ABSENT); /* a prefix is not a name */
    CHECK(read_member(path_of("nothere.npz"), "vec", 1, d5, v, &err) == NPZ_ABSENT);
    /* What the file says of a member. */
    npz_reader r;
    npz_member m;
    CHECK(npz_open(&r, good, &err) == NPZ_FOUND);
    CHECK(npz_find(&r, "mat", &m, &err) == NPZ_FOUND && m.rank == 2 && m.dims[0] == 2 &&
          m.dims[1] == 3 && m.count == 6 && strcmp(m.descr, "<f8") == 0 && !m.fortran_order);
    CHECK(npz_find(&r, "counts", &m, &err) == NPZ_FOUND && strcmp(m.descr, "<u8") == 0);
    npz_close(&r);
    /* Not float64, or not the shape asked for: refused, saying which. */
    expect_bad(good, "counts", 1, d2, "dtype '<u8', expected '<f8'");
    expect_bad(good, "note", 0, NULL, "dtype '<U5'");
    const uint64_t d4[1] = {4}, d32[2] = {3, 2}, d6[1] = {6};
    expect_bad(good, "vec", 1, d4, "vec: shape (5,), expected (4,)");
    expect_bad(good, "mat", 2, d32, "shape (2, 3), expected (3, 2)");
    expect_bad(good, "mat", 1, d6, "shape (2, 3), expected (6,)");
    expect_bad(good, "one", 1, d5, "shape (), expected (5,)");

    /* Every size and offset ZIP64 (zip_writer's threshold lowered). */
    const char *big = path_of("zip64.npz");
    FILE *f = fopen(big, "wb");
    zip_writer z;
    zip_begin(&z, f);
    z.zip64_at = 64;
    static const char h[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (5,), }";
    char header[128];
    memset(header, ' ', sizeof header);
    memcpy(header, h, sizeof h - 1);
    header[127] = '\n';
    zip_piece pieces[2] = {{header, 128}, {vec, sizeof vec}};
    zip_piece empty[1] = {{"", 0}};
    CHECK(zip_add(&z, "pad.npy", empty, 1) && zip_add(&z, "vec.npy", pieces, 2));
    CHECK(zip_end(&z) && fclose(f) == 0);
    CHECK(read_member(big, "vec", 1, d5, v, &err) == NPZ_FOUND && memcmp(v, vec, sizeof vec) == 0);
    size_t n;
    unsigned char *b = slurp(big, &n);
    CHECK(b && n > 22 && b[n - 22 + 16] == 0xff); /* the directory's offset is ZIP64's */
    free(b);
}

/* Nothing to read, and nothing that blocks. */
static void test_not_files(void)
{
    const uint64_t d5[1] = {5};
    const char *dir = path_of("dir.npz");
    CHECK(mkdir(dir, 0700) == 0);
    expect_bad(dir, "vec", 1, d5, "not a regular file");
    const char *fifo = path_of("fifo.npz");
    CHECK(mkfifo(fifo, 0600) == 0);
    expect_bad(fifo, "vec", 1, d5, "not a regular file");
    const char *empty = path_of("empty.npz");
    spit(empty, "", 0);
    expect_bad(empty, "vec", 1, d5, "not a zip archive");
    const char *text = path_of("text.npz");
    spit(text, "this is not a zip archive, only text that is long enough\n", 57);
    expect_bad(text, "vec", 1, d5, "no end of central directory record");
}

/* Every prefix of a good file is refused; every byte flipped is refused
 * or reads the right values (the CRC-32 guards the data). */
static void test_damage(void)
{
    const char *good = path_of("good.npz"), *cut = path_of("cut.npz");
    size_t n;
    unsigned char *b = slurp(good, &n);
    CHECK(b != NULL);
    if (!b)
        return;
    int not_refused = 0, unnamed = 0, wrong = 0;
    for (size_t len = 0; len < n; len++) {
        spit(cut, b, len);
        tm_error err = {0};
        bool read = read_good(cut, &err);
        not_refused += read;
        unnamed += !read && strcmp(err.file, cut) != 0;
    }
    CHECK_MSG(not_refused == 0 && unnamed == 0, "%d of %zu prefixes read, %d errors unnamed",
              not_refused, n, unnamed);
    for (size_t at = 0; at < n; at++) {
        b[at] ^= 0xff;
        spit(cut, b, n);
        b[at] ^= 0xff;
        tm_error err = {0};
        double v[6];
        const uint64_t d5[1] = {5};
        npz_found found = read_member(cut, "vec", 1, d5, v, &err);
        wrong += found == NPZ_FOUND && memcmp(v, vec, sizeof vec) != 0;
        unnamed += found == NPZ_BAD && strcmp(err.file, cut) != 0;
    }
    CHECK_MSG(wrong == 0 && unnamed == 0, "a byte flipped: %d wrong values read, %d unnamed", wrong,
              unnamed);
    free(b);
}

/* ---- hand-made members ------------------------------------------------------------- */

/* path: an .npz of one stored member NAME.npy: the magic, version
 * major.minor, the 16-bit length of dict padded with blanks and '\n' to a
 * 64-byte multiple (hlen: that length, or the given one when >= 0), dict,
 * then data. */
static void write_npy(const char *path, const char *member, int major, int minor, long hlen,
                      const char *dict, const void *data, size_t n)
{
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    unsigned char header[4096];
    memset(header, ' ', sizeof header);
    memcpy(header, "\x93NUMPY", 6);
    header[6] = (unsigned char)major;
    header[7] = (unsigned char)minor;
    size_t h = hlen >= 0 ? (size_t)hlen : total - 10;
    header[8] = (unsigned char)(h & 0xff);
    header[9] = (unsigned char)(h >> 8);
    memcpy(header + 10, dict, len);
    header[total - 1] = '\n';
    FILE *f = fopen(path, "wb");
    zip_writer z;
    zip_begin(&z, f);
    zip_piece pieces[2] = {{header, total}, {data, n}};
    CHECK(zip_add(&z, member, pieces, 2) && zip_end(&z));
    CHECK(fclose(f) == 0);
}

static void expect_header(const char *dict, const void *data, size_t n, int rank,
                          const uint64_t *dims, const char *needle)
{
    const char *p = path_of("made.npz");
    write_npy(p, "x.npy", 1, 0, -1, dict, data, n);
    if (needle) {
        expect_bad(p, "x", rank, dims, needle);
        return;
    }
    double v[8];
    tm_error err = {0};
    CHECK_MSG(read_member(p, "x", rank, dims, v, &err) == NPZ_FOUND &&
                  memcmp(v, values8, n < sizeof v ? n : sizeof v) == 0,
              "%s: %s", dict, err.message);
}

static void test_headers(void)
{
    const uint64_t d5[1] = {5}, d23[2] = {2, 3};
    const char *bad_dict = "not NumPy's dict";
    /* The forms NumPy writes and reads. */
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", values8, 40, 1, d5,
                  NULL);
    expect_header("{\"shape\": (5), \"descr\": \"<f8\", \"fortran_order\": False}", values8, 40, 1,
                  d5, NULL);
    expect_header("{'descr':'<f8','fortran_order':False,'shape':(2,3)}", values8, 48, 2, d23, NULL);
    /* Not float64 little-endian in C order. */
    expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", values8, 20, 1, d5,
                  "dtype '<f4', expected '<f8'");
    expect_header("{'descr': '>f8', 'fortran_order': False, 'shape': (5,), }", values8, 40, 1, d5,
                  "dtype '>f8'");
    expect_header("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", values8, 48, 2, d23,
                  "Fortran order");
    /* Bytes that are not the shape's. */
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", values8, 32, 1, d5,
                  "32 bytes of values where shape (5,) needs 40");
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", values8, 41, 1, d5,
                  "41 bytes of values");
    /* Malformed dicts. */
    const char *malformed[] = {
        "{'descr': '<f8', 'shape': (5,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), 'extra': 1}",
        "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (5,)}",
        "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (5,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5,,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-5,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 5)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5,)} trailing",
        "{'descr': '<f8\n', 'fortran_order': False, 'shape': (5,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5,)",
        "['descr', '<f8']",
        "",
    };
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++)
        expect_header(malformed[i], values8, 40, 1, d5, bad_dict);
    /* Hostile dims: huge, and a product past 64 bits. */
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                  values8, 40, 1, d5, bad_dict);
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
                  values8, 40, 1, d5, bad_dict);
    const uint64_t huge[1] = {UINT64_C(1) << 40};
    expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,)}", values8,
                  40, 1, huge, "40 bytes of values where shape (1099511627776,) needs");
    /* The .npy's own prefix. */
    const char *p = path_of("version.npz");
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }";
    write_npy(p, "x.npy", 2, 0, -1, dict, values8, 40);
    expect_bad(p, "x", 1, d5, "format version 2.0; only 1.0");
    write_npy(p, "x.npy", 1, 0, 60000, dict, values8, 40);
    expect_bad(p, "x", 1, d5, "a .npy header of 60000 bytes");
    write_npy(p, "x.npy", 1, 0, 200, dict, values8, 40); /* longer than the member */
    expect_bad(p, "x", 1, d5, "a .npy header of 200 bytes in a member of 168");
    FILE *f = fopen(p, "wb");
    zip_writer z;
    zip_begin(&z, f);
    zip_piece text[1] = {{"PK not numpy at all", 19}};
    CHECK(zip_add(&z, "x.npy", text, 1) && zip_end(&z) && fclose(f) == 0);
    expect_bad(p, "x", 1, d5, "not a .npy array");
}

/* ---- hostile zip records ----------------------------------------------------------- */

static uint64_t get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* One-member x.npz (x.npy: vec) with the field of `bytes` at `at` set to
 * v (at from the end of central directory record when from_end, else from
 * the central record), then read: refused with needle. */
static void expect_patched(bool from_end, size_t at, uint64_t v, int bytes, const char *needle)
{
    const char *p = path_of("patched.npz");
    write_npy(p, "x.npy", 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }",
              vec, 40);
    size_t n;
    unsigned char *b = slurp(p, &n);
    if (!b || n < 22)
        return;
    unsigned char *end = b + n - 22, *central = b + get(end + 16, 4);
    put((from_end ? end : central) + at, v, bytes);
    spit(p, b, n);
    free(b);
    const uint64_t d5[1] = {5};
    expect_bad(p, "x", 1, d5, needle);
}

static void test_hostile(void)
{
    /* The end record: parts, the directory's place and size, its count. */
    expect_patched(true, 4, 1, 2, "several parts");
    expect_patched(true, 16, 0x7fffffff, 4, "does not lie inside the file");
    expect_patched(true, 12, 0x7fffffff, 4, "does not lie inside the file");
    expect_patched(true, 10, 1000, 2, "1000 members do not fit");
    expect_patched(true, 10, 0xffff, 2, "no locator");
    expect_patched(true, 16, 0xffffffff, 4, "no locator");
    expect_patched(true, 20, 5, 2, "no end of central directory record"); /* a comment of 5 */
    /* The central record: its signature, method, flags, sizes, names. */
    expect_patched(false, 0, 0x12345678, 4, "record 1 of 1 is damaged");
    expect_patched(false, 10, 8, 2, "compressed or encrypted (method 8)");
    expect_patched(false, 8, 1, 2, "compressed or encrypted");
    expect_patched(false, 20, 12, 4, "12 bytes stored for 168");
    expect_patched(false, 20, 0x7ffffff0, 4, "bytes stored for");
    expect_patched(false, 20, 0xffffffff, 4, "ZIP64 sizes are missing");
    expect_patched(false, 42, 0xffffffff, 4, "ZIP64 sizes are missing");
    expect_patched(false, 28, 0xfff0, 2, "runs past the directory");
    expect_patched(false, 30, 0xfff0, 2, "runs past the directory");
    expect_patched(false, 42, 0x7fffffff, 4, "no local header of its name at offset 2147483647");
    expect_patched(false, 42, 1, 4, "no local header of its name at offset 1");
    /* Both sizes grown together: the member runs into the directory. */
    const char *p = path_of("grown.npz");
    write_npy(p, "x.npy", 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }",
              vec, 40);
    size_t n;
    unsigned char *b = slurp(p, &n);
    if (b) {
        unsigned char *central = b + get(b + n - 22 + 16, 4);
        put(central + 20, 0x10000000, 4);
        put(central + 24, 0x10000000, 4);
        spit(p, b, n);
        free(b);
        const uint64_t d5[1] = {5};
        expect_bad(p, "x", 1, d5, "run into the central directory");
    }
    /* The local header names another member. */
    write_npy(p, "x.npy", 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }",
              vec, 40);
    b = slurp(p, &n);
    if (b) {
        b[30] = 'y';
        spit(p, b, n);
        free(b);
        const uint64_t d5[1] = {5};
        expect_bad(p, "x", 1, d5, "no local header of its name");
    }
}

/* ---- an .mco's errors ------------------------------------------------------------ */

enum { NR = 6, NZ = 5, NA = 3, NL = 2 };

/* A made-up run (its grid made_up's) and its result with errors; the .mco
 * at mco, the .npz at npz. */
static mci_layer layers[NL + 2] = {
    {.n = 1.0},
    {.n = 1.37, .mua = 1, .mus = 100, .g = 0.9, .d = 0.1, .z0 = 0, .z1 = 0.1},
    {.n = 1.45, .mua = 2, .mus = 10, .g = 0.5, .d = 0.2, .z0 = 0.1, .z1 = 0.3},
    {.n = 1.0, .z0 = 0.3, .z1 = 0.3},
};
static mci_run run = {
    .out_name = "e.mco", .out_format = 'A', .photons = 1000, .num_layers = NL, .layers = layers};

static bool made_up(mcml_result *res)
{
    run_grid(&run, 0.05, 0.02, NZ, NR, NA);
    if (!result_alloc(res, NR, NZ, NA, NL))
        return false;
    res->photons = 1000;
    res->rd = 0.25, res->a = 0.7, res->tt = 0.05;
    output_grid g = result_grid(res);
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        if (!res->array[row])
            continue;
        uint64_t n = output_stored(&output_table[row], &g);
        if (!(res->stderr_array[row] = malloc(n * sizeof(double))))
            return false;
        for (uint64_t i = 0; i < n; i++) {
            res->array[row][i] = (1 + row) * exp(-0.37 * (double)i) / 3;
            res->stderr_array[row][i] = i == 2 ? NAN : 0.01 * (1 + row) * (double)(i + 1);
        }
    }
    res->stderr_groups = 64;
    return true;
}

static npz_found read_errors(const char *npz, const mco_data *m, double *errors[OUTPUT_ARRAYS],
                             tm_error *err)
{
    return mco_stderr_read(npz, m, "e.mco", errors, err);
}

static void test_mco_errors(void)
{
    mcml_result res;
    CHECK(made_up(&res));
    const char *mco = path_of("e.mco"), *npz = path_of("e.npz");
    tm_error err = {0};
    CHECK(mco_write(mco, &run, &res, "made up", &err) && npz_write(npz, &run, &res, &err));
    mco_data m;
    CHECK_MSG(mco_read(mco, &m, &err), "%s", err.message);
    double *errors[OUTPUT_ARRAYS];
    npz_found found = read_errors(npz, &m, errors, &err);
    CHECK_MSG(found == NPZ_FOUND, "%s", err.message);
    output_grid g = result_grid(&res);
    int same = 0, arrays = 0;
    for (int row = 0; found == NPZ_FOUND && row < OUTPUT_ARRAYS; row++) {
        const output_array *o = &output_table[row];
        CHECK((errors[row] != NULL) == (m.result.array[row] != NULL));
        if (!errors[row])
            continue;
        arrays++;
        for (uint64_t i = 0; i < output_stored(o, &g); i++) {
            bool shown = i >= (uint64_t)output_first(o) && i < output_first(o) + output_bins(o, &g);
            double want = shown ? res.stderr_array[row][i] : NAN;
            same += (isnan(want) && isnan(errors[row][i])) || want == errors[row][i];
        }
        same -= (int)output_stored(o, &g);
    }
    CHECK_MSG(arrays == 9 && same == 0, "%d arrays, %d entries differ", arrays, -same);
    mco_stderr_free(errors);
    CHECK(errors[0] == NULL);

    /* A value changed below the .mco's 5 digits is still the .mco's; one
     * changed beyond them is another run's. */
    res.rd_r[3] *= 1 + 1e-7;
    CHECK(npz_write(npz, &run, &res, &err));
    CHECK_MSG(read_errors(npz, &m, errors, &err) == NPZ_FOUND, "%s", err.message);
    mco_stderr_free(errors);
    res.rd_r[3] *= 1 + 1e-3;
    CHECK(npz_write(npz, &run, &res, &err));
    CHECK(read_errors(npz, &m, errors, &err) == NPZ_BAD);
    CHECK(strcmp(err.file, npz) == 0);
    CHECK_CONTAINS(err.message, "not e.mco's (another run's?): its Rd_r[3] is");
    for (int row = 0; row < OUTPUT_ARRAYS; row++)
        CHECK(errors[row] == NULL);
    res.rd_r[3] /= (1 + 1e-3) * (1 + 1e-7);

    /* A negative error is none. */
    double *az_err = res.stderr_array[output_by_name("A_z") - output_table];
    az_err[1] = -0.5;
    CHECK(npz_write(npz, &run, &res, &err));
    CHECK(read_errors(npz, &m, errors, &err) == NPZ_BAD);
    CHECK_CONTAINS(err.message, "A_z_stderr[1] is -0.5: a standard error is finite and >= 0");
    az_err[1] = 0.5;

    /* No errors in the .npz (a run without --stderr), no .npz: absent. */
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        free(res.stderr_array[row]);
        res.stderr_array[row] = NULL;
    }
    res.stderr_groups = 0;
    CHECK(npz_write(npz, &run, &res, &err));
    CHECK(read_errors(npz, &m, errors, &err) == NPZ_ABSENT);
    CHECK(read_errors(path_of("none.npz"), &m, errors, &err) == NPZ_ABSENT);
    /* An .npz without an array the .mco has is not its. */
    npz_array only[1] = {
        {.name = "A_z_stderr", .rank = 1, .dims = {NZ}, .values = res.a_z, .unit = "-"}};
    CHECK(npz_write_arrays(npz, only, 1, &err));
    CHECK(read_errors(npz, &m, errors, &err) == NPZ_BAD);
    CHECK_CONTAINS(err.message, "it has no A_l, which the .mco has");
    mco_free(&m);
    result_free(&res);
}

/* ---- NumPy's own files ------------------------------------------------------------- */

/* A python3 with numpy: Debian's first, as the Python tests choose (one
 * first on PATH, pyenv's or conda's, often lacks it); NULL when none. */
static const char *python_with_numpy(void)
{
    static const char *const candidates[] = {"/usr/bin/python3", "python3"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' 2>/dev/null", candidates[i]);
        if (system(cmd) == 0)
            return candidates[i];
    }
    return NULL;
}

static int test_numpy(void)
{
    const char *p = path_of("numpy.npz"), *python = python_with_numpy();
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -c 'import numpy as np\n"
             "np.savez(\"%s\", vec=np.array([1.5, -2.25, 0, 1e-300, 6.02214076e23]),\n"
             "         mat=np.arange(1.0, 7.0).reshape(2, 3), f4=np.zeros(3, np.float32),\n"
             "         fo=np.asfortranarray(np.arange(1.0, 7.0).reshape(2, 3)))' 2>/dev/null",
             python ? python : "", p);
    if (!python || system(cmd) != 0) {
        printf("numpy is not installed: skipped\n");
        return 77;
    }
    tm_error err = {0};
    double v[6];
    const uint64_t d5[1] = {5}, d23[2] = {2, 3}, d3[1] = {3};
    CHECK_MSG(read_member(p, "vec", 1, d5, v, &err) == NPZ_FOUND && memcmp(v, vec, sizeof vec) == 0,
              "%s", err.message);
    CHECK_MSG(read_member(p, "mat", 2, d23, v, &err) == NPZ_FOUND &&
                  memcmp(v, mat, sizeof mat) == 0,
              "%s", err.message);
    expect_bad(p, "f4", 1, d3, "dtype '<f4'");
    expect_bad(p, "fo", 2, d23, "Fortran order");
    return check_summary("test_npz_reader numpy");
}

static void remove_all(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(int argc, char **argv)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    int status;
    if (argc > 1 && strcmp(argv[1], "numpy") == 0) {
        status = test_numpy();
    } else {
        test_good();
        test_not_files();
        test_damage();
        test_headers();
        test_hostile();
        test_mco_errors();
        status = check_summary("test_npz_reader");
    }
    remove_all();
    return status;
}
