/* Reading an MCML .mco back (runtime/io/mco.h): MCML's own files,
 * CUDAMCML's and ours; the validation tests and the library read them. */
#include "mco.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modulation.h"
#include "run_options.h"
#include "spatial_frequencies.h"
#include "time_bins.h"
#include "tm_limits.h"
#include "user_text.h"
#include "xy_grid.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- reading ---------------------------------------------------------------
 *
 * The file is split into lines; everything from '#' to the end of a line is a
 * comment.  Tokens are whitespace-separated and may run across lines, so the
 * reader accepts MCML's layout (one number a line for 1D arrays, five for 2D)
 * and any other.  Sections are found by their name tokens, in any order;
 * each must appear exactly once, after InParm, which gives the counts. */

typedef struct mco_cursor {
    const char *path;
    char **line; /* line starts, NUL-terminated, comments cut off */
    int nlines;
    int li;        /* current line (0-based) */
    const char *p; /* position in line li */
    tm_error *err;
} mco_cursor;

typedef struct mco_token {
    const char *s;
    size_t len;
    int line;   /* 1-based */
    bool first; /* first token of its line */
} mco_token;

/* The sections: RAT, then output_table[]'s rows (section i is row i - 1). */
enum { MCO_RAT, MCO_NUM_SECTIONS = 1 + OUTPUT_ARRAYS };

static const char *mco_section_name(int i)
{
    return i == MCO_RAT ? "RAT" : output_table[i - 1].name;
}

