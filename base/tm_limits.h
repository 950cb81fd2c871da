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

/* Blocks of a thread-block cluster sharing an A_rz tile: 8 is the portable
 * cluster size of sm_90 (larger ones need a non-portable opt-in and may not
 * be schedulable at all). */
#define SPEC_MAX_CLUSTER 8

/* Bins of one 2-D tally array (runtime/io/output_arrays.c): 2^27 64-bit
 * bins are already 1 GiB per array on the GPU, and 2 GiB of 128-bit
 * accumulators. */
#define MCI_MAX_BINS ((int64_t)1 << 27)

/* Refractive indices a .mci may give: no material lies outside; beyond
 * them the Fresnel terms degenerate (n = 1e200 under air makes Rsp 0/0). */
#define MCI_MIN_N              0.01
#define MCI_MAX_N              100.0
/* The smallest dz and dr, in cm: 1/dz must stay finite in float32 on the
 * GPU (a dz of 1e-310 filled the arrays with NaN). */
#define MCI_MIN_STEP           1e-9
/* Absorption and scattering coefficients other than 0, in 1/cm: a mean
 * free path beyond 10^12 cm or below 10^-12 cm (far below a wavelength,
 * where radiative transport means nothing) is no tissue; within these, 1/mu
 * and mu itself are finite and normal in float32 too (mua = 1e-300 with
 * mus = 0 made the GPU's 1/mut infinite).  0 keeps its MCML meaning. */
#define MCI_MIN_COEFFICIENT    1e-12
#define MCI_MAX_COEFFICIENT    1e12
/* The thinnest layer at a depth, as a fraction of that depth, that depths in
 * double precision still resolve with 2^13 positions across it: a 1e16 cm
 * glass layer above 0.01 cm layers made them vanish (z0 + d == z0) and the
 * CPU engine scored no absorption at all. */
#define MCI_MIN_LAYER_FRACTION (1.0 / 1099511627776.0) /* 2^-40 */
/* GPU kernels track depth in float32 (24-bit mantissa): a layer thinner
 * than 2^-20 of the depth of its bottom would vanish between two adjacent
 * floats (a 1e16 cm glass layer above thin layers hung the kernel). */
#define GPU_MIN_LAYER_FRACTION (1.0 / 1048576.0)

/* Steps after which a photon still alive is stopped and counted as trapped
 * (tally.h), in both engines: a photon in a medium it cannot leave and
 * never absorbed in (mua = 0 with total internal reflection, or mus d so
 * large that a random walk out takes (mus d)^2 steps) would keep a GPU
 * kernel from ever returning.  Tissue photons take 10^2-10^4 steps; a
 * non-absorbing slab of optical thickness 1000 needs ~10^6 on average, so
 * 10^7 stops only what would not end in useful time (4e5 steps/s per GPU
 * thread: 25 s).  --max-steps sets it per run; the GPU counts in 32 bits. */
#define TM_MAX_STEPS_PER_PHOTON UINT32_C(10000000)

/* Bytes of a .mci file: MCML's inputs are a few kB even with hundreds of
 * runs; more is not an input file (tmcml run /dev/zero). */
#define MCI_MAX_FILE_BYTES     ((size_t)64 << 20)
/* Bytes of a JSON summary read back (--resume's check of a finished run):
 * JSON_TEXT_BYTES_BOUND plus JSON_LAYER_BYTES_BOUND per layer, and a few
 * lines per GPU. */
#define JSON_MAX_FILE_BYTES    ((size_t)16 << 20)
/* Bytes of a profile file: a few kB per entry. */
#define PROFILE_MAX_FILE_BYTES ((size_t)16 << 20)

/* Bytes of a .npy member's header read back (runtime/io/npz_read.c): the
 * header is a short Python dict ("{'descr': '<f8', 'fortran_order': False,
 * 'shape': (500, 200), }"), padded to 64 bytes; tmcml writes about 128 and
 * NumPy refuses more than 10 000 unless told otherwise.  A damaged length
 * then asks for no more than this. */
#define NPY_HEADER_MAX_BYTES ((size_t)4096)

