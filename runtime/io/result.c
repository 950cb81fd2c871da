#include "result.h"

#include <math.h>
#include <stdlib.h>

#include "jacobian.h"
#include "optics.h"
#include "run_options.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

output_grid result_grid(const mcml_result *res)
{
    /* The derivatives' arrays run along the layers and the parameters: no
     * axis of their own. */
    return (output_grid){.nr = res->nr,
                         .nz = res->nz,
                         .na = res->na,
                         .num_layers = res->num_layers,
                         .nt = res->nt,
                         .detectors = res->detectors,
                         .frequencies = res->frequencies,
                         .modulations = res->modulations,
                         .xy = res->xy};
}

bool result_alloc(mcml_result *res, int nr, int nz, int na, int num_layers)
{
    *res = (mcml_result){.nr = nr, .nz = nz, .na = na, .num_layers = num_layers, .ess = NAN};
    output_grid g = result_grid(res);
    bool ok = true;
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (output_table[i].option)
            continue; /* result_alloc_paths and the like */
        res->array[i] = calloc(output_stored(&output_table[i], &g), sizeof *res->array[i]);
        ok = ok && res->array[i];
    }
    if (ok)
        return true;
    result_free(res);
    return false;
}

/* The arrays of option's rows, those res has not yet and whose every axis
 * it has (a Jacobian of the time bins only with them). */
static bool result_alloc_option(mcml_result *res, output_option option)
{
    output_grid g = result_grid(res);
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].option == option && !res->array[i] &&
            output_has_axes(&output_table[i], &g) &&
            !(res->array[i] = calloc(output_stored(&output_table[i], &g), sizeof *res->array[i])))
            return false;
    return true;
}

bool result_alloc_paths(mcml_result *res) { return result_alloc_option(res, OUTPUT_OPTION_PATHS); }

bool result_alloc_time(mcml_result *res, int nt)
{
    res->nt = nt;
    return result_alloc_option(res, OUTPUT_OPTION_TIME);
}

bool result_alloc_detectors(mcml_result *res, int detectors)
{
    res->detectors = detectors;
    return result_alloc_option(res, OUTPUT_OPTION_FIBER);
}

bool result_alloc_fx(mcml_result *res, int frequencies)
{
    res->frequencies = frequencies;
    return result_alloc_option(res, OUTPUT_OPTION_FX);
}

bool result_alloc_mod(mcml_result *res, int modulations)
{
    res->modulations = modulations;
    return result_alloc_option(res, OUTPUT_OPTION_MOD);
}

bool result_alloc_xy(mcml_result *res, int xy)
{
    res->xy = xy;
    return result_alloc_option(res, OUTPUT_OPTION_XY);
}

bool result_alloc_jacobian(mcml_result *res)
{
    return result_alloc_option(res, OUTPUT_OPTION_JACOBIAN);
}

bool result_has_paths(const mcml_result *res) { return res->rd_path != NULL; }

void result_free(mcml_result *res)
{
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        free(res->array[i]);
        free(res->stderr_array[i]);
        res->array[i] = res->stderr_array[i] = NULL;
    }
    res->stderr_groups = 0;
}

/* MCML's IzToLayer: the layer holding the centre of depth bin iz; bins
 * below the stack count for the last layer. */
static int result_iz_to_layer(const mci_run *run, int iz)
{
    int i = 1;
    while ((iz + 0.5) * run->dz >= run->layers[i].z1 && i < run->num_layers)
        i++;
    return i;
}

/* A tally's entries in row ir (of cols), and in column ic (of rows). */
static tally_acc_t result_row_sum(const tally_acc_t *v, int ir, int cols)
{
    tally_acc_t sum = 0;
    for (int ic = 0; ic < cols; ic++)
        sum += v[ir * cols + ic];
    return sum;
}

static tally_acc_t result_column_sum(const tally_acc_t *v, int ic, int rows, int cols)
{
    tally_acc_t sum = 0;
    for (int ir = 0; ir < rows; ir++)
        sum += v[ir * cols + ic];
    return sum;
}

/* Each normalisation of output_norm, in MCML's order of operations
 * (ScaleRdTt, ScaleA), so the doubles match MCML's for equal sums.  v is the
 * tally, (nr, cols) as its row of output_table[] says; out its array. */

