/* tmcml's limits, each with the reason for its value (in the spirit of
 * Lua's llimits.h).  A limit is declared here once; it is checked where the
 * value enters (the .mci reader, the spec, a profile file), with a message
 * that names the value. */
#ifndef TMCML_TM_LIMITS_H
#define TMCML_TM_LIMITS_H

#include <stdint.h>

/* Layers of a stack that GPU kernels are generated for: the layer table has
 * num_layers + 2 entries of 40 bytes, which must leave room for an A_rz tile
 * when it lives in shared memory; MCML itself has no limit, and the CPU
 * engine takes any count. */
#define SPEC_MAX_LAYERS 64

/* Bins of one 2-D tally array (A_rz, Rd_ra, Tt_ra): 2^27 64-bit bins are
 * already 1 GiB per array on the GPU, and 2 GiB of 128-bit accumulators. */
#define MCI_MAX_BINS ((int64_t)1 << 27)

/* Refractive indices a .mci may give: no material lies outside; beyond
 * them the Fresnel terms degenerate (n = 1e200 under air makes Rsp 0/0). */
#define MCI_MIN_N              0.01
#define MCI_MAX_N              100.0
/* The smallest dz and dr, in cm: 1/dz must stay finite in float32 on the
 * GPU (a dz of 1e-310 filled the arrays with NaN). */
#define MCI_MIN_STEP           1e-9
/* GPU kernels track depth in float32 (24-bit mantissa): a layer thinner
 * than 2^-20 of the depth of its bottom would vanish between two adjacent
 * floats (a 1e16 cm glass layer above thin layers hung the kernel). */
#define GPU_MIN_LAYER_FRACTION (1.0 / 1048576.0)

/* Bytes of a .mci file: MCML's inputs are a few kB even with hundreds of
 * runs; more is not an input file (tmcml run /dev/zero). */
#define MCI_MAX_FILE_BYTES     ((size_t)64 << 20)
/* Bytes of a profile file: a few kB per entry. */
#define PROFILE_MAX_FILE_BYTES ((size_t)16 << 20)

/* Photons of one 64-bit tally batch (one GPU launch at most): 2^32 photons
 * times at most 2^26 units each (weight <= 1 plus roulette gains) < 2^63. */
#define TALLY_BATCH_MAX_PHOTONS (UINT64_C(1) << 32)

/* The longest knobs_text (gen/knob.h): the table's names and values are
 * short; tests/test_knob.c checks the longest fits in half of it. */
#define KNOBS_TEXT_MAX 512

/* A directory or file name of the profile store: Linux's PATH_MAX. */
#define PROFILE_PATH_MAX   4096
/* Profile directories searched: --profiles, $TMCML_PROFILE_DIR, the user's,
 * the shipped ones. */
#define PROFILE_MAX_DIRS   4
/* The largest pilot photon count a profile holds: cJSON prints numbers with
 * 15 significant digits when that reads back within its tolerance, so larger
 * integers would not read back exactly. */
#define PROFILE_MAX_PILOT  UINT64_C(1000000000000000)
/* Profile files `tmcml profiles` lists in one directory: far more than
 * GPUs anyone tunes for; more are reported, not read. */
#define PROFILES_MAX_FILES 256

/* Timings per tuning candidate: the median of an odd count; more than 9
 * costs tuning time without steadying the median further. */
#define TUNE_MAX_REPEATS       9
/* Photons of a tuning pilot: one launch and one 64-bit batch. */
#define TUNE_MAX_PILOT_PHOTONS (TALLY_BATCH_MAX_PHOTONS - 1)

#endif
