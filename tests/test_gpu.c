/* The GPU engine's contracts, on a GPU (ctest label gpu; exit 77 = skipped
 * where there is none):
 *   identity   A_rz, Rd_ra, Tt_ra bit-identical across tile shapes, entry
 *              widths, block sizes, grid sizes, blocks launched per SM and
 *              layer placements;
 *              -A leaves Rd_ra and Tt_ra bit-identical
 *   over2e32   a run of 2^32 + 1 photons (each one step long), and photon
 *              indices above 2^32
 *   fault      an out-of-bounds variant is reported as an error, no hang
 *   layers64   64 layers with immediate (baked) optics: a second run whose
 *              optics differ only in the last layer compiles its own kernel
 *              (keys are never cut, so no module of other optics is reused) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixed_point.h"
#include "gpu.h"
#include "engine_device.h"
#include "gpu_runner.h"
#include "mci.h"
#include "optics.h"
#include "variant.h"

#define SKIP 77
#define SEED 4242u

static gpu_engine *open_gpu(void)
{
    gpu_engine *eng;
    tm_error err;
    if (!gpu_engine_open(0, &eng, &err)) {
        char text[2048];
        printf("no GPU: skipped (%s)\n", error_format(&err, text, sizeof text));
        return NULL;
    }
    printf("GPU: %s\n", gpu_engine_device(eng)->name);
    return eng;
}

static bool load(const char *name, mci_file *f)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TMCML_TEST_DATA, name);
    tm_error err;
    if (!mci_read(path, f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    return true;
}

typedef struct variant_case {
    const char *tile;
    int entry, block, layers;
    unsigned grid;
    int last_bin; /* 0 | 1 */
    int edge_off; /* 1: --edge-cache off */
    int cluster;  /* --cluster (0: the default, 1) */
    int launch;   /* --launch-blocks (0: all that fit) */
} variant_case;

static bool run_variant(gpu_engine *eng, const mci_run *run, const variant_case *c, bool absorb,
                        uint64_t photons, tally_set *t)
{
    static const char *const placements[] = {"constant", "shared", "immediate"};
    variant_options v;
    variant_options_init(&v);
    char entry[16], block[16], cluster[16], launch[16];
    snprintf(launch, sizeof launch, "%d", c->launch);
    snprintf(entry, sizeof entry, "%d", c->entry);
    snprintf(block, sizeof block, "%d", c->block);
    snprintf(cluster, sizeof cluster, "%d", c->cluster > 0 ? c->cluster : 1);
    kernel_spec spec;
    tm_error err;
    if (!variant_options_set(&v, "--tile", c->tile, &err) ||
        !variant_options_set(&v, "--entry", entry, &err) ||
        !variant_options_set(&v, "--block", block, &err) ||
        !variant_options_set(&v, "--layers", placements[c->layers], &err) ||
        !variant_options_set(&v, "--last-bin", c->last_bin ? "on" : "off", &err) ||
        !variant_options_set(&v, "--edge-cache", c->edge_off ? "off" : "on", &err) ||
        !variant_options_set(&v, "--cluster", cluster, &err) ||
        !variant_options_set(&v, "--launch-blocks", launch, &err)) {
        error_print(stderr, &err);
        return false;
    }
    /* Several launches per run: launch boundaries must not show either. */
    gpu_options opt = {.seed = SEED, .grid = c->grid, .max_launch_photons = 70001};
    gpu_stats stats;
    bool ok = tally_set_init(t, run->nr, run->nz, run->na) &&
              variant_spec_for_run(run, absorb, device_of(eng), &v, &spec, &err) &&
              gpu_simulate(eng, run, &spec, &opt, 0, photons, t, &stats, &err);
    char *key = ok ? spec_key(&spec) : NULL;
    if (!ok)
        error_print(stderr, &err);
    else
        printf("  %-70.70s %2d regs, grid %5u, %llu launches, %.3f s\n", key ? key : "?",
               stats.registers, stats.grid, (unsigned long long)stats.launches,
               stats.kernel_seconds);
    free(key);
    return ok;
}

