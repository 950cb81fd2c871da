/* A run's progress as a checkpoint (driver/resume.h). */
#include "resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile.h"
#include "cpu.h"
#include "gpu.h"
#include "precision.h"
#include "run_options.h"
#include "session_groups.h"

bool resume_physics(const gpu_engine *gpu, char *buf, size_t size, tm_error *err)
{
    if (!gpu) {
        snprintf(buf, size, "cpu %s", cpu_physics_hash);
        return true;
    }
    const cuda_device_info *dev = gpu_engine_device(gpu);
    return resume_gpu_physics(dev->cc_major, dev->cc_minor, buf, size, err);
}

bool resume_gpu_physics(int cc_major, int cc_minor, char *buf, size_t size, tm_error *err)
{
    char nvrtc[96];
    if (!compile_nvrtc_release(nvrtc, sizeof nvrtc, err))
        return false;
    snprintf(buf, size, "gpu generator=%016llx nvrtc=%s sm_%d%d",
             (unsigned long long)compile_generator_hash(), nvrtc, cc_major, cc_minor);
    return true;
}

/* CPU physics identities of earlier builds whose tallies are, bit for bit,
 * those of a later build: the later one changed the bytes of the hashed
 * sources (tools/physics_hash.cmake), not their arithmetic, as
 * tools/compare_builds.sh and a checkpoint of the earlier build resumed by
 * the later one showed.  What the earlier build left (a checkpoint, a
 * finished run's outputs) is taken by a build whose identity is `now`;
 * an entry whose `now` is no longer this build's is inert. */
