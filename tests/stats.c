#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool batch_vec_init(batch_vec *v, size_t n, int k_max)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->k_max = k_max;
    v->rows = calloc(n * (size_t)k_max, sizeof *v->rows);
    v->mean = calloc(n, sizeof *v->mean);
    v->var = calloc(n, sizeof *v->var);
    return v->rows && v->mean && v->var;
}

void batch_vec_add(batch_vec *v, const double *x)
{
    if (v->k < v->k_max)
        memcpy(v->rows + (size_t)v->k++ * v->n, x, v->n * sizeof *x);
}

void batch_vec_finish(batch_vec *v)
{
    for (size_t i = 0; i < v->n; i++) {
        double s = 0, ss = 0;
        for (int b = 0; b < v->k; b++)
            s += v->rows[(size_t)b * v->n + i];
        double m = s / v->k;
        for (int b = 0; b < v->k; b++) {
            double d = v->rows[(size_t)b * v->n + i] - m;
            ss += d * d;
        }
        v->mean[i] = m;
        v->var[i] = v->k > 1 ? ss / (v->k - 1) : 0.0;
    }
}

void batch_vec_free(batch_vec *v)
{
    free(v->rows);
    free(v->mean);
    free(v->var);
    memset(v, 0, sizeof *v);
}

/* Regularised incomplete beta I_x(a, b) by Lentz's continued fraction. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = fabs(d) < tiny ? tiny : d;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 500; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return h;
}

static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1.0 - exp(lbt) * beta_cf(b, a, 1.0 - x) / b;
}

double stats_t_two_sided_p(double t, double nu)
{
    return incomplete_beta(0.5 * nu, 0.5, nu / (nu + t * t));
}

double stats_t_quantile_two_sided(double p, double nu)
{
    double lo = 0.0, hi = 1e3;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (stats_t_two_sided_p(mid, nu) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double stats_print_rounding_sd(double value, int digits)
{
    if (value == 0.0)
        return 0.0;
    double unit = pow(10.0, floor(log10(fabs(value))) - (digits - 1));
    return unit / sqrt(12.0);
}

/* Var(mean of z^2) for z_i ~ t_nu with correlation matrix R:
 * Var(t^2) * tr(R^2) / n^2.  tr(R^2) is estimated from the batch rows with
 * the Wishart bias removed: E||R_hat||_F^2 ~ (1 + 1/m) tr(R^2) + n^2 / m. */
static double trace_r2(const batch_vec *v, const size_t *sel, size_t n)
{
    int k = v->k;
    double *y = malloc((size_t)k * n * sizeof *y);
    double *g = calloc((size_t)k * (size_t)k, sizeof *g);
    if (!y || !g) {
        free(y);
        free(g);
        return (double)n * (double)n; /* fully correlated: the widest bound */
    }
    for (size_t j = 0; j < n; j++) {
        size_t i = sel[j];
        double s = sqrt(v->var[i]);
        for (int b = 0; b < k; b++)
            y[(size_t)b * n + j] = (v->rows[(size_t)b * v->n + i] - v->mean[i]) / s;
    }
    for (int b = 0; b < k; b++)
        for (int c = b; c < k; c++) {
            double s = 0;
            for (size_t j = 0; j < n; j++)
                s += y[(size_t)b * n + j] * y[(size_t)c * n + j];
            g[(size_t)b * k + c] = g[(size_t)c * k + b] = s;
        }
    double m = k - 1, fro = 0;
    for (size_t q = 0; q < (size_t)k * (size_t)k; q++)
        fro += g[q] * g[q];
    fro /= m * m;
    free(y);
    free(g);
    double est = (fro - (double)n * (double)n / m) / (1.0 + 1.0 / m);
    return est < (double)n ? (double)n : est;
}

/* stats_compare's statistics; with any_dependence the tests of
 * stats_compare_dependent instead of the mean z^2 test. */
