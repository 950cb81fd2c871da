/* Tests of gen/spec.c: defaults, validation messages, shared-memory size,
 * the canonical key (stable, whole at any length, changed by every field). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "spec.h"

/* The 7-layer skin problem (examples/skin7_600nm.mci), default knobs. */
static kernel_spec skin(void)
{
    kernel_spec s;
    spec_init(&s);
    s.num_layers = 7;
    s.nr = 500;
    s.nz = 200;
    s.na = 30;
    s.dr = 0.01;
    s.dz = 0.002;
    s.da = 3.14159265358979323846 / 60;
    return s;
}

static void test_defaults(void)
{
    kernel_spec s;
    spec_init(&s);
    CHECK(s.knobs.tile_nr == 0 && s.knobs.tile_nz == 0);
    CHECK(s.knobs.entry_bits == 64);
    CHECK(s.knobs.block_size == 256);
    CHECK(s.knobs.min_blocks_per_sm == 0);
    CHECK(s.knobs.layer_placement == SPEC_LAYERS_CONSTANT);
    CHECK(s.arch == 90);
    CHECK(s.score_absorption);
    CHECK(!s.debug_out_of_bounds);
    CHECK(!s.knobs.last_bin_cache);
    CHECK(s.num_layers == 0); /* the problem is the caller's to set */
    kernel_spec k = skin();
    tm_error err = {0};
    CHECK_MSG(spec_validate(&k, 0, &err), "%s", err.message);
}

/* Validates s and expects failure with a message containing `needle`. */
static void expect_invalid(const kernel_spec *s, size_t shared_max, const char *needle)
{
    tm_error err = {0};
    bool ok = spec_validate(s, shared_max, &err);
    CHECK_MSG(!ok, "accepted, expected \"%s\"", needle);
    if (!ok)
        CHECK_CONTAINS(err.message, needle);
}

static void test_validate_problem(void)
{
    kernel_spec s = skin();
    s.num_layers = 0;
    expect_invalid(&s, 0, "num_layers 0: must be 1..64");
    s.num_layers = SPEC_MAX_LAYERS + 1;
    expect_invalid(&s, 0, "num_layers 65");
    s = skin();
    s.nr = 0;
    expect_invalid(&s, 0, "nr 0: grid counts must be > 0");
    s = skin();
    s.nz = -3;
    expect_invalid(&s, 0, "nz -3");
    s = skin();
    s.na = 0;
    expect_invalid(&s, 0, "na 0");
    s = skin();
    s.dz = 0;
    expect_invalid(&s, 0, "dz 0: grid steps must be finite and > 0");
    s = skin();
    s.dr = NAN;
    expect_invalid(&s, 0, "dr nan");
    /* Several fiber detectors: two or more, in a kernel with a fiber. */
    s = skin();
    s.fiber = true;
    s.fibers = 1;
    expect_invalid(&s, 0, "fibers=1: several fiber detectors (2 or more) in a kernel with a fiber");
    s.fiber = false;
    s.fibers = 3;
    expect_invalid(&s, 0, "fibers=3");
    s.fiber = true;
    tm_error err = {0};
    CHECK_MSG(spec_validate(&s, 0, &err), "%s", err.message);
}

static void test_validate_tile(void)
{
    kernel_spec s = skin();
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 128;
    tm_error err = {0};
    CHECK_MSG(spec_validate(&s, 0, &err), "%s", err.message);
    s.knobs.tile_nr = 500; /* the whole grid is allowed */
    s.knobs.tile_nz = 200;
    CHECK_MSG(spec_validate(&s, 0, &err), "%s", err.message);
    s.knobs.tile_nr = 501;
    expect_invalid(&s, 0, "tile 501x200: tile_nr 501 exceeds nr 500");
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 201;
    expect_invalid(&s, 0, "tile_nz 201 exceeds nz 200");
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 0;
    expect_invalid(&s, 0, "tile 48x0: both dimensions must be 1..1000000 (or 0x0 for none)");
    s.knobs.tile_nr = 0;
    s.knobs.tile_nz = 16;
    expect_invalid(&s, 0, "tile 0x16");
    s.knobs.tile_nr = -1;
    s.knobs.tile_nz = -1;
    expect_invalid(&s, 0, "tile -1x-1");
    s = skin();
    s.knobs.entry_bits = 16;
    expect_invalid(&s, 0, "entry_bits 16: must be 32..64 in steps of 32");
}