static void result_ra(const mci_run *run, const tally_acc_t *v, double n, double *out)
{
    int nr = run->nr, na = run->na;
    double dr = run->dr, da = run->da;
    double scale1 = 4.0 * M_PI * M_PI * dr * sin(da / 2) * dr * n;
    for (int ir = 0; ir < nr; ir++)
        for (int ia = 0; ia < na; ia++) {
            double scale2 = 1.0 / ((ir + 0.5) * sin(2.0 * (ia + 0.5) * da) * scale1);
            out[ir * na + ia] = tally_weight(v[ir * na + ia]) * scale2;
        }
}

static void result_r(const mci_run *run, const tally_acc_t *v, int cols, double n, double *out)
{
    double dr = run->dr;
    double scale1 = 2.0 * M_PI * dr * dr * n;
    for (int ir = 0; ir < run->nr; ir++)
        out[ir] = tally_weight(result_row_sum(v, ir, cols)) * (1.0 / ((ir + 0.5) * scale1));
}

static void result_a(const mci_run *run, const tally_acc_t *v, int cols, double n, double *out)
{
    double da = run->da;
    double scale1 = 2.0 * M_PI * da * n;
    for (int ia = 0; ia < run->na; ia++)
        out[ia] = tally_weight(result_column_sum(v, ia, run->nr, cols)) *
                  (1.0 / (sin((ia + 0.5) * da) * scale1));
}

static void result_rz(const mci_run *run, const tally_acc_t *v, double n, double *out)
{
    int nr = run->nr, nz = run->nz;
    double dr = run->dr, dz = run->dz;
    double scale1 = 2.0 * M_PI * dr * dr * dz * n;
    for (int iz = 0; iz < nz; iz++)
        for (int ir = 0; ir < nr; ir++)
            out[ir * nz + iz] = tally_weight(v[ir * nz + iz]) / ((ir + 0.5) * scale1);
}

static void result_z(const mci_run *run, const tally_acc_t *v, int cols, double n, double *out)
{
    double scale1 = 1.0 / (run->dz * n);
    for (int iz = 0; iz < run->nz; iz++)
        out[iz] = tally_weight(result_column_sum(v, iz, run->nr, cols)) * scale1;
}

/* Sum2DA's A_l: MCML adds A_z[iz] into A_l[IzToLayer(iz)], which in
 * integers is the same as summing the bins of each layer.  out has
 * num_layers + 2 entries (the media above and below stay 0). */
static bool result_layer(const mci_run *run, const tally_acc_t *v, int cols, double n, double *out)
{
    int nl = run->num_layers;
    tally_acc_t *layer = calloc((size_t)nl + 2, sizeof *layer);
    if (!layer)
        return false;
    for (int iz = 0; iz < run->nz; iz++)
        layer[result_iz_to_layer(run, iz)] += result_column_sum(v, iz, run->nr, cols);
    double scale1 = 1.0 / n;
    for (int il = 0; il <= nl + 1; il++)
        out[il] = tally_weight(layer[il]) * scale1;
    free(layer);
    return true;
}

/* A path tally v (nr x num_layers, weight x cm) over the escaping weight
 * of its ring, the escape tally e's row (nr x na): cm, 0 where nothing
 * escaped.  Exact sums first, as MCML's arrays. */
static void result_path(const mci_run *run, const tally_acc_t *v, const tally_acc_t *e, double *out)
{
    int nl = run->num_layers;
    for (int ir = 0; ir < run->nr; ir++) {
        tally_acc_t w = result_row_sum(e, ir, run->na);
        for (int i = 0; i < nl; i++)
            out[ir * nl + i] = w ? tally_count(v[ir * nl + i]) / tally_count(w) : 0.0;
    }
}

/* The same over every ring: out[i] (1-based, as A_l) for layer i. */
static void result_path_total(const mci_run *run, const tally_acc_t *v, const tally_acc_t *e,
                              double *out)
{
    int nl = run->num_layers;
    tally_acc_t w = 0;
    for (int ir = 0; ir < run->nr; ir++)
        w += result_row_sum(e, ir, run->na);
    for (int i = 0; i < nl; i++)
        out[i + 1] = w ? tally_count(result_column_sum(v, i, run->nr, nl)) / tally_count(w) : 0.0;
}