static z_report compare(const batch_vec *ours, const double *ref, const double *ref_round,
                        double n_ref, double batch_photons, double max_rel_sem, double alpha,
                        bool any_dependence)
{
    z_report r = {.any_dependence = any_dependence};
    size_t *sel = malloc(ours->n * sizeof *sel);
    double *sigma = malloc(ours->n * sizeof *sigma);
    if (!sel || !sigma) {
        free(sel);
        free(sigma);
        return r;
    }
    int k = ours->k;
    /* Var(ours) = s^2 / K; Var(ref) = s^2 * M / N_ref (same per-photon variance). */
    double factor = 1.0 / k + (n_ref > 0 ? batch_photons / n_ref : 0.0);
    size_t n = 0;
    for (size_t i = 0; i < ours->n; i++) {
        double sem = sqrt(ours->var[i] / k);
        if (ours->var[i] <= 0 || sem > max_rel_sem * fabs(ours->mean[i]))
            continue;
        double rr = ref_round ? ref_round[i] : 0.0;
        sigma[n] = sqrt(ours->var[i] * factor + rr * rr);
        sel[n++] = i;
    }
    r.bins = n;
    if (n == 0) {
        free(sel);
        free(sigma);
        return r;
    }
    double sum_z = 0, sum_z2 = 0, round_part = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = sel[j];
        double z = (ours->mean[i] - ref[i]) / sigma[j];
        sum_z += z;
        sum_z2 += z * z;
        if (fabs(z) > r.max_abs_z) {
            r.max_abs_z = fabs(z);
            r.worst_bin = i;
        }
        double rr = ref_round ? ref_round[i] / sigma[j] : 0.0;
        round_part += rr * rr;
    }
    r.mean_z = sum_z / n;
    r.mean_z2 = sum_z2 / n;

    /* sd of mean z from the batch variance of the weighted batch sums, so
     * that correlations between bins are counted. */
    double sb = 0, sbb = 0;
    for (int b = 0; b < k; b++) {
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += ours->rows[(size_t)b * ours->n + sel[j]] / sigma[j];
        s /= n;
        sb += s;
        sbb += s * s;
    }
    double var_s = (sbb - sb * sb / k) / (k - 1);
    r.mean_z_sd = sqrt(var_s * factor + round_part / ((double)n * n));

    double nu = k - 1;
    r.mean_z2_expected = nu / (nu - 2.0);
    if (any_dependence) {
        double bound = stats_t_quantile_two_sided(alpha / ((double)n + 1.0), nu);
        r.max_abs_z_bound = r.mean_t_bound = bound;
        r.pass = fabs(r.mean_z) <= bound * r.mean_z_sd && r.max_abs_z <= bound;
    } else {
        double var_t2 = 2.0 * nu * nu * (nu - 1.0) / ((nu - 2.0) * (nu - 2.0) * (nu - 4.0));
        r.mean_z2_sd = sqrt(var_t2 * trace_r2(ours, sel, n)) / n;
        r.max_abs_z_bound = stats_t_quantile_two_sided(alpha / n, nu);
        r.pass = fabs(r.mean_z) <= 4.0 * r.mean_z_sd &&
                 fabs(r.mean_z2 - r.mean_z2_expected) <= 4.0 * r.mean_z2_sd &&
                 r.max_abs_z <= r.max_abs_z_bound;
    }
    free(sel);
    free(sigma);
    return r;
}

z_report stats_compare(const batch_vec *ours, const double *ref, const double *ref_round,
                       double n_ref, double batch_photons, double max_rel_sem, double alpha)
{
    return compare(ours, ref, ref_round, n_ref, batch_photons, max_rel_sem, alpha, false);
}

z_report stats_compare_dependent(const batch_vec *ours, const double *ref, double max_rel_sem,
                                 double alpha)
{
    return compare(ours, ref, NULL, 0.0, 0.0, max_rel_sem, alpha, true);
}

z_report stats_compare_independent(const batch_vec *ours, const batch_vec *ref, double max_rel_sem,
                                   double alpha, bool *ok)
{
    size_t n = ours->n;
    batch_vec d;
    double *row = malloc(n * sizeof *row);
    z_report r = {0};
    *ok = row && batch_vec_init(&d, n, ours->k);
    if (!*ok) {
        free(row);
        return r;
    }
    for (int b = 0; b < ours->k; b++) {
        for (size_t i = 0; i < n; i++)
            row[i] = ours->rows[(size_t)b * n + i] - ref->rows[(size_t)b * n + i] + ref->mean[i];
        batch_vec_add(&d, row);
    }
    batch_vec_finish(&d);
    r = stats_compare_dependent(&d, ref->mean, max_rel_sem, alpha);
    batch_vec_free(&d);
    free(row);
    return r;
}

void stats_print_report(const char *name, const z_report *r)
{
    if (r->any_dependence) {
        printf("  %-8s %6zu bins  mean z %+.3f (bound %.3f)  mean z^2 %.3f (not tested)"
               "  max|z| %.2f (bound %.2f, bin %zu)  %s\n",
               name, r->bins, r->mean_z, r->mean_t_bound * r->mean_z_sd, r->mean_z2, r->max_abs_z,
               r->max_abs_z_bound, r->worst_bin, r->pass ? "ok" : "FAIL");
        return;
    }
    printf("  %-8s %6zu bins  mean z %+.3f (4sd %.3f)  mean z^2 %.3f (expected %.3f, 4sd %.3f)"
           "  max|z| %.2f (bound %.2f, bin %zu)  %s\n",
           name, r->bins, r->mean_z, 4 * r->mean_z_sd, r->mean_z2, r->mean_z2_expected,
           4 * r->mean_z2_sd, r->max_abs_z, r->max_abs_z_bound, r->worst_bin,
           r->pass ? "ok" : "FAIL");
}
