/* Reading MCML 1.2.2 input files (.mci).
 *
 * The format is MCML's (mcmlio.c): every value is read from the next "data
 * line", a line that is neither blank nor starts with '#'; text after '#' is a
 * comment.  Per file: version, number of runs; per run: output name and format,
 * photons, dz dr, nz nr na, number of layers, n above, one line per layer
 * (n mua mus g d), n below.
 *
 * Where MCML reads a line with sscanf and silently ignores what it does not
 * understand, we are stricter: every line must hold exactly the values
 * expected, every number must be written in full, and nothing may follow the
 * last run.  A typo then stops the program before hours of simulation instead
 * of producing a plausible but wrong .mco.  Deviations from MCML are marked
 * "Deviation" below.
 *
 * Parsing works on a private copy of the text, cut in place into lines and
 * tokens, so every token is an ordinary C string that strtod can read and an
 * error message can quote. */
#include "mci.h"
#include "fs.h"
#include "number_parse.h"
#include "tm_limits.h"
#include "user_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Enough for the widest line (a layer: 5 values) plus one extra to quote. */
#define MAX_TOKENS 6

/* ---- lines and tokens ------------------------------------------------------ */

typedef struct reader {
    char *pos;        /* start of the next unread line, in our copy of the text */
    int line_no;      /* number of the line read last (0 before the first) */
    const char *name; /* file name for messages */
    tm_error *err;
} reader;

typedef struct data_line {
    int line;  /* line number in the file */
    int count; /* tokens on the line, even beyond MAX_TOKENS */
    char *tok[MAX_TOKENS];
    bool hash_glued; /* '#' directly after a token, as in "a#b.mco" */
} data_line;

/* Cuts the next line out of the text (at "\n", "\r\n" or a lone "\r": files
 * written on any system read alike) and returns it, or NULL at the end. */
static char *next_line(reader *r)
{
    char *start = r->pos;
    if (*start == '\0')
        return NULL;
    char *end = start + strcspn(start, "\r\n");
    if (*end == '\r' && end[1] == '\n')
        r->pos = end + 2;
    else if (*end != '\0')
        r->pos = end + 1;
    else
        r->pos = end;
    *end = '\0';
    r->line_no++;
    return start;
}