/* Bytes of a cubin cache entry's files (docs/cache.md), read back only up
 * to these, so that a file swapped for a huge one or a link to a device
 * (/dev/zero) ends in a rebuilt entry, not a full memory.  A cubin of the
 * 64-layer kernel is 50 kB; 64 MiB is a thousand times that.  The .info is
 * 500 bytes and NVRTC's log: a kernel full of warnings writes kilobytes.
 * (The .cu is read up to the length of the source it must equal.) */
#define CACHE_MAX_CUBIN_BYTES ((size_t)64 << 20)
#define CACHE_MAX_INFO_BYTES  ((size_t)1 << 20)

/* Photons of one 64-bit tally batch (one GPU launch at most): 2^32 photons
 * times at most 2^26 units each (weight <= 1 plus roulette gains) < 2^63. */
#define TALLY_BATCH_MAX_PHOTONS      (UINT64_C(1) << 32)
/* The same for a batch with path tallies (runtime/io/tally.h), whose
 * entries add a photon's weight times its path in a layer, capped at 2^39
 * units (32768 cm): 2^24 photons x 2^39 < 2^64.  Rounds of 2^24 photons
 * cost the CPU engine nothing measurable (a thread start each). */
#define TALLY_PATH_BATCH_MAX_PHOTONS (UINT64_C(1) << 24)
/* Layers of a run with path lengths: a photon carries a double a layer. */
#define TM_MAX_PATH_LAYERS           64
/* Time bins of a time-resolved run (runtime/io/time_bins.h): with nr rings,
 * Rd_rt and Tt_rt hold nr x nt entries, bounded as the grid's by
 * MCI_MAX_BINS; the count alone by a million, far above any instrument's
 * channels (a TCSPC card has 4096). */
#define TM_MAX_TIME_BINS             (1 << 20)
/* The narrowest time bin, in ns: an attosecond, in which light crosses
 * 3e-8 cm, a few of the smallest steps (MCI_MIN_STEP); no instrument
 * resolves a thousandth of it.  Above it 1 / (c dt) is finite and normal
 * in float32 on the GPU, and Rd_rt's normalisation 1 / (2 pi r dr dt N)
 * finite for every grid (dr >= MCI_MIN_STEP): --time 1e-320:10 wrote -NaN
 * and Inf into Rd_rt.  The widest is bounded by the range's end, nt dt,
 * which must be a finite number of ns. */
#define TM_MIN_TIME_BIN_NS           1e-9
/* The narrowest time bin a user asks for (the command line, the library,
 * Python): 10 fs, 1e-5 ns.  Narrower is no time-resolved measurement; it is
 * a width in seconds given where tmcml takes ns (MCX's habit: 1e-11 for
 * 10 ps), which would put every escape in the last bin. */
#define TM_MIN_ASKED_TIME_BIN_NS     1e-5

/* Fiber detectors of one run (--detector, given again for each;
 * docs/physics.md, "Fiber detector"): each escape through the top is
 * tested against every one, and a run's own GPU kernel keeps their
 * geometry in shared memory (12 bytes each).  A probe's detection fibers
 * (two to eight in spatially resolved reflectance) fit twice; more fibers
 * are simulated in runs of this many (the fit does). */
#define TM_MAX_DETECTORS               16
/* Spatial frequencies of one run (runtime/io/spatial_frequencies.h): each
 * escape evaluates J0 once per frequency (about 0.1 us), so 1024 of them
 * make a run of the 3-layer example 17 times as long; a spatial frequency
 * domain imager uses a handful to a few dozen (0:0.05:1 in 1/mm is 21). */
#define TM_MAX_SPATIAL_FREQUENCIES     1024
/* The highest spatial frequency, in 1/cm: 10^4, a period of 1 um.  The
 * simulation solves radiative transport, which has no meaning for a
 * pattern finer than about a wavelength of light (0.4 to 1 um in tissue
 * optics); its R(fx) there would be a number of no physical use. */
#define TM_MAX_SPATIAL_FREQUENCY       1e4
/* The most a GPU kernel scores (templates/fx.cu): each block sums its
 * escapes' terms in shared memory, 36 bytes a frequency (4.5 kB at 128,
 * beside the A_rz tile's tens of kB); more take the CPU engine. */
#define TM_MAX_GPU_SPATIAL_FREQUENCIES 128

