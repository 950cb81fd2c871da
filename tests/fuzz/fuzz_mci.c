/* libFuzzer harness of the .mci reader (runtime/io/mci.c).
 *
 * Each input is parsed twice: from memory (mci_parse) and from a file
 * (mci_read, which also refuses NUL bytes).  Both must agree: the same
 * verdict, the same message, the same runs.  A file that is accepted must
 * keep every promise of mci.h and of docs/cli.md ("Input errors"): values in
 * range, finite, no subnormals and no -0, unique output names, depths and
 * critical angles derived as MCML derives them.  Everything is freed, so
 * LeakSanitizer sees a leak in any path. */
#include <float.h>
#include <math.h>

#include "fuzz_util.h"
#include "mci.h"
#include "tm_limits.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A number as parse_double leaves it: finite, no subnormal, no -0. */
static bool clean_number(double v)
{
    return isfinite(v) && (v == 0.0 ? !signbit(v) : fabs(v) >= DBL_MIN);
}

static bool index_ok(double n) { return clean_number(n) && n >= MCI_MIN_N && n <= MCI_MAX_N; }

static void check_layer(const mci_run *run, int i)
{
    const mci_layer *l = &run->layers[i];
    FUZZ_CHECK(index_ok(l->n), "run line %d: layer %d: n = %g", run->line, i, l->n);
    FUZZ_CHECK(clean_number(l->mua) && l->mua >= 0, "layer %d: mua = %g", i, l->mua);
    FUZZ_CHECK(clean_number(l->mus) && l->mus >= 0, "layer %d: mus = %g", i, l->mus);
    FUZZ_CHECK(clean_number(l->g) && l->g >= -1 && l->g <= 1, "layer %d: g = %g", i, l->g);
    FUZZ_CHECK(clean_number(l->d) && l->d >= 0, "layer %d: d = %g", i, l->d);
    FUZZ_CHECK(l->z0 == run->layers[i - 1].z1 || i == 1, "layer %d: z0 = %g", i, l->z0);
    FUZZ_CHECK(l->z1 == l->z0 + l->d, "layer %d: z1 = %g", i, l->z1);
    double crit[2] = {l->cos_crit0, l->cos_crit1};
    double other[2] = {run->layers[i - 1].n, run->layers[i + 1].n};
    for (int k = 0; k < 2; k++) {
        FUZZ_CHECK(crit[k] >= 0 && crit[k] < 1, "layer %d: cos_crit%d = %g", i, k, crit[k]);
        FUZZ_CHECK((crit[k] > 0) == (l->n > other[k]), "layer %d: cos_crit%d = %g", i, k, crit[k]);
    }
}

static void check_ambient(const mci_layer *l, double z)
{
    FUZZ_CHECK(index_ok(l->n), "ambient n = %g", l->n);
    FUZZ_CHECK(l->mua == 0 && l->mus == 0 && l->g == 0 && l->d == 0, "ambient medium not empty");
    FUZZ_CHECK(l->z0 == z && l->z1 == z && l->cos_crit0 == 0 && l->cos_crit1 == 0,
               "ambient medium: z0 %g z1 %g", l->z0, l->z1);
}

static void check_run(const mci_file *f, int index)
{
    const mci_run *run = &f->runs[index];
    FUZZ_CHECK(run->out_name && run->out_name[0], "run %d: no output name", index + 1);
    FUZZ_CHECK(strpbrk(run->out_name, " \t\n\v\f\r#") == NULL, "run %d: output name \"%s\"",
               index + 1, run->out_name);
    for (int j = 0; j < index; j++)
        FUZZ_CHECK(strcmp(f->runs[j].out_name, run->out_name) != 0, "runs %d and %d: name \"%s\"",
                   j + 1, index + 1, run->out_name);
    FUZZ_CHECK(run->out_format == 'A' || run->out_format == 'B', "format %d", run->out_format);
    FUZZ_CHECK(run->photons > 0, "photons %lld", (long long)run->photons);
    FUZZ_CHECK(clean_number(run->dz) && run->dz >= MCI_MIN_STEP, "dz %g", run->dz);
    FUZZ_CHECK(clean_number(run->dr) && run->dr >= MCI_MIN_STEP, "dr %g", run->dr);
    FUZZ_CHECK(run->nz > 0 && run->nr > 0 && run->na > 0, "grid %d %d %d", run->nz, run->nr,
               run->na);
    FUZZ_CHECK((int64_t)run->nr * run->nz <= MCI_MAX_BINS, "nr*nz %d*%d", run->nr, run->nz);
    FUZZ_CHECK((int64_t)run->nr * run->na <= MCI_MAX_BINS, "nr*na %d*%d", run->nr, run->na);
    FUZZ_CHECK(run->da == 0.5 * M_PI / run->na, "da %g", run->da);
    FUZZ_CHECK(run->num_layers > 0 && run->layers, "layers %d", run->num_layers);
    FUZZ_CHECK(run->line >= 1, "line %d", run->line);
    check_ambient(&run->layers[0], 0.0);
    FUZZ_CHECK(run->layers[1].z0 == 0, "layer 1: z0 = %g", run->layers[1].z0);
    for (int i = 1; i <= run->num_layers; i++)
        check_layer(run, i);
    check_ambient(&run->layers[run->num_layers + 1], run->layers[run->num_layers].z1);
}

