/* The lookup table's CSV and .npz (lut_write.h). */
#include "lut_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "lut_table.h"
#include "npz.h"
#include "textbuf.h"

/* One line's text, written and emptied; false when memory ran out. */
static bool put_line(FILE *f, textbuf *line)
{
    textbuf_add(line, "\n");
    char *text = textbuf_take(line);
    if (text)
        fputs(text, f);
    free(text);
    return text != NULL;
}

/* Numbers are written exactly (textbuf_add_double: they read back as the
 * doubles simulated), joined by sep. */
static void add_values(textbuf *t, const double *v, int n, const char *sep)
{
    for (int i = 0; i < n; i++) {
        textbuf_add(t, "%s", i ? sep : "");
        textbuf_add_double(t, v[i]);
    }
}

static void add_layer(textbuf *t, const tmcml_lut_spec *spec)
{
    textbuf_add(t, "# layer: n ");
    textbuf_add_double(t, spec->n);
    textbuf_add(t, ", g ");
    textbuf_add_double(t, spec->g);
    textbuf_add(t, ", d ");
    if (spec->d == LUT_SEMI_INFINITE_D) {
        textbuf_add(t, "inf (semi-infinite, simulated as 1e8 cm)");
    } else {
        textbuf_add_double(t, spec->d);
        textbuf_add(t, " cm");
    }
    textbuf_add(t, "; mus = mus' / (1 - g); n_above ");
    textbuf_add_double(t, spec->n_above);
    textbuf_add(t, ", n_below ");
    textbuf_add_double(t, spec->n_below);
}

static void add_seeds(textbuf *t, const lut_values *v)
{
    if (v->info->strategy == TMCML_LUT_SETS)
        textbuf_add(t,
                    "# strategy: sets (each mus' one simulation whose mua are absorption sets: "
                    "one photon history serves every mua of a mus', so their errors are "
                    "correlated); seed %llu for every mus'",
                    (unsigned long long)v->seed);
    else
        textbuf_add(t,
                    "# strategy: runs (each point its own simulation, the mus' of one mua "
                    "batched); mua number i (from 0) with seed %llu + i",
                    (unsigned long long)v->seed);
}

/* What the error columns are, and a precision's outcome. */
static bool add_errors_header(FILE *f, textbuf *line, const tmcml_lut_errors *e)
{
    textbuf_add(line, "# errors: *_stderr the standard error of the value (batch means of 64 "
                      "photon groups, docs/physics.md \"Uncertainty\"); photons the point's");
    bool ok = put_line(f, line);
    if (e->precision > 0.0) {
        textbuf_add(line,
                    "# precision: each point run until the relative standard error of %s "
                    "was at most ",
                    e->of ? e->of : "Rd");
        textbuf_add_double(line, e->precision);
        textbuf_add(line, " (%lld points short of it at their most photons; %llu photons in all)",
                    (long long)e->points_short, (unsigned long long)e->photons_total);
        ok = put_line(f, line) && ok;
    }
    return ok;
}

/* The spatial frequencies, and what Rd_fx_K is. */
static bool add_fx_header(FILE *f, textbuf *line, const tmcml_lut_frequencies *fx)
{
    textbuf_add(line, "# spatial frequencies fx [1/cm], %d values: ", fx->count);
    add_values(line, fx->fx, fx->count, ",");
    textbuf_add(line, "; Rd_fx_K is R(fx) at frequency K (from 0), the reflectance's Hankel "
                      "transform (sum of w J0(2 pi fx r) / N; R(0) is Rd), dimensionless");
    return put_line(f, line);
}

/* The column names first, then the parameters as # lines: so the names are
 * what numpy.genfromtxt(names=True), numpy.loadtxt(skiprows=1) and
 * pandas.read_csv(comment="#") take as the header (genfromtxt would take a
 * # line before them for the names). */