static const struct {
    const char *before, *now;
} resume_equivalents[] = {
    /* 6b4eeb8 (the last landed build) -> the tenth session's: tally.c loops
     * over the table of output arrays, mci.c names an MCML 2.0 input,
     * cpu_photon.c and cpu.c score absorption sets in a loop of their own
     * (a run without sets keeps its arithmetic) */
    /* -> the path lengths' session: cpu_photon.c and cpu.c track the path
     * in the sets' loop, tally.c loops over the optional tallies too (a run
     * without path lengths keeps its arithmetic: compare_builds against
     * 9298f1a, every CPU case identical, and a 9298f1a checkpoint resumed) */
    {"cpu dff8cc904f1a6ac6", "cpu 123fa2412a7dd68a"},
    {"cpu a94c288e29efe04e", "cpu 123fa2412a7dd68a"},
    /* -> the twelfth session's (sources, time bins and a fiber detector):
     * cpu_photon.c launches a source other than the pencil out of line and
     * scores time bins and a fiber detector in the sets' loop, cpu_source.c
     * and source.c are hashed, tally.c allocates the optional tallies by
     * group, tally_set_equal builds on tally_set_runs_equal (a pencil run
     * without them keeps its arithmetic: compare_builds against e888536,
     * every CPU case identical, and an e888536 checkpoint resumed to the
     * uninterrupted run's .mco) */
    {"cpu dff8cc904f1a6ac6", "cpu 8ea25a9fe88f1d88"},
    {"cpu a94c288e29efe04e", "cpu 8ea25a9fe88f1d88"},
    {"cpu 123fa2412a7dd68a", "cpu 8ea25a9fe88f1d88"},
    /* -> the seventeenth session's: the run's constants (cpu_problem.h,
     * cpu_problem_setup.c) and the elementary functions (cpu_math.h, now
     * hashed too) moved out of cpu_photon.h and .c, cpu_azimuth given the
     * table instead of the problem (compare_builds against 75c2283, every
     * CPU case identical, and a 75c2283 checkpoint resumed to the
     * uninterrupted run's .mco) */
    {"cpu dff8cc904f1a6ac6", "cpu 1dcbe7d66b77df02"},
    {"cpu a94c288e29efe04e", "cpu 1dcbe7d66b77df02"},
    {"cpu 123fa2412a7dd68a", "cpu 1dcbe7d66b77df02"},
    {"cpu 8ea25a9fe88f1d88", "cpu 1dcbe7d66b77df02"},
    /* -> the twenty-first session's (issues 42 and 43): cpu.c obeys a stop
     * between two photons (a stopped round leaves holes in the chunks it
     * cut short, and says which ranges it did); mci.c reads numbers through
     * base/number_parse.c and text through base/user_text.c, source.c
     * refuses subnormal values; cpu_photon.c stops a photon held in a glass
     * layer by total reflection at once (every tally but its steps as when
     * it was stepped to the limit; the steps too where no photon is held,
     * i.e. in every run but a point inside glass); tally.c adds the
     * optional tallies of any group through one function (the group's axis
     * from the output table), cpu.c calls it; source.c reads a kind's
     * parameters, text form, checks and description from its row of
     * source_kind_table.  No arithmetic of an accepted
     * run that is not stopped changed: compare_builds against 429f32f and
     * 31a8ca9, every CPU case identical; runs with a source, time bins, a
     * detector, path lengths, sets and batches identical; 429f32f and
     * 31a8ca9 checkpoints (versions 1, 2 and 3, a sets run's, a lut
     * table's) resumed to the uninterrupted runs' outputs. */
    {"cpu dff8cc904f1a6ac6", "cpu 3a33238972ac9536"},
    {"cpu a94c288e29efe04e", "cpu 3a33238972ac9536"},
    {"cpu 123fa2412a7dd68a", "cpu 3a33238972ac9536"},
    {"cpu 8ea25a9fe88f1d88", "cpu 3a33238972ac9536"},
    {"cpu 1dcbe7d66b77df02", "cpu 3a33238972ac9536"},
    /* -> the twenty-fourth session's (issue 45): cpu_photon.c scores the
     * derivatives in the sets' loop (the path tracked when they are asked,
     * each interaction's count and Henyey-Greenstein score, the terms at
     * an escape, of its time bin and fiber share too), cpu.c gives their
     * tallies and cpu_problem the flag; tally.c adds a tally once every
     * axis of it has a length; absorption sets' extra attenuation is
     * mut's (mua's alone but in optics sets, whose sets_scatter reweights
     * each interaction), and an optics set scores its weight sums.  No
     * arithmetic of a run without them changed: compare_builds against
     * b302670, every CPU case identical; runs with path lengths, time bins
     * and a detector, sets with path lengths and a source identical; a
     * b302670 checkpoint (version 3) resumed to the uninterrupted run's
     * .mco. */
    {"cpu dff8cc904f1a6ac6", "cpu 2df46f6f918d4081"},
    {"cpu a94c288e29efe04e", "cpu 2df46f6f918d4081"},
    {"cpu 123fa2412a7dd68a", "cpu 2df46f6f918d4081"},
    {"cpu 8ea25a9fe88f1d88", "cpu 2df46f6f918d4081"},
    {"cpu 1dcbe7d66b77df02", "cpu 2df46f6f918d4081"},
    {"cpu 3a33238972ac9536", "cpu 2df46f6f918d4081"},
    /* -> the twenty-fifth session's: comments of templates/rng_mwc.h and
     * runtime/io/mci.c cite docs/ instead of a file users do not have (no
     * code changed: compare_builds against b302670, every CPU case identical; a
     * b302670 checkpoint resumed to the uninterrupted run's .mco). */
    {"cpu dff8cc904f1a6ac6", "cpu 0bffd0c07d71ae9d"},
    {"cpu a94c288e29efe04e", "cpu 0bffd0c07d71ae9d"},
    {"cpu 123fa2412a7dd68a", "cpu 0bffd0c07d71ae9d"},
    {"cpu 8ea25a9fe88f1d88", "cpu 0bffd0c07d71ae9d"},
    {"cpu 1dcbe7d66b77df02", "cpu 0bffd0c07d71ae9d"},
    {"cpu 3a33238972ac9536", "cpu 0bffd0c07d71ae9d"},
    {"cpu 2df46f6f918d4081", "cpu 0bffd0c07d71ae9d"},
    /* -> issue 47's several fiber detectors: cpu_problem.h holds a
     * detector's geometry a row (cpu_fiber), cpu_photon.c scores each one's
     * share of an escape (and of its derivatives) in a loop, cpu.c sizes
     * the workers' detector tallies for the most a batch's run has.  A run
     * of one detector or none keeps its arithmetic: compare_builds against
     * 6ce2fec, every CPU case identical; runs with a detector, time bins,
     * derivatives, standard errors, absorption sets with path lengths and a
     * fiber source identical (.mco and .npz); 6ce2fec checkpoints (a plain
     * run's, and one's with time bins and a detector, version 3) resumed to
     * the uninterrupted runs' .mco. */
    {"cpu dff8cc904f1a6ac6", "cpu 73fb6a0babdc2e5f"},
    {"cpu a94c288e29efe04e", "cpu 73fb6a0babdc2e5f"},
    {"cpu 123fa2412a7dd68a", "cpu 73fb6a0babdc2e5f"},
    {"cpu 8ea25a9fe88f1d88", "cpu 73fb6a0babdc2e5f"},
    {"cpu 1dcbe7d66b77df02", "cpu 73fb6a0babdc2e5f"},
    {"cpu 3a33238972ac9536", "cpu 73fb6a0babdc2e5f"},
    {"cpu 2df46f6f918d4081", "cpu 73fb6a0babdc2e5f"},
    {"cpu 0bffd0c07d71ae9d", "cpu 73fb6a0babdc2e5f"},
    /* -> issue 48's spatial frequencies: cpu_photon.c scores them in the
     * sets' loop (sets_escape_fx, a run that asks being one set of its own
     * mua), cpu_bessel.c (hashed) gives their J0, cpu.c and cpu_problem
     * carry their count, tally.c the frequencies' length, mci.c copies and
     * frees a run's frequencies.  No arithmetic of a run without them
     * changed: compare_builds against 6ce2fec, every CPU case identical;
     * runs with time bins and a detector, path lengths, derivatives,
     * absorption sets (with path lengths, -A), a Gaussian source and
     * --stderr identical, .mco and .npz; a 6ce2fec checkpoint resumed to the
     * uninterrupted run's .mco. */
    {"cpu dff8cc904f1a6ac6", "cpu 183e4d5aedaf1d5e"},
    {"cpu a94c288e29efe04e", "cpu 183e4d5aedaf1d5e"},
    {"cpu 123fa2412a7dd68a", "cpu 183e4d5aedaf1d5e"},
    {"cpu 8ea25a9fe88f1d88", "cpu 183e4d5aedaf1d5e"},
    {"cpu 1dcbe7d66b77df02", "cpu 183e4d5aedaf1d5e"},
    {"cpu 3a33238972ac9536", "cpu 183e4d5aedaf1d5e"},
    {"cpu 2df46f6f918d4081", "cpu 183e4d5aedaf1d5e"},
    {"cpu 0bffd0c07d71ae9d", "cpu 183e4d5aedaf1d5e"},
    /* -> both: the several detectors' and the spatial frequencies' sources
     * together (each identity above was checked alone; together:
     * compare_builds against 9240865e's build, every CPU case identical). */
    {"cpu dff8cc904f1a6ac6", "cpu 0c975c1316654ac3"},
    {"cpu a94c288e29efe04e", "cpu 0c975c1316654ac3"},
    {"cpu 123fa2412a7dd68a", "cpu 0c975c1316654ac3"},
    {"cpu 8ea25a9fe88f1d88", "cpu 0c975c1316654ac3"},
    {"cpu 1dcbe7d66b77df02", "cpu 0c975c1316654ac3"},
    {"cpu 3a33238972ac9536", "cpu 0c975c1316654ac3"},
    {"cpu 2df46f6f918d4081", "cpu 0c975c1316654ac3"},
    {"cpu 0bffd0c07d71ae9d", "cpu 0c975c1316654ac3"},
    {"cpu 73fb6a0babdc2e5f", "cpu 0c975c1316654ac3"},
    {"cpu 183e4d5aedaf1d5e", "cpu 0c975c1316654ac3"},
    /* -> issue 48's frequency domain: cpu_photon.c scores w cos(omega t)
     * and w sin(omega t) in the sets' loop (sets_escape_mod, through the
     * signed-score helper the spatial frequencies now share, their
     * arithmetic as before) and tracks the flight with modulation too,
     * cpu_problem carries the angular frequencies, cpu.c their count, tally.c
     * the modulations' length, mci.c copies and frees a run's list (one
     * copy for both lists).  No arithmetic of a run without them changed:
     * compare_builds against 06a2066, every CPU case identical; runs with
     * time bins and two detectors, derivatives with time bins, spatial
     * frequencies with --stderr, absorption sets with path lengths (with
     * and without -A), a Gaussian source with --stderr and path lengths
     * identical, .mco and .npz; 06a2066 checkpoints (a plain run's, version
     * 1, and with time bins, detectors or spatial frequencies and
     * --stderr, version 4) resumed to the uninterrupted runs' .mco. */
    {"cpu dff8cc904f1a6ac6", "cpu 2479fe5a3324438d"},
    {"cpu a94c288e29efe04e", "cpu 2479fe5a3324438d"},
    {"cpu 123fa2412a7dd68a", "cpu 2479fe5a3324438d"},
    {"cpu 8ea25a9fe88f1d88", "cpu 2479fe5a3324438d"},
    {"cpu 1dcbe7d66b77df02", "cpu 2479fe5a3324438d"},
    {"cpu 3a33238972ac9536", "cpu 2479fe5a3324438d"},
    {"cpu 2df46f6f918d4081", "cpu 2479fe5a3324438d"},
    {"cpu 0bffd0c07d71ae9d", "cpu 2479fe5a3324438d"},
    {"cpu 73fb6a0babdc2e5f", "cpu 2479fe5a3324438d"},
    {"cpu 183e4d5aedaf1d5e", "cpu 2479fe5a3324438d"},
    {"cpu 0c975c1316654ac3", "cpu 2479fe5a3324438d"},
    /* -> issue 48's oblique beam and Cartesian grid: source.c's table has
     * the oblique kind and its checks, cpu_source.c its start (no number
     * drawn), cpu_photon.c scores the grid in the sets' loop (each escape's
     * and deposit's units into its cell too, the deposit's units computed
     * once for A_rz and A_xz) and crosses a top glass layer at the beam's
     * angle, cpu_problem and cpu.c carry the grid, tally.c its length.  No
     * arithmetic of a run without them changed: compare_builds against
     * 4791967, every CPU case identical; runs with time bins and two
     * detectors, derivatives with time bins, spatial and modulation
     * frequencies with --stderr, path lengths, a Gaussian and a fiber source
     * with --stderr, absorption sets (with path lengths, with -A)
     * identical, .mco and .npz; 4791967 checkpoints (a plain run's,
     * version 1, and one with time bins, a detector and --stderr, version
     * 4, and with modulation frequencies and --stderr, version 5) resumed
     * to the uninterrupted runs' .mco. */
    {"cpu dff8cc904f1a6ac6", "cpu 707317b1dba6a1e4"},
    {"cpu a94c288e29efe04e", "cpu 707317b1dba6a1e4"},
    {"cpu 123fa2412a7dd68a", "cpu 707317b1dba6a1e4"},
    {"cpu 8ea25a9fe88f1d88", "cpu 707317b1dba6a1e4"},
    {"cpu 1dcbe7d66b77df02", "cpu 707317b1dba6a1e4"},
    {"cpu 3a33238972ac9536", "cpu 707317b1dba6a1e4"},
    {"cpu 2df46f6f918d4081", "cpu 707317b1dba6a1e4"},
    {"cpu 0bffd0c07d71ae9d", "cpu 707317b1dba6a1e4"},
    {"cpu 73fb6a0babdc2e5f", "cpu 707317b1dba6a1e4"},
    {"cpu 183e4d5aedaf1d5e", "cpu 707317b1dba6a1e4"},
    {"cpu 0c975c1316654ac3", "cpu 707317b1dba6a1e4"},
    {"cpu 2479fe5a3324438d", "cpu 707317b1dba6a1e4"},
    /* The first commit of the oblique beam (72f92cb, the work the GPU side
     * starts from): the same arithmetic; source.c's messages changed since. */
    {"cpu f289c0d9e4482f36", "cpu 707317b1dba6a1e4"},
    /* -> source.c's SOURCE_PARAM rows name every field (clang's
     * -Wmissing-field-initializers): the same table, bytes alone changed;
     * 4da31c0's and 86d1930's builds gave the same .mco for the pencil,
     * Gaussian, fiber, point and flat sources (with --stderr), the oblique
     * beam with the grid and --stderr, and time bins, a detector and the
     * derivatives. */
    {"cpu dff8cc904f1a6ac6", "cpu 78718ca6226a7b31"},
    {"cpu a94c288e29efe04e", "cpu 78718ca6226a7b31"},
    {"cpu 123fa2412a7dd68a", "cpu 78718ca6226a7b31"},
    {"cpu 8ea25a9fe88f1d88", "cpu 78718ca6226a7b31"},
    {"cpu 1dcbe7d66b77df02", "cpu 78718ca6226a7b31"},
    {"cpu 3a33238972ac9536", "cpu 78718ca6226a7b31"},
    {"cpu 2df46f6f918d4081", "cpu 78718ca6226a7b31"},
    {"cpu 0bffd0c07d71ae9d", "cpu 78718ca6226a7b31"},
    {"cpu 73fb6a0babdc2e5f", "cpu 78718ca6226a7b31"},
    {"cpu 183e4d5aedaf1d5e", "cpu 78718ca6226a7b31"},
    {"cpu 0c975c1316654ac3", "cpu 78718ca6226a7b31"},
    {"cpu 2479fe5a3324438d", "cpu 78718ca6226a7b31"},
    {"cpu f289c0d9e4482f36", "cpu 78718ca6226a7b31"},
    {"cpu 707317b1dba6a1e4", "cpu 78718ca6226a7b31"},
};

