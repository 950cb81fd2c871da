/* The rules of a lookup table's parameters (lut_check.h). */
#include "lut_check.h"

#include <math.h>
#include <stdio.h>

#include "tm_limits.h"

/* A refractive index within the .mci's range. */
static bool check_index(const char *name, double n, tm_error *err)
{
    if (n >= MCI_MIN_N && n <= MCI_MAX_N)
        return true;
    error_set(err, NULL, 0, "%s %g: expected a refractive index from %g to %g", name, n, MCI_MIN_N,
              MCI_MAX_N);
    return false;
}

bool lut_check_layer(const lut_spec *sp, const lut_names *names, tm_error *err)
{
    if (!check_index(names->n, sp->n, err) || !check_index(names->n_above, sp->n_above, err) ||
        !check_index(names->n_below, sp->n_below, err))
        return false;
    if (!(sp->dr >= MCI_MIN_STEP && isfinite(sp->dr))) {
        error_set(err, NULL, 0, "%s %g: expected a ring width of at least %g cm", names->dr, sp->dr,
                  MCI_MIN_STEP);
        return false;
    }
    if (!(sp->g >= -1.0 && sp->g < 1.0)) {
        error_set(err, NULL, 0,
                  "%s %g: expected -1 to below 1 (mus = mus' / (1 - g): g = 1 scatters only "
                  "forward, which no mus' describes)",
                  names->g, sp->g);
        return false;
    }
    if (!(sp->d > 0.0)) {
        error_set(err, NULL, 0, "%s %g: expected a thickness above 0 cm, or inf", names->d, sp->d);
        return false;
    }
    return true;
}

int lut_check_axis(const double *values, int count, char *why, size_t size)
{
    for (int i = 0; i < count; i++) {
        double v = values[i];
        if (!(v == 0.0 || (v >= MCI_MIN_COEFFICIENT && v <= MCI_MAX_COEFFICIENT))) {
            snprintf(why, size, "%.17g is no coefficient: expected 0 or 1e-12 to 1e12 (1/cm)", v);
            return i;
        }
        if (i > 0 && !(v > values[i - 1])) {
            snprintf(why, size, "the values must increase (so that the table can be interpolated)");
            return i;
        }
    }
    return -1;
}

/* An array of m x k points of `per` values (`what`: "rings", its name,
 * and what makes it smaller) within MCI_MAX_BINS. */
static bool check_values(const lut_names *names, int m, int k, int per, const char *what,
                         const char *array, const char *smaller, tm_error *err)
{
    double values = (double)m * k * per;
    if (values <= (double)MCI_MAX_BINS)
        return true;
    error_set(err, NULL, 0,
              "%s%d mus' x %d mua x %d %s is %.3g values of %s, more than 2^27 (1 GiB): "
              "make the table or %s smaller, or split it",
              names->table, m, k, per, what, values, array, smaller);
    return false;
}

bool lut_check_size(int m, int k, int nr, const lut_names *names, tm_error *err)
{
    return check_values(names, m, k, nr, "rings", "Rd_r", names->nr, err);
}

bool lut_check_fx_size(int m, int k, int count, const lut_names *names, tm_error *err)
{
    return check_values(names, m, k, count, "frequencies", "Rd_fx", names->fx, err);
}

bool lut_fx_cpu_only(int count, lut_strategy asked, char *why, size_t size)
{
    if (count > TM_MAX_GPU_SPATIAL_FREQUENCIES)
        snprintf(why, size, "of %d frequencies (a GPU kernel scores at most %d)", count,
                 TM_MAX_GPU_SPATIAL_FREQUENCIES);
    else if (count > 0 && asked == LUT_SETS)
        snprintf(why, size,
                 "with the sets strategy (the GPU's kernel of absorption sets scores none)");
    else
        return false;
    return true;
}
