/* The absorption sets' kernel in a block that fits the device's shared
 * memory (issue 42, item 7).  The sets' kernel keeps a 4-byte word per
 * thread for each layer's path, its waiting escape and, with absorption,
 * each set's deposit residue (templates/sets.cu), so its shared memory grows
 * with its block: 64 sets with absorption on the 7 layers of skin in the
 * blocks of 1024 that the shipped H200 profile gives a run of skin needed
 * 303024 bytes, where an H200 allows 232448 a block, and the run failed
 * with a message naming the block, which no front end but the command line
 * can set.
 *
 *   test_sets_plan          the planner on a synthetic H200 (no GPU): the
 *                           issue's case, every set count up to
 *                           TM_MAX_ABSORPTION_SETS on every layer count
 *                           (the block fits, and a variant that fitted
 *                           keeps its kernel byte for byte), and the
 *                           messages where no block fits
 *   test_sets_plan compile  the chosen kernels render and compile with
 *                           NVRTC to sm_90 without spilling (label nvrtc;
 *                           exit 77 without NVRTC)
 *   test_sets_plan gpu      the run through the library on a GPU
 *                           (label gpu; exit 77 without one): a profile of
 *                           this GPU giving skin blocks of 1024, 64 sets
 *                           with absorption; every set's tallies bit for bit
 *                           those of the heuristic's blocks, set 0 (the
 *                           reference) those of a plain run, and every set's
 *                           Rd and Tt those of the CPU engine within their
 *                           statistical bound */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compile.h"
#include "mci.h"
#include "plan.h"
#include "profile.h"
#include "render.h"
#include "run_view.h"
#include "tmcml.h"
#include "tmcml_config.h"
#include "variant.h"

#define SKIN            TMCML_TEST_DATA "/../../examples/skin7_600nm.mci"
#define SHIPPED_H200    TMCML_SOURCE_PROFILE_DIR "/NVIDIA_H200.sm_90.json"
#define H200_OPTIN      232448 /* cudaDevAttrMaxSharedMemoryPerBlockOptin of an H200 */
#define SKIN_SETS       64
/* What the run needed, and what the fitted block needs (gen/spec.c:
 * (7 x 64 x 2 + (7 + 2 + 64) x block) x 4 bytes dynamic, and 9 records of
 * 48 bytes of the shared layer table). */
#define SKIN_BYTES_1024 303024
#define SKIN_BLOCK      768
#define SKIN_BYTES_768  228272

/* An H200 as the runner describes it (driver/gpu_runner.c), without one. */
static tune_device h200(void)
{
    tune_device d = {.cc_major = 9,
                     .cc_minor = 0,
                     .sm_count = 132,
                     .shared_per_block_optin = H200_OPTIN,
                     .shared_per_sm = 228 * 1024,
                     .max_threads_per_sm = 2048,
                     .regs_per_sm = 65536,
                     .driver_version = 13000};
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    return d;
}