/* Rd_rt, Tt_rt: a ring's weight in a time bin per area and ns per photon,
 * as result_rz divides by the ring's area. */
static void result_rt(const mci_run *run, const tally_acc_t *v, double n, double *out)
{
    int nt = run->time_nt;
    for (int ir = 0; ir < run->nr; ir++) {
        double scale = 1.0 / (2.0 * M_PI * (ir + 0.5) * run->dr * run->dr * run->time_dt * n);
        for (int it = 0; it < nt; it++)
            out[ir * nt + it] = tally_weight(v[ir * nt + it]) * scale;
    }
}

/* Rd_t, Tt_t: the time bin's weight over every ring per ns per photon. */
static void result_t(const mci_run *run, const tally_acc_t *v, double n, double *out)
{
    int nt = run->time_nt;
    for (int it = 0; it < nt; it++)
        out[it] = tally_weight(result_column_sum(v, it, run->nr, nt)) / (run->time_dt * n);
}

/* Rd_fiber: each detector's weight per photon. */
static void result_count(const tally_acc_t *v, int count, double n, double *out)
{
    for (int i = 0; i < count; i++)
        out[i] = tally_weight(v[i]) / n;
}

/* A signed score's positive sum less its negative, the difference taken
 * exactly on the integers, as weight. */
static double signed_weight(tally_acc_t pos, tally_acc_t neg)
{
    return pos >= neg ? tally_weight(pos - neg) : -tally_weight(neg - pos);
}

/* Rd_fx, Tt_fx: each frequency's positive sum less its negative
 * (output_fx_part), per photon: where nothing is negative (fx = 0, whose
 * J0 is 1) the quotient is RAT's Rd or Tt bit for bit, as result_total
 * computes it. */
static void result_fx(const tally_acc_t *v, int count, double n, double *out)
{
    for (int k = 0; k < count; k++)
        out[k] =
            signed_weight(v[OUTPUT_FX_POSITIVE * count + k], v[OUTPUT_FX_NEGATIVE * count + k]) *
            (1.0 / n);
}

/* The cosine and sine sums (weight) of the parts p (output_mod_part) of
 * one ring and frequency, or of a frequency over every ring. */
static void mod_sums(const tally_acc_t *p, double *c, double *s)
{
    *c = signed_weight(p[OUTPUT_MOD_COS_POSITIVE], p[OUTPUT_MOD_COS_NEGATIVE]);
    *s = signed_weight(p[OUTPUT_MOD_SIN_POSITIVE], p[OUTPUT_MOD_SIN_NEGATIVE]);
}

/* Rd_r_ac, Rd_r_phase: each ring's amplitude sqrt(C^2 + S^2) per area and
 * photon, scaled as result_r scales Rd_r, or its phase lag atan2(S, C). */
static void result_mod_r(const mci_run *run, const tally_acc_t *v, bool phase, double n,
                         double *out)
{
    int nf = run->mod_count;
    double scale1 = 2.0 * M_PI * run->dr * run->dr * n;
    for (int ir = 0; ir < run->nr; ir++)
        for (int k = 0; k < nf; k++) {
            double c, s;
            mod_sums(v + ((size_t)ir * nf + k) * OUTPUT_MOD_PARTS, &c, &s);
            out[ir * nf + k] = phase ? atan2(s, c) : hypot(c, s) * (1.0 / ((ir + 0.5) * scale1));
        }
}

/* Rd_ac, Rd_phase: the same of the sums over every ring (on the
 * integers), the amplitude per photon. */
static void result_mod(const mci_run *run, const tally_acc_t *v, bool phase, double n, double *out)
{
    int nf = run->mod_count;
    for (int k = 0; k < nf; k++) {
        tally_acc_t parts[OUTPUT_MOD_PARTS] = {0};
        for (int ir = 0; ir < run->nr; ir++)
            for (int p = 0; p < OUTPUT_MOD_PARTS; p++)
                parts[p] += v[((size_t)ir * nf + k) * OUTPUT_MOD_PARTS + p];
        double c, s;
        mod_sums(parts, &c, &s);
        out[k] = phase ? atan2(s, c) : hypot(c, s) * (1.0 / n);
    }
}

