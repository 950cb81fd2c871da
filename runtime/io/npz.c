/* A run's arrays as NumPy's .npz (runtime/io/npz.h). */
#include "npz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "output_arrays.h"
#include "run_options.h"
#include "zip.h"

#define NPY_MAGIC       "\x93NUMPY\x01\x00" /* format version 1.0 */
#define NPY_MAGIC_BYTES 8
#define NPY_ALIGN       64 /* NumPy pads its header so that the data start on this */
#define NPY_HEADER_MAX  256
/* Members beside the output table's: the RAT scalars, the grid (dr, dz,
 * da, r, z, a, fx with spatial frequencies, modulation with modulation
 * frequencies, x with the Cartesian grid), units. */
#define NPZ_RAT         4
#define NPZ_GRID        9
/* Each array and RAT total may have its standard error beside it
 * (NAME_stderr: a run with --stderr). */
#define NPZ_MEMBERS     (2 * (OUTPUT_ARRAYS + NPZ_RAT) + NPZ_GRID + 1)
_Static_assert(NPZ_MAX_RANK >= OUTPUT_MAX_RANK, "an .npz member holds any output array's axes");
/* A member's bytes besides its data: local and central headers with their
 * ZIP64 fields, its name twice, its .npy header. */
#define NPZ_MEMBER_OVERHEAD (30 + 20 + 46 + 28 + 2 * 32 + NPY_HEADER_MAX)
#define NPZ_END_BYTES       (56 + 20 + 22)
#define NPZ_UNIT_CHARS      16 /* at least the widest unit ("1/(cm2 sr)") or name */

/* Every array of the output table fits a member's shape (a rank-4 array,
 * Rd_rt_jacobian, wrote its last length over the member's values). */
_Static_assert(OUTPUT_MAX_RANK <= NPZ_MAX_RANK, "npz_array's dims hold every output array's");

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The .npy header of descr and shape, padded as NumPy pads it; its length. */
static size_t npy_header(char *h, const char *descr, int rank, const uint64_t *dims)
{
    /* NumPy's repr of the shape: (), (n,), (a, b), (a, b, c) */
    char shape[96] = "";
    size_t used = 0;
    for (int d = 0; d < rank; d++)
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%llu", d ? ", " : "",
                                 (unsigned long long)dims[d]);
    if (rank == 1)
        snprintf(shape + used, sizeof shape - used, ",");
    char dict[192];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, shape);
    size_t total = NPY_MAGIC_BYTES + 2 + (size_t)n + 1;
    size_t padded = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t len = padded - NPY_MAGIC_BYTES - 2; /* the dict, blanks and '\n' */
    memcpy(h, NPY_MAGIC, NPY_MAGIC_BYTES);
    h[NPY_MAGIC_BYTES] = (char)(len & 0xff);
    h[NPY_MAGIC_BYTES + 1] = (char)(len >> 8);
    memcpy(h + NPY_MAGIC_BYTES + 2, dict, (size_t)n);
    memset(h + NPY_MAGIC_BYTES + 2 + n, ' ', len - (size_t)n - 1);
    h[padded - 1] = '\n';
    return padded;
}

/* n 8-byte values (float64 or uint64) as little-endian bytes: themselves
 * on such a host, else a swapped copy in *copy (free it). */
static const void *le_words(const void *values, uint64_t n, unsigned char **copy)
{
    *copy = NULL;
    if (host_little_endian())
        return values;
    if (!(*copy = malloc(n * 8 + 1)))
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, (const unsigned char *)values + 8 * i, 8);
        for (int b = 0; b < 8; b++)
            (*copy)[8 * i + (uint64_t)b] = (unsigned char)(bits >> (8 * b));
    }
    return *copy;
}

static bool npz_no_memory(zip_writer *z)
{
    z->ok = false;
    z->no_memory = true;
    return false;
}

/* A text member: a 0-d array of one '<UW' string (UCS-4, little-endian). */
static bool npz_add_text(zip_writer *z, const char *name, const char *text)
{
    size_t w = strlen(text) ? strlen(text) : 1;
    unsigned char *bytes = calloc(w, 4);
    if (!bytes)
        return npz_no_memory(z);
    for (size_t c = 0; text[c]; c++)
        bytes[c * 4] = (unsigned char)text[c];
    char header[NPY_HEADER_MAX], descr[32];
    snprintf(descr, sizeof descr, "<U%zu", w);
    zip_piece pieces[2] = {{header, npy_header(header, descr, 0, NULL)}, {bytes, w * 4}};
    bool ok = zip_add(z, name, pieces, 2);
    free(bytes);
    return ok;
}

