/* An .mco's standard errors from the .npz beside it (runtime/io/mco_stderr.h). */
#include "mco_stderr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "c_locale.h"
#include "number_text.h"

#define MEMBER_NAME_MAX 64

/* Row o's shape from the grid: dims[0 .. o->rank). */
static void array_dims(const output_array *o, const output_grid *g, uint64_t dims[NPZ_MAX_RANK])
{
    for (int d = 0; d < o->rank; d++)
        dims[d] = output_axis_length(o->axes[d], g);
}

/* v as the .mco prints it (the row's format), read back as mco_read reads
 * it: the number an .mco of v holds. */
static double as_printed(const output_array *o, double v)
{
    char text[NUMBER_TEXT_SIZE];
    if (strcmp(o->mco_number, "%12.4E") == 0)
        number_e12_4(v, text);
    else
        snprintf(text, sizeof text, o->mco_number, v);
    return strtod(text, NULL);
}

/* Whether any of m's arrays has an error member. */
static npz_found any_errors(npz_reader *r, const mco_data *m, tm_error *err)
{
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        if (!m->result.array[row])
            continue;
        char name[MEMBER_NAME_MAX];
        snprintf(name, sizeof name, "%s_stderr", output_table[row].name);
        npz_member member;
        npz_found found = npz_find(r, name, &member, err);
        if (found != NPZ_ABSENT)
            return found;
    }
    return NPZ_ABSENT;
}

/* The .npz's values of row, each as the .mco printed it, are the .mco's. */
static npz_found check_values(npz_reader *r, const mco_data *m, const char *mco_name, int row,
                              tm_error *err)
{
    const output_array *o = &output_table[row];
    output_grid g = result_grid(&m->result);
    uint64_t dims[NPZ_MAX_RANK], n = output_bins(o, &g);
    array_dims(o, &g, dims);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) {
        error_set(err, r->path, 0, "out of memory for %s's %llu values", o->name,
                  (unsigned long long)n);
        return NPZ_BAD;
    }
    npz_found found = npz_read_float64(r, o->name, o->rank, dims, v, err);
    if (found == NPZ_ABSENT)
        error_set(err, r->path, 0, "not %s's: it has no %s, which the .mco has", mco_name, o->name);
    const double *x = m->result.array[row] + output_first(o);
    for (uint64_t i = 0; found == NPZ_FOUND && i < n; i++)
        if (!(as_printed(o, v[i]) == x[i])) {
            error_set(err, r->path, 0,
                      "not %s's (another run's?): its %s[%llu] is %.6g, where the .mco has %.6g",
                      mco_name, o->name, (unsigned long long)i, v[i], x[i]);
            found = NPZ_BAD;
        }
    free(v);
    return found == NPZ_FOUND ? NPZ_FOUND : NPZ_BAD;
}

/* Row's error member into errors[row] (NULL when the .npz has none). */
static npz_found read_errors(npz_reader *r, const mco_data *m, int row, double **errors,
                             tm_error *err)
{
    const output_array *o = &output_table[row];
    output_grid g = result_grid(&m->result);
    uint64_t dims[NPZ_MAX_RANK], n = output_bins(o, &g), stored = output_stored(o, &g);
    array_dims(o, &g, dims);
    char name[MEMBER_NAME_MAX];
    snprintf(name, sizeof name, "%s_stderr", o->name);
    double *e = malloc((size_t)(stored ? stored : 1) * sizeof *e);
    if (!e) {
        error_set(err, r->path, 0, "out of memory for %s's %llu values", name,
                  (unsigned long long)n);
        return NPZ_BAD;
    }
    for (uint64_t i = 0; i < stored; i++)
        e[i] = NAN; /* a layer array's media: no error shown */
    double *shown = e + output_first(o);
    npz_found found = npz_read_float64(r, name, o->rank, dims, shown, err);
    for (uint64_t i = 0; found == NPZ_FOUND && i < n; i++)
        if (!isnan(shown[i]) && !(shown[i] >= 0 && isfinite(shown[i]))) {
            error_set(err, r->path, 0, "%s[%llu] is %g: a standard error is finite and >= 0", name,
                      (unsigned long long)i, shown[i]);
            found = NPZ_BAD;
        }
    if (found != NPZ_FOUND) {
        free(e);
        e = NULL;
    }
    *errors = e;
    return found;
}

static npz_found read_all(npz_reader *r, const mco_data *m, const char *mco_name,
                          double *errors[OUTPUT_ARRAYS], tm_error *err)
{
    npz_found found = any_errors(r, m, err);
    for (int row = 0; found == NPZ_FOUND && row < OUTPUT_ARRAYS; row++)
        if (m->result.array[row])
            found = check_values(r, m, mco_name, row, err);
    for (int row = 0; found == NPZ_FOUND && row < OUTPUT_ARRAYS; row++)
        if (m->result.array[row] && read_errors(r, m, row, &errors[row], err) == NPZ_BAD)
            found = NPZ_BAD;
    return found;
}

npz_found mco_stderr_read(const char *npz_path, const mco_data *m, const char *mco_name,
                          double *errors[OUTPUT_ARRAYS], tm_error *err)
{
    for (int row = 0; row < OUTPUT_ARRAYS; row++)
        errors[row] = NULL;
    npz_reader r;
    npz_found found = npz_open(&r, npz_path, err);
    if (found != NPZ_FOUND)
        return found;
    /* The .mco's numbers are C's whatever the locale (base/c_locale.h). */
    locale_t previous = c_locale_enter();
    found = read_all(&r, m, mco_name, errors, err);
    c_locale_leave(previous);
    npz_close(&r);
    if (found != NPZ_FOUND)
        mco_stderr_free(errors);
    return found;
}

void mco_stderr_free(double *errors[OUTPUT_ARRAYS])
{
    for (int row = 0; row < OUTPUT_ARRAYS; row++) {
        free(errors[row]);
        errors[row] = NULL;
    }
}
