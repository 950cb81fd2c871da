/* Tests of the knob table (gen/knob.c): unique names and options, neutral
 * values in range, parse/format round trips of every kind, the values each
 * kind refuses (with the option named), knobs_equal seeing every knob, the
 * longest knobs_text fitting its buffer, and the usage naming every option. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "knob.h"

static void test_table(void)
{
    CHECK(knob_count >= 6);
    for (int i = 0; i < knob_count; i++) {
        const knob *k = &knob_table[i];
        CHECK_MSG(strncmp(k->option, "--", 2) == 0, "%s: option %s", k->name, k->option);
        CHECK(knob_by_name(k->name) == k && knob_by_option(k->option) == k);
        CHECK(knob_index(k) == i);
        CHECK(k->help && k->help[0] && k->value_help && k->value_help[0]);
        for (int j = 0; j < i; j++) {
            CHECK_MSG(strcmp(k->name, knob_table[j].name) != 0, "name %s twice", k->name);
            CHECK_MSG(strcmp(k->option, knob_table[j].option) != 0, "option %s twice", k->option);
        }
        if (k->kind == KNOB_INT)
            CHECK(k->step > 0 && k->lo <= k->hi && (k->hi - k->lo) % k->step == 0);
        if (k->kind == KNOB_CHOICE)
            CHECK(k->choices && k->choices[0]);
    }
    CHECK(knob_by_name("no_such") == NULL && knob_by_option("--no-such") == NULL);
    CHECK(knob_by_option(NULL) == NULL);
    kernel_knobs v;
    knobs_init(&v);
    tm_error err = {0};
    CHECK_MSG(knobs_check(&v, &err), "neutral values: %s", err.message);
    CHECK(v.tile_nr == 0 && v.tile_nz == 0 && v.entry_bits == 64 && v.block_size == 256 &&
          v.min_blocks_per_sm == 0 && v.layer_placement == 0 && !v.last_bin_cache && v.edge_cache);
    CHECK(v.launch_blocks_per_sm == 0);
}

/* A launch-only knob is named in knobs_text (so in the spec key) only when
 * it is set: the text of neutral knobs is what it was before the knob
 * existed, so keys, cubin caches and tune recordings keep matching. */
static void test_launch_only(void)
{
    const knob *k = knob_by_name("launch_blocks_per_sm");
    CHECK(k && k->launch_only);
    kernel_knobs v;
    knobs_init(&v);
    char text[KNOBS_TEXT_MAX];
    knobs_text(&v, text, sizeof text);
    CHECK_MSG(strcmp(text, "tile=0x0 entry_bits=64 block_size=256 min_blocks_per_sm=0 "
                           "layer_placement=constant last_bin_cache=off edge_cache=on "
                           "cluster_size=1") == 0,
              "neutral knobs: %s", text);
    v.launch_blocks_per_sm = 1;
    knobs_text(&v, text, sizeof text);
    CHECK_MSG(strstr(text, " cluster_size=1 launch_blocks_per_sm=1") != NULL, "set: %s", text);
}

/* parse(text) then format gives text back. */
static void round_trip(const char *option, const char *text)
{
    const knob *k = knob_by_option(option);
    kernel_knobs v;
    knobs_init(&v);
    tm_error err = {0};
    CHECK_MSG(k && knob_parse(k, text, &v, &err), "%s %s: %s", option, text, err.message);
    char back[64] = "";
    if (k)
        knob_format(k, &v, back, sizeof back);
    CHECK_MSG(strcmp(back, text) == 0, "%s %s formats as %s", option, text, back);
}

static void refused(const char *option, const char *text, const char *expected)
{
    const knob *k = knob_by_option(option);
    kernel_knobs v, before;
    knobs_init(&v);
    before = v;
    tm_error err = {0};
    CHECK_MSG(k && !knob_parse(k, text, &v, &err), "%s accepted \"%s\"", option, text ? text : "");
    CHECK(knobs_equal(&v, &before)); /* untouched */
    char want[128];
    snprintf(want, sizeof want, "%s: expected %s (got \"%s\")", option, expected, text ? text : "");
    CHECK_CONTAINS(err.message, want);
}

