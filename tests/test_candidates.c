/* The tuner's candidate space (tuner/candidates.c) and the sweep's ranges
 * (tuner/sweep.c), without a GPU: budgets, the high-fluence ranking, the
 * variant that a profile entry and explicit options give. */
#include <stdlib.h>
#include <string.h>

#include "candidates.h"
#include "check.h"
#include "mci.h"
#include "sweep.h"
#include "variant.h"

/* An H100/H200: 228 KB per SM, 227 KB opt-in per block, 2048 threads. */
static const candidate_limits hopper = {233472, 232448, 2048, 65536};

static void test_budgets(void)
{
    CHECK(candidates_shared_budget(&hopper, 1) == 232448); /* capped by the opt-in */
    CHECK(candidates_shared_budget(&hopper, 2) == 233472 / 2 - 1024);
    CHECK(candidates_shared_budget(&hopper, 8) == 233472 / 8 - 1024);
    CHECK(candidates_shared_budget(&hopper, 0) == 0);
    CHECK(candidates_shared_budget(&hopper, 1000) == 0); /* less than the reserve */
    /* Edges (nr + nz - 1 entries) come off the tile's share. */
    CHECK(candidates_tile_entries(4096, 32, 100, 100) == 1024 - 199);
    CHECK(candidates_tile_entries(4096, 64, 100, 100) == 512 - 199);
    CHECK(candidates_tile_entries(100, 32, 100, 100) == 0);
    /* Every budget a generated candidate gets really fits its residency. */
    for (int r = 1; r <= 16; r++) {
        size_t b = candidates_shared_budget(&hopper, r);
        CHECK_MSG(b == 0 || (b + 1024) * (size_t)r <= hopper.shared_per_sm, "residency %d", r);
    }
}

static void test_residencies(void)
{
    int r[4];
    int n = candidates_residencies(&hopper, 256, 4, r);
    CHECK(n == 4 && r[0] == 8 && r[1] == 6 && r[2] == 4 && r[3] == 2);
    n = candidates_residencies(&hopper, 1024, 4, r);
    CHECK(n == 2 && r[0] == 2 && r[1] == 1); /* 3/4 of 2 and 1/4 of 2 repeat or vanish */
    n = candidates_residencies(&hopper, 128, 3, r);
    CHECK(n == 3 && r[0] == 16 && r[1] == 12 && r[2] == 8);
    for (int b = 32; b <= 1024; b += 32) {
        n = candidates_residencies(&hopper, b, 4, r);
        CHECK(n >= 1);
        for (int k = 0; k < n; k++)
            CHECK_MSG(r[k] >= 1 && r[k] * b <= hopper.max_threads_per_sm, "block %d", b);
    }
}