static int test_identity(gpu_engine *eng)
{
    mci_file f;
    if (!load("reference/skin7_600nm.mci", &f))
        return 1;
    const mci_run *run = &f.runs[0];
    const uint64_t photons = 200000;
    const variant_case cases[] = {
        {"0x0", 64, 256, 0, 0, 0, 0, 0, 0},
        {"48x128", 64, 256, 0, 0, 0, 0, 0, 0},
        {"48x128", 32, 256, 0, 0, 0, 0, 0, 0},
        {"16x16", 32, 128, 0, 0, 0, 0, 0, 0},
        {"100x100", 64, 512, 0, 0, 0, 0, 0, 0},
        {"200x50", 32, 256, 1, 0, 0, 0, 0, 0},
        {"8x500", 64, 128, 2, 0, 0, 0, 0, 0},
        {"1x1", 32, 256, 0, 0, 0, 0, 0, 0},
        {"48x128", 64, 256, 0, 7, 0, 0, 0, 0},
        {"48x128", 32, 512, 0, 300, 0, 0, 0, 0},
        {"48x128", 32, 256, 0, 0, 1, 0, 0, 0},
        {"0x0", 64, 256, 1, 0, 1, 0, 0, 0},
        {"48x128", 32, 256, 0, 0, 0, 1, 0, 0},
        {"0x0", 64, 256, 1, 0, 1, 1, 0, 0},
        /* One and three blocks launched an SM where more fit. */
        {"48x128", 32, 256, 0, 0, 0, 0, 0, 1},
        {"0x0", 64, 128, 1, 0, 0, 0, 0, 3},
        /* Clusters: a tile shared through distributed shared memory, one
         * that does not divide by the cluster (padding slots), a grid that
         * is not a multiple of it, the last-bin cache on top. */
        {"200x300", 32, 256, 0, 0, 0, 0, 4, 0},
        {"100x250", 64, 512, 1, 0, 0, 0, 2, 0},
        {"47x129", 32, 256, 0, 7, 0, 0, 3, 0},
        {"200x500", 32, 1024, 0, 0, 1, 0, 8, 0},
    };
    size_t n = sizeof cases / sizeof *cases;
    tally_set ref, t;
    printf("skin, %llu photons, seed %u, %zu variants:\n", (unsigned long long)photons, SEED, n);
    CHECK(run_variant(eng, run, &cases[0], true, photons, &ref));
    for (size_t i = 1; i < n; i++) {
        CHECK(run_variant(eng, run, &cases[i], true, photons, &t));
        CHECK_MSG(tally_set_equal(&ref, &t),
                  "variant %zu (tile %s, entry %d, block %d, layers %d, grid %u, last-bin %d, "
                  "edge cache %s, cluster %d, launched %d an SM) differs from variant 0",
                  i, cases[i].tile, cases[i].entry, cases[i].block, cases[i].layers, cases[i].grid,
                  cases[i].last_bin, cases[i].edge_off ? "off" : "on", cases[i].cluster,
                  cases[i].launch);
        tally_set_free(&t);
    }
    /* -A: no absorption scored, escapes bit-identical. */
    variant_case no_abs = {"0x0", 64, 256, 0, 0, 0, 0, 0, 0};
    CHECK(run_variant(eng, run, &no_abs, false, photons, &t));
    size_t ra = (size_t)run->nr * run->na * sizeof(tally_acc_t);
    CHECK(memcmp(t.rd_ra, ref.rd_ra, ra) == 0 && memcmp(t.tt_ra, ref.tt_ra, ra) == 0);
    bool zero = true;
    for (size_t i = 0; i < (size_t)run->nr * run->nz; i++)
        zero = zero && t.a_rz[i] == 0;
    CHECK(zero);
    tally_set_free(&t);
    tally_set_free(&ref);
    mci_free(&f);
    return 0;
}

/* A layer that absorbs everything at the first interaction: one step per
 * photon, and every photon deposits the same number of units. */
static const char *absorber =
    "1.0\n1\nabsorber.mco A\n1\n0.01 0.01\n10 10 5\n1\n1.0\n1.0 1000 0 0 10\n1.0\n";

