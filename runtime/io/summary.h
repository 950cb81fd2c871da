/* The JSON summary written next to each .mco (cJSON): RAT, photons, seed,
 * engine, threads, wall time, tmcml version and the input echoed. */
#ifndef TMCML_SUMMARY_H
#define TMCML_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "mci.h"
#include "result.h"

/* What one GPU of a run did (the run report's "gpus"). */
typedef struct run_gpu {
    int device;       /* its number (tmcml devices) */
    const char *name; /* its model */
    uint64_t photons; /* photons it simulated in this process */
    uint64_t chunks;  /* chunks of photons it took */
} run_gpu;

/* What a precision run asked and reached (driver/run_precision.h). */
typedef struct summary_precision {
    const char *of;       /* the quantity: "Rd", "Rd_r[0:100]" */
    double asked;         /* the relative standard error asked */
    double reached;       /* the one reached (its worst entry's) */
    uint64_t max_photons; /* the most the run could take */
    bool met;             /* reached <= asked; else it stopped at max_photons */
} summary_precision;

typedef struct run_report {
    const char *input_path; /* the .mci file */
    int run_index;          /* 1-based run number within the file */
    const mci_run *run;
    const mcml_result *result;
    uint64_t seed;
    const char *engine; /* "cpu" or "gpu" */
    int threads;
    double wall_seconds;
    bool score_absorption;    /* false for -A */
    const char *rng;          /* generator name, e.g. "mwc-per-photon" */
    double steps;             /* hop-drop-spin steps of all photons */
    uint64_t trapped_photons; /* photons stopped as trapped (tally.h) */
    double trapped_weight;    /* their weight per launched photon, as Rd */
    const char *device;       /* GPU name, NULL for the CPU engine */
    const char *kernel;       /* GPU kernel spec key, NULL for the CPU engine */
    const run_gpu *gpus;      /* the GPUs that ran it (gpu_count of them), or NULL */
    int gpu_count;
    uint64_t tallies_digest; /* tally_set_digest of the run's integer tallies */
    /* A stopped run's partial summary: the run's photons (0: a complete run)
     * and its checkpoint's name. */
    uint64_t partial_of;
    const char *checkpoint;
    /* A run that stopped at a precision (--precision), or NULL. */
    const struct summary_precision *precision;
    /* The file of the arrays' standard errors (a result with them: the
     * .npz's base name), or NULL. */
    const char *stderr_arrays;
    /* What the tallies depend on besides the seed, for --resume's check of
     * a finished run (driver/finished.c): the physics identity
     * (resume_physics; NULL: no "identity" is written) and an FNV-1a of the
     * run's canonical input text (checkpoint_input_text). */
    const char *physics;
    uint64_t input_digest;
} run_report;

/* What a JSON summary says made its tallies (summary_read_identity). */
typedef struct summary_identity {
    uint64_t seed;
    uint64_t photons;        /* the run's (identity), exact */
    uint64_t input_digest;   /* FNV-1a of checkpoint_input_text */
    uint64_t tallies_digest; /* tally_set_digest */
    char physics[256];
    bool partial;    /* a stopped run's partial summary */
    bool optics_set; /* the run is an optics set's (not written: resume_physics_same) */
} summary_identity;

/* Writes path atomically (fs_write_atomic): {"tmcml_version", "input": {"file",
 * "run", "out_name", "photons", "dz", "dr", "nz", "nr", "na", "layers":
 * [{"n", "mua", "mus", "g", "d"}, ...], "n_above", "n_below"}, "rng", "seed",
 * "engine", "threads", "device" and "kernel" (GPU: the first GPU's), "gpus":
 * [{"device", "name", "photons", "chunks"}, ...] (GPU: what each simulated in
 * this process), "score_absorption", "wall_seconds", "photons",
 * "photons_per_second", "RAT": {"Rsp", "Rd", "A", "Tt"}, "A_l": [layer 1, ...],
 * "trapped": {"photons", "weight"} (Rsp + Rd + A + Tt + weight = 1),
 * for a stopped run "partial": {"photons_done", "photons_total", "checkpoint"},
 * "tallies_digest": "fnv1a64:<16 hex digits>", and when report->physics is
 * set "identity": {"input_digest": "fnv1a64:<16 hex digits>", "photons":
 * "<decimal>", "physics": "..."}, and "units": {"input.dz": "cm", ...,
 * "input.layers[].mua": "1/cm", ..., "wall_seconds": "s", ..., "RAT.Rd": "-",
 * ..., "A_l": "-"}: each quantity with a unit by its path, "-" for none
 * (fractions); counts have no entry}: the tallies digest is equal for equal
 * integer tallies, whatever engine variant, split or machine produced them.
 * "seed" is a decimal string, so 64-bit seeds survive JSON readers that hold
 * numbers as doubles.  Every other number is printed with the fewest digits
 * that read back to the identical double (photon counts above 2^53 are
 * therefore rounded); NaN and infinity become null. */
bool summary_write(const char *path, const run_report *report, tm_error *err);

/* Reads back what made a summary's tallies: "seed", "tallies_digest",
 * "identity" and whether it is "partial".  False with *err ("path: what")
 * when the file cannot be read or parsed, or lacks one of them (a summary of
 * the library or an older tmcml has no "identity"). */
bool summary_read_identity(const char *path, summary_identity *id, tm_error *err);

#endif