static bool npz_add_array(zip_writer *z, const npz_array *a)
{
    char header[NPY_HEADER_MAX], name[64];
    snprintf(name, sizeof name, "%s.npy", a->name);
    if (a->kind == NPZ_TEXT)
        return npz_add_text(z, name, a->text);
    uint64_t n = 1;
    for (int d = 0; d < a->rank; d++)
        n *= a->dims[d];
    unsigned char *copy;
    bool counts = a->kind == NPZ_UINT64;
    const void *data = le_words(counts ? (const void *)a->counts : a->values, n, &copy);
    if (!data)
        return npz_no_memory(z);
    zip_piece pieces[2] = {{header, npy_header(header, counts ? "<u8" : "<f8", a->rank, a->dims)},
                           {data, (size_t)(n * 8)}};
    bool ok = zip_add(z, name, pieces, 2);
    free(copy);
    return ok;
}

/* units.npy: [name, unit] rows as NumPy's '<UW' strings (UCS-4,
 * little-endian), W the longest name or unit. */
static bool npz_add_units(zip_writer *z, const npz_array *arrays, int count)
{
    size_t w = 1;
    for (int i = 0; i < count; i++) {
        size_t a = strlen(arrays[i].name), b = strlen(arrays[i].unit);
        w = a > w ? a : w;
        w = b > w ? b : w;
    }
    size_t bytes = (size_t)count * 2 * w * 4;
    unsigned char *text = calloc(bytes, 1);
    if (!text)
        return npz_no_memory(z);
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 2; k++) {
            const char *s = k ? arrays[i].unit : arrays[i].name;
            for (size_t c = 0; s[c]; c++)
                text[((size_t)(2 * i + k) * w + c) * 4] = (unsigned char)s[c];
        }
    char header[NPY_HEADER_MAX], descr[32];
    snprintf(descr, sizeof descr, "<U%zu", w);
    const uint64_t dims[2] = {(uint64_t)count, 2};
    zip_piece pieces[2] = {{header, npy_header(header, descr, 2, dims)}, {text, bytes}};
    bool ok = zip_add(z, "units.npy", pieces, 2);
    free(text);
    return ok;
}

typedef struct npz_job {
    const mci_run *run;
    const mcml_result *res;
} npz_job;

/* The grid's bin centres: r (nr), z (nz), a (na) and, with the Cartesian
 * grid, x (xy_nx) one after the other. */
static double *npz_centres(const mci_run *run)
{
    size_t xy = run->xy_nx > 0 ? (size_t)run->xy_nx : 0;
    double *c = malloc(((size_t)run->nr + (size_t)run->nz + (size_t)run->na + xy) * sizeof *c);
    if (!c)
        return NULL;
    double *x = c + run->nr + run->nz + run->na; /* the Cartesian cells', about the entry point */
    for (size_t i = 0; i < xy; i++)
        x[i] = ((double)i + 0.5 - 0.5 * run->xy_nx) * run->xy_dx;
    for (int i = 0; i < run->nr; i++)
        c[i] = (i + 0.5) * run->dr;
    for (int i = 0; i < run->nz; i++)
        c[run->nr + i] = (i + 0.5) * run->dz;
    for (int i = 0; i < run->na; i++)
        c[run->nr + run->nz + i] = (i + 0.5) * run->da;
    return c;
}

/* Every member, then units.npy; false with *err when memory ran out. */
static bool npz_write_members(FILE *stream, const npz_array *a, int n, tm_error *err)
{
    zip_writer z;
    zip_begin(&z, stream);
    for (int i = 0; i < n; i++)
        npz_add_array(&z, &a[i]);
    npz_add_units(&z, a, n);
    bool ok = zip_end(&z);
    if (!ok && z.no_memory)
        error_set(err, NULL, 0, "out of memory writing the .npz");
    return ok;
}

