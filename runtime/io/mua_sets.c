#include "mua_sets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "tm_limits.h"
#include "user_text.h"

/* The largest sets file read: 256 sets of 64 layers of 20 characters are
 * 330 kB; 16 MB leaves room for comments and refuses /dev/zero. */
#define MUA_SETS_MAX_BYTES ((size_t)16 << 20)

/* A mua the .mci would take: 0, or within its coefficient range. */
static bool mua_in_range(double mua)
{
    return mua == 0.0 || (mua >= MCI_MIN_COEFFICIENT && mua <= MCI_MAX_COEFFICIENT);
}

bool mua_sets_check(const char *table, const double *mua, int count, int layers, tm_error *err)
{
    if (count < 1 || count > TM_MAX_ABSORPTION_SETS) {
        error_set(err, NULL, 0, "%s: %d sets: 1 to %d are possible", table, count,
                  TM_MAX_ABSORPTION_SETS);
        return false;
    }
    for (int k = 0; k < count; k++)
        for (int i = 1; i <= layers; i++) {
            double v = mua[(size_t)k * layers + i - 1];
            if (!mua_in_range(v)) {
                error_set(err, NULL, 0,
                          "%s: set %d, layer %d: mua must be 0 or between 1e-12 and 1e12 /cm "
                          "(%g)",
                          table, k + 1, i, v);
                return false;
            }
        }
    return true;
}

bool mua_sets_run(const mci_run *run, const double *mua, int k, mci_run *out)
{
    if (!mci_run_copy(out, run))
        return false;
    for (int i = 1; i <= run->num_layers; i++)
        out->layers[i].mua = mua[(size_t)k * run->num_layers + i - 1];
    return true;
}

bool mua_sets_reference(const mci_run *run, const double *mua, int count, mci_run *out)
{
    if (!mci_run_copy(out, run))
        return false;
    for (int i = 1; i <= run->num_layers; i++) {
        double least = mua[i - 1];
        for (int k = 1; k < count; k++)
            least = fmin(least, mua[(size_t)k * run->num_layers + i - 1]);
        out->layers[i].mua = least;
    }
    return true;
}

bool mua_sets_own(const mci_run *run, mua_sets *out)
{
    *out = (mua_sets){.count = 1, .layers = run->num_layers};
    out->mua = malloc((size_t)run->num_layers * sizeof *out->mua);
    for (int i = 1; out->mua && i <= run->num_layers; i++)
        out->mua[i - 1] = run->layers[i].mua;
    return out->mua != NULL;
}

void mua_sets_free(mua_sets *s)
{
    free(s->mua);
    free(s->mus);
    free(s->g);
    free(s->run_mus);
    free(s->run_g);
    s->mua = s->mus = s->g = s->run_mus = s->run_g = NULL;
    s->count = 0;
}

/* The parameters a table's line gives per layer: mua alone (absorption
 * sets), or mua, mus and g (optics sets). */
static const char *const param_names[3] = {"mua", "mus", "g"};

/* One value of a line: a number, in range for its parameter (mua: the
 * .mci's; mus: 0 or the .mci's range; g: -1 to 1).  The rules that depend
 * on the run come after (optics_sets_check). */
static bool parse_value(const char *path, int line, int layer, int per_layer, int param,
                        const char *tok, double *out, tm_error *err)
{
    double v;
    number_status s = number_parse(tok, &v);
    if (s != NUMBER_OK) {
        char what[48]; /* an absorption set's values are all mua: "layer 2" */
        if (per_layer == 1)
            snprintf(what, sizeof what, "layer %d", layer);
        else
            snprintf(what, sizeof what, "layer %d: %s", layer, param_names[param]);
        number_error_set(err, path, line, what, tok, s);
        return false;
    }
    bool ok = param == 2 ? v >= -1.0 && v <= 1.0 : mua_in_range(v);
    if (!ok) {
        error_set(err, path, line, "layer %d: %s must be %s (%.60s)", layer, param_names[param],
                  param == 2 ? "within -1 .. 1" : "0 or between 1e-12 and 1e12 /cm", tok);
        return false;
    }
    *out = v;
    return true;
}

/* The values of one line (its comment cut) into row; *n gets their count
 * (0, or layers x per_layer). */