/* Events concentrated in a known corner: the ranking must find it. */
static void test_fluence_ranking(void)
{
    enum { NR = 40, NZ = 60 };
    uint64_t *ev = calloc(NR * NZ, sizeof *ev);
    for (int ir = 0; ir < NR; ir++)
        for (int iz = 0; iz < NZ; iz++)
            ev[ir * NZ + iz] = ir < 4 && iz < 30 ? 1000 : 1; /* a narrow deep column */
    ev[(NR - 1) * NZ + 5] = 7777;                            /* an edge bin: not a tile's */
    fluence_map m;
    CHECK(fluence_map_init(&m, NR, NZ, ev));
    uint64_t total = 0;
    for (int i = 0; i < NR * NZ; i++)
        total += ev[i];
    CHECK(m.total == total);
    /* The last row (NZ bins, one of them 7777) and the last column (NR - 1 more). */
    CHECK(m.edges == 7777 + (NZ - 1) + (NR - 1));
    CHECK(fluence_map_captured(&m, 4, 30) == 4 * 30 * 1000);
    CHECK(fluence_map_captured(&m, 1, 1) == 1000);
    CHECK(fluence_map_captured(&m, 0, 10) == 0);
    /* Bigger than the grid: clamped, the edges excluded. */
    CHECK(fluence_map_captured(&m, 1000, 1000) == total - m.edges);
    /* Brute force agrees with the prefix sums everywhere. */
    for (int a = 0; a <= NR; a += 7)
        for (int b = 0; b <= NZ; b += 11) {
            uint64_t s = 0;
            for (int ir = 0; ir < a && ir < NR - 1; ir++)
                for (int iz = 0; iz < b && iz < NZ - 1; iz++)
                    s += ev[ir * NZ + iz];
            CHECK_MSG(fluence_map_captured(&m, a, b) == s, "%dx%d", a, b);
        }
    /* 120 entries: the 4 x 30 column beats a square or a wide shallow tile. */
    tile_shape shapes[5];
    int n = candidates_tile_shapes(&m, 120, 5, shapes);
    CHECK(n >= 1 && shapes[0].nr == 4 && shapes[0].nz == 30);
    for (int i = 1; i < n; i++) {
        CHECK(shapes[i].captured <= shapes[i - 1].captured);
        CHECK((size_t)shapes[i].nr * shapes[i].nz <= 120);
    }
    /* No shape kept is bigger than one before it that captures as much. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            CHECK(!(shapes[j].captured >= shapes[i].captured &&
                    shapes[j].nr * shapes[j].nz <= shapes[i].nr * shapes[i].nz));
    CHECK(candidates_tile_shapes(&m, 0, 5, shapes) == 0);
    fluence_map_free(&m);
    free(ev);
}

/* A profile entry sits between the heuristic and explicit options; a
 * nearest-class entry's tile is clamped to the grid. */
static void test_variant_order(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../../examples/skin7_600nm.mci", TMCML_TEST_DATA);
    mci_file f;
    tm_error err;
    CHECK(mci_read(path, &f, &err));
    const mci_run *run = &f.runs[0];
    kernel_knobs tuned = {run->nr + 50, 64, 64, 512, 2, SPEC_LAYERS_SHARED, true, true, 1, 0};
    variant_options v;
    variant_options_init(&v);
    CHECK(!variant_options_given(&v));
    kernel_spec s;
    CHECK(variant_spec_tuned(run, true, NULL, &tuned, &v, &s, &err));
    CHECK(s.knobs.tile_nr == run->nr && s.knobs.tile_nz == 64 && s.knobs.entry_bits == 64 &&
          s.knobs.block_size == 512);
    CHECK(s.knobs.min_blocks_per_sm == 2 && s.knobs.layer_placement == SPEC_LAYERS_SHARED &&
          s.knobs.last_bin_cache);
    CHECK(variant_options_set(&v, "--block", "128", &err));
    CHECK(variant_options_set(&v, "--tile", "8x8", &err));
    CHECK(variant_options_given(&v));
    CHECK(variant_spec_tuned(run, true, NULL, &tuned, &v, &s, &err));
    CHECK(s.knobs.block_size == 128 && s.knobs.tile_nr == 8 && s.knobs.tile_nz == 8 &&
          s.knobs.entry_bits == 64);
    CHECK(s.knobs.min_blocks_per_sm == 16); /* --block alone keeps full occupancy */
    /* -A: the entry's tile and last-bin cache do not apply. */
    variant_options_init(&v);
    CHECK(variant_spec_tuned(run, false, NULL, &tuned, &v, &s, &err));
    CHECK(s.knobs.tile_nr == 0 && s.knobs.tile_nz == 0 && !s.knobs.last_bin_cache &&
          s.knobs.block_size == 512);
    mci_free(&f);
}

static void test_sweep_ranges(void)
{
    sweep_range r;
    CHECK(sweep_parse_range("8:64:8", &r) && sweep_range_count(&r) == 8);
    CHECK(sweep_range_value(&r, 0) == 8 && sweep_range_value(&r, 7) == 64);
    CHECK(sweep_parse_range("10:25:10", &r) && sweep_range_count(&r) == 2); /* 10, 20 */
    CHECK(sweep_parse_range("48", &r) && sweep_range_count(&r) == 1 && r.first == 48);
    CHECK(sweep_parse_range("0:0:1", &r) && sweep_range_count(&r) == 1);
    CHECK(!sweep_parse_range("8:4:1", &r));
    CHECK(!sweep_parse_range("8:16:0", &r));
    CHECK(!sweep_parse_range("-8:16:2", &r));
    CHECK(!sweep_parse_range("8:16", &r));
    CHECK(!sweep_parse_range("8:16:2x", &r));
    CHECK(!sweep_parse_range("", &r));
    CHECK(!sweep_parse_range(NULL, &r));
}

/* A layer float32 cannot resolve at its depth (but double can) is refused for
 * the GPU with a message that offers the CPU engine (a 1e16 cm glass layer
 * above thin layers once hung the kernel); a thick last layer under thin
 * ones is fine. */
static void test_thin_layers(void)
{
    const char *deep = "1.0\n1\nx.mco A\n100\n0.01 0.01\n10 10 5\n2\n1.0\n"
                       "1.5 0 0 0 1e10\n1.4 1 100 0.9 0.1\n1.0\n";
    const char *semi = "1.0\n1\nx.mco A\n100\n0.01 0.01\n10 10 5\n2\n1.0\n"
                       "1.4 1 100 0.9 0.01\n1.4 1 100 0.9 1e8\n1.0\n";
    mci_file f;
    tm_error err;
    variant_options v;
    variant_options_init(&v);
    kernel_spec spec;
    CHECK(mci_parse(deep, "deep", &f, &err));
    CHECK(!variant_spec_for_run(&f.runs[0], true, NULL, &v, &spec, &err));
    CHECK_CONTAINS(err.message,
                   "layer 2 (0.1 cm thick, photons coming from a depth of 1e+10 cm) is thinner");
    CHECK_CONTAINS(err.message, "--engine cpu");
    mci_free(&f);
    CHECK(mci_parse(semi, "semi", &f, &err));
    CHECK_MSG(variant_spec_for_run(&f.runs[0], true, NULL, &v, &spec, &err), "%s", err.message);
    mci_free(&f);
}

int main(void)
{
    test_budgets();
    test_residencies();
    test_fluence_ranking();
    test_variant_order();
    test_thin_layers();
    test_sweep_ranges();
    return check_summary("candidates");
}