static void test_validate_launch(void)
{
    const int bad_blocks[] = {0, 16, 100, 1056, 2048, -32};
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++) {
        kernel_spec s = skin();
        s.knobs.block_size = bad_blocks[i];
        char needle[64];
        snprintf(needle, sizeof needle, "block_size %d: must be 32..1024 in steps of 32",
                 bad_blocks[i]);
        expect_invalid(&s, 0, needle);
    }
    const int good_blocks[] = {32, 64, 96, 1024};
    for (size_t i = 0; i < sizeof good_blocks / sizeof good_blocks[0]; i++) {
        kernel_spec s = skin();
        s.knobs.block_size = good_blocks[i];
        tm_error err = {0};
        CHECK_MSG(spec_validate(&s, 0, &err), "block %d: %s", good_blocks[i], err.message);
    }
    kernel_spec s = skin();
    s.knobs.min_blocks_per_sm = 33;
    expect_invalid(&s, 0, "min_blocks_per_sm 33: must be 0..32");
    s.knobs.min_blocks_per_sm = -1;
    expect_invalid(&s, 0, "min_blocks_per_sm -1");
    s = skin();
    s.arch = 35;
    expect_invalid(&s, 0, "arch 35: must be >= 50");
    s = skin();
    s.knobs.layer_placement = 7;
    expect_invalid(&s, 0, "layer_placement 7: not one of constant|shared|immediate");
    s = skin();
    s.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    s.layers[3].mus = INFINITY;
    expect_invalid(&s, 0, "layers[3] value 2 (inf)");
}

static void test_shared_bytes(void)
{
    /* Scoring absorption caches the last row and column of A_rz: 500 + 200 - 1
     * entries, plus the tile when there is one. */
    const size_t edges = 500 + 200 - 1, tile = 48 * 128;
    kernel_spec s = skin();
    CHECK(spec_shared_bytes(&s) == edges * 8);
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 128;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 8);
    s.knobs.entry_bits = 32;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 4);
    CHECK(spec_dynamic_shared_bytes(&s) == (tile + edges) * 4);
    s.knobs.layer_placement = SPEC_LAYERS_SHARED;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 4 + 9 * 48); /* layer_t: 48 bytes */
    CHECK(spec_static_shared_bytes(&s) == 9 * 48);
    /* The time bins' data (templates/timed.cu's timed_t) too. */
    s.time_bins = true;
    CHECK(spec_static_shared_bytes(&s) == 9 * 48 + (48 + 9 * 4 + 7) / 8 * 8);
    s.fiber = true; /* and three detectors' geometry, 12 bytes each */
    s.fibers = 3;
    CHECK(spec_static_shared_bytes(&s) == 9 * 48 + (48 + 3 * 12 + 9 * 4 + 7) / 8 * 8);
    s.fiber = false;
    s.fibers = 0;
    s.time_bins = false;
    CHECK(spec_dynamic_shared_bytes(&s) == (tile + edges) * 4);
    s.score_absorption = false; /* -A caches nothing */
    CHECK(spec_dynamic_shared_bytes(&s) == 0);

    /* The budget: (6144 + 699) x 8 = 54744 bytes fits 54744, not 54743. */
    s = skin();
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 128;
    tm_error err = {0};
    CHECK_MSG(spec_validate(&s, 54744, &err), "%s", err.message);
    CHECK(spec_validate(&s, 0, &err));
    expect_invalid(&s, 54743,
                   "tile 48x128 of 64-bit entries: needs 54744 bytes of shared "
                   "memory, the device allows 54743 per block");
    s.knobs.layer_placement = SPEC_LAYERS_SHARED;
    expect_invalid(&s, 54744, "with the shared layer table: needs 55176 bytes");
}

