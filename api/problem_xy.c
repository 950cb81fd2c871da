/* The Cartesian grid of a problem and the oblique beam's rules
 * (tmcml.h: tmcml_problem_set_xy, TMCML_SOURCE_OBLIQUE; api.h). */
#include "api.h"

#include "xy_grid.h"

tmcml_status tmcml_problem_set_xy(tmcml_session *s, tmcml_problem *p, double dx, int nx)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    tm_error err = {0};
    if (nx != 0 && !xy_grid_check("xy", dx, nx, p->run.nz, &err))
        return api_arg_error(s, "%s", err.message);
    p->run.xy_dx = nx != 0 ? dx : 0.0;
    p->run.xy_nx = nx;
    return api_leave(s, TMCML_OK);
}

int tmcml_problem_xy(const tmcml_problem *p, double *dx)
{
    if (dx)
        *dx = p ? p->run.xy_dx : 0.0;
    return p ? p->run.xy_nx : 0;
}

bool api_xy_cpu_only(const tmcml_problem *const *p, int count, bool sets)
{
    for (int i = 0; i < count; i++) {
        const mci_run *run = &p[i]->run;
        if ((run->xy_nx > 0 || source_breaks_symmetry(&run->source)) &&
            (count > 1 || sets || run->jacobian))
            return true;
    }
    return false;
}

/* The first of p's requests that assumes a beam along the axis, by its
 * setter (sets: the call's absorption or optics sets), or NULL. */
static const char *axial_request(const mci_run *run, bool sets)
{
    const struct {
        const char *name;
        bool asked;
    } axial[] = {
        {"time bins (tmcml_problem_set_time_bins)", run->time_nt > 0},
        {"fiber detectors (tmcml_problem_add_fiber_detector)", run->fiber_count > 0},
        {"spatial frequencies (tmcml_problem_set_spatial_frequencies)", run->fx_count > 0},
        {"modulation frequencies (tmcml_problem_set_modulation)", run->mod_count > 0},
        {"the derivatives (tmcml_problem_set_jacobian)", run->jacobian},
        {"absorption or optics sets (tmcml_run_sets, tmcml_run_optics_sets)", sets},
    };
    for (size_t k = 0; k < sizeof axial / sizeof axial[0]; k++)
        if (axial[k].asked)
            return axial[k].name;
    return NULL;
}

/* An oblique beam's run: with the grid, without what assumes the axis. */
static tmcml_status check_oblique(tmcml_session *s, const mci_run *run, bool sets)
{
    const char *axial = axial_request(run, sets);
    tm_error err = {0};
    if (axial && !source_require_axial(&run->source, axial, &err))
        return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    if (run->xy_nx == 0)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "source: an oblique beam (TMCML_SOURCE_OBLIQUE) is not symmetric about "
                         "the z axis, so its one spatial output is the Cartesian grid: "
                         "tmcml_problem_set_xy first");
    return TMCML_OK;
}

tmcml_status api_check_xy(tmcml_session *s, const tmcml_problem *const *p, int count, bool sets,
                          tmcml_engine engine)
{
    for (int i = 0; i < count; i++) {
        const mci_run *run = &p[i]->run;
        tm_error err = {0};
        if (source_breaks_symmetry(&run->source)) {
            tmcml_status status = check_oblique(s, run, sets);
            if (status != TMCML_OK)
                return status;
        }
        if (run->xy_nx > 0 && !xy_grid_check("xy", run->xy_dx, run->xy_nx, run->nz, &err))
            return api_fail(s, TMCML_ERR_ARGUMENT, &err);
    }
    if (engine == TMCML_ENGINE_GPU && api_xy_cpu_only(p, count, sets))
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "engine: the Cartesian grid (tmcml_problem_set_xy) and the oblique beam "
                         "(TMCML_SOURCE_OBLIQUE) of several problems in one call, with sets or "
                         "derivatives are scored by the CPU engine alone: TMCML_ENGINE_CPU or "
                         "AUTO");
    return TMCML_OK;
}
