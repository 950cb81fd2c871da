/* Where a kernel variant is chosen: the documented default heuristic, then
 * whatever the user asked for on the command line (--tile, --entry, --block,
 * --min-blocks, --layers, --arch).  The tuner (tuner/) will put a profile's
 * winner between the two. */
#ifndef TMCML_VARIANT_H
#define TMCML_VARIANT_H

#include <stdbool.h>

#include "cuda.h"
#include "error.h"
#include "mci.h"
#include "spec.h"

/* Knobs given explicitly; zero / negative means "not given". */
typedef struct variant_options {
    bool tile_given;
    int tile_nr, tile_nz;
    int entry_bits;        /* 32 | 64 */
    int block_size;
    int min_blocks_per_sm; /* -1: not given */
    int layer_placement;   /* -1: not given, else spec_layer_placement */
    int last_bin_cache;    /* -1: not given, else 0 | 1 */
    int arch;              /* 0: the device's */
    bool debug_out_of_bounds;
} variant_options;

void variant_options_init(variant_options *v);

/* Parses one variant option at argv[*i] (advancing *i past its value).
 * Returns 1 when consumed, 0 when argv[*i] is not a variant option, -1 on a
 * bad value (*err set). */
int variant_parse_option(int argc, char **argv, int *i, variant_options *v, tm_error *err);

/* The spec for a run: the heuristic default for the device (dev may be NULL:
 * sm_90 and no shared-memory limit, as for `tmcml gen` without a GPU), then
 * the explicit options.  Validated against the device's shared memory. */
bool variant_spec_for_run(const mci_run *run, bool score_absorption, const cuda_device_info *dev,
                          const variant_options *v, kernel_spec *spec, tm_error *err);

/* The same with a tuned configuration (a profile's entry, tuner/profile.h)
 * between the heuristic and the explicit options; tuned may be NULL.  Its
 * tile is clamped to the grid (a nearest-class entry may be larger). */
struct profile_config;
bool variant_spec_tuned(const mci_run *run, bool score_absorption, const cuda_device_info *dev,
                        const struct profile_config *tuned, const variant_options *v,
                        kernel_spec *spec, tm_error *err);

/* Whether v sets any knob of the kernel (then a profile's entry is not
 * looked up: the user chose). */
bool variant_options_given(const variant_options *v);

/* Help text of the variant options. */
extern const char variant_usage[];

#endif