/* Splits a line into whitespace-separated tokens, up to the first '#'. */
static void split_line(char *text, data_line *dl)
{
    char *hash = strchr(text, '#');
    if (hash) {
        dl->hash_glued = hash > text && !isspace((unsigned char)hash[-1]);
        *hash = '\0';
    }
    char *p = text;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        if (dl->count < MAX_TOKENS)
            dl->tok[dl->count] = p;
        dl->count++;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

/* MCML's FindDataLine: skips blank and comment lines.  False at the end of
 * the text. */
static bool next_data_line(reader *r, data_line *dl)
{
    char *text;
    while ((text = next_line(r)) != NULL) {
        memset(dl, 0, sizeof *dl);
        dl->line = r->line_no;
        split_line(text, dl);
        if (dl->count > 0)
            return true;
    }
    return false;
}

/* ---- errors --------------------------------------------------------------- */

/* run_index is 1-based; 0 for the lines before the first run. */
static bool fail_eof(reader *r, const char *expected, int run_index, int num_runs)
{
    if (run_index == 0)
        error_set(r->err, r->name, r->line_no, "unexpected end of file: expected %s", expected);
    else
        error_set(r->err, r->name, r->line_no,
                  "unexpected end of file: expected %s of run %d (the file declares %d run%s)",
                  expected, run_index, num_runs, num_runs == 1 ? "" : "s");
    return false;
}

static bool fail_oom(reader *r)
{
    error_set(r->err, r->name, r->line_no, "out of memory");
    return false;
}

/* what: the line's quantity ("dz, dr"); names: its values ("dz dr"). */
static bool expect_count(reader *r, const data_line *dl, int want, const char *what,
                         const char *names)
{
    if (dl->count < want) {
        error_set(r->err, r->name, dl->line, "%s: expected %d values (%s), found %d", what, want,
                  names, dl->count);
        return false;
    }
    if (dl->count > want) {
        error_set(r->err, r->name, dl->line,
                  "%s: unexpected extra value \"%.60s\" (expected %d value%s: %s)", what,
                  dl->tok[want], want, want == 1 ? "" : "s", names);
        return false;
    }
    return true;
}

/* ---- numbers ------------------------------------------------------------- */

/* The shared rule of numbers (base/number_parse.h): NaN, infinities,
 * overflow ("1e999") and values that are not zero but too small for a
 * normal double ("1e-400", "1e-320": g = 1e-320 once made every scattering
 * NaN) are refused with the text as written. */
static bool parse_double(reader *r, int line, const char *tok, const char *what, double *out)
{
    number_status s = number_parse(tok, out);
    if (s != NUMBER_OK)
        number_error_set(r->err, r->name, line, what, tok, s);
    return s == NUMBER_OK;
}

/* Integers must be written as decimal digits.  MCML reads them with %ld/%hd,
 * which stops at the first non-digit: "1e6" photons would run 1 photon and
 * "1.5" would be 1.  Rather than guess, such tokens are refused with the
 * value to write instead. */
static bool parse_int64(reader *r, int line, const char *tok, const char *what, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(tok, &end, 10);
    if (end != tok && *end == '\0') {
        if (errno == ERANGE) {
            error_set(r->err, r->name, line, "%s out of range (%.60s): at most %lld", what, tok,
                      (long long)INT64_MAX);
            return false;
        }
        *out = v;
        return true;
    }
    char *dend;
    double d = strtod(tok, &dend);
    if (dend != tok && *dend == '\0' && isfinite(d)) {
        if (d == floor(d) && fabs(d) < 1e18 && end != tok)
            error_set(r->err, r->name, line,
                      "%s: \"%.60s\" is not a decimal integer (MCML would read %lld); write %.0f",
                      what, tok, v, d);
        else if (d == floor(d) && fabs(d) < 1e18)
            error_set(r->err, r->name, line, "%s: \"%.60s\" is not a decimal integer; write %.0f",
                      what, tok, d);
        else if (d == floor(d))
            error_set(r->err, r->name, line, "%s: \"%.60s\" is not a decimal integer", what, tok);
        else
            error_set(r->err, r->name, line, "%s: not an integer (\"%.60s\")", what, tok);
        return false;
    }
    if (end == tok && dend == tok) {
        error_set(r->err, r->name, line, "%s: not a number (\"%.60s\")", what, tok);
        return false;
    }
    if (dend != tok && *dend == '\0') { /* "nan", "inf", "1e999" */
        error_set(r->err, r->name, line, "%s: not a finite number (\"%.60s\")", what, tok);
        return false;
    }
    error_set(r->err, r->name, line, "%s: unexpected characters after the number (\"%.60s\")", what,
              tok);
    return false;
}

/* A count that must be positive and fit in an int. */
static bool parse_count(reader *r, int line, const char *tok, const char *what, int *out)
{
    int64_t v;
    if (!parse_int64(r, line, tok, what, &v))
        return false;
    if (v <= 0) {
        error_set(r->err, r->name, line, "%s must be positive (%.60s)", what, tok);
        return false;
    }
    if (v > INT_MAX) {
        error_set(r->err, r->name, line, "%s out of range (%.60s): at most %d", what, tok, INT_MAX);
        return false;
    }
    *out = (int)v;
    return true;
}

static bool parse_positive(reader *r, int line, const char *tok, const char *what, double *out)
{
    if (!parse_double(r, line, tok, what, out))
        return false;
    if (!(*out > 0.0)) {
        error_set(r->err, r->name, line, "%s must be positive (%.60s)", what, tok);
        return false;
    }
    return true;
}

/* ---- the file header ------------------------------------------------------- */

/* Deviation: MCML skips the version line unread.  We require 1.0, the only
 * version there is, so that a file of another format is not misread. */
static bool read_version(reader *r, mci_file *f)
{
    data_line dl;
    if (!next_data_line(r, &dl)) {
        error_set(r->err, r->name, r->line_no,
                  "empty file: no data lines, expected the file version (1.0)");
        return false;
    }
    if (!expect_count(r, &dl, 1, "file version", "version"))
        return false;
    if (strncmp(dl.tok[0], "mcmli", 5) == 0) {
        error_set(r->err, r->name, dl.line,
                  "an MCML 2.0 input file (\"%.60s\"): tmcml reads MCML 1.x input files, "
                  "which begin with the file version 1.0",
                  dl.tok[0]);
        return false;
    }
    if (!parse_double(r, dl.line, dl.tok[0], "file version", &f->version))
        return false;
    if (f->version != 1.0) {
        error_set(r->err, r->name, dl.line,
                  "unsupported file version (%.60s): MCML 1.2.2 files have version 1.0", dl.tok[0]);
        return false;
    }
    return true;
}

static bool read_num_runs(reader *r, mci_file *f)
{
    data_line dl;
    if (!next_data_line(r, &dl))
        return fail_eof(r, "the number of runs", 0, 0);
    return expect_count(r, &dl, 1, "number of runs", "runs") &&
           parse_count(r, dl.line, dl.tok[0], "number of runs", &f->num_runs);
}

/* ---- one run --------------------------------------------------------------- */

typedef struct run_ctx {
    reader *r;
    const mci_file *f; /* runs read so far: f->runs[0 .. index-2] */
    int index;         /* 1-based */
    int declared;      /* runs the file declares */
} run_ctx;

static bool run_line(run_ctx *c, data_line *dl, const char *expected)
{
    if (next_data_line(c->r, dl))
        return true;
    return fail_eof(c->r, expected, c->index, c->declared);
}

static bool check_duplicate(run_ctx *c, const mci_run *run)
{
    for (int i = 0; i < c->index - 1; i++) {
        const mci_run *prev = &c->f->runs[i];
        if (strcmp(prev->out_name, run->out_name) == 0) {
            error_set(c->r->err, c->r->name, run->line,
                      "output name \"%.200s\" of run %d is already used by run %d (line %d)",
                      run->out_name, c->index, i + 1, prev->line);
            return false;
        }
    }
    return true;
}

/* "name A" (MCML: sscanf "%s %c").  The name is one token, kept as written. */
static bool read_name_format(run_ctx *c, mci_run *run)
{
    reader *r = c->r;
    data_line dl;
    if (!run_line(c, &dl, "the output name and format"))
        return false;
    run->line = dl.line;
    if (dl.count == 1) {
        error_set(r->err, r->name, dl.line,
                  "missing output format after the output name \"%.200s\" (expected A or B)%s",
                  dl.tok[0],
                  dl.hash_glued ? "; '#' starts a comment, so a name cannot contain it" : "");
        return false;
    }
    if (dl.count > 2) {
        error_set(r->err, r->name, dl.line,
                  "output name and format: unexpected extra value \"%.60s\" "
                  "(expected a name, which cannot contain spaces, and A or B)",
                  dl.tok[2]);
        return false;
    }
    const char *fmt = dl.tok[1];
    /* Deviation: MCML takes any letter other than B as A; we refuse it, as a
     * misplaced value is more likely than a new format. */
    char letter = (char)toupper((unsigned char)fmt[0]);
    if (fmt[1] != '\0' || (letter != 'A' && letter != 'B')) {
        error_set(r->err, r->name, dl.line, "output format must be A or B (\"%.60s\")", fmt);
        return false;
    }
    run->out_format = letter;
    run->out_name = strdup(dl.tok[0]);
    if (!run->out_name)
        return fail_oom(r);
    return check_duplicate(c, run);
}

static bool read_photons(run_ctx *c, mci_run *run)
{
    reader *r = c->r;
    data_line dl;
    if (!run_line(c, &dl, "the number of photons") ||
        !expect_count(r, &dl, 1, "number of photons", "photons"))
        return false;
    if (!parse_int64(r, dl.line, dl.tok[0], "number of photons", &run->photons))
        return false;
    if (run->photons <= 0) {
        error_set(r->err, r->name, dl.line, "number of photons must be positive (%.60s)",
                  dl.tok[0]);
        return false;
    }
    return true;
}

static bool check_step(reader *r, int line, const char *tok, const char *what, double v)
{
    if (v >= MCI_MIN_STEP)
        return true;
    error_set(r->err, r->name, line, "%s must be at least %g cm (%.60s)", what, MCI_MIN_STEP, tok);
    return false;
}

static bool read_dz_dr(run_ctx *c, mci_run *run)
{
    reader *r = c->r;
    data_line dl;
    return run_line(c, &dl, "dz and dr") && expect_count(r, &dl, 2, "dz, dr", "dz dr") &&
           parse_positive(r, dl.line, dl.tok[0], "dz", &run->dz) &&
           parse_positive(r, dl.line, dl.tok[1], "dr", &run->dr) &&
           check_step(r, dl.line, dl.tok[0], "dz", run->dz) &&
           check_step(r, dl.line, dl.tok[1], "dr", run->dr);
}

static bool check_bins(reader *r, int line, const char *what, int64_t a, int64_t b)
{
    if (a * b <= MCI_MAX_BINS)
        return true;
    error_set(r->err, r->name, line,
              "grid too large: %s = %lld*%lld = %lld bins, more than %lld (2^27); "
              "the arrays would not fit in memory",
              what, (long long)a, (long long)b, (long long)(a * b), (long long)MCI_MAX_BINS);
    return false;
}

static bool read_grid(run_ctx *c, mci_run *run)
{
    reader *r = c->r;
    data_line dl;
    if (!run_line(c, &dl, "nz, nr and na") || !expect_count(r, &dl, 3, "nz, nr, na", "nz nr na") ||
        !parse_count(r, dl.line, dl.tok[0], "nz", &run->nz) ||
        !parse_count(r, dl.line, dl.tok[1], "nr", &run->nr) ||
        !parse_count(r, dl.line, dl.tok[2], "na", &run->na))
        return false;
    if (!check_bins(r, dl.line, "nr*nz", run->nr, run->nz) ||
        !check_bins(r, dl.line, "nr*na", run->nr, run->na))
        return false;
    run->da = 0.5 * M_PI / run->na;
    return true;
}

static bool read_num_layers(run_ctx *c, mci_run *run)
{
    reader *r = c->r;
    data_line dl;
    if (!run_line(c, &dl, "the number of layers") ||
        !expect_count(r, &dl, 1, "number of layers", "layers") ||
        !parse_count(r, dl.line, dl.tok[0], "number of layers", &run->num_layers))
        return false;
    if (run->num_layers > INT_MAX - 2) { /* layers[] has num_layers + 2 entries */
        error_set(r->err, r->name, dl.line, "number of layers out of range (%.60s): at most %d",
                  dl.tok[0], INT_MAX - 2);
        return false;
    }
    return true;
}

/* side: "above" or "below". */
/* Deviation: MCML takes any positive n; we take MCI_MIN_N..MCI_MAX_N. */
static bool check_index(reader *r, int line, const char *tok, const char *what, double n)
{
    if (n >= MCI_MIN_N && n <= MCI_MAX_N)
        return true;
    error_set(r->err, r->name, line, "%s must be between %g and %g (%.60s)", what, MCI_MIN_N,
              MCI_MAX_N, tok);
    return false;
}

static bool read_ambient(run_ctx *c, const char *side, mci_layer *layer)
{
    reader *r = c->r;
    char what[64], expected[64];
    snprintf(what, sizeof what, "n of the medium %s", side);
    snprintf(expected, sizeof expected, "the refractive index of the medium %s", side);
    data_line dl;
    return run_line(c, &dl, expected) && expect_count(r, &dl, 1, what, "n") &&
           parse_positive(r, dl.line, dl.tok[0], what, &layer->n) &&
           check_index(r, dl.line, dl.tok[0], what, layer->n);
}

static bool layer_value(reader *r, const data_line *dl, int i, int k, double *out)
{
    static const char *const names[] = {"n", "mua", "mus", "g", "d"};
    char what[48];
    snprintf(what, sizeof what, "layer %d: %s", i, names[k]);
    return parse_double(r, dl->line, dl->tok[k], what, out);
}

static bool layer_range(reader *r, const data_line *dl, int i, bool ok, const char *what, int k)
{
    if (!ok)
        error_set(r->err, r->name, dl->line, "layer %d: %s (%.60s)", i, what, dl->tok[k]);
    return ok;
}

/* 0, or within [MCI_MIN_COEFFICIENT, MCI_MAX_COEFFICIENT] (tm_limits.h). */
static bool coefficient_in_range(double mu)
{
    return mu == 0.0 || (mu >= MCI_MIN_COEFFICIENT && mu <= MCI_MAX_COEFFICIENT);
}

/* A layer of thickness d whose bottom is at depth z1 must not vanish in
 * double-precision depths (MCI_MIN_LAYER_FRACTION). */
static bool layer_resolved(reader *r, const data_line *dl, int i, double d, double z1)
{
    if (d == 0.0 || d >= z1 * MCI_MIN_LAYER_FRACTION)
        return true;
    error_set(r->err, r->name, dl->line,
              "layer %d: d = %g cm at a depth of %g cm is below 2^-40 of its depth, which "
              "double-precision depths cannot resolve: make the layers above it thinner",
              i, d, z1);
    return false;
}

/* "n mua mus g d" of layer i (MCML's ReadOneLayer); *depth: the depth of its
 * top, then of its bottom. */
static bool read_layer(run_ctx *c, int i, mci_layer *layer, double *depth)
{
    reader *r = c->r;
    char what[32], expected[48];
    snprintf(what, sizeof what, "layer %d", i);
    snprintf(expected, sizeof expected, "layer %d (n mua mus g d)", i);
    data_line dl;
    if (!run_line(c, &dl, expected) || !expect_count(r, &dl, 5, what, "n mua mus g d"))
        return false;
    double *v[5] = {&layer->n, &layer->mua, &layer->mus, &layer->g, &layer->d};
    for (int k = 0; k < 5; k++)
        if (!layer_value(r, &dl, i, k, v[k]))
            return false;
    /* Deviation: MCML refuses g < 0.  Henyey-Greenstein is defined for the
     * whole of [-1, 1] and backward-peaked media are real, so we accept g in
     * [-1, 0) too (docs/physics.md, "Accepted input beyond MCML"); only
     * |g| > 1, which is no phase function, is refused.  d = 0 is allowed, as
     * in MCML. */
    return layer_range(r, &dl, i, layer->n > 0.0, "n must be positive", 0) &&
           layer_range(r, &dl, i, layer->n >= MCI_MIN_N && layer->n <= MCI_MAX_N,
                       "n must be between 0.01 and 100", 0) &&
           layer_range(r, &dl, i, layer->mua >= 0.0, "mua must not be negative", 1) &&
           layer_range(r, &dl, i, coefficient_in_range(layer->mua),
                       "mua must be 0 or between 1e-12 and 1e12 /cm", 1) &&
           layer_range(r, &dl, i, layer->mus >= 0.0, "mus must not be negative", 2) &&
           layer_range(r, &dl, i, coefficient_in_range(layer->mus),
                       "mus must be 0 or between 1e-12 and 1e12 /cm", 2) &&
           layer_range(r, &dl, i, layer->g >= -1.0 && layer->g <= 1.0, "g must be between -1 and 1",
                       3) &&
           layer_range(r, &dl, i, layer->d >= 0.0, "d must not be negative", 4) &&
           layer_resolved(r, &dl, i, layer->d, *depth += layer->d);
}

/* Grows run->layers to hold at least `need` entries.  The array is grown as
 * layers are read, not allocated from the declared count, so that a file
 * declaring 2000000000 layers fails at its end, not in malloc. */
static bool reserve_layers(reader *r, mci_run *run, size_t need, size_t *cap)
{
    if (need <= *cap)
        return true;
    size_t max = (size_t)run->num_layers + 2;
    size_t n = *cap ? *cap : 8;
    while (n < need)
        n = n > max / 2 ? max : n * 2;
    if (n > max)
        n = max;
    mci_layer *p = realloc(run->layers, n * sizeof *p);
    if (!p)
        return fail_oom(r);
    memset(p + *cap, 0, (n - *cap) * sizeof *p);
    run->layers = p;
    *cap = n;
    return true;
}

/* Depths and critical angles, as MCML's ReadOneLayer and CriticalAngle. */
static void derive_layers(mci_run *run)
{
    mci_layer *l = run->layers;
    int nl = run->num_layers;
    double z = 0.0;
    for (int i = 1; i <= nl; i++) {
        l[i].z0 = z;
        z += l[i].d;
        l[i].z1 = z;
    }
    l[nl + 1].z0 = l[nl + 1].z1 = z;
    for (int i = 1; i <= nl; i++) {
        double n1 = l[i].n, n2 = l[i - 1].n;
        l[i].cos_crit0 = n1 > n2 ? sqrt(1.0 - n2 * n2 / (n1 * n1)) : 0.0;
        n2 = l[i + 1].n;
        l[i].cos_crit1 = n1 > n2 ? sqrt(1.0 - n2 * n2 / (n1 * n1)) : 0.0;
    }
}

static bool read_layers(run_ctx *c, mci_run *run)
{
    size_t cap = 0;
    if (!reserve_layers(c->r, run, 2, &cap) || !read_ambient(c, "above", &run->layers[0]))
        return false;
    double depth = 0.0;
    for (int i = 1; i <= run->num_layers; i++)
        if (!reserve_layers(c->r, run, (size_t)i + 1, &cap) ||
            !read_layer(c, i, &run->layers[i], &depth))
            return false;
    int below = run->num_layers + 1;
    if (!reserve_layers(c->r, run, (size_t)below + 1, &cap) ||
        !read_ambient(c, "below", &run->layers[below]))
        return false;
    derive_layers(run);
    return true;
}

static bool read_run(run_ctx *c, mci_run *run)
{
    return read_name_format(c, run) && read_photons(c, run) && read_dz_dr(c, run) &&
           read_grid(c, run) && read_num_layers(c, run) && read_layers(c, run);
}

static bool read_runs(reader *r, mci_file *f)
{
    int declared = f->num_runs;
    int cap = declared < 16 ? declared : 16; /* grown as runs are read, see reserve_layers */
    f->num_runs = 0; /* runs filled so far, so that mci_free frees just those */
    f->runs = calloc((size_t)cap, sizeof *f->runs);
    if (!f->runs)
        return fail_oom(r);
    for (int i = 1; i <= declared; i++) {
        if (i > cap) {
            int n = cap > declared / 2 ? declared : cap * 2;
            mci_run *p = realloc(f->runs, (size_t)n * sizeof *p);
            if (!p)
                return fail_oom(r);
            memset(p + cap, 0, (size_t)(n - cap) * sizeof *p);
            f->runs = p;
            cap = n;
        }
        run_ctx c = {r, f, i, declared};
        f->num_runs = i;
        if (!read_run(&c, &f->runs[i - 1]))
            return false;
    }
    return true;
}

/* Deviation: MCML ignores whatever follows the last declared run.  Such data
 * is almost always a run the user meant to add without raising the number of
 * runs, so we say so. */
static bool check_end(reader *r, const mci_file *f)
{
    data_line dl;
    if (!next_data_line(r, &dl))
        return true;
    error_set(r->err, r->name, dl.line,
              "unexpected data after run %d (\"%.60s\"): the file declares %d run%s", f->num_runs,
              dl.tok[0], f->num_runs, f->num_runs == 1 ? "" : "s");
    return false;
}

/* ---- the public interface ---------------------------------------------------- */

bool mci_parse(const char *text, const char *name, mci_file *file, tm_error *err)
{
    memset(file, 0, sizeof *file);
    if (!name)
        name = "<input>";
    mci_file f = {0};
    char *copy = strdup(text);
    f.path = strdup(name);
    reader r = {copy, 0, name, err};
    bool ok;
    if (!copy || !f.path) {
        ok = fail_oom(&r);
    } else {
        r.pos += user_text_skip_bom(r.pos) - r.pos;
        ok =
            read_version(&r, &f) && read_num_runs(&r, &f) && read_runs(&r, &f) && check_end(&r, &f);
    }
    free(copy);
    if (!ok) {
        mci_free(&f);
        return false;
    }
    *file = f;
    return true;
}

bool mci_read(const char *path, mci_file *file, tm_error *err)
{
    memset(file, 0, sizeof *file);
    /* The byte-order mark is left to mci_parse, which skips it for text
     * from memory too: the file and its bytes in memory read alike. */
    size_t size = 0;
    char *text = fs_read_file(path, MCI_MAX_FILE_BYTES, false, &size, err);
    if (!text)
        return false;
    bool ok = user_text_check(path, text, size, err) && mci_parse(text, path, file, err);
    free(text);
    return ok;
}

void mci_run_free(mci_run *run)
{
    if (!run)
        return;
    free(run->out_name);
    free(run->layers);
    free(run->fx);
    free(run->mod_hz);
    memset(run, 0, sizeof *run);
}

void mci_free(mci_file *file)
{
    if (!file)
        return;
    for (int i = 0; i < file->num_runs; i++)
        mci_run_free(&file->runs[i]);
    free(file->runs);
    free(file->path);
    memset(file, 0, sizeof *file);
}

bool mci_list_copy(const double *src, int count, double **dst, int *dst_count)
{
    size_t n = src && count > 0 ? (size_t)count : 0;
    *dst = n ? malloc(n * sizeof **dst) : NULL;
    *dst_count = *dst ? (int)n : 0;
    if (*dst)
        memcpy(*dst, src, n * sizeof **dst);
    return *dst || n == 0;
}

bool mci_run_copy(mci_run *dst, const mci_run *src)
{
    *dst = *src;
    dst->out_name = NULL;
    dst->layers = NULL;
    size_t n = (size_t)src->num_layers + 2;
    bool lists = mci_list_copy(src->fx, src->fx_count, &dst->fx, &dst->fx_count);
    lists = mci_list_copy(src->mod_hz, src->mod_count, &dst->mod_hz, &dst->mod_count) && lists;
    if (src->out_name)
        dst->out_name = strdup(src->out_name);
    if (src->layers)
        dst->layers = malloc(n * sizeof *dst->layers);
    if ((src->out_name && !dst->out_name) || (src->layers && !dst->layers) || !lists) {
        mci_run_free(dst);
        return false;
    }
    if (src->layers)
        memcpy(dst->layers, src->layers, n * sizeof *dst->layers);
    return true;
}