/* GPU generators (compile_generator_hash) of earlier builds whose every
 * kernel a later generator compiles to the same cubin: the later templates
 * added code under a shape's new member alone, which no earlier shape has,
 * or changed comments alone (their sources then differ, their cubins do
 * not; the banner's line naming the template set always differs).  A GPU
 * identity ("gpu generator=HASH nvrtc=... sm_XY") of `before` is one of
 * `now` when the rest (NVRTC, architecture) is the same. */
static const struct {
    const char *before, *now;
    bool but_optics_sets; /* every kernel but the optics sets' */
} generator_equivalents[] = {
    /* -> issue 45's derivatives and optics sets on the GPU
     * (templates/sets.cu, kernel.cu and step.cu under spec.sets_jacobian
     * and spec.sets_optics), and two comments of photon.cu and rng_mwc.h
     * that cited a file users do not have: tools/carry_profiles.sh found
     * every shipped profile's kernel the same cubin, and tmcml gen every
     * kernel of skin, skin -A, the slabs, the example, absorption sets with
     * and without path lengths and absorption, time bins, a fiber, a
     * Gaussian source and immediate layers the same source but for those
     * comments. */
    {"82fb8a102e55388b", "77bab5657b23f3f5", false},
    /* -> issue 43's kernel parameters from one table (templates/kernel.cu
     * writes the signature from gen/kernel_param.c's rows, which the
     * generator hash covers): tmcml gen renders every kernel of 77bab565's
     * byte for byte (the run's own, -A, tiles and clusters, the batch
     * kernel with and without run tiles, absorption and optics sets with
     * path lengths and derivatives, time bins and a fiber, with and
     * without -A), and tools/carry_profiles.sh every shipped profile's. */
    {"82fb8a102e55388b", "2396091d77297fc6", false},
    {"77bab5657b23f3f5", "2396091d77297fc6", false},
    /* -> the templates test a source kind by its name (spec.source_name,
     * gen/shape.c's shape_source_names) instead of its number: tmcml gen
     * renders the 39 kernels above and every source's (Gaussian, flat,
     * point, fiber; alone, -A, with absorption sets, with path lengths, the
     * batch kernel, time bins) byte for byte, and tools/carry_profiles.sh
     * every shipped profile's. */
    {"82fb8a102e55388b", "0d3bfdecfe2aa143", false},
    {"77bab5657b23f3f5", "0d3bfdecfe2aa143", false},
    {"2396091d77297fc6", "0d3bfdecfe2aa143", false},
    /* -> the optics sets that change g read each set's (-2 g_k, 1 + g_k^2)
     * and sum base-2 logarithms (templates/sets.cu sets_deflect): their
     * kernels round otherwise, so their runs' checkpoints are not carried;
     * tmcml gen renders every other kernel byte for byte (the 20 above;
     * the derivatives' with and without -A; the optics sets of mus alone
     * but for comments), and tools/carry_profiles.sh every shipped
     * profile's. */
    {"82fb8a102e55388b", "4af182a050680498", true},
    {"77bab5657b23f3f5", "4af182a050680498", true},
    {"2396091d77297fc6", "4af182a050680498", true},
    {"0d3bfdecfe2aa143", "4af182a050680498", true},
    /* -> the spatial frequencies on the GPU (templates/fx.cu, included and
     * called only under spec.fx, a shape member no earlier shape has):
     * tmcml gen renders every kernel above byte for byte, and
     * tools/carry_profiles.sh every shipped profile's. */
    {"82fb8a102e55388b", "9240865e9acdd63e", true},
    {"77bab5657b23f3f5", "9240865e9acdd63e", true},
    {"2396091d77297fc6", "9240865e9acdd63e", true},
    {"0d3bfdecfe2aa143", "9240865e9acdd63e", true},
    {"4af182a050680498", "9240865e9acdd63e", false},
    /* -> issue 47's several fiber detectors (templates/timed.cu's loop
     * under spec.fibers, a shape member no earlier shape has) beside the
     * spatial frequencies: tmcml gen renders 30 kernels of 0d3bfdec's byte
     * for byte (the run's own, -A, tiles, entries, blocks, the three layer
     * placements, last bin, edge cache, a cluster, the batch kernel with
     * and without -A, every source, time bins with and without -A, one
     * fiber with time bins, -A and a fiber source, absorption and optics
     * sets with path lengths and derivatives, the derivatives), the 26 of
     * 9240865e's above, and tools/carry_profiles.sh every shipped
     * profile's. */
    {"82fb8a102e55388b", "a04dac24c0167bdc", true},
    {"77bab5657b23f3f5", "a04dac24c0167bdc", true},
    {"2396091d77297fc6", "a04dac24c0167bdc", true},
    {"0d3bfdecfe2aa143", "a04dac24c0167bdc", true},
    {"4af182a050680498", "a04dac24c0167bdc", false},
    {"9240865e9acdd63e", "a04dac24c0167bdc", false},
    /* -> time bins and fiber detectors in the sets' kernel, with the
     * derivatives theirs (templates/sets.cu's sets_escape_timed and
     * sets_score_timed, under spec.time_bins or spec.fiber with sets, a
     * shape no earlier generator renders; timed.cu included before sets.cu,
     * the sets' kernels' waiting tallies listed from one table): tmcml gen
     * renders the 20 kernels of a04dac24's above byte for byte, and
     * tools/carry_profiles.sh every shipped profile's. */
    {"82fb8a102e55388b", "ab389e16d8f20fcf", true},
    {"77bab5657b23f3f5", "ab389e16d8f20fcf", true},
    {"2396091d77297fc6", "ab389e16d8f20fcf", true},
    {"0d3bfdecfe2aa143", "ab389e16d8f20fcf", true},
    {"4af182a050680498", "ab389e16d8f20fcf", false},
    {"9240865e9acdd63e", "ab389e16d8f20fcf", false},
    {"a04dac24c0167bdc", "ab389e16d8f20fcf", false},
    /* -> the modulation frequencies on the GPU (templates/timed.cu's
     * mod_escape, under spec.mod, a shape member no earlier shape has; the
     * flight kept with time bins or modulations): tmcml gen renders the 20
     * kernels above, the six sets' kernels of time bins and detectors of
     * ab389e16's, the spatial frequencies' and several detectors' byte for
     * byte, and tools/carry_profiles.sh every shipped profile's. */
    {"82fb8a102e55388b", "fbe8c62ab6f004fd", true},
    {"77bab5657b23f3f5", "fbe8c62ab6f004fd", true},
    {"2396091d77297fc6", "fbe8c62ab6f004fd", true},
    {"0d3bfdecfe2aa143", "fbe8c62ab6f004fd", true},
    {"4af182a050680498", "fbe8c62ab6f004fd", false},
    {"9240865e9acdd63e", "fbe8c62ab6f004fd", false},
    {"a04dac24c0167bdc", "fbe8c62ab6f004fd", false},
    {"ab389e16d8f20fcf", "fbe8c62ab6f004fd", false},
    /* -> the oblique beam and the Cartesian grid on the GPU
     * (templates/source.cu's "oblique" branch, templates/xy.cu under
     * spec.xy, a shape member no earlier shape has): tmcml gen renders 33
     * kernels of fbe8c62a's byte for byte (the run's own, -A, tiles,
     * entries, blocks, layer placements, last bin, a cluster, the batch
     * kernel with and without -A, every source, time bins, detectors,
     * spatial and modulation frequencies, absorption sets with path
     * lengths, derivatives, time bins and a detector), and
     * tools/carry_profiles.sh every shipped profile's. */
    {"82fb8a102e55388b", "149025c612614fee", true},
    {"77bab5657b23f3f5", "149025c612614fee", true},
    {"2396091d77297fc6", "149025c612614fee", true},
    {"0d3bfdecfe2aa143", "149025c612614fee", true},
    {"4af182a050680498", "149025c612614fee", false},
    {"9240865e9acdd63e", "149025c612614fee", false},
    {"a04dac24c0167bdc", "149025c612614fee", false},
    {"ab389e16d8f20fcf", "149025c612614fee", false},
    {"fbe8c62ab6f004fd", "149025c612614fee", false},
};

