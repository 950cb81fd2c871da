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

bool mua_sets_check(const double *mua, int count, int layers, tm_error *err)
{
    if (count < 1 || count > TM_MAX_ABSORPTION_SETS) {
        error_set(err, NULL, 0, "mua_sets: %d sets: 1 to %d are possible", count,
                  TM_MAX_ABSORPTION_SETS);
        return false;
    }
    for (int k = 0; k < count; k++)
        for (int i = 1; i <= layers; i++) {
            double v = mua[(size_t)k * layers + i - 1];
            if (!mua_in_range(v)) {
                error_set(err, NULL, 0,
                          "mua_sets: set %d, layer %d: mua must be 0 or between 1e-12 and 1e12 "
                          "/cm (%g)",
                          k + 1, i, v);
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

void mua_sets_free(mua_sets *s)
{
    free(s->mua);
    s->mua = NULL;
    s->count = 0;
}

/* One value of a line: a number the .mci would take as a mua. */
static bool parse_mua(const char *path, int line, int layer, const char *tok, double *out,
                      tm_error *err)
{
    double v;
    number_status s = number_parse(tok, &v);
    if (s != NUMBER_OK) {
        char what[32];
        snprintf(what, sizeof what, "layer %d", layer);
        number_error_set(err, path, line, what, tok, s);
        return false;
    }
    if (!mua_in_range(v)) {
        error_set(err, path, line, "layer %d: mua must be 0 or between 1e-12 and 1e12 /cm (%.60s)",
                  layer, tok);
        return false;
    }
    *out = v;
    return true;
}

/* The values of one line (its comment cut) into row; *n gets their count. */
static bool parse_line(const char *path, int line, char *text, int layers, double *row, int *n,
                       tm_error *err)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    *n = 0;
    for (char *save, *tok = strtok_r(text, ", \t\r", &save); tok;
         tok = strtok_r(NULL, ", \t\r", &save)) {
        if (*n == layers) {
            error_set(err, path, line, "more than %d values: the run has %d layers (\"%.60s\")",
                      layers, layers, tok);
            return false;
        }
        if (!parse_mua(path, line, *n + 1, tok, &row[*n], err))
            return false;
        (*n)++;
    }
    if (*n != 0 && *n != layers) {
        error_set(err, path, line, "%d values: the run has %d layers, one mua [1/cm] each", *n,
                  layers);
        return false;
    }
    return true;
}

/* The lines of text, each set into out (whose table has room for
 * TM_MAX_ABSORPTION_SETS), row: room for one line's values. */
static bool parse_sets(const char *path, char *text, int layers, double *row, mua_sets *out,
                       tm_error *err)
{
    int line = 0;
    for (char *next = text; next;) {
        char *start = next;
        next = strchr(start, '\n');
        if (next)
            *next++ = '\0';
        line++;
        int n;
        if (!parse_line(path, line, start, layers, row, &n, err))
            return false;
        if (n == 0)
            continue;
        if (out->count == TM_MAX_ABSORPTION_SETS) {
            error_set(err, path, line, "more than %d sets", TM_MAX_ABSORPTION_SETS);
            return false;
        }
        memcpy(out->mua + (size_t)out->count++ * layers, row, (size_t)layers * sizeof *row);
    }
    if (out->count == 0) {
        error_set(err, path, 0, "no set of mua: one line a set, one value a layer");
        return false;
    }
    return true;
}

bool mua_sets_read(const char *path, int num_layers, mua_sets *out, tm_error *err)
{
    out->count = 0;
    out->layers = num_layers;
    out->mua = calloc((size_t)TM_MAX_ABSORPTION_SETS * (size_t)num_layers, sizeof *out->mua);
    if (!out->mua) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    double *row = malloc((size_t)num_layers * sizeof *row);
    char *text = row ? user_text_read(path, MUA_SETS_MAX_BYTES, false, NULL, err) : NULL;
    if (!row)
        error_set(err, path, 0, "out of memory");
    bool ok = text && parse_sets(path, text, num_layers, row, out, err);
    free(text);
    free(row);
    if (!ok)
        mua_sets_free(out);
    return ok;
}
