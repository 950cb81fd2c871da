/* A run's optional outputs (run_options.h). */
#include "run_options.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "tm_limits.h"
#include "xy_grid.h"

/* The requests a run records as one line of text each (the .mco's
 * header, the checkpoint's input): the flag's line and its field. */
static const struct {
    const char *line;
    size_t flag; /* offsetof(mci_run, a bool) */
} flag_lines[] = {
    {"derivatives: of the escapes by each layer's mua, mus and g", offsetof(mci_run, jacobian)},
    {"optics set: reweighted from the reference's histories (its mua, mus, g in the layers above)",
     offsetof(mci_run, optics_set)},
};
#define FLAG_LINES (sizeof flag_lines / sizeof flag_lines[0])

/* The lists a run records as one line each, however long (mco_read_digest
 * reads a bounded number of lines before InParm): the line's start, of
 * the count (a printf format), then each value; the list's fields. */
static const struct {
    const char *line;
    size_t values, count; /* offsetof(mci_run, a double *), and its int count */
    int most;
} list_lines[] = {
    {"spatial frequencies: %d in 1/cm:", offsetof(mci_run, fx), offsetof(mci_run, fx_count),
     TM_MAX_SPATIAL_FREQUENCIES},
    {"modulation frequencies: %d in Hz:", offsetof(mci_run, mod_hz), offsetof(mci_run, mod_count),
     TM_MAX_MODULATIONS},
};
#define LIST_LINES          (sizeof list_lines / sizeof list_lines[0])
#define LIST_VALUES(run, k) (*(double **)((char *)(run) + list_lines[k].values))
#define LIST_COUNT(run, k)  (*(int *)((char *)(run) + list_lines[k].count))

bool run_options_has(const mci_run *run, output_option option)
{
    switch (option) {
    case OUTPUT_OPTION_NONE: return true;
    case OUTPUT_OPTION_PATHS: return run->path_lengths;
    case OUTPUT_OPTION_TIME: return run->time_nt > 0;
    case OUTPUT_OPTION_FIBER: return run->fiber_count > 0;
    case OUTPUT_OPTION_JACOBIAN: return run->jacobian;
    case OUTPUT_OPTION_OPTICS: return run->optics_set;
    case OUTPUT_OPTION_FX: return run->fx_count > 0;
    case OUTPUT_OPTION_MOD: return run->mod_count > 0;
    case OUTPUT_OPTION_XY: return run->xy_nx > 0;
    }
    return false;
}

output_grid run_options_lengths(const mci_run *run)
{
    output_grid lengths = run_options_grid(run);
    lengths.num_layers = run->path_lengths ? run->num_layers : 0;
    lengths.jacobian_layers = run->jacobian ? run->num_layers : 0;
    lengths.set_weights = run->optics_set ? OUTPUT_SET_WEIGHTS : 0;
    return lengths;
}

bool run_options_add_tallies(const mci_run *run, tally_set *t)
{
    output_grid lengths = run_options_lengths(run);
    return tally_set_add_options(t, &lengths);
}

bool run_options_wants(const mci_run *run, const output_array *o)
{
    output_grid g = run_options_grid(run);
    return run_options_has(run, o->option) && output_has_axes(o, &g);
}

output_grid run_options_grid(const mci_run *run)
{
    return (output_grid){.nr = run->nr,
                         .nz = run->nz,
                         .na = run->na,
                         .num_layers = run->num_layers,
                         .nt = run->time_nt,
                         .detectors = run->fiber_count,
                         .jacobian_layers = run->jacobian ? run->num_layers : 0,
                         .set_weights = run->optics_set ? OUTPUT_SET_WEIGHTS : 0,
                         .frequencies = run->fx_count,
                         .modulations = run->mod_count,
                         .xy = run->xy_nx};
}

bool run_options_tracks_time(const mci_run *run)
{
    return run->time_nt > 0 || run->fiber_count > 0;
}