#define GPU_PHYSICS_PREFIX "gpu generator="
#define GENERATOR_DIGITS   16

static bool same_gpu_physics(const char *recorded, const char *now, bool optics_set)
{
    size_t p = strlen(GPU_PHYSICS_PREFIX), n = p + GENERATOR_DIGITS;
    if (strncmp(recorded, GPU_PHYSICS_PREFIX, p) != 0 || strncmp(now, GPU_PHYSICS_PREFIX, p) != 0 ||
        strlen(recorded) < n || strlen(now) < n || strcmp(recorded + n, now + n) != 0)
        return false;
    for (size_t i = 0; i < sizeof generator_equivalents / sizeof generator_equivalents[0]; i++)
        if (strncmp(recorded + p, generator_equivalents[i].before, GENERATOR_DIGITS) == 0 &&
            strncmp(now + p, generator_equivalents[i].now, GENERATOR_DIGITS) == 0 &&
            !(optics_set && generator_equivalents[i].but_optics_sets))
            return true;
    return false;
}

bool resume_physics_same(const char *recorded, const char *now, bool optics_set)
{
    if (strcmp(recorded, now) == 0 || same_gpu_physics(recorded, now, optics_set))
        return true;
    for (size_t i = 0; i < sizeof resume_equivalents / sizeof resume_equivalents[0]; i++)
        if (strcmp(recorded, resume_equivalents[i].before) == 0 &&
            strcmp(now, resume_equivalents[i].now) == 0)
            return true;
    return false;
}