/* Room for the keys of these tests but the longest (test_key_max). */
#define KEY_TEXT 4096

static void key_of(const kernel_spec *s, char *buf)
{
    char *key = spec_key(s);
    CHECK(key && strlen(key) < KEY_TEXT);
    snprintf(buf, KEY_TEXT, "%s", key ? key : "");
    free(key);
}

static void test_key_format(void)
{
    kernel_spec s = skin();
    s.knobs.tile_nr = 48;
    s.knobs.tile_nz = 128;
    s.knobs.min_blocks_per_sm = 2;
    char key[KEY_TEXT];
    key_of(&s, key);
    CHECK_MSG(
        strcmp(key,
               "L7 grid=500x200x30 dr=0.01 dz=0.002 da=0.05235987755982988 A=1 "
               "tile=48x128 entry_bits=64 block_size=256 min_blocks_per_sm=2 "
               "layer_placement=constant last_bin_cache=off edge_cache=on cluster_size=1 sm_90 "
               "oob=0") == 0,
        "key: %s", key);

    /* Stable: same spec, same key and hash, every time. */
    /* Stable: same spec, same key, every time. */
    char again[KEY_TEXT];
    kernel_spec copy = s;
    key_of(&copy, again);
    CHECK(strcmp(key, again) == 0);
}

/* One field changed at a time: every change gives a new key. */
typedef void (*mutation)(kernel_spec *);
static void m_layers(kernel_spec *s) { s->num_layers = 6; }
static void m_nr(kernel_spec *s) { s->nr = 501; }
static void m_nz(kernel_spec *s) { s->nz = 199; }
static void m_na(kernel_spec *s) { s->na = 31; }
static void m_dr(kernel_spec *s) { s->dr = nextafter(s->dr, 1.0); }
static void m_dz(kernel_spec *s) { s->dz = nextafter(s->dz, 0.0); }
static void m_da(kernel_spec *s) { s->da *= 2; }
static void m_absorb(kernel_spec *s) { s->score_absorption = false; }
static void m_tile_nr(kernel_spec *s) { s->knobs.tile_nr = 32; }
static void m_tile_nz(kernel_spec *s) { s->knobs.tile_nz = 64; }
static void m_entry(kernel_spec *s) { s->knobs.entry_bits = 32; }
static void m_block(kernel_spec *s) { s->knobs.block_size = 512; }
static void m_minblocks(kernel_spec *s) { s->knobs.min_blocks_per_sm = 1; }
static void m_shared(kernel_spec *s) { s->knobs.layer_placement = SPEC_LAYERS_SHARED; }
static void m_immediate(kernel_spec *s) { s->knobs.layer_placement = SPEC_LAYERS_IMMEDIATE; }
static void m_arch(kernel_spec *s) { s->arch = 100; }
static void m_oob(kernel_spec *s) { s->debug_out_of_bounds = true; }
static void m_last_bin(kernel_spec *s) { s->knobs.last_bin_cache = true; }
static void m_edge(kernel_spec *s) { s->knobs.edge_cache = false; }
static void m_cluster(kernel_spec *s) { s->knobs.cluster_size = 2; }
static void m_count(kernel_spec *s) { s->count_deposits = true; }
static void m_bias(kernel_spec *s) { s->debug_bias = true; }
static void m_sets(kernel_spec *s) { s->num_sets = 8; }
static void m_sets_2d(kernel_spec *s)
{
    s->num_sets = 8;
    s->sets_2d = true;
}

static void m_time(kernel_spec *s) { s->time_bins = true; }
static void m_fiber(kernel_spec *s) { s->fiber = true; }
static void m_fibers(kernel_spec *s)
{
    s->fiber = true;
    s->fibers = 3;
}