static bool runs_equal(const mci_run *a, const mci_run *b)
{
    return strcmp(a->out_name, b->out_name) == 0 && a->out_format == b->out_format &&
           a->photons == b->photons && a->dz == b->dz && a->dr == b->dr && a->nz == b->nz &&
           a->nr == b->nr && a->na == b->na && a->da == b->da && a->num_layers == b->num_layers &&
           a->line == b->line &&
           memcmp(a->layers, b->layers, ((size_t)a->num_layers + 2) * sizeof *a->layers) == 0;
}

/* Lines of text as the reader counts them (ended by "\n", "\r\n" or "\r"). */
static int count_lines(const char *text)
{
    int lines = 0;
    for (const char *p = text; *p;) {
        lines++;
        p += strcspn(p, "\r\n");
        if (*p == '\r' && p[1] == '\n')
            p += 2;
        else if (*p)
            p++;
    }
    return lines;
}

static bool file_is_empty(const mci_file *f)
{
    return !f->path && !f->runs && f->num_runs == 0 && f->version == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4200];
    fuzz_path(path, sizeof path, "input.mci");
    char *text = fuzz_text(data, size);
    bool has_nul = memchr(data, '\0', size) != NULL;

    mci_file mem, file;
    tm_error mem_err = {0}, file_err = {0};
    bool mem_ok = mci_parse(text, path, &mem, &mem_err);
    fuzz_write_file(path, data, size);
    bool file_ok = mci_read(path, &file, &file_err);
    int lines = count_lines(text);
    free(text);

    if (mem_ok) {
        FUZZ_CHECK(strcmp(mem.path, path) == 0, "path \"%s\"", mem.path);
        FUZZ_CHECK(mem.version == 1.0, "version %g", mem.version);
        FUZZ_CHECK(mem.num_runs > 0 && mem.runs, "%d runs", mem.num_runs);
        for (int i = 0; i < mem.num_runs; i++) {
            check_run(&mem, i);
            FUZZ_CHECK(mem.runs[i].line <= lines, "run %d: line %d of %d", i + 1, mem.runs[i].line,
                       lines);
            mci_run copy;
            FUZZ_CHECK(mci_run_copy(&copy, &mem.runs[i]), "mci_run_copy failed");
            FUZZ_CHECK(runs_equal(&copy, &mem.runs[i]), "run %d: the copy differs", i + 1);
            mci_run_free(&copy);
        }
    } else {
        FUZZ_CHECK(file_is_empty(&mem), "a failed parse left data in the file");
        FUZZ_CHECK(mem_err.message[0], "a failed parse without a message");
        FUZZ_CHECK(mem_err.line >= 0 && mem_err.line <= lines, "error on line %d of %d: %s",
                   mem_err.line, lines, mem_err.message);
    }

    if (has_nul) {
        /* The file has a NUL byte (the text in memory ends there). */
        FUZZ_CHECK(!file_ok, "a file with a NUL byte was read");
        FUZZ_CHECK(strstr(file_err.message, "NUL byte") != NULL, "NUL byte: \"%s\"",
                   file_err.message);
    } else {
        FUZZ_CHECK(file_ok == mem_ok, "mci_read %d, mci_parse %d", file_ok, mem_ok);
        if (!mem_ok)
            FUZZ_CHECK(strcmp(mem_err.message, file_err.message) == 0 &&
                           mem_err.line == file_err.line &&
                           strcmp(mem_err.file, file_err.file) == 0,
                       "messages differ: %d \"%s\" and %d \"%s\"", mem_err.line, mem_err.message,
                       file_err.line, file_err.message);
        else {
            FUZZ_CHECK(file.num_runs == mem.num_runs, "%d and %d runs", file.num_runs,
                       mem.num_runs);
            for (int i = 0; i < mem.num_runs; i++)
                FUZZ_CHECK(runs_equal(&file.runs[i], &mem.runs[i]), "run %d differs", i + 1);
        }
    }
    if (!file_ok)
        FUZZ_CHECK(file_is_empty(&file), "a failed read left data in the file");
    mci_free(&mem);
    mci_free(&file);
    /* mci_free leaves an empty file, safe to free again. */
    mci_free(&mem);
    return 0;
}