/* A checkpoint of equivalent physics (resume_physics_same) continues as one
 * of this build's: it is written back with this build's identity. */
static bool adopt_physics(checkpoint *ck, const char *physics, bool optics_set, tm_error *err)
{
    if (strcmp(ck->physics, physics) == 0 || !resume_physics_same(ck->physics, physics, optics_set))
        return true;
    char *mine = strdup(physics);
    if (!mine) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    free(ck->physics);
    ck->physics = mine;
    return true;
}

static bool fresh(checkpoint *ck, const mci_run *run, int number, uint64_t seed, char *input,
                  const char *physics, tm_error *err)
{
    memset(ck, 0, sizeof *ck);
    ck->run_number = number;
    ck->seed = seed;
    ck->photons = (uint64_t)run->photons;
    ck->input = input;
    ck->physics = strdup(physics);
    /* Every optional tally the run asks for, from the start: MPI ranks reduce
     * the tallies array by array, also a rank that simulates none of the
     * run's photons (the engines add them only when they simulate). */
    if (!ck->physics || !tally_set_init(&ck->tallies, run->nr, run->nz, run->na) ||
        !run_options_add_tallies(run, &ck->tallies)) {
        checkpoint_free(ck);
        error_set(err, NULL, 0, "out of memory for the tallies of a %dx%d grid", run->nr, run->nz);
        return false;
    }
    return true;
}