static bool write_header(FILE *f, const lut_values *v)
{
    const tmcml_lut_spec *spec = v->spec;
    textbuf line = TEXTBUF_INIT;
    textbuf_add(&line, "musp,mua,Rd");
    for (int r = 0; r < spec->nr; r++)
        textbuf_add(&line, ",Rd_r_%d", r);
    if (v->errors) {
        textbuf_add(&line, ",Rd_stderr,photons");
        for (int r = 0; r < spec->nr; r++)
            textbuf_add(&line, ",Rd_r_%d_stderr", r);
    }
    for (int k = 0; v->fx && k < v->fx->count; k++)
        textbuf_add(&line, ",Rd_fx_%d", k);
    for (int k = 0; v->fx && v->errors && k < v->fx->count; k++)
        textbuf_add(&line, ",Rd_fx_%d_stderr", k);
    bool ok = put_line(f, &line);
    textbuf_add(&line,
                "# tmcml lut (tmcml %s): diffuse reflectance of one homogeneous layer over a "
                "grid of mua and mus' (docs/lut.md)",
                tmcml_version());
    ok = ok && put_line(f, &line);
    add_layer(&line, spec);
    ok = ok && put_line(f, &line);
    textbuf_add(&line, "# mua [1/cm], %d values: ", spec->num_mua);
    add_values(&line, spec->mua, spec->num_mua, ",");
    ok = ok && put_line(f, &line);
    textbuf_add(&line, "# musp [1/cm], %d values: ", spec->num_musp);
    add_values(&line, spec->musp, spec->num_musp, ",");
    ok = ok && put_line(f, &line);
    textbuf_add(&line, "# rings: nr %d, dr ", spec->nr);
    textbuf_add_double(&line, spec->dr);
    textbuf_add(&line, " cm; Rd_r_i is ring i, r from i*dr to (i+1)*dr (centre (i+0.5)*dr); "
                       "the last ring also collects all reflectance beyond nr*dr (MCML)");
    ok = ok && put_line(f, &line);
    if (v->fx)
        ok = ok && add_fx_header(f, &line, v->fx);
    textbuf_add(&line, "# photons per point %lld; engine %s; absorption not scored (-A)",
                (long long)v->photons, v->info->engine);
    ok = ok && put_line(f, &line);
    add_seeds(&line, v);
    ok = ok && put_line(f, &line);
    textbuf_add(&line, "# Rsp (specular reflectance, the same at every point, not in Rd): ");
    textbuf_add_double(&line, v->info->rsp);
    ok = ok && put_line(f, &line);
    textbuf_add(&line, "# units: musp, mua 1/cm; Rd dimensionless (per photon); Rd_r_i 1/cm2 "
                       "(MCML's: per photon and per cm2 of the ring)");
    ok = put_line(f, &line) && ok;
    if (v->errors)
        ok = ok && add_errors_header(f, &line, v->errors);
    return ok;
}

/* Point at's Rd_fx columns, and with errors theirs. */
static void add_fx(textbuf *line, const lut_values *v, size_t at)
{
    const tmcml_lut_frequencies *fx = v->fx;
    size_t from = at * (size_t)fx->count;
    textbuf_add(line, ",");
    add_values(line, fx->rd_fx + from, fx->count, ",");
    if (v->errors) {
        textbuf_add(line, ",");
        add_values(line, fx->rd_fx_stderr + from, fx->count, ",");
    }
}

static bool csv_cb(FILE *f, void *ctx, tm_error *err)
{
    const lut_values *v = ctx;
    const tmcml_lut_spec *spec = v->spec;
    bool ok = write_header(f, v);
    textbuf line = TEXTBUF_INIT;
    for (int j = 0; ok && j < spec->num_musp; j++)
        for (int i = 0; ok && i < spec->num_mua; i++) {
            size_t at = (size_t)j * (size_t)spec->num_mua + (size_t)i;
            double point[3] = {spec->musp[j], spec->mua[i], v->rd[at]};
            add_values(&line, point, 3, ",");
            textbuf_add(&line, ",");
            add_values(&line, v->rd_r + at * (size_t)spec->nr, spec->nr, ",");
            if (v->errors) {
                textbuf_add(&line, ",");
                add_values(&line, &v->errors->rd_stderr[at], 1, ",");
                textbuf_add(&line, ",%lld,", (long long)v->errors->photons[at]);
                add_values(&line, v->errors->rd_r_stderr + at * (size_t)spec->nr, spec->nr, ",");
            }
            if (v->fx)
                add_fx(&line, v, at);
            ok = put_line(f, &line);
        }
    if (!ok)
        error_set(err, NULL, 0, "out of memory writing the CSV");
    return ok;
}

bool lut_write_csv(const char *path, const lut_values *v, tm_error *err)
{
    return fs_write_atomic(path, csv_cb, (void *)v, err);
}

static npz_array scalar(const char *name, const double *value, const char *unit)
{
    return (npz_array){.name = name, .values = value, .unit = unit};
}

static npz_array vector(const char *name, int n, const double *values, const char *unit)
{
    return (npz_array){
        .name = name, .rank = 1, .dims = {(uint64_t)n}, .values = values, .unit = unit};
}

static npz_array count(const char *name, const uint64_t *value)
{
    return (npz_array){.name = name, .unit = "-", .kind = NPZ_UINT64, .counts = value};
}

static npz_array text(const char *name, const char *value)
{
    return (npz_array){.name = name, .unit = "-", .kind = NPZ_TEXT, .text = value};
}

/* The arrays of a table's errors at a[0 ..], at most LUT_ERROR_ARRAYS,
 * their count returned (0 without errors); taken: the points' photons as
 * counts (the caller's). */
