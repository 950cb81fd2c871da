/* Tests of gen/spec.c: defaults, validation messages, shared-memory size,
 * the canonical key (stable, and changed by every field), tile parsing. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "spec.h"

/* The 7-layer skin problem of DESIGN.md section 8, default knobs. */
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
    CHECK(s.tile_nr == 0 && s.tile_nz == 0);
    CHECK(s.entry_bits == 64);
    CHECK(s.block_size == 256);
    CHECK(s.min_blocks_per_sm == 0);
    CHECK(s.layer_placement == SPEC_LAYERS_CONSTANT);
    CHECK(s.arch == 90);
    CHECK(s.score_absorption);
    CHECK(!s.debug_out_of_bounds);
    CHECK(!s.last_bin_cache);
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
}

static void test_validate_tile(void)
{
    kernel_spec s = skin();
    s.tile_nr = 48;
    s.tile_nz = 128;
    tm_error err = {0};
    CHECK_MSG(spec_validate(&s, 0, &err), "%s", err.message);
    s.tile_nr = 500; /* the whole grid is allowed */
    s.tile_nz = 200;
    CHECK_MSG(spec_validate(&s, 0, &err), "%s", err.message);
    s.tile_nr = 501;
    expect_invalid(&s, 0, "tile 501x200: tile_nr 501 exceeds nr 500");
    s.tile_nr = 48;
    s.tile_nz = 201;
    expect_invalid(&s, 0, "tile_nz 201 exceeds nz 200");
    s.tile_nr = 48;
    s.tile_nz = 0;
    expect_invalid(&s, 0, "tile 48x0: both dimensions must be > 0 (or 0x0 for no tile)");
    s.tile_nr = 0;
    s.tile_nz = 16;
    expect_invalid(&s, 0, "tile 0x16");
    s.tile_nr = -1;
    s.tile_nz = -1;
    expect_invalid(&s, 0, "tile -1x-1");
    s = skin();
    s.entry_bits = 16;
    expect_invalid(&s, 0, "entry_bits 16: must be 32 or 64");
}

static void test_validate_launch(void)
{
    const int bad_blocks[] = {0, 16, 100, 1056, 2048, -32};
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++) {
        kernel_spec s = skin();
        s.block_size = bad_blocks[i];
        char needle[64];
        snprintf(needle, sizeof needle, "block_size %d: must be a multiple of 32 in 32..1024",
                 bad_blocks[i]);
        expect_invalid(&s, 0, needle);
    }
    const int good_blocks[] = {32, 64, 96, 1024};
    for (size_t i = 0; i < sizeof good_blocks / sizeof good_blocks[0]; i++) {
        kernel_spec s = skin();
        s.block_size = good_blocks[i];
        tm_error err = {0};
        CHECK_MSG(spec_validate(&s, 0, &err), "block %d: %s", good_blocks[i], err.message);
    }
    kernel_spec s = skin();
    s.min_blocks_per_sm = 33;
    expect_invalid(&s, 0, "min_blocks_per_sm 33: must be 0..32");
    s.min_blocks_per_sm = -1;
    expect_invalid(&s, 0, "min_blocks_per_sm -1");
    s = skin();
    s.arch = 35;
    expect_invalid(&s, 0, "arch 35: must be >= 50");
    s = skin();
    s.layer_placement = (spec_layer_placement)7;
    expect_invalid(&s, 0, "layer_placement 7: unknown");
    s = skin();
    s.layer_placement = SPEC_LAYERS_IMMEDIATE;
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
    s.tile_nr = 48;
    s.tile_nz = 128;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 8);
    s.entry_bits = 32;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 4);
    CHECK(spec_dynamic_shared_bytes(&s) == (tile + edges) * 4);
    s.layer_placement = SPEC_LAYERS_SHARED;
    CHECK(spec_shared_bytes(&s) == (tile + edges) * 4 + 9 * 40); /* layer_t: 40 bytes */
    CHECK(spec_static_shared_bytes(&s) == 9 * 40);
    CHECK(spec_dynamic_shared_bytes(&s) == (tile + edges) * 4);
    s.score_absorption = false; /* -A caches nothing */
    CHECK(spec_dynamic_shared_bytes(&s) == 0);

    /* The budget: (6144 + 699) x 8 = 54744 bytes fits 54744, not 54743. */
    s = skin();
    s.tile_nr = 48;
    s.tile_nz = 128;
    tm_error err = {0};
    CHECK_MSG(spec_validate(&s, 54744, &err), "%s", err.message);
    CHECK(spec_validate(&s, 0, &err));
    expect_invalid(&s, 54743, "tile 48x128 of 64-bit entries: needs 54744 bytes of shared "
                              "memory, the device allows 54743 per block");
    s.layer_placement = SPEC_LAYERS_SHARED;
    expect_invalid(&s, 54744, "with the shared layer table: needs 55104 bytes");
}

static void key_of(const kernel_spec *s, char *buf)
{
    spec_key(s, buf, SPEC_KEY_MAX);
}