/* The standard errors' groups of a checkpoint read back: used with
 * --stderr, where they must have the run's grid and arrays (the input
 * check vouches for the run, this for the groups); dropped without it, so
 * that the checkpoints this run writes hold none (the photons it adds are
 * not grouped).  Groups of another plan than this run's (begun without
 * --precision and resumed with it, or the other way round) are loosened:
 * valid, but no longer those of an unbroken run. */
static bool take_groups(checkpoint *ck, const driver_options *opt, const mci_run *run,
                        const char *ckpt_path, tm_error *err)
{
    uncertainty *u = &ck->unc;
    if (!opt->stderr_groups) {
        uncertainty_free(u);
        return true;
    }
    output_grid grid = run_options_grid(run);
    bool same = u->groups == 0 || !memcmp(&u->grid, &grid, sizeof grid);
    for (int i = 0; same && u->groups > 0 && i < OUTPUT_ARRAYS; i++)
        same = (u->array_mean[i] != NULL) == run_options_wants(run, &output_table[i]);
    if (!same) {
        error_set(err, ckpt_path, 0,
                  "the checkpoint's standard-error groups have other arrays than the run's");
        return false;
    }
    groups_plan plan = {.photons = (uint64_t)run->photons,
                        .chunk = opt->precision > 0.0 ? PRECISION_CHUNK : 0};
    return groups_fit_plan(&plan, u) || uncertainty_loosen(u, run, err);
}

