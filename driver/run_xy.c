/* --xy and the oblique beam for tmcml run (driver/run_xy.h). */
#include "run_xy.h"

#include <stdio.h>

#include "tm_limits.h"
#include "xy_grid.h"

/* The first option given that assumes a beam along the axis, or NULL. */
static const char *axial_option(const driver_options *opt)
{
    const struct {
        const char *name;
        bool given;
    } axial[] = {
        {"--time", opt->time_nt > 0},
        {"--detector", opt->fiber_count > 0},
        {"--spatial-frequencies", opt->fx_count > 0},
        {"--modulation", opt->mod_count > 0},
        {opt->optics_sets ? "--optics-sets" : "--mua-sets", opt->mua_sets != NULL},
        {"--jacobian", opt->jacobian},
    };
    for (size_t k = 0; k < sizeof axial / sizeof axial[0]; k++)
        if (axial[k].given)
            return axial[k].name;
    return NULL;
}

/* The oblique beam with the grid, and without what assumes the axis. */
static bool oblique_outputs(const driver_options *opt, tm_error *err)
{
    if (!source_breaks_symmetry(&opt->source))
        return true;
    const char *axial = axial_option(opt);
    if (axial)
        return source_require_axial(&opt->source, axial, err);
    if (opt->xy_nx > 0)
        return true;
    char text[160];
    source_text(&opt->source, text, sizeof text);
    error_set(err, NULL, 0,
              "--source %s: an oblique beam's light is not symmetric about the z axis, so its "
              "one spatial output is the Cartesian grid: add --xy DX:NX (e.g. --xy 0.01:200)",
              text);
    return false;
}

bool run_xy_options(driver_options *opt, tm_error *err)
{
    /* An oblique beam has the grid here (oblique_outputs), whose group
     * decides the engine and keeps the runs out of batches. */
    return oblique_outputs(opt, err) &&
           driver_own_kernel_group(opt, "--xy", "Rd_xy, Tt_xy and A_xz", opt->xy_nx,
                                   TM_MAX_XY_CELLS, err);
}

bool run_xy_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    for (int r = 0; opt->xy_nx > 0 && r < file->num_runs; r++) {
        mci_run *run = &file->runs[r];
        tm_error why = {0};
        if (!xy_grid_check("--xy", opt->xy_dx, opt->xy_nx, run->nz, &why)) {
            error_set(err, file->path, run->line, "%s", why.message);
            return false;
        }
        run->xy_dx = opt->xy_dx;
        run->xy_nx = opt->xy_nx;
    }
    return true;
}
