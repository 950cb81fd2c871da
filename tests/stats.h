/* Statistics for the validation suite (docs/validation.md).
 *
 * A quantity vector (RAT, A_z, A_rz, ...) is measured in K batches of M
 * photons each (photon ranges [bM, (b+1)M), so the batches together are
 * exactly the run of K*M photons).  The batch-to-batch variance gives each
 * bin's per-photon variance, hence the standard error of our mean and of a
 * reference made with N_ref photons of the same physics.  Tolerances follow
 * from those variances; none is chosen by hand. */
#ifndef TMCML_TESTS_STATS_H
#define TMCML_TESTS_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct batch_vec {
    size_t n;           /* quantities per batch */
    int k, k_max;       /* batches added, capacity */
    double *rows;       /* k_max * n: batch b's values at rows[b*n] */
    double *mean, *var; /* filled by batch_vec_finish */
} batch_vec;

bool batch_vec_init(batch_vec *v, size_t n, int k_max);
void batch_vec_add(batch_vec *v, const double *x);
void batch_vec_finish(batch_vec *v); /* mean and sample variance over batches */
void batch_vec_free(batch_vec *v);

/* Two-sided p-value of Student's t with nu degrees of freedom. */
double stats_t_two_sided_p(double t, double nu);
/* |t| exceeded with two-sided probability p (bisection on the above). */
double stats_t_quantile_two_sided(double p, double nu);

/* Comparison of our batch means with a reference vector. */
typedef struct z_report {
    size_t bins;              /* bins compared (selected by our own relative error) */
    double mean_z, mean_z_sd; /* mean z and its sd (correlation-aware) */
    double mean_z2, mean_z2_expected, mean_z2_sd;
    double max_abs_z, max_abs_z_bound; /* Bonferroni bound, family-wise alpha */
    size_t worst_bin;
    bool any_dependence; /* stats_compare_dependent's: no mean z^2 test */
    double mean_t_bound; /* its bound on |mean z| / mean_z_sd */
    bool pass;
} z_report;

/* ref: reference values; ref_round: sd of the reference's print rounding per
 * bin (may be NULL); n_ref: reference photons (0: reference exact, e.g. a
 * published value); batch_photons: M.  Bins whose relative standard error is
 * above max_rel_sem (or whose variance is 0) are left out.  alpha is the
 * family-wise false-alarm probability of the max test. */
z_report stats_compare(const batch_vec *ours, const double *ref, const double *ref_round,
                       double n_ref, double batch_photons, double max_rel_sem, double alpha);

/* The same comparison (ref exact, no rounding) valid whatever the
 * dependence between the bins, e.g. where one photon history serves every
 * bin and a fluctuation of the light reaching a layer moves all its bins
 * together: the mean z^2 test above takes its spread from the bins'
 * correlation as estimated from the batches, and its 4-sd bound has no
 * stated false-alarm probability for a chi-square-like sum dominated by a
 * few correlated blocks.  Here each selected bin's t statistic (K - 1
 * degrees of freedom) and mean z over its own batch sd (a t statistic too:
 * it is one linear combination of the batch means) make n + 1 tests, each
 * two-sided at alpha / (n + 1): by Bonferroni's inequality the family
 * falsely fails with probability at most alpha under any dependence. */
z_report stats_compare_dependent(const batch_vec *ours, const double *ref, double max_rel_sem,
                                 double alpha);

/* stats_compare_dependent of two independent sets of batches of the same
 * quantities (another engine's, another seed's): batch b of ours minus
 * batch b of ref, shifted by ref's mean (which keeps each quantity's
 * relative error, by which the comparison selects them), are batches whose
 * mean is ours minus ref's plus that mean and whose variance is both
 * sides'; they are compared with ref's mean.  *ok false when out of
 * memory. */
z_report stats_compare_independent(const batch_vec *ours, const batch_vec *ref, double max_rel_sem,
                                   double alpha, bool *ok);

void stats_print_report(const char *name, const z_report *r);

/* sd of the rounding error of a value printed with `digits` significant
 * digits (uniform over one unit in the last place). */
double stats_print_rounding_sd(double value, int digits);

#endif