static void test_key_distinct(void)
{
    const mutation mutations[] = {
        m_layers,    m_nr,      m_nz,      m_na,       m_dr,    m_dz,        m_da,
        m_absorb,    m_tile_nr, m_tile_nz, m_entry,    m_block, m_minblocks, m_shared,
        m_immediate, m_arch,    m_oob,     m_last_bin, m_count, m_bias,      m_edge,
        m_cluster,   m_sets,    m_sets_2d, m_time,     m_fiber, m_fibers};
    enum { N = sizeof mutations / sizeof mutations[0] };
    static char keys[N + 1][KEY_TEXT];
    kernel_spec base = skin();
    base.knobs.tile_nr = 48;
    base.knobs.tile_nz = 128;
    key_of(&base, keys[N]);
    for (size_t i = 0; i < N; i++) {
        kernel_spec s = base;
        mutations[i](&s);
        key_of(&s, keys[i]);
    }
    for (size_t i = 0; i <= N; i++)
        for (size_t j = i + 1; j <= N; j++)
            CHECK_MSG(strcmp(keys[i], keys[j]) != 0, "mutations %zu and %zu: same key %s", i, j,
                      keys[i]);
}

static void set_layers(kernel_spec *s)
{
    for (int i = 0; i < s->num_layers + 2; i++) {
        spec_layer *l = &s->layers[i];
        l->n = 1.0 + 0.05 * i;
        l->mua = 0.1 * i;
        l->mus = 10.0 * i;
        l->g = 0.9;
        l->z0 = 0.01 * i;
        l->z1 = 0.01 * (i + 1);
        l->cos_crit0 = 0.3;
        l->cos_crit1 = 0.4;
    }
}

static void test_key_layers(void)
{
    kernel_spec c = skin(), imm;
    set_layers(&c);
    imm = c;
    imm.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    char kc[KEY_TEXT], ki[KEY_TEXT], k2[KEY_TEXT];
    key_of(&c, kc);
    key_of(&imm, ki);
    CHECK(strstr(kc, "layer_placement=constant ") != NULL);
    CHECK(strstr(kc, "[") == NULL); /* the values are data, not in the key */
    CHECK_CONTAINS(ki, "layer_placement=immediate ");
    CHECK_CONTAINS(ki, " layers=[1,0,0,0.9,0,0.01,0.3,0.4;1.05,0.1,10,0.9,0.01,0.02,");

    /* Layer values: in the key only when baked. */
    kernel_spec c2 = c;
    c2.layers[4].mus = nextafter(c2.layers[4].mus, 0);
    key_of(&c2, k2);
    CHECK(strcmp(kc, k2) == 0);
    kernel_spec i2 = imm;
    i2.layers[4].mus = nextafter(i2.layers[4].mus, 0);
    key_of(&i2, k2);
    CHECK(strcmp(ki, k2) != 0);
    /* ... every value of every layer, the media above and below included. */
    for (int layer = 0; layer < imm.num_layers + 2; layer++) {
        for (int v = 0; v < 8; v++) {
            kernel_spec m = imm;
            double *value = &m.layers[layer].n + v;
            *value = nextafter(*value, 2.0);
            key_of(&m, k2);
            CHECK_MSG(strcmp(ki, k2) != 0, "layer %d value %d not in the key", layer, v);
        }
    }
    /* Layers beyond num_layers + 1 are not part of the source. */
    kernel_spec m = imm;
    m.layers[imm.num_layers + 2].mus = 99;
    key_of(&m, k2);
    CHECK(strcmp(ki, k2) == 0);
}

/* The longest key (64 immediate layers of 17-digit values, over 12 kB) is
 * whole, and two such specs that differ only in the last value of the
 * medium below have different keys: a key cut at a fixed length (as the
 * engine's 8 kB buffer once did) would have let a module of other optics be
 * reused. */