/* Modulation frequencies of one run (runtime/io/modulation.h): each
 * escape takes a sine and a cosine a frequency, and each adds four tallies
 * a ring; a frequency-domain instrument uses one to a few, a network
 * analyser's sweep a few hundred at most. */
#define TM_MAX_MODULATIONS     256
/* The range taken, in Hz.  Below 1 kHz the phase of tissue (a few ns of
 * flight) is below 10^-5 rad, which the statistics cannot tell from 0: a
 * value there is far likelier a number meant in MHz or GHz.  Above 10 GHz
 * the period (100 ps) is a few mm of flight in tissue, where diffuse
 * frequency-domain measurements end; a value there is likelier meant in
 * kHz or MHz. */
#define TM_MIN_MODULATION_HZ   1e3
#define TM_MAX_MODULATION_HZ   1e10
/* The most a GPU kernel scores (templates/timed.cu): the escaping lane
 * takes a sine and a cosine and four atomics a frequency while its warp
 * waits, fine for an instrument's handful; more take the CPU engine. */
#define TM_MAX_GPU_MODULATIONS 32

/* Cells along x (and y) of the Cartesian grid (--xy; runtime/io/xy_grid.h):
 * Rd_xy and Tt_xy hold nx^2 entries, so 4096 makes 2^24 each, 128 MiB of
 * 64-bit tallies per thread and 256 MiB of 128-bit accumulators per run, a
 * memory a workstation has; a camera's image of a diffuse spot is a few
 * hundred pixels across. */
#define TM_MAX_XY_CELLS 4096

/* Absorption sets of one run (docs/physics.md, "Absorption sets"): a
 * photon of the CPU engine carries two doubles a set on its stack, 4 kB
 * at this count; the use (a spectrum of 64 to 128 wavelengths) fits
 * twice.  Sets share one tally set each, like the runs of a batch. */
#define TM_MAX_ABSORPTION_SETS 256

/* Values of one axis of a lookup table (docs/lut.md): a million points,
 * tmcml.h's TMCML_BATCH_MAX, for a table of one row (the runs strategy
 * batches a row's mus'), and more than any table anyone interpolates in. */
#define LUT_AXIS_MAX 1000000

/* Runs of one batch (driver/run_batch.c): their tally sets (128-bit
 * bins) and checkpoints live together until the batch ends, so a batch
 * holds at most this many bytes of them (1 GiB: a lookup table of 100 runs
 * on a 100 x 100 grid takes 16 MB, 600 runs of the 500 x 200 skin grid 1
 * GiB) and at most this many runs (beyond a few thousand a launch gains
 * nothing: its tables no longer fit a block's shared memory). */
#define TM_BATCH_MAX_TALLY_BYTES ((uint64_t)1 << 30)
#define TM_BATCH_MAX_RUNS        4096

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

/* The share of the detected available memory (MemAvailable, else the
 * physical memory) that a run's arrays may take: the rest stays for the
 * page cache, the node's other processes and what tmcml allocates besides
 * the arrays (thread stacks, the CPU engine's tables).  The same share of a
 * GPU's free memory for its device tallies leaves room for the kernel's
 * module and local memory.  $TMCML_MEMORY_LIMIT and
 * $TMCML_GPU_MEMORY_LIMIT replace the whole figure (driver/machine.c). */
#define RESOURCE_MEMORY_PERCENT 80

/* Bytes of an .mco besides its arrays, its layers and its output name (the
 * estimate of runtime/engine/footprint.c): the version lines, the comment
 * line (255 bytes at most: driver/run.c), the other InParm lines and
 * RAT (numbers of at most 20 characters) and the section headers take
 * about 1.3 kB; tests/test_footprint.c checks the bound against mco.c. */
#define MCO_TEXT_BYTES_BOUND   4096
/* Bytes of a JSON summary besides its names and layers: about 1 kB of keys
 * and numbers, a device name (255 bytes at most), a kernel spec key
 * (knobs within KNOBS_TEXT_MAX, the grid) and the run's identity (its
 * physics text within 255 bytes); 8 KiB bounds them.  Each layer
 * adds five numbers and keys in the input echo, an A_l number and, for the
 * immediate layer table, its values in the kernel key. */
#define JSON_TEXT_BYTES_BOUND  8192
#define JSON_LAYER_BYTES_BOUND 512

#endif