bool resume_begin(checkpoint *ck, const driver_options *opt, const mci_run *run, int number,
                  const char *physics, const char *ckpt_path, bool *resumed, tm_error *err)
{
    *resumed = false;
    char *input = checkpoint_input_text(run, opt->score_absorption,
                                        opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON);
    if (!input) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    struct stat st;
    if (!opt->resume || stat(ckpt_path, &st) != 0)
        return fresh(ck, run, number, opt->seed, input, physics, err);
    bool ok = checkpoint_read(ckpt_path, ck, err) &&
              adopt_physics(ck, physics, run->optics_set, err) &&
              checkpoint_matches(ck, ckpt_path, number, opt->seed, (uint64_t)run->photons, input,
                                 physics, err);
    if (ok &&
        (ck->tallies.nr != run->nr || ck->tallies.nz != run->nz || ck->tallies.na != run->na)) {
        error_set(err, ckpt_path, 0, "the checkpoint's grid differs from the run's");
        ok = false;
    }
    ok = ok && take_groups(ck, opt, run, ckpt_path, err);
    free(input);
    if (!ok) {
        checkpoint_free(ck);
        return false;
    }
    *resumed = true;
    return true;
}

bool resume_add(checkpoint *ck, uint64_t begin, uint64_t end, tm_error *err)
{
    if (begin == end)
        return true;
    int i = 0;
    while (i < ck->range_count && ck->ranges[i].end < begin)
        i++;
    /* Ranges are added at the start of a gap: they touch the one before. */
    if (i < ck->range_count && ck->ranges[i].end == begin) {
        ck->ranges[i].end = end;
    } else {
        if (ck->range_count == CHECKPOINT_MAX_RANGES) {
            error_set(err, NULL, 0, "more than %d separate photon ranges", CHECKPOINT_MAX_RANGES);
            return false;
        }
        memmove(&ck->ranges[i + 1], &ck->ranges[i],
                (size_t)(ck->range_count - i) * sizeof ck->ranges[0]);
        ck->ranges[i] = (photon_range){begin, end};
        ck->range_count++;
    }
    /* Merge with the next range when they now touch. */
    if (i + 1 < ck->range_count && ck->ranges[i].end == ck->ranges[i + 1].begin) {
        ck->ranges[i].end = ck->ranges[i + 1].end;
        memmove(&ck->ranges[i + 1], &ck->ranges[i + 2],
                (size_t)(ck->range_count - i - 2) * sizeof ck->ranges[0]);
        ck->range_count--;
    }
    return true;
}

bool resume_cover(checkpoint *ck, uint64_t begin, uint64_t end, tm_error *err)
{
    uint64_t at = begin, gap_begin, gap_end;
    while (at < end && resume_gap_after(ck, at, &gap_begin, &gap_end) && gap_begin < end) {
        at = gap_end < end ? gap_end : end;
        if (!resume_add(ck, gap_begin, at, err))
            return false;
    }
    return true;
}

bool resume_next_gap(const checkpoint *ck, uint64_t *begin, uint64_t *end)
{
    return resume_gap_after(ck, 0, begin, end);
}

bool resume_gap_after(const checkpoint *ck, uint64_t at, uint64_t *begin, uint64_t *end)
{
    for (int i = 0; i < ck->range_count; i++) {
        if (ck->ranges[i].end <= at)
            continue;
        if (ck->ranges[i].begin > at) {
            *begin = at;
            *end = ck->ranges[i].begin;
            return true;
        }
        at = ck->ranges[i].end;
    }
    if (at >= ck->photons)
        return false;
    *begin = at;
    *end = ck->photons;
    return true;
}