static bool read_skin(mci_file *f)
{
    tm_error err = {0};
    if (mci_read(SKIN, f, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

/* The shipped H200 profile's entry for a run of skin with absorption (the
 * one the sets' kernel took, less its launch bound): blocks of 1024. */
static bool shipped_skin_entry(const mci_run *skin, profile_entry *out)
{
    profile p;
    tm_error err = {0};
    bool ok = profile_read(SHIPPED_H200, &p, &err);
    CHECK_MSG(ok, "%s", err.message);
    const profile_entry *e = NULL;
    profile_class cls = run_view_shape(skin, true);
    ok = ok && profile_lookup(&p, &cls, &e) == PROFILE_MATCH_EXACT;
    if (ok)
        *out = *e;
    profile_free(&p);
    CHECK_MSG(ok && out->config.block_size == 1024,
              "the shipped H200 profile's skin entry: blocks of 1024 (the issue's case)");
    return ok;
}

/* The sets' kernel as it was chosen before the fit: spec_for_sets of the
 * variant less its launch bound, the block as it was. */
static kernel_spec sets_as_before(const kernel_spec *run_spec, int num_sets)
{
    kernel_spec s = *run_spec;
    s.knobs.min_blocks_per_sm = 0;
    spec_for_sets(&s, (sets_scoring){.num_sets = num_sets, .paths = false});
    return s;
}

/* spec's block fits and the next larger one (up to before's) does not. */
static bool largest_fitting(const kernel_spec *spec, const kernel_spec *before, size_t limit)
{
    kernel_spec larger = *spec;
    larger.knobs.block_size += 32;
    return spec_shared_bytes(spec) <= limit &&
           (spec->knobs.block_size == before->knobs.block_size ||
            spec_shared_bytes(&larger) > limit);
}

/* ---- the planner, no GPU --------------------------------------------------- */

/* The case through the variant: the shipped entry's blocks of 1024
 * needed 303024 bytes; the fitted kernel is the same variant in blocks of
 * 768 (228272 bytes), and blocks of 800 would not fit. */
static void test_skin(const mci_run *skin, const profile_entry *e)
{
    tune_device dev = h200();
    variant_options none;
    variant_options_init(&none);
    kernel_spec spec;
    tm_error err = {0};
    CHECK(variant_spec_tuned(skin, true, &dev, &e->config, &none, &spec, &err));
    kernel_spec before = sets_as_before(&spec, SKIN_SETS);
    CHECK_MSG(spec_shared_bytes(&before) == SKIN_BYTES_1024, "before: %zu bytes",
              spec_shared_bytes(&before));
    CHECK(!spec_validate(&before, H200_OPTIN, &err));

    bool ok = variant_sets_spec(&spec, (sets_scoring){.num_sets = SKIN_SETS, .paths = false}, &none,
                                &dev, &err);
    CHECK_MSG(ok, "%s", err.message);
    CHECK_MSG(spec.knobs.block_size == SKIN_BLOCK, "block %d", spec.knobs.block_size);
    CHECK_MSG(spec_shared_bytes(&spec) == SKIN_BYTES_768, "after: %zu bytes",
              spec_shared_bytes(&spec));
    CHECK(spec_dynamic_shared_bytes(&spec) + spec_static_shared_bytes(&spec) <= H200_OPTIN);
    CHECK(largest_fitting(&spec, &before, H200_OPTIN));
    kernel_knobs same = before.knobs;
    same.block_size = SKIN_BLOCK;
    CHECK(knobs_equal(&spec.knobs, &same));
    printf("  skin, %d sets with absorption: blocks of 1024 need %zu bytes (H200: %d a "
           "block); blocks of %d, %zu bytes\n",
           SKIN_SETS, spec_shared_bytes(&before), H200_OPTIN, spec.knobs.block_size,
           spec_shared_bytes(&spec));

    /* Without a device (`tmcml gen` without a GPU): Hopper's limit. */
    CHECK(variant_spec_tuned(skin, true, NULL, &e->config, &none, &spec, &err) &&
          variant_sets_spec(&spec, (sets_scoring){.num_sets = SKIN_SETS, .paths = false}, &none,
                            NULL, &err) &&
          spec.knobs.block_size == SKIN_BLOCK);

    /* A block given on the command line is kept, or refused with what fits. */
    CHECK(variant_options_set(&none, "--block", "1024", &err));
    CHECK(variant_spec_tuned(skin, true, &dev, &e->config, &none, &spec, &err));
    CHECK(!variant_sets_spec(&spec, (sets_scoring){.num_sets = SKIN_SETS, .paths = false}, &none,
                             &dev, &err));
    CHECK_CONTAINS(err.message, "--block 1024");
    CHECK_CONTAINS(err.message, "at most 768 threads");
}

/* The same through the planner, from a profile of this toolchain holding
 * the shipped entry (its toolchain may not be this one): the planner says
 * the sets' block. */
static void test_planner(const mci_run *skin, const profile_entry *e)
{
    profile_toolchain tc;
    tm_error err = {0};
    if (!profile_toolchain_current(&tc, &err)) {
        printf("  no NVRTC: the planner's profile lookup not checked (%s)\n", err.message);
        return;
    }
    tune_device dev = h200();
    char dir[] = "/tmp/tmcml_test_sets_plan.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[sizeof dir + 64];
    snprintf(path, sizeof path, "%s/h200.json", dir);
    profile p;
    profile_init(&p);
    profile_device_from_info(&dev, &p.device);
    p.toolchain = tc;
    CHECK(profile_put(&p, e));
    CHECK_MSG(profile_write(path, &p, &err), "%s", err.message);
    profile_free(&p);

    plan_options opt = {
        .score_absorption = true, .quiet = true, .profile_file = path, .num_sets = SKIN_SETS};
    variant_options_init(&opt.variant);
    kernel_spec spec;
    char source[1024];
    bool ok = plan_choose_for_gen(&opt, &dev, skin, &spec, source, sizeof source, &err);
    CHECK_MSG(ok, "%s", err.message);
    CHECK(spec.knobs.block_size == SKIN_BLOCK && spec_shared_bytes(&spec) <= H200_OPTIN);
    CHECK_CONTAINS(source, path);
    CHECK_CONTAINS(source, "the sets in blocks of 768 (of 1024");
    printf("  planner: %s\n", source);
    remove(path);
    remove(dir);
}

/* A synthetic problem of `layers` layers on skin's grid, with the variant
 * of a run: blocks of `block`, the layer table shared (constant for one). */
static kernel_spec synthetic(int layers, bool absorb, int block)
{
    kernel_spec s;
    spec_init(&s);
    s.num_layers = layers;
    s.nr = 200;
    s.nz = 500;
    s.na = 30;
    s.dr = 0.01;
    s.dz = 0.002;
    s.da = 0.05;
    s.score_absorption = absorb;
    s.knobs.block_size = block;
    s.knobs.layer_placement = layers > 1 ? SPEC_LAYERS_SHARED : SPEC_LAYERS_CONSTANT;
    if (!absorb)
        knobs_without_absorption(&s.knobs);
    return s;
}

/* Every set count up to the maximum on every layer count, with and without
 * absorption, in the heuristic's blocks of 256 and the profiles' of 1024:
 * the sets' kernel always fits an H200, in the largest block that does;
 * one that fitted before is the same kernel (equal keys: equal sources). */
static void test_every_count(void)
{
    tune_device dev = h200();
    variant_options none;
    variant_options_init(&none);
    static const int blocks[] = {256, 1024};
    int kept = 0, fitted = 0, bad = 0, smallest = 1024;
    for (int layers = 1; layers <= SPEC_MAX_LAYERS; layers++)
        for (int sets = 1; sets <= TM_MAX_ABSORPTION_SETS; sets++)
            for (int a = 0; a < 2; a++)
                for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
                    kernel_spec spec = synthetic(layers, a, blocks[b]);
                    kernel_spec before = sets_as_before(&spec, sets);
                    tm_error err = {0};
                    bool ok = variant_sets_spec(
                        &spec, (sets_scoring){.num_sets = sets, .paths = false}, &none, &dev, &err);
                    bool fits = ok && largest_fitting(&spec, &before, H200_OPTIN);
                    if (fits && spec_shared_bytes(&before) <= H200_OPTIN) {
                        char *k1 = spec_key(&spec), *k2 = spec_key(&before);
                        fits = k1 && k2 && strcmp(k1, k2) == 0;
                        free(k1), free(k2);
                        kept++;
                    } else if (fits) {
                        fitted++;
                        if (spec.knobs.block_size < smallest)
                            smallest = spec.knobs.block_size;
                    }
                    if (!fits && bad++ < 5)
                        fprintf(stderr, "%d layers, %d sets, A=%d, block %d: %s\n", layers, sets, a,
                                blocks[b], ok ? "not the largest fitting block" : err.message);
                }
    CHECK_MSG(bad == 0, "%d combinations wrong", bad);
    CHECK(kept > 0 && fitted > 0);
    printf("  every count: %d variants kept as they were, %d fitted (smallest block %d)\n", kept,
           fitted, smallest);

    /* The most sets on the most layers with absorption: blocks of 64. */
    kernel_spec most = synthetic(SPEC_MAX_LAYERS, true, 256);
    kernel_spec before = sets_as_before(&most, TM_MAX_ABSORPTION_SETS);
    tm_error err = {0};
    CHECK(variant_sets_spec(&most,
                            (sets_scoring){.num_sets = TM_MAX_ABSORPTION_SETS, .paths = false},
                            &none, &dev, &err));
    CHECK_MSG(most.knobs.block_size == 64 && spec_shared_bytes(&most) <= H200_OPTIN,
              "block %d, %zu bytes", most.knobs.block_size, spec_shared_bytes(&most));
    printf("  %d sets with absorption on %d layers: blocks of 256 need %zu bytes; blocks of %d, "
           "%zu bytes\n",
           TM_MAX_ABSORPTION_SETS, SPEC_MAX_LAYERS, spec_shared_bytes(&before),
           most.knobs.block_size, spec_shared_bytes(&most));
}

/* A device whose blocks hold 48 KB: no block holds 64 sets with absorption
 * on 64 layers; the message says what every front end can change (fewer
 * sets a call, -A, the CPU engine), no launch parameter. */
static void test_too_large(void)
{
    tune_device small = h200();
    snprintf(small.name, sizeof small.name, "Small GPU");
    small.shared_per_block_optin = 48 * 1024;
    variant_options none;
    variant_options_init(&none);
    kernel_spec spec = synthetic(SPEC_MAX_LAYERS, true, 256);
    tm_error err = {0};
    CHECK(!variant_sets_spec(&spec, (sets_scoring){.num_sets = 64, .paths = false}, &none, &small,
                             &err));
    /* (64 x 2 K + (66 + K) x 32) x 4 + 66 x 48 = 640 K + 11616 <= 49152 */
    CHECK_CONTAINS(err.message, "at most 58 sets a call");
    CHECK_CONTAINS(err.message, "without absorption (-A; absorption=False in Python)");
    CHECK_CONTAINS(err.message, "CPU engine");
    CHECK_CONTAINS(err.message, "Small GPU allows 49152");
    CHECK(!strstr(err.message, "--block") && !strstr(err.message, "smaller block"));
    printf("  48 KB a block: %s\n", err.message);
    /* 256 sets: -A does not fit either, and is not offered. */
    spec = synthetic(SPEC_MAX_LAYERS, true, 256);
    CHECK(!variant_sets_spec(&spec,
                             (sets_scoring){.num_sets = TM_MAX_ABSORPTION_SETS, .paths = false},
                             &none, &small, &err));
    CHECK_CONTAINS(err.message, "at most 58 sets a call");
    CHECK(!strstr(err.message, "-A"));
}

static int test_plan(void)
{
    mci_file f;
    if (!read_skin(&f))
        return 1;
    profile_entry e;
    if (shipped_skin_entry(&f.runs[0], &e)) {
        test_skin(&f.runs[0], &e);
        test_planner(&f.runs[0], &e);
    }
    mci_free(&f);
    test_every_count();
    test_too_large();
    return check_summary("test_sets_plan");
}

/* ---- the chosen kernels compile (NVRTC) ------------------------------------ */

static void compile_one(const char *name, const kernel_spec *spec)
{
    render_output src = {0};
    compile_result r = {0};
    compile_options copt = {.arch = 90, .cache_dir = ""};
    tm_error err = {0};
    bool ok = render_kernel(spec, NULL, &src, &err) && compile_cubin(&src, &copt, &r, &err);
    CHECK_MSG(ok, "%s: %s", name, err.message);
    if (ok) {
        printf("  %-44s block %4d: %3d registers, spills %d/%d bytes, %.2f s\n", name,
               spec->knobs.block_size, r.registers, r.spill_stores, r.spill_loads, r.seconds);
        CHECK_MSG(r.spill_stores == 0 && r.spill_loads == 0, "%s spills", name);
        CHECK(r.registers > 0 && r.cubin_size > 0);
    }
    compile_result_free(&r);
    render_output_free(&src);
}

static int test_compile(void)
{
    char version[32];
    tm_error err = {0};
    if (!compile_nvrtc_available(version, sizeof version, &err)) {
        printf("no NVRTC: skipped (%s)\n", err.message);
        return 77;
    }
    mci_file f;
    if (!read_skin(&f))
        return 1;
    tune_device dev = h200();
    variant_options none;
    variant_options_init(&none);
    profile_entry e;
    kernel_spec spec;
    if (shipped_skin_entry(&f.runs[0], &e)) {
        CHECK(variant_spec_tuned(&f.runs[0], true, &dev, &e.config, &none, &spec, &err) &&
              variant_sets_spec(&spec, (sets_scoring){.num_sets = SKIN_SETS, .paths = false}, &none,
                                &dev, &err) &&
              spec.knobs.block_size == SKIN_BLOCK);
        compile_one("skin, 64 sets with absorption", &spec);
    }
    mci_free(&f);
    spec = synthetic(SPEC_MAX_LAYERS, true, 256);
    CHECK(variant_sets_spec(&spec,
                            (sets_scoring){.num_sets = TM_MAX_ABSORPTION_SETS, .paths = false},
                            &none, &dev, &err));
    compile_one("64 layers, 256 sets with absorption", &spec);
    return check_summary("test_sets_plan compile");
}

/* ---- the run on a GPU ------------------------------------------------ */

#define GPU_PHOTONS 100000
#define GPU_SEED    11
#define ALPHA       1e-3

/* A profile of GPU 0 (this toolchain) in dir holding the shipped skin entry
 * without its tile (so that the run's own kernel fits any GPU): blocks of
 * 1024, which the sets' kernel cannot have. */
static bool write_gpu_profile(const tmcml_device *gpu, const profile_entry *e, const char *dir,
                              char *path, size_t size)
{
    tm_error err = {0};
    profile p;
    profile_init(&p);
    snprintf(p.device.name, sizeof p.device.name, "%s", gpu->name);
    p.device.cc_major = gpu->cc_major;
    p.device.cc_minor = gpu->cc_minor;
    p.device.sm_count = gpu->sm_count;
    p.device.driver_version = gpu->driver_version;
    char name[512];
    profile_entry untiled = *e;
    untiled.config.tile_nr = untiled.config.tile_nz = 0;
    bool ok = profile_toolchain_current(&p.toolchain, &err) && profile_put(&p, &untiled) &&
              profile_file_name(&p.device, name, sizeof name);
    ok =
        ok && snprintf(path, size, "%s/%s", dir, name) < (int)size && profile_write(path, &p, &err);
    CHECK_MSG(ok, "the GPU's profile: %s", err.message);
    profile_free(&p);
    return ok;
}

/* Set k's mua: skin's times 1 + k/8, so set 0 is the reference (the
 * per-layer minimum). */
static void skin_sets(const tmcml_problem *p, double *mua)
{
    int layers = tmcml_problem_num_layers(p);
    for (int k = 0; k < SKIN_SETS; k++)
        for (int i = 1; i <= layers; i++) {
            tmcml_layer l;
            tmcml_problem_layer(p, i, &l);
            mua[k * layers + i - 1] = l.mua * (1.0 + k / 8.0);
        }
}

static tmcml_options gpu_options(tmcml_engine engine, tmcml_policy policy, const char *dir)
{
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = engine;
    opt.policy = policy;
    opt.profile_dir = dir;
    opt.photons = GPU_PHOTONS;
    opt.seed = GPU_SEED;
    return opt;
}

static bool run_sets(tmcml_session *s, const tmcml_problem *p, const double *mua,
                     const tmcml_options *opt, tmcml_result **out)
{
    tmcml_status st = tmcml_run_sets(s, p, mua, SKIN_SETS, opt, out);
    CHECK_MSG(st == TMCML_OK, "%s", tmcml_session_message(s));
    return st == TMCML_OK;
}

static uint64_t digest_of(const tmcml_result *r)
{
    tmcml_info info;
    tmcml_result_info(r, &info);
    return info.tallies_digest;
}

/* The z that a standard normal exceeds in absolute value with probability
 * p (bisection on erfc). */
static double normal_quantile_two_sided(double p)
{
    double lo = 0.0, hi = 40.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (erfc(mid / sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Every set's Rd and Tt on the GPU against the CPU engine's: a photon's
 * share of either is in [0, 1], so its variance is at most p (1 - p); the
 * two runs' difference is within z of its standard error, z two-sided at
 * ALPHA over the 2 x 64 comparisons (Bonferroni).  A is a sum over
 * interactions of unbounded share: checked for sanity only. */
static void against_cpu(tmcml_result *const *gpu, tmcml_result *const *cpu)
{
    double z = normal_quantile_two_sided(ALPHA / (2.0 * SKIN_SETS));
    double worst = 0;
    for (int k = 0; k < SKIN_SETS; k++) {
        tmcml_rat g, c;
        tmcml_result_rat(gpu[k], &g);
        tmcml_result_rat(cpu[k], &c);
        double pair[2][2] = {{g.rd, c.rd}, {g.tt, c.tt}};
        for (int q = 0; q < 2; q++) {
            double p = (pair[q][0] + pair[q][1]) / 2;
            double se = sqrt(2.0 * p * (1 - p) / GPU_PHOTONS);
            double d = fabs(pair[q][0] - pair[q][1]);
            CHECK_MSG(d <= z * se, "set %d %s: GPU %g, CPU %g (%.2f sd, bound %.2f)", k,
                      q ? "Tt" : "Rd", pair[q][0], pair[q][1], se > 0 ? d / se : INFINITY, z);
            if (se > 0 && d / se > worst)
                worst = d / se;
        }
        CHECK_MSG(isfinite(g.a) && g.a > 0 && g.rd > 0 && g.tt >= 0, "set %d: Rd %g A %g Tt %g", k,
                  g.rd, g.a, g.tt);
    }
    tmcml_rat first, last;
    tmcml_result_rat(gpu[0], &first);
    tmcml_result_rat(gpu[SKIN_SETS - 1], &last);
    CHECK_MSG(last.rd < first.rd && last.a > first.a, "set %d: Rd %g A %g, set 0: Rd %g A %g",
              SKIN_SETS - 1, last.rd, last.a, first.rd, first.a);
    printf("  Rd and Tt of %d sets against the CPU engine: worst %.2f sd (bound %.2f)\n", SKIN_SETS,
           worst, z);
}

static void free_results(tmcml_result **r)
{
    for (int k = 0; k < SKIN_SETS; k++)
        tmcml_result_delete(r[k]);
}

static void gpu_checks(tmcml_session *s, const tmcml_problem *p, const char *dir,
                       const char *profile_path)
{
    static double mua[SKIN_SETS * SPEC_MAX_LAYERS];
    skin_sets(p, mua);
    tmcml_result *tuned[SKIN_SETS] = {NULL}, *heur[SKIN_SETS] = {NULL}, *cpu[SKIN_SETS] = {NULL};
    tmcml_result *plain = NULL;
    tmcml_options opt = gpu_options(TMCML_ENGINE_GPU, TMCML_POLICY_PROFILE, dir);
    if (run_sets(s, p, mua, &opt, tuned)) {
        tmcml_info info;
        tmcml_result_info(tuned[0], &info);
        printf("  variant: %s\n", info.variant);
        CHECK_CONTAINS(info.variant, profile_path);
        CHECK_CONTAINS(info.variant, "the sets in blocks of");
        CHECK(strcmp(info.engine, "gpu") == 0);
    }
    opt = gpu_options(TMCML_ENGINE_GPU, TMCML_POLICY_HEURISTIC, NULL);
    bool both = tuned[0] && run_sets(s, p, mua, &opt, heur);
    for (int k = 0; both && k < SKIN_SETS; k++)
        CHECK_MSG(digest_of(tuned[k]) == digest_of(heur[k]),
                  "set %d: the fitted block's tallies differ from the heuristic's", k);
    CHECK(tmcml_run(s, p, &opt, &plain) == TMCML_OK);
    CHECK_MSG(tuned[0] && plain && digest_of(tuned[0]) == digest_of(plain),
              "set 0 (the reference) is not the plain run");
    opt = gpu_options(TMCML_ENGINE_CPU, TMCML_POLICY_HEURISTIC, NULL);
    if (tuned[0] && run_sets(s, p, mua, &opt, cpu))
        against_cpu(tuned, cpu);
    free_results(tuned);
    free_results(heur);
    free_results(cpu);
    tmcml_result_delete(plain);
}

static int test_gpu(void)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_device gpus[8];
    int count = 0;
    if (!s || tmcml_devices(s, gpus, 8, &count) != TMCML_OK || count < 1) {
        printf("test_sets_plan gpu: no GPU: skipped (%s)\n", s ? tmcml_session_message(s) : "");
        tmcml_session_delete(s);
        return 77;
    }
    /* Profiles from this test's folder alone: none of the user's. */
    char dir[] = "/tmp/tmcml_test_sets_plan.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("XDG_DATA_HOME", dir, 1);
    unsetenv("TMCML_PROFILE_DIR");
    mci_file f;
    profile_entry e;
    char path[4096];
    tmcml_problem **runs = NULL;
    int n = 0;
    bool have_skin = read_skin(&f);
    if (have_skin && shipped_skin_entry(&f.runs[0], &e) &&
        write_gpu_profile(&gpus[0], &e, dir, path, sizeof path)) {
        CHECK(tmcml_mci_read(s, SKIN, &runs, &n) == TMCML_OK && n == 1);
        if (n == 1)
            gpu_checks(s, runs[0], dir, path);
        tmcml_problems_delete(runs, n);
        remove(path);
    }
    if (have_skin)
        mci_free(&f);
    remove(dir);
    tmcml_session_delete(s);
    return check_summary("test_sets_plan gpu");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "compile") == 0)
        return test_compile();
    if (argc == 2 && strcmp(argv[1], "gpu") == 0)
        return test_gpu();
    if (argc != 1) {
        fprintf(stderr, "usage: test_sets_plan [compile | gpu]\n");
        return 2;
    }
    return test_plan();
}
