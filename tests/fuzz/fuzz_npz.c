/* libFuzzer harness of the .npz reader (runtime/io/npz_reader.c) and of an
 * .mco's standard errors read through it (runtime/io/mco_stderr.c), what
 * `tmcml plot` reads from the .npz beside an .mco.
 *
 * The input is written to a file and opened.  An open never finds the file
 * absent, and whatever is refused names the file with a message.  Each of
 * a few member names is looked up; a member found lies inside the file,
 * its header inside it, its count the product of its shape.  One that says
 * it is float64 in C order is read with its own shape: read, its values are
 * the file's bytes there (the CRC-32 was checked); asked for one value more,
 * it is refused.  Then the errors of a small made-up .mco (R_d(r) of 4
 * rings, A(z) of 3 depths) are read from the file: found, each is NaN or
 * finite and >= 0, and the array's values were the .mco's; else nothing is
 * left allocated.  Everything is freed, so LeakSanitizer sees a leak in any
 * path. */
#include "fuzz_util.h"
#include "mco.h"
#include "mco_stderr.h"
#include "npz_reader.h"

#include <math.h>

/* Names the corpus's archives hold (and one that none does). */
static const char *const names[] = {"vec", "mat",         "one",        "counts", "Rd_r",
                                    "A_z", "Rd_r_stderr", "A_z_stderr", "x",      "absent"};

static void check_refusal(const char *path, const tm_error *err, const char *what)
{
    FUZZ_CHECK(err->message[0] != '\0', "%s refused without a message", what);
    FUZZ_CHECK(strcmp(err->file, path) == 0, "%s: the error names \"%s\"", what, err->file);
}

static bool le_host(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Member name: what its header says holds, and its values read back. */
static void check_member(npz_reader *r, const char *name, const uint8_t *data, size_t size)
{
    npz_member m;
    tm_error err = {0};
    npz_found found = npz_find(r, name, &m, &err);
    if (found == NPZ_BAD)
        check_refusal(r->path, &err, name);
    if (found != NPZ_FOUND)
        return;
    FUZZ_CHECK(m.offset <= size && m.size <= size - m.offset, "%s: %llu bytes at %llu, file %zu",
               name, (unsigned long long)m.size, (unsigned long long)m.offset, size);
    FUZZ_CHECK(m.header_bytes <= m.size && m.rank >= 0 && m.rank <= NPZ_MAX_RANK, "%s: header",
               name);
    uint64_t count = 1;
    for (int d = 0; d < m.rank; d++)
        count *= m.dims[d];
    FUZZ_CHECK(count == m.count, "%s: count %llu of its dims %llu", name,
               (unsigned long long)m.count, (unsigned long long)count);
    if (strcmp(m.descr, "<f8") != 0 || m.fortran_order || m.count > size / 8)
        return;
    double *v = malloc((size_t)(m.count + 1) * sizeof *v);
    FUZZ_CHECK(v != NULL, "out of memory");
    found = npz_read_float64(r, name, m.rank, m.dims, v, &err);
    if (found == NPZ_BAD)
        check_refusal(r->path, &err, name);
    FUZZ_CHECK(found != NPZ_ABSENT, "%s: found, then absent", name);
    if (found == NPZ_FOUND)
        FUZZ_CHECK(m.size - m.header_bytes == m.count * 8 &&
                       (!le_host() ||
                        memcmp(v, data + m.offset + m.header_bytes, (size_t)m.count * 8) == 0),
                   "%s: values read are not the file's", name);
    if (m.rank == 1) { /* one value more than it holds */
        uint64_t more[1] = {m.dims[0] + 1};
        FUZZ_CHECK(npz_read_float64(r, name, 1, more, v, &err) == NPZ_BAD,
                   "%s: read with a shape not its own", name);
    }
    free(v);
}

/* The made-up .mco: R_d(r) and A(z) alone, values that 5 digits print
 * exactly (the corpus's rd_az.npz is theirs). */
static bool made_up(mco_data *m)
{
    memset(m, 0, sizeof *m);
    if (!result_alloc(&m->result, 4, 3, 1, 1))
        return false;
    static const double rd[4] = {2.5, 1.25, 0.5, 0.125}, az[3] = {3, 1.5, 0.75};
    for (int row = 0; row < OUTPUT_ARRAYS; row++)
        if (m->result.array[row] != m->result.rd_r && m->result.array[row] != m->result.a_z) {
            free(m->result.array[row]);
            m->result.array[row] = NULL;
        }
    memcpy(m->result.rd_r, rd, sizeof rd);
    memcpy(m->result.a_z, az, sizeof az);
    return true;
}

static void check_errors(const char *path)
{
    mco_data m;
    FUZZ_CHECK(made_up(&m), "out of memory");
    double *errors[OUTPUT_ARRAYS];
    tm_error err = {0};
    npz_found found = mco_stderr_read(path, &m, "f.mco", errors, &err);
    FUZZ_CHECK(found != NPZ_ABSENT || err.message[0] == '\0', "absent with a message");
    if (found == NPZ_BAD)
        check_refusal(path, &err, "the errors");
    int arrays = 0;
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        FUZZ_CHECK(found == NPZ_FOUND || errors[row] == NULL, "row %d kept after %d", row,
                   (int)found);
        FUZZ_CHECK(!errors[row] || m.result.array[row], "errors of row %d, not in the .mco", row);
        if (!errors[row])
            continue;
        arrays++;
        output_grid g = result_grid(&m.result);
        const output_array *o = &output_table[row];
        for (uint64_t i = 0; i < output_bins(o, &g); i++) {
            double e = errors[row][output_first(o) + i];
            FUZZ_CHECK(isnan(e) || (isfinite(e) && e >= 0), "%s_stderr[%llu] = %g", o->name,
                       (unsigned long long)i, e);
        }
    }
    FUZZ_CHECK(found != NPZ_FOUND || arrays > 0, "found without errors");
    mco_stderr_free(errors);
    result_free(&m.result);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4200];
    fuzz_path(path, sizeof path, "in.npz");
    fuzz_write_file(path, data, size);
    npz_reader r;
    tm_error err = {0};
    npz_found found = npz_open(&r, path, &err);
    FUZZ_CHECK(found != NPZ_ABSENT, "the file written is absent");
    if (found == NPZ_BAD)
        check_refusal(path, &err, "the archive");
    if (found == NPZ_FOUND) {
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            check_member(&r, names[i], data, size);
        npz_close(&r);
    }
    check_errors(path);
    return 0;
}
