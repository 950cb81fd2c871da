/* A cpu_problem from a run (cpu_problem_setup.h): the layers with their
 * divisions done once, the grid, the source's constants, the reference
 * and factors of absorption sets. */
#include "cpu_problem_setup.h"

#include <math.h>
#include <stdlib.h>

#include "cpu_source.h"
#include "detector.h"
#include "optics.h"
#include "rng.h"
#include "tm_limits.h"

bool cpu_problem_init(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption)
{
    /* no absorption sets unless cpu_problem_init_sets adds them */
    p->num_sets = 0;
    p->set_extra_mut = p->set_fraction = p->set_log_mus = p->set_g = NULL;
    p->scatter = p->set_weights = false;
    p->paths = false;
    p->jacobian = false;
    p->time_nt = 0;
    p->fibers = 0;
    p->fx_count = 0;
    p->fx = NULL;
    p->mod_count = 0;
    p->xy_nx = 0;
    p->xy_inv_dx = 0.0;
    p->layers = calloc((size_t)run->num_layers + 2, sizeof *p->layers);
    if (!p->layers)
        return false;
    p->num_layers = run->num_layers;
    for (int i = 0; i < run->num_layers + 2; i++) {
        const mci_layer *src = &run->layers[i];
        cpu_layer *l = &p->layers[i];
        double g = src->g;
        l->n = src->n;
        l->mua = src->mua;
        l->mus = src->mus;
        l->mut = src->mua + src->mus;
        l->inv_mut = l->mut > 0.0 ? 1.0 / l->mut : 0.0;
        l->absorbed_fraction = l->mut > 0.0 ? src->mua / l->mut : 0.0;
        l->g = g;
        l->phase = (g == 1.0 || g == -1.0) ? CPU_PHASE_FIXED : CPU_PHASE_HG;
        l->hg_h = 2.0 * g * (1.0 - g * g);
        l->z0 = src->z0;
        l->z1 = src->z1;
        l->cos_crit0 = src->cos_crit0;
        l->cos_crit1 = src->cos_crit1;
        l->glass = mci_layer_is_glass(src);
    }
    p->nr = run->nr;
    p->nz = run->nz;
    p->na = run->na;
    p->dr = run->dr;
    p->dz = run->dz;
    p->da = run->da;
    p->inv_dr = 1.0 / run->dr;
    p->inv_dz = 1.0 / run->dz;
    p->inv_da = 1.0 / run->da;
    p->last_ir = run->nr - 1;
    p->last_iz = run->nz - 1;
    p->last_ia = run->na - 1;
    cpu_azimuth_table_init(p->azimuth_table);
    p->start_weight = 1.0 - optics_specular(run);
    p->first_layer = optics_first_layer(run);
    cpu_source_init(p, run);
    p->score_absorption = score_absorption;
    p->max_steps = TM_MAX_STEPS_PER_PHOTON;
    p->stop_held = true;
    p->seed = seed;
    p->multipliers = rng_mwc_multipliers;
    return true;
}

void cpu_problem_free(cpu_problem *p)
{
    free(p->layers);
    free(p->set_extra_mut);
    free(p->set_fraction);
    free(p->set_log_mus);
    free(p->set_g);
    p->layers = NULL;
    p->set_extra_mut = p->set_fraction = p->set_log_mus = p->set_g = NULL;
}

void cpu_problem_set_options(cpu_problem *p, const mci_run *run)
{
    p->jacobian = run->jacobian;
    p->time_nt = run->time_nt;
    p->time_inv_dt = run->time_nt > 0 ? 1.0 / run->time_dt : 0.0;
    p->fibers = run->fiber_count;
    for (int k = 0; k < run->fiber_count; k++) {
        const fiber_detector *d = &run->fibers[k];
        p->fiber[k] = (cpu_fiber){d->sep, d->radius, detector_cos_accept(d->na, run->layers[0].n)};
    }
    p->fx_count = run->fx ? run->fx_count : 0;
    p->fx = run->fx;
    p->mod_count = run->mod_hz ? run->mod_count : 0;
    for (int k = 0; k < p->mod_count; k++)
        p->mod_omega[k] = 6.283185307179586 * run->mod_hz[k] * 1e-9; /* 2 pi f, in rad/ns */
    p->xy_nx = run->xy_dx > 0.0 ? run->xy_nx : 0;
    p->xy_inv_dx = p->xy_nx > 0 ? 1.0 / run->xy_dx : 0.0;
}

static double min_of_sets(double a, double b) { return a < b ? a : b; }

/* The reference of absorption sets: each layer's smallest mua over the sets,
 * so that every set's factor exp(-sum (mua_k,i - mua_ref,i) L_i) is <= 1. */
static void reference_mua(mci_run *ref, int num_sets, const double *set_mua)
{
    for (int i = 1; i <= ref->num_layers; i++) {
        double least = set_mua[i - 1];
        for (int k = 1; k < num_sets; k++)
            least = min_of_sets(least, set_mua[(size_t)k * ref->num_layers + i - 1]);
        ref->layers[i].mua = least;
    }
}

bool cpu_problem_init_sets(cpu_problem *p, const mci_run *run, uint64_t seed, bool score_absorption,
                           int num_sets, const double *set_mua)
{
    mci_run ref;
    if (!mci_run_copy(&ref, run))
        return false;
    reference_mua(&ref, num_sets, set_mua);
    bool ok = cpu_problem_init(p, &ref, seed, score_absorption);
    mci_run_free(&ref);
    if (!ok)
        return false;
    size_t entries = ((size_t)run->num_layers + 2) * (size_t)num_sets;
    p->num_sets = num_sets;
    p->set_extra_mut = calloc(entries, sizeof *p->set_extra_mut);
    p->set_fraction = calloc(entries, sizeof *p->set_fraction);
    if (!p->set_extra_mut || !p->set_fraction) {
        cpu_problem_free(p);
        return false;
    }
    for (int i = 1; i <= run->num_layers; i++)
        for (int k = 0; k < num_sets; k++) {
            const cpu_layer *l = &p->layers[i];
            double mua = set_mua[(size_t)k * run->num_layers + i - 1];
            size_t at = (size_t)i * num_sets + k;
            p->set_extra_mut[at] = mua - l->mua;
            p->set_fraction[at] = l->mut > 0.0 ? mua / l->mut : 0.0;
        }
    return true;
}

bool cpu_problem_set_scattering(cpu_problem *p, const double *set_mus, const double *set_g)
{
    int nl = p->num_layers, K = p->num_sets;
    size_t entries = ((size_t)nl + 2) * (size_t)K;
    p->set_log_mus = calloc(entries, sizeof *p->set_log_mus);
    p->set_g = calloc(entries, sizeof *p->set_g);
    if (!p->set_log_mus || !p->set_g)
        return false;
    p->scatter = true;
    for (int i = 0; i <= nl + 1; i++)
        for (int k = 0; k < K; k++) {
            const cpu_layer *l = &p->layers[i];
            size_t at = (size_t)i * K + k, from = (size_t)k * nl + i - 1;
            bool inside = i >= 1 && i <= nl;
            double mus = inside && set_mus ? set_mus[from] : l->mus;
            /* A layer that does not scatter stays so (mua_sets_check). */
            p->set_log_mus[at] = l->mus > 0.0 && mus > 0.0 ? log(mus / l->mus) : 0.0;
            p->set_extra_mut[at] += mus - l->mus;
            p->set_g[at] = inside && set_g ? set_g[from] : l->g;
        }
    return true;
}
