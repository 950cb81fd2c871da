/* A result's figure: `tmcml plot`'s, drawn from the result in memory (tmcml.h),
 * so that the Python package's Result.plot() and the command draw one design. */
#include "api.h"

#include "fs.h"
#include "plot_mco.h"

/* The figure's title names the run: the caller's name, else the problem's
 * output name (a .mci's or an .mco's), else the PNG's file name. */
static const char *figure_name(const tmcml_result *r, const char *path, const char *name)
{
    if (name && *name)
        return name;
    if (r->problem.run.out_name && *r->problem.run.out_name)
        return r->problem.run.out_name;
    return fs_base_name(path);
}

tmcml_status tmcml_result_plot(tmcml_session *s, const tmcml_result *r, const char *path,
                               const char *name)
{
    tmcml_status entered = api_begin(s, API_ARGS({r, "result"}, {path, "path"}));
    if (entered != TMCML_OK)
        return entered;
    if (!*path)
        return api_arg_error(s, "path: empty");
    /* A shallow view: the figure reads the problem and the arrays alone,
     * and their standard errors where the result has them (bands). */
    mco_data view = {.run = r->problem.run, .comment = NULL, .result = r->res};
    const double *const *errors =
        r->res.stderr_groups > 0 ? (const double *const *)r->res.stderr_array : NULL;
    tm_error err = {0};
    if (!plot_mco_write_png_errors(path, &view, errors, figure_name(r, path, name), &err))
        return api_leave(s, api_fail(s, TMCML_ERR_FILE, &err));
    return api_leave(s, TMCML_OK);
}
