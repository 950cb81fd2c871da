/* `tmcml sweep` (tuner/sweep.h). */
#include "sweep.h"
#include "text_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"
#include "measure.h"
#include "report.h"
#include "variant.h"

bool sweep_parse_range(const char *text, sweep_range *r)
{
    int a, b, s, used = 0;
    if (text && sscanf(text, "%d:%d:%d%n", &a, &b, &s, &used) == 3 && text[used] == '\0') {
        if (a < 0 || b < a || s < 1)
            return false;
        *r = (sweep_range){a, b, s};
        return true;
    }
    if (text && sscanf(text, "%d%n", &a, &used) == 1 && text[used] == '\0' && a >= 0) {
        *r = (sweep_range){a, a, 1};
        return true;
    }
    return false;
}

int sweep_range_count(const sweep_range *r) { return (r->last - r->first) / r->step + 1; }

int sweep_range_value(const sweep_range *r, int i) { return r->first + i * r->step; }

void sweep_result_free(sweep_result *res)
{
    tune_result_free(&res->cells);
    memset(res, 0, sizeof *res);
}

static void log_cell(FILE *f, const tune_candidate *c)
{
    if (!f)
        return;
    fprintf(f, "  entry %2d cluster %d tile %4dx%-4d ", c->config.entry_bits,
            c->config.cluster_size, c->config.tile_nr, c->config.tile_nz);
    if (c->status == TUNE_MEASURED)
        fprintf(f, "%10.4g photons/s  (%d regs, %d blocks/SM)\n", c->photons_per_second,
                c->registers, c->blocks_per_sm);
    else
        fprintf(f, "%s: %s\n", tune_status_name(c->status), c->why);
    fflush(f);
}

/* The reference: the heuristic kernel sets the pilot and the tallies. */
static bool sweep_reference(measure_setup *m, uint64_t *ref, tune_result *r, tm_error *err)
{
    variant_options none;
    variant_options_init(&none);
    kernel_spec spec;
    if (!variant_spec_for_run(m->run, true, m->runner->device, &none, &spec, err) ||
        !measure_pilot_size(m, &spec, &m->photons, &r->steps_per_photon, NULL, err))
        return false;
    tune_measurement stats;
    if (!measure_run_once(m, &spec, m->photons, &stats, err))
        return false;
    *ref = stats.digest;
    r->pilot_photons = m->photons;
    m->reference = ref;
    return true;
}

static void note_extremes(sweep_result *res, int i)
{
    const tune_candidate *c = &res->cells.candidates[i];
    if (c->status != TUNE_MEASURED)
        return;
    if (res->best_index < 0 || c->photons_per_second > res->best) {
        res->best = c->photons_per_second;
        res->best_index = i;
    }
    if (res->worst_index < 0 || c->photons_per_second < res->worst) {
        res->worst = c->photons_per_second;
        res->worst_index = i;
    }
}

int sweep_plane_count(const sweep_options *opt) { return opt->entry_count * opt->cluster_count; }

/* Measures one cell; one that is no valid kernel (a tile larger than a
 * block's shared memory, a cluster with no tile) is recorded as skipped with
 * the reason, and drawn blank in the heat map. */
static bool sweep_cell(const measure_setup *m, const sweep_options *opt, const kernel_knobs *c,
                       sweep_result *res, tm_error *err)
{
    tune_candidate *cell = tune_result_add(&res->cells, c, "sweep");
    if (!cell) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    bool ok = measure_candidate(m, cell, false, NULL, err);
    res->cells.mismatches += cell->status == TUNE_MISMATCH;
    log_cell(opt->tune.log, cell);
    note_extremes(res, res->cells.count - 1);
    return ok;
}