/* Rd_xy, Tt_xy (cell side dx, per area dx^2) and A_xz (per area dx dz of
 * the x-z plane): each bin / (area N), 1/cm2. */
static void result_xy(const tally_acc_t *v, uint64_t bins, double area, double n, double *out)
{
    double scale = 1.0 / (area * n);
    for (uint64_t i = 0; i < bins; i++)
        out[i] = tally_weight(v[i]) * scale;
}

/* Array o from its tally v, whose rows are r (output_table[]: every tally
 * runs along r first), and, for a path array, the escape tally e it is a
 * mean over; false when out of memory. */
static bool result_array(const mci_run *run, const output_array *o, const tally_acc_t *v,
                         const tally_acc_t *e, double n, double *out)
{
    const output_grid g = run_options_grid(run);
    int cols = (int)output_axis_length(output_tally(o->tally)->axes[1], &g);
    switch (o->norm) {
    case OUTPUT_NORM_RT: result_rt(run, v, n, out); return true;
    case OUTPUT_NORM_T: result_t(run, v, n, out); return true;
    case OUTPUT_NORM_COUNT: result_count(v, g.detectors, n, out); return true;
    case OUTPUT_NORM_FX: result_fx(v, g.frequencies, n, out); return true;
    case OUTPUT_NORM_MOD_AC_R: result_mod_r(run, v, false, n, out); return true;
    case OUTPUT_NORM_MOD_PHASE_R: result_mod_r(run, v, true, n, out); return true;
    case OUTPUT_NORM_MOD_AC: result_mod(run, v, false, n, out); return true;
    case OUTPUT_NORM_MOD_PHASE: result_mod(run, v, true, n, out); return true;
    case OUTPUT_NORM_XY:
        result_xy(v, output_bins(o, &g), run->xy_dx * run->xy_dx, n, out);
        return true;
    case OUTPUT_NORM_XZ:
        result_xy(v, output_bins(o, &g), run->xy_dx * run->dz, n, out);
        return true;
    case OUTPUT_NORM_PATH: result_path(run, v, e, out); return true;
    case OUTPUT_NORM_PATH_TOTAL: result_path_total(run, v, e, out); return true;
    case OUTPUT_NORM_RA: result_ra(run, v, n, out); return true;
    case OUTPUT_NORM_R: result_r(run, v, cols, n, out); return true;
    case OUTPUT_NORM_A: result_a(run, v, cols, n, out); return true;
    case OUTPUT_NORM_RZ: result_rz(run, v, n, out); return true;
    case OUTPUT_NORM_Z: result_z(run, v, cols, n, out); return true;
    case OUTPUT_NORM_LAYER: return result_layer(run, v, cols, n, out);
    case OUTPUT_NORM_JACOBIAN_R:
    case OUTPUT_NORM_JACOBIAN_A:
    case OUTPUT_NORM_JACOBIAN_TOTAL:
    case OUTPUT_NORM_JACOBIAN_RT:
    case OUTPUT_NORM_JACOBIAN_T:
    case OUTPUT_NORM_JACOBIAN_COUNT: return jacobian_array(run, o, v, n, out);
    }
    return false;
}

/* An optics set's effective sample size from its weight sums and its
 * escapes' (Rd_ra's and Tt_ra's units): (sum w)^2 / sum w^2, over the
 * reference's; NaN where nothing escaped. */
static double result_ess(const tally_set *t)
{
    tally_acc_t escaped = 0;
    for (size_t b = 0; b < (size_t)t->nr * (size_t)t->na; b++)
        escaped += t->rd_ra[b] + t->tt_ra[b];
    double w = tally_count(escaped), w2 = tally_count(t->set_w[OUTPUT_SET_WEIGHT_SQUARES]);
    double ref = tally_count(t->set_w[OUTPUT_REF_WEIGHTS]);
    double ref2 = tally_count(t->set_w[OUTPUT_REF_WEIGHT_SQUARES]);
    if (!(w2 > 0.0 && ref2 > 0.0 && ref > 0.0))
        return NAN;
    return (w * w / w2) / (ref * ref / ref2);
}