void run_options_describe(const mci_run *run, const char *prefix, textbuf *t)
{
    if (run->time_nt > 0) {
        textbuf_add(t, "%stime bins: %d of ", prefix, run->time_nt);
        textbuf_add_double(t, run->time_dt);
        textbuf_add(t, " ns (time of flight: path x n / c, c = 29.9792458 cm/ns)\n");
    }
    /* A line a detector, in their order (a run of one writes what it
     * wrote before there could be more). */
    for (int k = 0; k < run->fiber_count; k++) {
        const fiber_detector *d = &run->fibers[k];
        textbuf_add(t, "%sfiber detector: separation ", prefix);
        textbuf_add_double(t, d->sep);
        textbuf_add(t, " cm, radius ");
        textbuf_add_double(t, d->radius);
        textbuf_add(t, " cm, NA ");
        textbuf_add_double(t, d->na);
        textbuf_add(t, "\n");
    }
    for (size_t k = 0; k < FLAG_LINES; k++)
        if (*(const bool *)((const char *)run + flag_lines[k].flag))
            textbuf_add(t, "%s%s\n", prefix, flag_lines[k].line);
    if (run->xy_nx > 0)
        xy_grid_describe(run->xy_dx, run->xy_nx, prefix, t);
    for (size_t k = 0; k < LIST_LINES; k++) {
        int count = LIST_COUNT((mci_run *)run, k);
        const double *values = LIST_VALUES((mci_run *)run, k);
        if (count <= 0)
            continue;
        textbuf_add(t, "%s", prefix);
        textbuf_add(t, list_lines[k].line, count);
        for (int i = 0; i < count; i++) {
            textbuf_add(t, " ");
            textbuf_add_double(t, values[i]);
        }
        textbuf_add(t, "\n");
    }
}

/* The values of list line k after its count, into run (its own copy);
 * false for a line that does not hold count numbers. */
static bool parse_list(const char *values, int count, size_t k, mci_run *run)
{
    if (count < 1 || count > list_lines[k].most)
        return false;
    double *list = malloc((size_t)count * sizeof *list);
    const char *at = values;
    bool ok = list != NULL;
    for (int i = 0; ok && i < count; i++) {
        while (*at == ' ')
            at++;
        ok = number_parse_prefix(at, &at, &list[i]) == NUMBER_OK;
    }
    while (ok && isspace((unsigned char)*at))
        at++;
    if (!ok || *at) {
        free(list);
        return false;
    }
    free(LIST_VALUES(run, k));
    LIST_VALUES(run, k) = list;
    LIST_COUNT(run, k) = count;
    return true;
}

bool run_options_parse_line(const char *line, mci_run *run)
{
    int nt = 0;
    double dt = 0.0, sep = 0.0, radius = 0.0, na = 0.0;
    if (sscanf(line, "time bins: %d of %lf ns", &nt, &dt) == 2) {
        run->time_nt = nt;
        run->time_dt = dt;
        return true;
    }
    if (xy_grid_parse_line(line, &run->xy_dx, &run->xy_nx))
        return true;
    if (sscanf(line, "fiber detector: separation %lf cm, radius %lf cm, NA %lf", &sep, &radius,
               &na) == 3) {
        if (run->fiber_count >= TM_MAX_DETECTORS)
            return false; /* more than a run holds: its Rd_fiber section reads as too long */
        run->fibers[run->fiber_count++] = (fiber_detector){sep, radius, na};
        return true;
    }
    for (size_t k = 0; k < LIST_LINES; k++) {
        char format[64];
        int count = 0, at = 0;
        snprintf(format, sizeof format, "%s%%n", list_lines[k].line);
        if (sscanf(line, format, &count, &at) == 1 && at > 0)
            return parse_list(line + at, count, k, run);
    }
    for (size_t k = 0; k < FLAG_LINES; k++)
        if (strcmp(line, flag_lines[k].line) == 0) {
            *(bool *)((char *)run + flag_lines[k].flag) = true;
            return true;
        }
    return false;
}