static void test_parse(void)
{
    const char *good[][2] = {
        {"--tile", "48x128"},     {"--tile", "0x0"},         {"--tile", "1x1"},
        {"--tile", "1000000x1"},  {"--entry", "32"},         {"--entry", "64"},
        {"--block", "32"},        {"--block", "1024"},       {"--block", "96"},
        {"--min-blocks", "0"},    {"--min-blocks", "32"},    {"--layers", "constant"},
        {"--layers", "shared"},   {"--layers", "immediate"}, {"--last-bin", "on"},
        {"--last-bin", "off"},    {"--launch-blocks", "0"},  {"--launch-blocks", "1"},
        {"--launch-blocks", "32"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        round_trip(good[i][0], good[i][1]);
    /* NRxNZ also with a capital X */
    kernel_knobs v;
    knobs_init(&v);
    tm_error err = {0};
    CHECK(knob_parse(knob_by_option("--tile"), "500X200", &v, &err) && v.tile_nr == 500 &&
          v.tile_nz == 200);

    const char *bad_tiles[] = {
        "",        "48",      "48x",   "x128",   "-1x2",      "48x-2",
        "48x128 ", " 48x128", "4 8x1", "48*128", "48x128x64", "99999999999x1",
        "+4x4",    "0x10x",   "48x0",  "0x16",   "1000001x1"};
    for (size_t i = 0; i < sizeof bad_tiles / sizeof bad_tiles[0]; i++)
        refused("--tile", bad_tiles[i], "NRxNZ");
    refused("--tile", NULL, "NRxNZ");
    const char *bad_entries[] = {"16", "48", "128", "0", "-32", "32.0", "x", ""};
    for (size_t i = 0; i < sizeof bad_entries / sizeof bad_entries[0]; i++)
        refused("--entry", bad_entries[i], "32|64");
    const char *bad_blocks[] = {"0", "16", "100", "1056", "2048", "-32", "256k"};
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++)
        refused("--block", bad_blocks[i], "N");
    refused("--min-blocks", "33", "N");
    refused("--min-blocks", "-1", "N");
    refused("--layers", "texture", "constant|shared|immediate");
    refused("--layers", "Shared", "constant|shared|immediate");
    refused("--last-bin", "yes", "on|off");
    refused("--last-bin", "1", "on|off");
    refused("--launch-blocks", "33", "N");
    refused("--launch-blocks", "-1", "N");
}

static void test_check(void)
{
    kernel_knobs v;
    knobs_init(&v);
    tm_error err = {0};
    v.entry_bits = 48;
    CHECK(!knobs_check(&v, &err));
    CHECK_CONTAINS(err.message, "entry_bits 48: must be 32..64 in steps of 32");
    knobs_init(&v);
    v.min_blocks_per_sm = 40;
    CHECK(!knobs_check(&v, &err));
    CHECK_CONTAINS(err.message, "min_blocks_per_sm 40: must be 0..32");
    knobs_init(&v);
    v.layer_placement = 3;
    CHECK(!knobs_check(&v, &err));
    CHECK_CONTAINS(err.message, "layer_placement 3: not one of constant|shared|immediate");
    knobs_init(&v);
    v.tile_nr = 5;
    CHECK(!knobs_check(&v, &err));
    CHECK_CONTAINS(err.message, "tile 5x0: both dimensions must be 1..1000000 (or 0x0 for none)");
}

/* Every knob is seen by knobs_equal and named in knobs_text and the usage. */
static void test_every_knob(void)
{
    kernel_knobs a;
    knobs_init(&a);
    char usage[4096];
    knobs_usage(usage, sizeof usage);
    for (int i = 0; i < knob_count; i++) {
        const knob *k = &knob_table[i];
        kernel_knobs b = a;
        if (k->kind == KNOB_TILE)
            knob_set_tile(k, &b, 1, 1);
        else
            knob_set(k, &b,
                     k->kind == KNOB_SWITCH   ? !k->neutral
                     : k->kind == KNOB_CHOICE ? 1
                     : k->neutral == k->hi    ? k->lo
                                              : k->hi);
        CHECK_MSG(!knobs_equal(&a, &b), "knobs_equal misses %s", k->name);
        char text[KNOBS_TEXT_MAX], name[80];
        knobs_text(&b, text, sizeof text);
        snprintf(name, sizeof name, "%s=", k->name);
        CHECK_CONTAINS(text, name);
        CHECK_CONTAINS(usage, k->option);
        CHECK(knob_column_width(k) >= (int)strlen(k->name));
    }
}

/* -A kernels: the knobs only A_rz scoring uses go neutral, the others stay. */
static void test_without_absorption(void)
{
    kernel_knobs neutral, v;
    knobs_init(&neutral);
    v = neutral;
    v.tile_nr = 48;
    v.tile_nz = 128;
    v.entry_bits = 32;
    v.block_size = 512;
    v.min_blocks_per_sm = 2;
    v.layer_placement = 1;
    v.last_bin_cache = true;
    v.edge_cache = false;
    knobs_without_absorption(&v);
    CHECK(v.tile_nr == 0 && v.tile_nz == 0 && v.entry_bits == 64 && !v.last_bin_cache &&
          v.edge_cache);
    CHECK(v.block_size == 512 && v.min_blocks_per_sm == 2 && v.layer_placement == 1);
}

/* The longest text of every knob fits KNOBS_TEXT_MAX with room to spare. */
static void test_text_max(void)
{
    kernel_knobs v;
    knobs_init(&v);
    for (int i = 0; i < knob_count; i++) {
        const knob *k = &knob_table[i];
        if (k->kind == KNOB_TILE)
            knob_set_tile(k, &v, INT_MIN, INT_MIN);
        else if (k->kind == KNOB_INT)
            knob_set(k, &v, INT_MIN);
        else if (k->kind == KNOB_CHOICE)
            knob_set(k, &v, INT_MIN); /* formats as "unknown" */
    }
    char text[KNOBS_TEXT_MAX + 1];
    memset(text, 'z', sizeof text);
    knobs_text(&v, text, KNOBS_TEXT_MAX);
    size_t n = strlen(text);
    CHECK_MSG(n < KNOBS_TEXT_MAX / 2, "knobs_text of %zu characters", n);
    CHECK(text[KNOBS_TEXT_MAX] == 'z');
}

int main(void)
{
    test_launch_only();
    test_table();
    test_parse();
    test_check();
    test_every_knob();
    test_without_absorption();
    test_text_max();
    return check_summary("test_knob");
}
