/* Reading MCML 1.2.2 input files (.mci) into runs.
 *
 * Every input error is found here, before any simulation starts, and named
 * as "file:line: what is wrong (value)". */
#ifndef TMCML_MCI_H
#define TMCML_MCI_H

#include <stdbool.h>
#include <stdint.h>

#include "detector.h"
#include "error.h"
#include "source.h"
#include "tm_limits.h"

/* One layer.  layers[0] is the medium above and layers[num_layers+1] the
 * medium below: of those only n is meaningful (the others are zero). */
typedef struct mci_layer {
    double n, mua, mus, g, d; /* as read: 1, 1/cm, 1/cm, 1, cm */
    double z0, z1;            /* depth of the top and bottom boundary [cm] */
    /* Cosines of the critical angles for total internal reflection at the top
     * (z0) and bottom (z1) boundary; 0 when there is none (MCML's
     * cos_crit0 and cos_crit1). */
    double cos_crit0, cos_crit1;
} mci_layer;

typedef struct mci_run {
    char *out_name;    /* output file name exactly as written in the .mci */
    char out_format;   /* 'A' or 'B' (MCML writes ASCII in both cases) */
    int64_t photons;   /* 1 .. INT64_MAX */
    double dz, dr;     /* grid steps [cm] */
    int nz, nr, na;    /* grid counts, all > 0 */
    double da;         /* angle step: pi / (2 na) [rad] */
    int num_layers;    /* > 0 */
    mci_layer *layers; /* num_layers + 2 entries, see mci_layer */
    int line;          /* line of the run's output-name line in the file */
    /* Score the partial path lengths (docs/outputs.md, "Path lengths"): not
     * an .mci field but a request of the caller (--path-lengths,
     * tmcml_problem_set_path_lengths); false from mci_read. */
    bool path_lengths;
    /* Score the derivatives of the escapes with respect to each layer's
     * mua, mus and g (docs/physics.md, "Derivatives"): a request of the
     * caller (--jacobian, tmcml_problem_set_jacobian); false from mci_read. */
    bool jacobian;
    /* A set of optics sets (docs/physics.md, "Optics sets"), whose result
     * says its effective sample size: set by the sets' call on each set's
     * run; false from mci_read. */
    bool optics_set;
    /* Where photons start (runtime/io/source.h): not an .mci field but a
     * request of the caller (--source, tmcml_problem_set_source); the
     * pencil beam (zero) from mci_read. */
    source_desc source;
    /* Time-resolved escapes (time_bins.h; --time, tmcml_problem_set_time_bins):
     * time_nt bins of time_dt ns, the last collecting every later escape;
     * time_nt 0: none.  Not .mci fields: 0 from mci_read. */
    double time_dt;
    int time_nt;
    /* Fiber detectors (detector.h; --detector, tmcml_problem_add_fiber_detector):
     * fiber_count of them (0: none), scored in this order.  Not .mci
     * fields: none from mci_read. */
    int fiber_count;
    fiber_detector fibers[TM_MAX_DETECTORS];
    /* Spatial frequencies [1/cm] at which the escapes' Hankel transforms
     * Rd_fx and Tt_fx are scored (spatial_frequencies.h;
     * --spatial-frequencies, tmcml_problem_set_spatial_frequencies):
     * fx_count of them in fx (malloc'd, owned as layers is: mci_run_copy
     * copies it, mci_run_free frees it); 0 and NULL: none. */
    double *fx;
    int fx_count;
    /* Modulation frequencies [Hz] at which the reflectance's amplitude and
     * phase are scored (modulation.h; --modulation,
     * tmcml_problem_set_modulation): mod_count of them in mod_hz, owned as
     * fx is; 0 and NULL: none. */
    double *mod_hz;
    int mod_count;
    /* The Cartesian grid of the escapes and the absorption (xy_grid.h;
     * --xy, tmcml_problem_set_xy): xy_nx x xy_nx square cells of side
     * xy_dx cm centred on the entry point (x = y = 0), x and y in
     * [-xy_nx xy_dx / 2, xy_nx xy_dx / 2); xy_nx 0: none.  Not .mci
     * fields: 0 from mci_read. */
    double xy_dx;
    int xy_nx;
    /* The histories the run's tallies come from: 0 for photons simulated
     * with the run's own mua; for one of several absorption sets, a digest
     * of the mua they are simulated with (the sets' reference,
     * mua_sets_reference), which its tallies depend on too.  0 from
     * mci_read. */
    uint64_t history;
} mci_run;

typedef struct mci_file {
    char *path;     /* as given to mci_read, or the name given to mci_parse */
    double version; /* file version (1.0) */
    int num_runs;
    mci_run *runs;
} mci_file;

/* Reads and checks a whole .mci file.  On failure *file is left empty (safe to
 * mci_free) and *err names the file, the line and the offending value. */
bool mci_read(const char *path, mci_file *file, tm_error *err);

/* The same, from text in memory; name is used in messages. */
bool mci_parse(const char *text, const char *name, mci_file *file, tm_error *err);

void mci_free(mci_file *file);

/* runs as the text of an MCML 1.2.2 input file that mci_parse reads back as
 * the same values (runtime/io/mci_write.c).  The file's order, one value a
 * quantity; fields as given, not checked.  malloc'd; NULL when out of
 * memory. */
char *mci_format(const mci_run *runs, int count);

/* That text written to path atomically. */
bool mci_write(const char *path, const mci_run *runs, int count, tm_error *err);

/* A glass layer (mua = mus = 0) is crossed without interaction. */
static inline bool mci_layer_is_glass(const mci_layer *layer)
{
    return layer->mua == 0.0 && layer->mus == 0.0;
}

/* Deep copy of a run (used by writers and engines that outlive the file). */
bool mci_run_copy(mci_run *dst, const mci_run *src);
/* count doubles of src (a run's list: fx, mod_hz; NULL or count <= 0:
 * none) as a copy of their own into *dst (NULL for none), their count into
 * *dst_count (0 for none); false when out of memory (*dst NULL, count 0).
 * *dst is not freed first. */
bool mci_list_copy(const double *src, int count, double **dst, int *dst_count);
void mci_run_free(mci_run *run);

#endif