static void test_key_max(void)
{
    kernel_spec s = skin();
    s.num_layers = SPEC_MAX_LAYERS;
    s.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    s.dr = s.dz = s.da = -1.2345678901234567e-300;
    for (int i = 0; i < SPEC_MAX_LAYERS + 2; i++)
        for (int v = 0; v < 8; v++)
            (&s.layers[i].n)[v] = -1.2345678901234567e-300 * (1 + i + v);
    s.knobs.tile_nr = s.knobs.tile_nz = s.nr = s.nz = s.na = s.knobs.block_size = s.arch =
        s.knobs.min_blocks_per_sm = -2000000000;
    char *key = spec_key(&s);
    CHECK(key != NULL);
    if (!key)
        return;
    size_t len = strlen(key);
    CHECK_MSG(len > 12000, "key of %zu bytes", len);
    CHECK(len > 1 && key[len - 1] == ']'); /* whole: the last layer value closes it */
    const char *p = strstr(key, " layers=[") + strlen(" layers=[");
    CHECK(strtod(p, NULL) == s.layers[0].n);
    kernel_spec t = s;
    t.layers[SPEC_MAX_LAYERS + 1].cos_crit1 *= 3;
    char *other = spec_key(&t);
    CHECK(other && strcmp(key, other) != 0);
    free(other);
    free(key);
}

/* A batch kernel keeps edge bins only after run tiles: spec_for_batch
 * keeps edge_cache with a tile and turns it off without one, and
 * spec_validate refuses a batch spec with edge bins and no tile. */
static void test_batch_edges(void)
{
    kernel_spec tiled = skin();
    tiled.knobs.tile_nr = 600; /* capped to the grid */
    tiled.knobs.tile_nz = 64;
    tiled.knobs.edge_cache = true;
    spec_for_batch(&tiled);
    CHECK(tiled.knobs.edge_cache && tiled.knobs.tile_nr == 500 && tiled.knobs.entry_bits == 32);
    tm_error err;
    CHECK(spec_validate(&tiled, 0, &err));
    kernel_spec untiled = skin();
    untiled.knobs.edge_cache = true;
    spec_for_batch(&untiled);
    CHECK(!untiled.knobs.edge_cache);
    CHECK(spec_validate(&untiled, 0, &err));
    untiled.knobs.edge_cache = true;
    CHECK(!spec_validate(&untiled, 0, &err));
    CHECK_CONTAINS(err.message, "edge_cache on needs a tile");
}

/* Optics sets that change g read each set's pair (-2 g_k, 1 + g_k^2) in
 * one 8-byte load (templates/sets.cu): the pairs start at an even word
 * after the tables before them (extra mut, sets_absorb's, the
 * interactions' logarithms), a pad word when those are odd, and the
 * shared memory holds the pairs, a flag a layer and the threads' rows. */
static void test_sets_g_pairs(void)
{
    kernel_spec s = skin(); /* 7 layers */
    s.num_sets = 3;
    s.sets_optics = 2;
    s.sets_absorb = true; /* 7 x 3 x 3 = 63 words before: padded to 64 */
    CHECK(spec_sets_g_pairs_at(&s) == 64);
    size_t rows = 7 + 2 + 3 + 7 + 3; /* paths, waiting, residues, counts, deflections */
    CHECK(spec_dynamic_shared_bytes(&s) ==
          (64 + 2 * 21 + 7 + rows * (size_t)s.knobs.block_size) * 4);
    s.sets_absorb = false; /* 42 words: no pad */
    CHECK(spec_sets_g_pairs_at(&s) == 42);
    s.num_sets = 4;
    s.sets_absorb = true; /* 84 */
    CHECK(spec_sets_g_pairs_at(&s) == 84);
}

int main(void)
{
    test_defaults();
    test_validate_problem();
    test_validate_tile();
    test_validate_launch();
    test_shared_bytes();
    test_sets_g_pairs();
    test_key_format();
    test_key_distinct();
    test_key_layers();
    test_key_max();
    test_batch_edges();
    return check_summary("test_spec");
}