bool sweep_run(const tune_runner *runner, const mci_run *run, const sweep_options *opt,
               sweep_result *res, tm_error *err)
{
    memset(res, 0, sizeof *res);
    res->best_index = res->worst_index = res->cells.reference = res->cells.winner = -1;
    measure_setup m = {.runner = runner, .run = run, .score_absorption = true, .opt = &opt->tune};
    uint64_t ref;
    double start = tune_runner_now(runner);
    if (!sweep_reference(&m, &ref, &res->cells, err))
        return false;
    bool ok = true;
    for (int p = 0; ok && p < sweep_plane_count(opt); p++)
        for (int i = 0; ok && i < sweep_range_count(&opt->nr); i++)
            for (int j = 0; ok && j < sweep_range_count(&opt->nz); j++) {
                kernel_knobs c = opt->launch;
                c.entry_bits = opt->entry_bits[p / opt->cluster_count];
                c.cluster_size = opt->clusters[p % opt->cluster_count];
                c.tile_nr = sweep_range_value(&opt->nr, i);
                c.tile_nz = sweep_range_value(&opt->nz, j);
                ok = sweep_cell(&m, opt, &c, res, err);
            }
    res->cells.winner = res->best_index;
    res->cells.seconds = tune_runner_now(runner) - start;
    return ok;
}

/* ---- outputs --------------------------------------------------------------- */

static bool write_heatmap(const sweep_options *opt, const sweep_result *res, int plane,
                          const char *title, tm_error *err)
{
    int ny = sweep_range_count(&opt->nr), nx = sweep_range_count(&opt->nz);
    double *x = malloc((size_t)nx * sizeof *x), *y = malloc((size_t)ny * sizeof *y);
    double *v = malloc((size_t)nx * (size_t)ny * sizeof *v);
    char *path = malloc(strlen(opt->out_prefix) + 16);
    bool ok = x && y && v && path;
    if (ok) {
        for (int j = 0; j < nx; j++)
            x[j] = sweep_range_value(&opt->nz, j);
        for (int i = 0; i < ny; i++)
            y[i] = sweep_range_value(&opt->nr, i);
        heatmap h = {nx,          ny, x, y, v, title, "tile NZ (z bins)", "tile NR (r bins)",
                     "photons/s", -1, -1};
        double best = -1;
        for (int i = 0; i < ny; i++)
            for (int j = 0; j < nx; j++) {
                const tune_candidate *c = &res->cells.candidates[(plane * ny + i) * nx + j];
                bool measured = c->status == TUNE_MEASURED;
                v[i * nx + j] = measured ? c->photons_per_second : NAN;
                if (measured && c->photons_per_second > best) {
                    best = c->photons_per_second;
                    h.mark_ix = j;
                    h.mark_iy = i;
                }
            }
        int bits = opt->entry_bits[plane / opt->cluster_count];
        int cluster = opt->clusters[plane % opt->cluster_count];
        if (cluster > 1)
            sprintf(path, "%s.e%d.c%d.png", opt->out_prefix, bits, cluster);
        else
            sprintf(path, "%s.e%d.png", opt->out_prefix, bits);
        ok = heatmap_write_png(path, &h, err);
        if (ok && opt->tune.log)
            text_printf(opt->tune.log, "heat map: %s\n", path);
    } else {
        error_set(err, NULL, 0, "out of memory");
    }
    free(x);
    free(y);
    free(v);
    free(path);
    return ok;
}

bool sweep_write_outputs(const sweep_options *opt, const sweep_result *res, const char *title,
                         tm_error *err)
{
    size_t n = strlen(opt->out_prefix) + 8;
    char *csv = malloc(n);
    if (!csv) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    snprintf(csv, n, "%s.csv", opt->out_prefix);
    bool ok = tune_write_csv(csv, &res->cells, err);
    if (ok && opt->tune.log)
        text_printf(opt->tune.log, "measurements: %s\n", csv);
    free(csv);
    int cells = sweep_range_count(&opt->nr) * sweep_range_count(&opt->nz);
    for (int p = 0; ok && p < sweep_plane_count(opt); p++) {
        char t[512];
        int cluster = opt->clusters[p % opt->cluster_count];
        if (cluster > 1)
            snprintf(t, sizeof t, "%s, %d-bit entries, clusters of %d", title,
                     opt->entry_bits[p / opt->cluster_count], cluster);
        else
            snprintf(t, sizeof t, "%s, %d-bit entries", title,
                     opt->entry_bits[p / opt->cluster_count]);
        ok = res->cells.count >= (p + 1) * cells && write_heatmap(opt, res, p, t, err);
    }
    return ok;
}