static bool parse_line(const char *path, int line, char *text, int layers, int per_layer,
                       double *row, int *n, tm_error *err)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    int width = layers * per_layer;
    *n = 0;
    for (char *save, *tok = strtok_r(text, ", \t\r", &save); tok;
         tok = strtok_r(NULL, ", \t\r", &save)) {
        if (*n == width) {
            error_set(err, path, line, "more than %d values: the run has %d layers (\"%.60s\")",
                      width, layers, tok);
            return false;
        }
        if (!parse_value(path, line, *n / per_layer + 1, per_layer, *n % per_layer, tok, &row[*n],
                         err))
            return false;
        (*n)++;
    }
    if (*n != 0 && *n != width) {
        error_set(err, path, line, "%d values: the run has %d layers, %s each", *n, layers,
                  per_layer == 1 ? "one mua [1/cm]" : "three (mua [1/cm], mus [1/cm], g)");
        return false;
    }
    return true;
}

/* A header row of a CSV (names such as "mua_1,mua_2"): width tokens, not
 * one of them a number.  A line with some numbers is a set, checked as one,
 * so a typo in a set is never skipped as a header. */
static bool is_header(const char *line, int width)
{
    char *copy = strdup(line);
    if (!copy)
        return false;
    char *hash = strchr(copy, '#');
    if (hash)
        *hash = '\0';
    int names = 0;
    double v;
    bool all_names = true;
    for (char *save, *tok = strtok_r(copy, ", \t\r", &save); tok && all_names;
         tok = strtok_r(NULL, ", \t\r", &save)) {
        all_names = number_parse(tok, &v) == NUMBER_NONE;
        names++;
    }
    free(copy);
    return all_names && names == width;
}

/* The lines of text, each set into table (room for
 * TM_MAX_ABSORPTION_SETS rows of width values) and its line into lines;
 * row: room for one line's values. */
static bool parse_sets(const char *path, char *text, int layers, int per_layer, double *row,
                       double *table, int *lines, int *count, tm_error *err)
{
    int line = 0, width = layers * per_layer;
    bool seen_values = false;
    *count = 0;
    for (char *next = text; next;) {
        char *start = next;
        next = strchr(start, '\n');
        if (next)
            *next++ = '\0';
        line++;
        int n;
        if (*count == 0 && !seen_values && is_header(start, width)) {
            seen_values = true; /* one header, before the first set */
            continue;
        }
        if (!parse_line(path, line, start, layers, per_layer, row, &n, err))
            return false;
        if (n == 0)
            continue;
        seen_values = true;
        if (*count == TM_MAX_ABSORPTION_SETS) {
            error_set(err, path, line, "more than %d sets", TM_MAX_ABSORPTION_SETS);
            return false;
        }
        lines[*count] = line;
        memcpy(table + (size_t)(*count)++ * width, row, (size_t)width * sizeof *row);
    }
    if (*count == 0) {
        error_set(err, path, 0, "no set of %s: one line a set, %s a layer",
                  per_layer == 1 ? "mua" : "optics",
                  per_layer == 1 ? "one value" : "three values (mua, mus, g)");
        return false;
    }
    return true;
}

double *mua_sets_read_table(const char *path, int num_layers, int per_layer, int *count, int *lines,
                            tm_error *err)
{
    size_t width = (size_t)num_layers * (size_t)per_layer;
    double *table = calloc((size_t)TM_MAX_ABSORPTION_SETS * width, sizeof *table);
    double *row = malloc(width * sizeof *row);
    char *text = table && row ? user_text_read(path, MUA_SETS_MAX_BYTES, false, NULL, err) : NULL;
    if (!table || !row)
        error_set(err, path, 0, "out of memory");
    bool ok = text && parse_sets(path, text, num_layers, per_layer, row, table, lines, count, err);
    free(text);
    free(row);
    if (!ok) {
        free(table);
        return NULL;
    }
    return table;
}

bool mua_sets_read(const char *path, int num_layers, mua_sets *out, tm_error *err)
{
    int lines[TM_MAX_ABSORPTION_SETS];
    *out = (mua_sets){.layers = num_layers};
    out->mua = mua_sets_read_table(path, num_layers, 1, &out->count, lines, err);
    return out->mua != NULL;
}
