/* The Jacobians of the escapes from their derivative tallies (jacobian.h). */
#include "jacobian.h"

#include <math.h>

#include "tm_limits.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

bool jacobian_has_mus(const mci_run *run, int i) { return run->layers[i].mus > 0.0; }

bool jacobian_has_g(const mci_run *run, int i)
{
    double g = run->layers[i].g;
    return jacobian_has_mus(run, i) && g > -1.0 && g < 1.0;
}

/* One escape bin's terms per layer (row: layers x OUTPUT_TERMS, weight
 * units), times scale, as its derivatives per layer (out: layers x
 * OUTPUT_PARAMS). */
static void combine(const mci_run *run, const tally_acc_t *row, double scale, double *out)
{
    for (int i = 1; i <= run->num_layers; i++) {
        const tally_acc_t *terms = row + (size_t)(i - 1) * OUTPUT_TERMS;
        double path = tally_weight(terms[OUTPUT_TERM_PATH]) * scale;
        double count = tally_weight(terms[OUTPUT_TERM_COUNT]) * scale;
        double score = (tally_weight(terms[OUTPUT_TERM_SCORE_POS]) -
                        tally_weight(terms[OUTPUT_TERM_SCORE_NEG])) *
                       scale;
        double *d = out + (size_t)(i - 1) * OUTPUT_PARAMS;
        d[OUTPUT_PARAM_MUA] = -path;
        d[OUTPUT_PARAM_MUS] = jacobian_has_mus(run, i) ? count / run->layers[i].mus - path : NAN;
        d[OUTPUT_PARAM_G] = jacobian_has_g(run, i) ? score : NAN;
    }
}

/* The sum of the tally's rows (rows of `row` entries each). */
static void sum_rows(const tally_acc_t *v, int rows, size_t row, tally_acc_t *sum)
{
    for (size_t e = 0; e < row; e++) {
        sum[e] = 0;
        for (int r = 0; r < rows; r++)
            sum[e] += v[(size_t)r * row + e];
    }
}

bool jacobian_array(const mci_run *run, const output_array *o, const tally_acc_t *v, double n,
                    double *out)
{
    size_t row = (size_t)run->num_layers * OUTPUT_TERMS;
    size_t out_row = (size_t)run->num_layers * OUTPUT_PARAMS;
    int nt = run->time_nt;
    tally_acc_t sum[TM_MAX_PATH_LAYERS * OUTPUT_TERMS];
    if (run->num_layers > TM_MAX_PATH_LAYERS)
        return false;
    switch (o->norm) {
    case OUTPUT_NORM_JACOBIAN_R: /* as Rd_r: per ring area */
        for (int ir = 0; ir < run->nr; ir++)
            combine(run, v + (size_t)ir * row,
                    1.0 / ((ir + 0.5) * 2.0 * M_PI * run->dr * run->dr * n),
                    out + (size_t)ir * out_row);
        return true;
    case OUTPUT_NORM_JACOBIAN_A: /* as Rd_a: per solid angle */
        for (int ia = 0; ia < run->na; ia++)
            combine(run, v + (size_t)ia * row,
                    1.0 / (sin((ia + 0.5) * run->da) * 2.0 * M_PI * run->da * n),
                    out + (size_t)ia * out_row);
        return true;
    case OUTPUT_NORM_JACOBIAN_TOTAL: /* as Rd: per photon */
        sum_rows(v, run->nr, row, sum);
        combine(run, sum, 1.0 / n, out);
        return true;
    case OUTPUT_NORM_JACOBIAN_RT: /* as Rd_rt: per ring area and ns */
        for (int ir = 0; ir < run->nr; ir++) {
            double scale = 1.0 / (2.0 * M_PI * (ir + 0.5) * run->dr * run->dr * run->time_dt * n);
            for (int it = 0; it < nt; it++) {
                size_t bin = (size_t)ir * (size_t)nt + (size_t)it;
                combine(run, v + bin * row, scale, out + bin * out_row);
            }
        }
        return true;
    case OUTPUT_NORM_JACOBIAN_T: /* as Rd_t: every ring's, per ns */
        for (int it = 0; it < nt; it++) {
            for (size_t e = 0; e < row; e++) {
                sum[e] = 0;
                for (int ir = 0; ir < run->nr; ir++)
                    sum[e] += v[((size_t)ir * (size_t)nt + (size_t)it) * row + e];
            }
            combine(run, sum, 1.0 / (run->time_dt * n), out + (size_t)it * out_row);
        }
        return true;
    case OUTPUT_NORM_JACOBIAN_COUNT: /* as Rd_fiber: per photon, a row a detector */
        for (int d = 0; d < run->fiber_count; d++)
            combine(run, v + (size_t)d * row, 1.0 / n, out + (size_t)d * out_row);
        return true;
    default: return false;
    }
}
