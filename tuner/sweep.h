/* `tmcml sweep`: every tile shape NR x NZ of a grid (per entry width and
 * cluster size) timed with one launch configuration, as in the GPU-MCML
 * paper's Fig. 5 - the experiment tool for research on the cached region.  Each shape is checked
 * bit for bit against the heuristic kernel like a tuner candidate. */
#ifndef TMCML_SWEEP_H
#define TMCML_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "mci.h"
#include "runner.h"
#include "search.h"

/* A range "A:B:STEP" (B included when reached), or a single value "A". */
typedef struct sweep_range {
    int first, last, step;
} sweep_range;

bool sweep_parse_range(const char *text, sweep_range *r);
int sweep_range_count(const sweep_range *r);
int sweep_range_value(const sweep_range *r, int i);

typedef struct sweep_options {
    tune_options tune; /* seed, repeats, min kernel time, caches, log */
    sweep_range nr, nz;
    int entry_bits[2]; /* the widths to sweep (entry_count of them) */
    int entry_count;
    int clusters[SPEC_MAX_CLUSTER]; /* the cluster sizes to sweep (cluster_count) */
    int cluster_count;
    kernel_knobs launch;    /* block, min blocks, layers, last-bin: fixed */
    const char *out_prefix; /* PREFIX.csv, PREFIX.eBITS[.cN].png (sweep_plane_png) */
} sweep_options;

typedef struct sweep_result {
    tune_result cells;  /* one candidate per (entry, cluster, nr, nz), in that order */
    double best, worst; /* photons/s over the measured shapes */
    int best_index, worst_index;
} sweep_result;

/* Heat-map planes: entry widths x cluster sizes (entry-major). */
int sweep_plane_count(const sweep_options *opt);

bool sweep_run(const tune_runner *runner, const mci_run *run, const sweep_options *opt,
               sweep_result *res, tm_error *err);
void sweep_result_free(sweep_result *res);

/* PREFIX.csv and one PNG heat map per entry width and cluster size
 * (photons/s over NR x NZ): PREFIX.eBITS.png for no cluster,
 * PREFIX.eBITS.cN.png for clusters of N blocks. */
bool sweep_write_outputs(const sweep_options *opt, const sweep_result *res, const char *title,
                         tm_error *err);

#endif