static bool npz_write_cb(FILE *stream, void *ctx, tm_error *err)
{
    const npz_job *job = ctx;
    const mci_run *run = job->run;
    const mcml_result *res = job->res;
    output_grid g = result_grid(res);
    double *centres = npz_centres(run);
    if (!centres) {
        error_set(err, NULL, 0, "out of memory writing the .npz");
        return false;
    }
    npz_array a[NPZ_MEMBERS];
    char stderr_names[OUTPUT_ARRAYS][64];
    int n = 0;
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        const output_array *o = &output_table[row];
        if (!res->array[row])
            continue; /* optional, not scored */
        npz_array *m = &a[n++];
        *m = (npz_array){.name = o->name,
                         .rank = o->rank,
                         .values = res->array[row] + output_first(o),
                         .unit = o->unit};
        for (int d = 0; d < o->rank; d++)
            m->dims[d] = output_axis_length(o->axes[d], &g);
        if (res->stderr_array[row]) {
            snprintf(stderr_names[row], sizeof stderr_names[row], "%s_stderr", o->name);
            a[n] = *m;
            a[n].name = stderr_names[row];
            a[n++].values = res->stderr_array[row] + output_first(o);
        }
    }
    a[n++] = (npz_array){.name = "Rsp", .values = &res->rsp, .unit = "-"};
    a[n++] = (npz_array){.name = "Rd", .values = &res->rd, .unit = "-"};
    a[n++] = (npz_array){.name = "A", .values = &res->a, .unit = "-"};
    a[n++] = (npz_array){.name = "Tt", .values = &res->tt, .unit = "-"};
    if (res->stderr_groups > 0) {
        a[n++] = (npz_array){.name = "Rd_stderr", .values = &res->rd_stderr, .unit = "-"};
        a[n++] = (npz_array){.name = "A_stderr", .values = &res->a_stderr, .unit = "-"};
        a[n++] = (npz_array){.name = "Tt_stderr", .values = &res->tt_stderr, .unit = "-"};
    }
    a[n++] = (npz_array){.name = "dr", .values = &run->dr, .unit = "cm"};
    a[n++] = (npz_array){.name = "dz", .values = &run->dz, .unit = "cm"};
    a[n++] = (npz_array){.name = "da", .values = &run->da, .unit = "rad"};
    a[n++] = (npz_array){
        .name = "r", .rank = 1, .dims = {(uint64_t)run->nr}, .values = centres, .unit = "cm"};
    a[n++] = (npz_array){.name = "z",
                         .rank = 1,
                         .dims = {(uint64_t)run->nz},
                         .values = centres + run->nr,
                         .unit = "cm"};
    a[n++] = (npz_array){.name = "a",
                         .rank = 1,
                         .dims = {(uint64_t)run->na},
                         .values = centres + run->nr + run->nz,
                         .unit = "rad"};
    if (res->rd_fx && run->fx && run->fx_count == res->frequencies) /* Rd_fx's axis */
        a[n++] = (npz_array){.name = "fx",
                             .rank = 1,
                             .dims = {(uint64_t)res->frequencies},
                             .values = run->fx,
                             .unit = "1/cm"};
    if (res->rd_ac && run->mod_hz && run->mod_count == res->modulations) /* Rd_ac's axis */
        a[n++] = (npz_array){.name = "modulation",
                             .rank = 1,
                             .dims = {(uint64_t)res->modulations},
                             .values = run->mod_hz,
                             .unit = "Hz"};
    if (res->rd_xy && run->xy_nx == res->xy) /* Rd_xy's axes, and A_xz's first */
        a[n++] = (npz_array){.name = "x",
                             .rank = 1,
                             .dims = {(uint64_t)res->xy},
                             .values = centres + run->nr + run->nz + run->na,
                             .unit = "cm"};
    bool ok = npz_write_members(stream, a, n, err);
    free(centres);
    return ok;
}

bool npz_write(const char *path, const mci_run *run, const mcml_result *res, tm_error *err)
{
    npz_job job = {run, res};
    return fs_write_atomic(path, npz_write_cb, &job, err);
}

typedef struct npz_list {
    const npz_array *arrays;
    int count;
} npz_list;

static bool npz_list_cb(FILE *stream, void *ctx, tm_error *err)
{
    const npz_list *list = ctx;
    return npz_write_members(stream, list->arrays, list->count, err);
}

bool npz_write_arrays(const char *path, const npz_array *arrays, int count, tm_error *err)
{
    npz_list list = {arrays, count};
    return fs_write_atomic(path, npz_list_cb, &list, err);
}

uint64_t npz_size_bound(const mci_run *run)
{
    output_grid g = run_options_grid(run);
    uint64_t values = NPZ_RAT + 3 + (uint64_t)run->nr + (uint64_t)run->nz + (uint64_t)run->na +
                      (uint64_t)run->fx_count + (uint64_t)run->mod_count + (uint64_t)run->xy_nx;
    /* Twice the arrays: room for their standard errors (--stderr). */
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (run_options_wants(run, &output_table[i]))
            values += 2 * output_bins(&output_table[i], &g);
    return 8 * values + (uint64_t)NPZ_MEMBERS * NPZ_MEMBER_OVERHEAD +
           (uint64_t)NPZ_MEMBERS * 2 * NPZ_UNIT_CHARS * 4 + NPZ_END_BYTES;
}