static void test_key_format(void)
{
    kernel_spec s = skin();
    s.tile_nr = 48;
    s.tile_nz = 128;
    s.min_blocks_per_sm = 2;
    char key[SPEC_KEY_MAX];
    key_of(&s, key);
    CHECK_MSG(strcmp(key, "L7 grid=500x200x30 dr=0.01 dz=0.002 da=0.05235987755982988 A=1 "
                          "tile=48x128 entry=64 block=256 minblocks=2 layers=constant lastbin=0 "
                          "sm_90 oob=0") == 0,
              "key: %s", key);

    /* Stable: same spec, same key and hash, every time. */
    char again[SPEC_KEY_MAX];
    kernel_spec copy = s;
    key_of(&copy, again);
    CHECK(strcmp(key, again) == 0);
    CHECK(spec_hash(&s) == spec_hash(&copy));

    /* The hash is FNV-1a 64 of the key. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    CHECK(spec_hash(&s) == h);

    /* A small buffer truncates without overflowing. */
    char small[12];
    memset(small, 'z', sizeof small);
    spec_key(&s, small, 8);
    CHECK(strcmp(small, "L7 grid") == 0);
    CHECK(small[8] == 'z');
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
static void m_tile_nr(kernel_spec *s) { s->tile_nr = 32; }
static void m_tile_nz(kernel_spec *s) { s->tile_nz = 64; }
static void m_entry(kernel_spec *s) { s->entry_bits = 32; }
static void m_block(kernel_spec *s) { s->block_size = 512; }
static void m_minblocks(kernel_spec *s) { s->min_blocks_per_sm = 1; }
static void m_shared(kernel_spec *s) { s->layer_placement = SPEC_LAYERS_SHARED; }
static void m_immediate(kernel_spec *s) { s->layer_placement = SPEC_LAYERS_IMMEDIATE; }
static void m_arch(kernel_spec *s) { s->arch = 100; }
static void m_oob(kernel_spec *s) { s->debug_out_of_bounds = true; }
static void m_last_bin(kernel_spec *s) { s->last_bin_cache = true; }
static void m_count(kernel_spec *s) { s->count_deposits = true; }
static void m_bias(kernel_spec *s) { s->debug_bias = true; }

static void test_key_distinct(void)
{
    const mutation mutations[] = {m_layers, m_nr,    m_nz,       m_na,       m_dr,    m_dz,
                                  m_da,     m_absorb, m_tile_nr, m_tile_nz,  m_entry, m_block,
                                  m_minblocks, m_shared, m_immediate, m_arch, m_oob, m_last_bin,
                                  m_count, m_bias};
    enum { N = sizeof mutations / sizeof mutations[0] };
    static char keys[N + 1][SPEC_KEY_MAX];
    kernel_spec base = skin();
    base.tile_nr = 48;
    base.tile_nz = 128;
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
    imm.layer_placement = SPEC_LAYERS_IMMEDIATE;
    char kc[SPEC_KEY_MAX], ki[SPEC_KEY_MAX], k2[SPEC_KEY_MAX];
    key_of(&c, kc);
    key_of(&imm, ki);
    CHECK(strstr(kc, "layers=constant ") != NULL);
    CHECK(strstr(kc, "[") == NULL); /* the values are data, not in the key */
    CHECK_CONTAINS(ki, "layers=immediate[1,0,0,0.9,0,0.01,0.3,0.4;1.05,0.1,10,0.9,0.01,0.02,");

    /* Layer values: in the key only when baked. */
    kernel_spec c2 = c;
    c2.layers[4].mus = nextafter(c2.layers[4].mus, 0);
    key_of(&c2, k2);
    CHECK(strcmp(kc, k2) == 0);
    CHECK(spec_hash(&c) == spec_hash(&c2));
    kernel_spec i2 = imm;
    i2.layers[4].mus = nextafter(i2.layers[4].mus, 0);
    key_of(&i2, k2);
    CHECK(strcmp(ki, k2) != 0);
    CHECK(spec_hash(&imm) != spec_hash(&i2));
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

/* The longest key (64 immediate layers of 17-digit values) fits. */
static void test_key_max(void)
{
    kernel_spec s = skin();
    s.num_layers = SPEC_MAX_LAYERS;
    s.layer_placement = SPEC_LAYERS_IMMEDIATE;
    s.dr = s.dz = s.da = -1.2345678901234567e-300;
    for (int i = 0; i < SPEC_MAX_LAYERS + 2; i++)
        for (int v = 0; v < 8; v++)
            (&s.layers[i].n)[v] = -1.2345678901234567e-300 * (1 + i + v);
    s.tile_nr = s.tile_nz = s.nr = s.nz = s.na = s.block_size = s.arch = s.min_blocks_per_sm =
        -2000000000;
    char key[SPEC_KEY_MAX];
    key_of(&s, key);
    size_t len = strlen(key);
    CHECK_MSG(len < SPEC_KEY_MAX - 1, "key of %zu bytes", len);
    CHECK(len > 12000);
    CHECK(len > 6 && strcmp(key + len - 6, " oob=0") == 0); /* not truncated */
    /* Exact: every value reads back. */
    const char *p = strstr(key, "immediate[") + strlen("immediate[");
    CHECK(strtod(p, NULL) == s.layers[0].n);
}

static void test_parse_tile(void)
{
    int nr = -1, nz = -1;
    CHECK(spec_parse_tile("48x128", &nr, &nz) && nr == 48 && nz == 128);
    CHECK(spec_parse_tile("0x0", &nr, &nz) && nr == 0 && nz == 0);
    CHECK(spec_parse_tile("500X200", &nr, &nz) && nr == 500 && nz == 200);
    const char *bad[] = {"", "48", "48x", "x128", "-1x2", "48x-2", "48x128 ", " 48x128",
                         "4 8x1", "48*128", "48x128x64", "99999999999x1", "+4x4", "0x10x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nr = nz = 7;
        CHECK_MSG(!spec_parse_tile(bad[i], &nr, &nz), "accepted \"%s\"", bad[i]);
        CHECK(nr == 7 && nz == 7);
    }
    CHECK(!spec_parse_tile(NULL, &nr, &nz));
}

int main(void)
{
    test_defaults();
    test_validate_problem();
    test_validate_tile();
    test_validate_launch();
    test_shared_bytes();
    test_key_format();
    test_key_distinct();
    test_key_layers();
    test_key_max();
    test_parse_tile();
    return check_summary("test_spec");
}