static bool mco_tok_is(const mco_token *t, const char *word)
{
    return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

static int mco_section_index(const mco_token *t)
{
    for (int i = 0; i < MCO_NUM_SECTIONS; i++)
        if (mco_tok_is(t, mco_section_name(i)))
            return i;
    return -1;
}

/* Next token, or false at the end of the file. */
static bool mco_next(mco_cursor *c, mco_token *t)
{
    while (c->li < c->nlines) {
        while (*c->p && isspace((unsigned char)*c->p))
            c->p++;
        if (*c->p) {
            t->first = strspn(c->line[c->li], " \t\r\v\f") == (size_t)(c->p - c->line[c->li]);
            t->s = c->p;
            while (*c->p && !isspace((unsigned char)*c->p))
                c->p++;
            t->len = (size_t)(c->p - t->s);
            t->line = c->li + 1;
            return true;
        }
        if (++c->li < c->nlines)
            c->p = c->line[c->li];
    }
    return false;
}

/* Moves to the start of the next line with data. */
static bool mco_next_data_line(mco_cursor *c)
{
    mco_token t;
    if (!mco_next(c, &t))
        return false;
    c->p = t.s;
    return true;
}

static int mco_last_line(const mco_cursor *c) { return c->nlines > 0 ? c->nlines : 1; }

/* t as a C string in buf; false when empty or longer than size - 1 (no
 * number is that long). */
static bool mco_token_text(const mco_token *t, char *buf, size_t size)
{
    if (t->len == 0 || t->len >= size)
        return false;
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    return true;
}

static bool mco_parse_double(const mco_token *t, double *out)
{
    char buf[64], *end;
    if (!mco_token_text(t, buf, sizeof buf))
        return false;
    errno = 0;
    double v = strtod(buf, &end);
    /* ERANGE on underflow is harmless (a denormal or 0 is the right value). */
    if (*end || (errno == ERANGE && fabs(v) == HUGE_VAL))
        return false;
    *out = v;
    return true;
}

static bool mco_parse_int64(const mco_token *t, int64_t *out)
{
    char buf[32], *end;
    if (!mco_token_text(t, buf, sizeof buf))
        return false;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (*end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

/* Reads n numbers of section `what` into out (out may be NULL to skip). */
static bool mco_read_numbers(mco_cursor *c, const char *what, double *out, long n)
{
    for (long k = 0; k < n; k++) {
        mco_token t;
        if (!mco_next(c, &t)) {
            error_set(c->err, c->path, mco_last_line(c),
                      "file ends in %s after %ld of %ld values (truncated?)", what, k, n);
            return false;
        }
        double v;
        if (!mco_parse_double(&t, &v)) {
            if (t.first && mco_section_index(&t) >= 0)
                error_set(c->err, c->path, t.line, "%s has only %ld of %ld values before %.*s",
                          what, k, n, (int)t.len, t.s);
            else
                error_set(c->err, c->path, t.line, "bad number '%.*s' in %s (value %ld of %ld)",
                          (int)t.len, t.s, what, k + 1, n);
            return false;
        }
        if (out)
            out[k] = v;
    }
    return true;
}

static bool mco_read_count(mco_cursor *c, const char *what, int64_t min, int64_t max, int64_t *out)
{
    mco_token t;
    if (!mco_next(c, &t)) {
        error_set(c->err, c->path, mco_last_line(c), "file ends before %s in InParm (truncated?)",
                  what);
        return false;
    }
    if (!mco_parse_int64(&t, out) || *out < min || *out > max) {
        error_set(c->err, c->path, t.line, "bad %s '%.*s' in InParm", what, (int)t.len, t.s);
        return false;
    }
    return true;
}

/* dz or dr: the .mci's rule (MCI_MIN_STEP), since the arrays are binned
 * and normalised by them (a dz of 0 divides by zero). */
static bool mco_read_step(mco_cursor *c, const char *what, double *out)
{
    mco_token t;
    if (!mco_next(c, &t)) {
        error_set(c->err, c->path, mco_last_line(c), "file ends before %s in InParm (truncated?)",
                  what);
        return false;
    }
    if (!mco_parse_double(&t, out)) {
        error_set(c->err, c->path, t.line, "bad number '%.*s' for %s in InParm", (int)t.len, t.s,
                  what);
        return false;
    }
    if (!(*out >= MCI_MIN_STEP) || !isfinite(*out)) {
        error_set(c->err, c->path, t.line, "%s = %.*s in InParm: it must be at least %g cm", what,
                  (int)t.len, t.s, MCI_MIN_STEP);
        return false;
    }
    return true;
}

static bool mco_read_int(mco_cursor *c, const char *what, int *out)
{
    int64_t v;
    if (!mco_read_count(c, what, 1, INT_MAX, &v))
        return false;
    *out = (int)v;
    return true;
}

/* The output-name line: the name is everything before the last token (the
 * format letter MCML always writes as "A"), so names with spaces survive. */
static bool mco_read_name(mco_cursor *c, mci_run *run)
{
    if (!mco_next_data_line(c)) {
        error_set(c->err, c->path, mco_last_line(c), "file ends in InParm (truncated?)");
        return false;
    }
    char *line = c->line[c->li];
    size_t end = strlen(line);
    while (end > 0 && isspace((unsigned char)line[end - 1]))
        end--;
    size_t last = end;
    while (last > 0 && !isspace((unsigned char)line[last - 1]))
        last--;
    size_t name_end = last;
    while (name_end > 0 && isspace((unsigned char)line[name_end - 1]))
        name_end--;
    size_t start = (size_t)(c->p - line);
    if (name_end <= start) /* a single token: take it as the name */
        name_end = end;
    run->out_name = strndup(c->p, name_end - start);
    if (!run->out_name) {
        error_set(c->err, c->path, c->li + 1, "out of memory");
        return false;
    }
    run->line = c->li + 1;
    c->p = line + end;
    return true;
}

/* MCML's CriticalAngle: cosines of the critical angles of layer i. */
static void mco_fill_layers(mci_run *run)
{
    mci_layer *l = run->layers;
    double z = 0.0;
    for (int i = 1; i <= run->num_layers; i++) {
        l[i].z0 = z;
        z += l[i].d;
        l[i].z1 = z;
        double n1 = l[i].n, n2 = l[i - 1].n;
        l[i].cos_crit0 = n1 > n2 ? sqrt(1.0 - n2 * n2 / (n1 * n1)) : 0.0;
        n2 = l[i + 1].n;
        l[i].cos_crit1 = n1 > n2 ? sqrt(1.0 - n2 * n2 / (n1 * n1)) : 0.0;
    }
    l[run->num_layers + 1].z0 = l[run->num_layers + 1].z1 = z;
}

static bool mco_read_inparm(mco_cursor *c, mci_run *run)
{
    int64_t photons;
    if (!mco_read_name(c, run) || !mco_read_count(c, "photon count", 1, INT64_MAX, &photons) ||
        !mco_read_step(c, "dz", &run->dz) || !mco_read_step(c, "dr", &run->dr) ||
        !mco_read_int(c, "nz", &run->nz) || !mco_read_int(c, "nr", &run->nr) ||
        !mco_read_int(c, "na", &run->na) || !mco_read_int(c, "number of layers", &run->num_layers))
        return false;
    run->photons = photons;
    run->da = 0.5 * M_PI / run->na;
    run->layers = calloc((size_t)run->num_layers + 2, sizeof *run->layers);
    if (!run->layers) {
        error_set(c->err, c->path, c->li + 1, "out of memory for %d layers", run->num_layers);
        return false;
    }
    if (!mco_read_numbers(c, "InParm (n above)", &run->layers[0].n, 1))
        return false;
    for (int i = 1; i <= run->num_layers; i++) {
        double v[5];
        if (!mco_read_numbers(c, "InParm (layers)", v, 5))
            return false;
        run->layers[i] = (mci_layer){.n = v[0], .mua = v[1], .mus = v[2], .g = v[3], .d = v[4]};
    }
    if (!mco_read_numbers(c, "InParm (n below)", &run->layers[run->num_layers + 1].n, 1))
        return false;
    mco_fill_layers(run);
    return true;
}

static bool mco_read_section(mco_cursor *c, int i, mcml_result *res)
{
    if (i != MCO_RAT) {
        const output_array *o = &output_table[i - 1];
        output_grid g = result_grid(res);
        if (o->option == OUTPUT_OPTION_PATHS && !result_alloc_paths(res)) {
            error_set(c->err, c->path, c->li + 1, "out of memory for the path lengths");
            return false;
        }
        if (!res->array[i - 1]) {
            error_set(c->err, c->path, c->li + 1,
                      "section %s without the header comment that gives its %s", o->name,
                      o->option == OUTPUT_OPTION_TIME  ? "time bins"
                      : o->option == OUTPUT_OPTION_FX  ? "spatial frequencies"
                      : o->option == OUTPUT_OPTION_MOD ? "modulation frequencies"
                                                       : "detector");
            return false;
        }
        return mco_read_numbers(c, o->name, res->array[i - 1] + output_first(o),
                                (long)output_bins(o, &g));
    }
    double rat[4];
    if (!mco_read_numbers(c, "RAT", rat, 4))
        return false;
    res->rsp = rat[0];
    res->rd = rat[1];
    res->a = rat[2];
    res->tt = rat[3];
    return true;
}

static bool mco_read_sections(mco_cursor *c, mcml_result *res)
{
    bool seen[MCO_NUM_SECTIONS] = {false};
    mco_token t;
    while (mco_next(c, &t)) {
        int i = mco_section_index(&t);
        if (i < 0 || !t.first) {
            error_set(c->err, c->path, t.line,
                      "unexpected '%.*s': expected a section name (too many values before it?)",
                      (int)t.len, t.s);
            return false;
        }
        if (seen[i]) {
            error_set(c->err, c->path, t.line, "section %s appears twice", mco_section_name(i));
            return false;
        }
        seen[i] = true;
        /* The rest of the name line is its description. */
        c->p += strlen(c->p);
        if (!mco_read_section(c, i, res))
            return false;
    }
    /* The optional sections (tmcml's path lengths, after MCML's) come all
     * or none. */
    bool paths = result_has_paths(res);
    for (int i = 0; i < MCO_NUM_SECTIONS; i++)
        if (!seen[i] && (i == MCO_RAT || !output_table[i - 1].option ||
                         (output_table[i - 1].option == OUTPUT_OPTION_PATHS && paths) ||
                         (output_table[i - 1].option == OUTPUT_OPTION_TIME && res->nt) ||
                         (output_table[i - 1].option == OUTPUT_OPTION_FIBER && res->detectors) ||
                         (output_table[i - 1].option == OUTPUT_OPTION_FX && res->frequencies) ||
                         (output_table[i - 1].option == OUTPUT_OPTION_MOD && res->modulations))) {
            error_set(c->err, c->path, mco_last_line(c),
                      "file ends without section %s (truncated?)", mco_section_name(i));
            return false;
        }
    return true;
}

/* The last comment line before InParm (MCML's time line), after "# ";
 * NULL when there is none. */
/* The options a run of ours recorded in comment lines before InParm
 * (run_options_describe): its time bins, detector, spatial and modulation
 * frequencies into *run. */
static void mco_read_options(char *const *raw, int nlines, mci_run *run)
{
    for (int i = 0; i < nlines; i++) {
        const char *data = raw[i] + strspn(raw[i], " \t");
        if (strncmp(data, "InParm", 6) == 0)
            break;
        if (data[0] == '#')
            run_options_parse_line(data + 1 + (data[1] == ' '), run);
    }
}

static char *mco_comment(char *const *raw, int nlines)
{
    const char *last = NULL;
    for (int i = 0; i < nlines; i++) {
        const char *data = raw[i] + strspn(raw[i], " \t");
        if (strncmp(data, "InParm", 6) == 0)
            break;
        if (data[0] == '#' && data[1] != '#')
            last = data[1] == ' ' ? data + 2 : data + 1;
    }
    return last ? strdup(last) : NULL;
}

bool mco_read_digest(const char *path, uint64_t *digest, tm_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        error_set(err, path, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    /* Our head is a dozen short lines; MCML's a few more. */
    char line[4096];
    bool found = false;
    for (int i = 0; !found && i < 64 && fgets(line, sizeof line, f); i++) {
        const char *data = line + strspn(line, " \t");
        if (strncmp(data, "InParm", 6) == 0)
            break;
        const char *word = data[0] == '#' ? strstr(data, MCO_DIGEST_WORD) : NULL;
        char *end = NULL;
        if (word) {
            errno = 0;
            unsigned long long v = strtoull(word + strlen(MCO_DIGEST_WORD), &end, 16);
            found = errno == 0 && end == word + strlen(MCO_DIGEST_WORD) + 16;
            *digest = (uint64_t)v;
        }
    }
    fclose(f);
    if (!found)
        error_set(err, path, 0, "names no tallies digest (not written by this tmcml)");
    return found;
}

/* The source of "# Source: ... (--source TEXT)" before InParm; the pencil
 * beam when there is no such line.  False (*err) on a line whose TEXT is
 * not a source. */
static bool mco_source(char *const *raw, int nlines, const char *path, source_desc *source,
                       tm_error *err)
{
    *source = (source_desc){0};
    for (int i = 0; i < nlines; i++) {
        const char *data = raw[i] + strspn(raw[i], " \t");
        if (strncmp(data, "InParm", 6) == 0)
            break;
        const char *word =
            strncmp(data, "# Source:", 9) == 0 ? strstr(data, "(" MCO_SOURCE_WORD) : NULL;
        const char *close = word ? strchr(word, ')') : NULL;
        if (!close)
            continue;
        char text[200];
        size_t skip = 1 + strlen(MCO_SOURCE_WORD), len = (size_t)(close - word) - skip;
        snprintf(text, sizeof text, "%.*s", (int)len, word + skip);
        if (source_parse(text, "source", source, err))
            return true;
        tm_error at = *err;
        error_set(err, path, i + 1, "%s", at.message);
        return false;
    }
    return true;
}

/* "# User time: <seconds> sec = ..." anywhere before InParm; 0 when absent. */
static double mco_user_time(char *const *raw, int nlines)
{
    for (int i = 0; i < nlines; i++) {
        const char *hash = strchr(raw[i], '#');
        const char *u = hash ? strstr(hash, "User time:") : NULL;
        if (u)
            return strtod(u + strlen("User time:"), NULL);
        const char *data = raw[i] + strspn(raw[i], " \t");
        if (strncmp(data, "InParm", 6) == 0)
            break;
    }
    return 0.0;
}

/* Splits text into lines in place; comments are cut after the user time
 * has been found. */
static char **mco_split_lines(char *text, int *nlines)
{
    size_t cap = 1024;
    int n = 0;
    char **line = malloc(cap * sizeof *line);
    char *p = text;
    while (line && *p) {
        if ((size_t)n == cap) {
            char **bigger = realloc(line, 2 * cap * sizeof *line);
            if (!bigger) {
                free(line);
                return NULL;
            }
            line = bigger;
            cap *= 2;
        }
        line[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    *nlines = n;
    return line;
}

static void mco_cut_comments(char **line, int nlines)
{
    for (int i = 0; i < nlines; i++) {
        char *hash = strchr(line[i], '#');
        if (hash)
            *hash = '\0';
    }
}

/* The version token ("A1", or "B1" when the input asked for binary). */
static bool mco_read_header(mco_cursor *c, mci_run *run)
{
    mco_token t;
    if (!mco_next(c, &t)) {
        error_set(c->err, c->path, 0, "empty file: not an MCML .mco file");
        return false;
    }
    if (!mco_tok_is(&t, "A1") && !mco_tok_is(&t, "B1")) {
        error_set(c->err, c->path, t.line, "not an MCML .mco file: expected A1 or B1, found '%.*s'",
                  (int)t.len, t.s);
        return false;
    }
    run->out_format = t.s[0];
    if (!mco_next(c, &t)) {
        error_set(c->err, c->path, mco_last_line(c), "file ends before InParm (truncated?)");
        return false;
    }
    if (!mco_tok_is(&t, "InParm")) {
        error_set(c->err, c->path, t.line, "expected InParm, found '%.*s'", (int)t.len, t.s);
        return false;
    }
    c->p += strlen(c->p);
    return true;
}

/* A file too short to hold the values the grid needs is truncated; saying
 * so before allocating keeps a corrupt count from asking for terabytes. */
static bool mco_check_size(mco_cursor *c, const mci_run *run, size_t size)
{
    const output_grid g = {
        .nr = run->nr, .nz = run->nz, .na = run->na, .num_layers = run->num_layers};
    double values = 4; /* RAT */
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (!output_table[i].option)
            values += (double)output_bins(&output_table[i], &g);
    if (values * 2 <= (double)size)
        return true;
    error_set(c->err, c->path, mco_last_line(c),
              "file too short for a %d x %d x %d grid (nr, nz, na): truncated or corrupt", run->nr,
              run->nz, run->na);
    return false;
}

/* The time, detector, spatial-frequency, frequency-domain and Cartesian
 * arrays the header's comments announce: their sections must follow.  Values out of range are refused as corrupt. */
static bool mco_alloc_options(const mci_run *run, mcml_result *res, const char *path, tm_error *err)
{
    if (run->time_nt != 0 &&
        !time_bins_check("time bins", run->time_dt, run->time_nt, run->nr, err))
        return false;
    if (run->time_nt > 0 && !result_alloc_time(res, run->time_nt)) {
        error_set(err, path, 0, "out of memory for the arrays");
        return false;
    }
    if (run->fiber_count > 0 && !result_alloc_detectors(res, run->fiber_count)) {
        error_set(err, path, 0, "out of memory for the arrays");
        return false;
    }
    if (run->fx_count > 0 &&
        !spatial_frequencies_check("spatial frequencies", run->fx, run->fx_count, err))
        return false;
    if (run->fx_count > 0 && !result_alloc_fx(res, run->fx_count)) {
        error_set(err, path, 0, "out of memory for the arrays");
        return false;
    }
    if (run->mod_count > 0 &&
        !modulation_check("modulation frequencies", run->mod_hz, run->mod_count, err))
        return false;
    if (run->mod_count > 0 && !result_alloc_mod(res, run->mod_count)) {
        error_set(err, path, 0, "out of memory for the arrays");
        return false;
    }
    if (run->xy_nx != 0 && !xy_grid_check("Cartesian grid", run->xy_dx, run->xy_nx, run->nz, err))
        return false;
    if (run->xy_nx > 0 && !result_alloc_xy(res, run->xy_nx)) {
        error_set(err, path, 0, "out of memory for the arrays");
        return false;
    }
    return true;
}

static bool mco_parse(char *text, size_t size, const char *path, mco_data *out, tm_error *err)
{
    mco_cursor c = {.path = path, .err = err};
    c.line = mco_split_lines(text, &c.nlines);
    if (!c.line) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    out->user_seconds = mco_user_time(c.line, c.nlines);
    out->comment = mco_comment(c.line, c.nlines);
    source_desc source;
    bool ok = mco_source(c.line, c.nlines, path, &source, err);
    mco_read_options(c.line, c.nlines, &out->run);
    mco_cut_comments(c.line, c.nlines);
    c.p = c.nlines > 0 ? c.line[0] : "";
    ok = ok && mco_read_header(&c, &out->run) && mco_read_inparm(&c, &out->run) &&
         mco_check_size(&c, &out->run, size);
    out->run.source = source;
    if (ok &&
        !result_alloc(&out->result, out->run.nr, out->run.nz, out->run.na, out->run.num_layers)) {
        error_set(err, path, 0, "out of memory for the arrays");
        ok = false;
    }
    if (ok && !mco_alloc_options(&out->run, &out->result, path, err))
        ok = false;
    if (ok) {
        out->result.photons = (uint64_t)out->run.photons;
        ok = mco_read_sections(&c, &out->result);
        out->run.path_lengths = ok && result_has_paths(&out->result);
    }
    free(c.line);
    return ok;
}

bool mco_read(const char *path, mco_data *out, tm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t size;
    char *text = user_text_read(path, SIZE_MAX - 1, false, &size, err);
    if (!text)
        return false;
    bool ok = mco_parse(text, size, path, out, err);
    free(text);
    if (!ok)
        mco_free(out);
    return ok;
}

void mco_free(mco_data *data)
{
    /* Fields freed directly: the run was built here, not by mci_run_copy. */
    free(data->comment);
    free(data->run.out_name);
    free(data->run.layers);
    free(data->run.fx);
    free(data->run.mod_hz);
    result_free(&data->result);
    memset(data, 0, sizeof *data);
}