/* A tally's whole sum / N: the RAT scalar of its row (Rd, A, Tt). */
static double result_total(const tally_acc_t *v, size_t bins, double n)
{
    tally_acc_t sum = 0;
    for (size_t i = 0; i < bins; i++)
        sum += v[i];
    return tally_weight(sum) * (1.0 / n);
}

/* The time, detector, derivative, frequency and Cartesian arrays of res, when t has their
 * tallies, which must be the run's; false (res freed) with *err
 * otherwise. */
static bool result_optional(const mci_run *run, const tally_set *t, mcml_result *res, tm_error *err)
{
    bool ok = true;
    if (t->rd_rt)
        ok = t->nt == run->time_nt && run->time_dt > 0.0 && result_alloc_time(res, t->nt);
    if (ok && t->rd_fiber)
        ok = t->detectors == run->fiber_count && result_alloc_detectors(res, t->detectors);
    if (ok && t->rd_jr)
        ok = t->jacobian_layers == run->num_layers && result_alloc_jacobian(res);
    if (ok && t->rd_fx_parts)
        ok = t->frequencies == run->fx_count && result_alloc_fx(res, t->frequencies);
    if (ok && t->rd_mod_parts)
        ok = t->modulations == run->mod_count && result_alloc_mod(res, t->modulations);
    if (ok && t->rd_xy)
        ok = t->xy == run->xy_nx && run->xy_dx > 0.0 && result_alloc_xy(res, t->xy);
    if (ok)
        return true;
    result_free(res);
    error_set(err, NULL, 0,
              "time tallies of %d bins (the run: %d), %d detectors (the run: %d), derivatives "
              "of %d layers (the run: %d), %d spatial frequencies (the run: %d), %d modulation "
              "frequencies (the run: %d) or a Cartesian grid of %d cells (the run: %d), or out of "
              "memory",
              t->nt, run->time_nt, t->detectors, run->fiber_count, t->jacobian_layers,
              run->num_layers, t->frequencies, run->fx_count, t->modulations, run->mod_count, t->xy,
              run->xy_nx);
    return false;
}

bool result_from_tallies(const mci_run *run, const tally_set *t, mcml_result *res, tm_error *err)
{
    if (t->nr != run->nr || t->nz != run->nz || t->na != run->na) {
        error_set(err, NULL, 0,
                  "tally grid %dx%dx%d does not match the run's %dx%dx%d (nr, nz, na)", t->nr,
                  t->nz, t->na, run->nr, run->nz, run->na);
        return false;
    }
    if (t->photons == 0) {
        error_set(err, NULL, 0, "no photons were simulated: nothing to normalise");
        return false;
    }
    if (!result_alloc(res, run->nr, run->nz, run->na, run->num_layers)) {
        error_set(err, NULL, 0, "out of memory for the result arrays");
        return false;
    }
    double n = (double)t->photons;
    res->photons = t->photons;
    res->rsp = optics_specular(run);
    output_grid g = result_grid(res);
    if (t->rd_path && (t->num_layers != run->num_layers || !result_alloc_paths(res))) {
        result_free(res);
        error_set(err, NULL, 0, "path tallies of %d layers for a run of %d, or out of memory",
                  t->num_layers, run->num_layers);
        return false;
    }
    if (!result_optional(run, t, res, err))
        return false;
    g = result_grid(res);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        const output_array *o = &output_table[i];
        const tally_acc_t *v = t->tally[o->tally];
        if (!res->array[i])
            continue; /* an optional array the run did not ask for */
        if (!result_array(run, o, v, o->option == OUTPUT_OPTION_PATHS ? t->tally[o->path_of] : NULL,
                          n, res->array[i])) {
            result_free(res);
            error_set(err, NULL, 0, "out of memory for the result arrays");
            return false;
        }
        if (o->total)
            *(double *)((char *)res + o->total) = result_total(v, output_bins(o, &g), n);
    }
    if (t->set_w)
        res->ess = result_ess(t);
    return true;
}