static int test_over_2e32(gpu_engine *eng)
{
    mci_file f;
    tm_error err;
    if (!mci_parse(absorber, "absorber", &f, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    const mci_run *run = &f.runs[0];
    variant_options v;
    variant_options_init(&v);
    kernel_spec spec;
    gpu_stats stats;
    gpu_options opt = {.seed = SEED};
    tally_set t;
    uint64_t count = (UINT64_C(1) << 32) + 1;
    CHECK(tally_set_init(&t, run->nr, run->nz, run->na));
    CHECK(variant_spec_for_run(run, true, device_of(eng), &v, &spec, &err));
    bool ok = gpu_simulate(eng, run, &spec, &opt, 0, count, &t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    float w = (float)(1.0 - optics_specular(run));
    /* fixed_point_deposit_f: floor(w * 2^24 + 0.5), the same for every photon. */
    unsigned long long per_photon = (unsigned long long)(w * 16777216.0f + 0.5f);
    tally_acc_t total = 0;
    for (size_t i = 0; i < (size_t)run->nr * run->nz; i++)
        total += t.a_rz[i];
    printf("2^32 + 1 photons: %.2f s in %llu launches; absorbed units %.0f, expected %.0f\n",
           stats.kernel_seconds, (unsigned long long)stats.launches, (double)total,
           (double)count * (double)per_photon);
    CHECK(t.photons == count);
    CHECK(total == (tally_acc_t)count * per_photon);
    tally_acc_t first_row = 0; /* r < dr: the beam never leaves the axis */
    for (int iz = 0; iz < run->nz; iz++)
        first_row += t.a_rz[iz];
    CHECK(first_row == total);
    tally_set_free(&t);

    /* Photon indices beyond 2^32 address their own streams. */
    tally_set a, b;
    CHECK(tally_set_init(&a, run->nr, run->nz, run->na) &&
          tally_set_init(&b, run->nr, run->nz, run->na));
    CHECK(gpu_simulate(eng, run, &spec, &opt, (UINT64_C(1) << 32) - 500, 1000, &a, &stats, &err));
    CHECK(gpu_simulate(eng, run, &spec, &opt, (UINT64_C(1) << 32) - 500, 500, &b, &stats, &err));
    CHECK(gpu_simulate(eng, run, &spec, &opt, UINT64_C(1) << 32, 500, &b, &stats, &err));
    CHECK(tally_set_equal(&a, &b));
    tally_set_free(&a);
    tally_set_free(&b);
    mci_free(&f);
    return 0;
}

static int test_fault(gpu_engine *eng)
{
    mci_file f;
    if (!load("reference/mcml_example.mci", &f))
        return 1;
    variant_options v;
    variant_options_init(&v);
    v.debug_out_of_bounds = true;
    kernel_spec spec;
    gpu_stats stats;
    gpu_options opt = {.seed = SEED};
    tally_set t;
    tm_error err = {0};
    CHECK(tally_set_init(&t, f.runs[0].nr, f.runs[0].nz, f.runs[0].na));
    CHECK(variant_spec_for_run(&f.runs[0], true, device_of(eng), &v, &spec, &err));
    bool ok = gpu_simulate(eng, &f.runs[0], &spec, &opt, 0, 100000, &t, &stats, &err);
    char text[4096];
    printf("out-of-bounds variant: %s\n",
           ok ? "ran (WRONG)" : error_format(&err, text, sizeof text));
    CHECK(!ok);
    CHECK_CONTAINS(err.message, "ILLEGAL_ADDRESS");
    tally_set_free(&t);
    mci_free(&f);
    return 0;
}

/* A stack of 64 layers, the last one's mua given. */
static char *stack64(double last_mua)
{
    size_t cap = 8192, n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    n += (size_t)snprintf(t + n, cap - n, "1.0\n1\nl64.mco A\n1000\n0.01 0.01\n20 10 5\n64\n1.0\n");
    for (int i = 0; i < 64; i++)
        n += (size_t)snprintf(t + n, cap - n, "1.4 %.3f 100 0.9 0.01\n", i == 63 ? last_mua : 0.1);
    snprintf(t + n, cap - n, "1.0\n");
    return t;
}

static int test_layers64(gpu_engine *eng)
{
    double mua[2] = {0.1, 0.2};
    for (int k = 0; k < 2; k++) {
        char *text = stack64(mua[k]);
        mci_file f;
        tm_error err;
        CHECK(text && mci_parse(text, "stack64", &f, &err));
        free(text);
        variant_options v;
        variant_options_init(&v);
        CHECK(variant_options_set(&v, "--layers", "immediate", &err));
        kernel_spec spec;
        gpu_stats stats;
        gpu_options opt = {.seed = SEED, .cache_dir = ""}; /* no disk cache: compiled or reused */
        tally_set t;
        CHECK(tally_set_init(&t, f.runs[0].nr, f.runs[0].nz, f.runs[0].na));
        bool ok = variant_spec_for_run(&f.runs[0], true, device_of(eng), &v, &spec, &err) &&
                  gpu_simulate(eng, &f.runs[0], &spec, &opt, 0, 1000, &t, &stats, &err);
        if (!ok)
            error_print(stderr, &err);
        CHECK(ok);
        printf("64 immediate layers, last mua %.1f: %s (%.2f s)\n", mua[k],
               stats.cubin_cached ? "module reused" : "compiled", stats.compile_seconds);
        CHECK_MSG(!stats.cubin_cached, "run %d reused the module of other optics", k);
        tally_set_free(&t);
        mci_free(&f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_gpu identity|over2e32|fault|layers64\n");
        return 2;
    }
    gpu_engine *eng = open_gpu();
    if (!eng)
        return SKIP;
    int rc;
    if (strcmp(argv[1], "identity") == 0)
        rc = test_identity(eng);
    else if (strcmp(argv[1], "over2e32") == 0)
        rc = test_over_2e32(eng);
    else if (strcmp(argv[1], "fault") == 0)
        rc = test_fault(eng);
    else if (strcmp(argv[1], "layers64") == 0)
        rc = test_layers64(eng);
    else
        rc = 2;
    gpu_engine_close(eng);
    return rc ? rc : check_summary(argv[1]);
}