#define LUT_ERROR_ARRAYS 6
static int error_arrays(const lut_values *v, uint64_t *taken, npz_array *a)
{
    const tmcml_lut_errors *e = v->errors;
    if (!e)
        return 0;
    const tmcml_lut_spec *spec = v->spec;
    uint64_t m = (uint64_t)spec->num_musp, k = (uint64_t)spec->num_mua, nr = (uint64_t)spec->nr;
    for (uint64_t i = 0; i < m * k; i++)
        taken[i] = (uint64_t)e->photons[i];
    int n = 0;
    a[n++] = (npz_array){
        .name = "Rd_stderr", .rank = 2, .dims = {m, k}, .values = e->rd_stderr, .unit = "-"};
    a[n++] = (npz_array){.name = "Rd_r_stderr",
                         .rank = 3,
                         .dims = {m, k, nr},
                         .values = e->rd_r_stderr,
                         .unit = "1/cm2"};
    a[n++] = (npz_array){.name = "point_photons",
                         .rank = 2,
                         .dims = {m, k},
                         .unit = "-",
                         .kind = NPZ_UINT64,
                         .counts = taken};
    a[n++] = (npz_array){
        .name = "reached", .rank = 2, .dims = {m, k}, .values = e->reached, .unit = "-"};
    if (e->precision > 0.0) {
        a[n++] = scalar("precision", &e->precision, "-");
        a[n++] = text("precision_of", e->of ? e->of : "Rd");
    }
    return n;
}

/* The arrays of a table's spatial frequencies at a[0 ..], at most
 * LUT_FX_ARRAYS, their count returned (0 without them). */
#define LUT_FX_ARRAYS 3
static int fx_arrays(const lut_values *v, npz_array *a)
{
    const tmcml_lut_frequencies *fx = v->fx;
    if (!fx)
        return 0;
    uint64_t dims[3] = {(uint64_t)v->spec->num_musp, (uint64_t)v->spec->num_mua,
                        (uint64_t)fx->count};
    int n = 0;
    a[n++] = vector("fx", fx->count, fx->fx, "1/cm");
    a[n++] = (npz_array){.name = "Rd_fx",
                         .rank = 3,
                         .dims = {dims[0], dims[1], dims[2]},
                         .values = fx->rd_fx,
                         .unit = "-"};
    if (v->errors)
        a[n++] = (npz_array){.name = "Rd_fx_stderr",
                             .rank = 3,
                             .dims = {dims[0], dims[1], dims[2]},
                             .values = fx->rd_fx_stderr,
                             .unit = "-"};
    return n;
}

bool lut_write_npz(const char *path, const lut_values *v, tm_error *err)
{
    const tmcml_lut_spec *spec = v->spec;
    int m = spec->num_musp, k = spec->num_mua, nr = spec->nr;
    double *r = malloc((size_t)nr * sizeof *r);
    uint64_t *taken = v->errors ? malloc((size_t)m * (size_t)k * sizeof *taken) : NULL;
    if (!r || (v->errors && !taken)) {
        free(r);
        free(taken);
        error_set(err, path, 0, "out of memory");
        return false;
    }
    for (int i = 0; i < nr; i++)
        r[i] = (i + 0.5) * spec->dr;
    uint64_t photons = (uint64_t)v->photons, seed = v->seed;
    char version[64];
    snprintf(version, sizeof version, "tmcml %s", tmcml_version());
    uint64_t dims[3] = {(uint64_t)m, (uint64_t)k, (uint64_t)nr};
    const npz_array table[] = {
        vector("mua", k, spec->mua, "1/cm"),
        vector("musp", m, spec->musp, "1/cm"),
        {.name = "Rd", .rank = 2, .dims = {dims[0], dims[1]}, .values = v->rd, .unit = "-"},
        {.name = "Rd_r",
         .rank = 3,
         .dims = {dims[0], dims[1], dims[2]},
         .values = v->rd_r,
         .unit = "1/cm2"},
        vector("r", nr, r, "cm"),
        scalar("dr", &spec->dr, "cm"),
        scalar("Rsp", &v->info->rsp, "-"),
        scalar("n", &spec->n, "-"),
        scalar("n_above", &spec->n_above, "-"),
        scalar("n_below", &spec->n_below, "-"),
        scalar("g", &spec->g, "-"),
        scalar("d", &spec->d, "cm"),
        count("photons", &photons),
        count("seed", &seed),
        text("strategy", lut_strategy_name((lut_strategy)v->info->strategy)),
        text("engine", v->info->engine),
        text("version", version),
    };
    npz_array a[sizeof table / sizeof *table + LUT_ERROR_ARRAYS + LUT_FX_ARRAYS];
    int count = (int)(sizeof table / sizeof *table);
    memcpy(a, table, sizeof table);
    count += error_arrays(v, taken, a + count);
    count += fx_arrays(v, a + count);
    bool ok = npz_write_arrays(path, a, count, err);
    free(r);
    free(taken);
    return ok;
}
