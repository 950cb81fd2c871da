/* summary: the JSON written next to each .mco parses back to the run's
 * figures, every double exactly and the 64-bit seed as a string. */
#include <cjson/cJSON.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fs.h"
#include "summary.h"
#include "tmcml_config.h"

static char tmpdir[] = "/tmp/tmcml_test_summary.XXXXXX";

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK_MSG(cJSON_IsNumber(v), "%s is not a number", key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK_MSG(cJSON_IsString(v), "%s is not a string", key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The member a "units" key names: "input.layers[].mua" is the first layer's
 * mua (NULL when there is none). */
static const cJSON *by_path(const cJSON *root, const char *path)
{
    char key[64];
    const cJSON *o = root;
    for (const char *p = path; o && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        size_t k = strlen(key);
        bool each = k > 2 && strcmp(key + k - 2, "[]") == 0;
        if (each)
            key[k - 2] = '\0';
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        if (each)
            o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, 0) : NULL;
        p += n + (p[n] == '.');
    }
    return o;
}

/* Every unit names a number (or an array of them) of the summary. */
static void check_units(const cJSON *root)
{
    const cJSON *units = cJSON_GetObjectItemCaseSensitive(root, "units");
    CHECK(cJSON_IsObject(units) && cJSON_GetArraySize(units) >= 19);
    const cJSON *u;
    cJSON_ArrayForEach(u, units)
    {
        const cJSON *v = by_path(root, u->string);
        CHECK_MSG(cJSON_IsString(u) && (cJSON_IsNumber(v) || cJSON_IsArray(v)), "units: %s",
                  u->string);
    }
    CHECK(strcmp(str(units, "input.dz"), "cm") == 0);
    CHECK(strcmp(str(units, "input.layers[].mua"), "1/cm") == 0);
    CHECK(strcmp(str(units, "wall_seconds"), "s") == 0);
    CHECK(strcmp(str(units, "RAT.Rd"), "-") == 0 && strcmp(str(units, "A_l"), "-") == 0);
}

static void test_write_and_parse(void)
{
    enum { NL = 2 };
    mci_layer layers[NL + 2] = {
        {.n = 1.0},
        {.n = 1.37, .mua = 0.1, .mus = 100, .g = 0.9, .d = 0.1, .z1 = 0.1},
        {.n = 1.4, .mua = 1.0 / 3.0, .mus = 10, .g = 0, .d = 0.2, .z0 = 0.1, .z1 = 0.3},
        {.n = 1.33},
    };
    mci_run run = {.out_name = "out \"quoted\".mco",
                   .out_format = 'A',
                   .photons = 1000000,
                   .dz = 0.01,
                   .dr = 0.02,
                   .nz = 3,
                   .nr = 4,
                   .na = 5,
                   .num_layers = NL,
                   .layers = layers};
    mcml_result res;
    CHECK(result_alloc(&res, 4, 3, 5, NL));
    res.photons = 1000000;
    res.rsp = 0.1 + 0.2; /* needs 17 digits */
    res.rd = 0.237544123456789;
    res.a = 2.0 / 3.0;
    res.tt = 1e-300;
    res.a_l[1] = 0.26123456789;
    res.a_l[2] = 0.1;
    run_report rep = {.input_path = "examples/in.mci",
                      .run_index = 2,
                      .run = &run,
                      .result = &res,
                      .seed = UINT64_MAX,
                      .engine = "cpu",
                      .threads = 16,
                      .wall_seconds = 2.5,
                      .score_absorption = false,
                      .rng = "mwc-per-photon"};

    char *path = fs_join(tmpdir, "out.json");
    tm_error err = {0};
    CHECK(summary_write(path, &rep, &err));
    char *text = fs_read_text(path, NULL, &err);
    CHECK(text != NULL);
    cJSON *root = cJSON_Parse(text ? text : "");
    CHECK(root != NULL);
    if (root) {
        CHECK(strcmp(str(root, "tmcml_version"), TMCML_VERSION) == 0);
        CHECK(strcmp(str(root, "seed"), "18446744073709551615") == 0);
        CHECK(strcmp(str(root, "engine"), "cpu") == 0);
        CHECK(strcmp(str(root, "rng"), "mwc-per-photon") == 0);
        CHECK(num(root, "threads") == 16);
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "score_absorption")));
        CHECK(num(root, "wall_seconds") == 2.5);
        CHECK(num(root, "photons") == 1e6);
        CHECK(num(root, "photons_per_second") == 4e5);

        const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "input");
        CHECK(cJSON_IsObject(in));
        CHECK(strcmp(str(in, "file"), "examples/in.mci") == 0);
        CHECK(strcmp(str(in, "out_name"), "out \"quoted\".mco") == 0);
        CHECK(num(in, "run") == 2 && num(in, "photons") == 1e6);
        CHECK(num(in, "dz") == 0.01 && num(in, "dr") == 0.02);
        CHECK(num(in, "nz") == 3 && num(in, "nr") == 4 && num(in, "na") == 5);
        CHECK(num(in, "n_above") == 1.0 && num(in, "n_below") == 1.33);
        const cJSON *ls = cJSON_GetObjectItemCaseSensitive(in, "layers");
        CHECK(cJSON_GetArraySize(ls) == NL);
        const cJSON *l2 = cJSON_GetArrayItem(ls, 1);
        CHECK(num(l2, "n") == 1.4 && num(l2, "mua") == 1.0 / 3.0 && num(l2, "mus") == 10);
        CHECK(num(l2, "g") == 0 && num(l2, "d") == 0.2);

        const cJSON *rat = cJSON_GetObjectItemCaseSensitive(root, "RAT");
        CHECK(num(rat, "Rsp") == 0.1 + 0.2);
        CHECK(num(rat, "Rd") == 0.237544123456789);
        CHECK(num(rat, "A") == 2.0 / 3.0);
        CHECK(num(rat, "Tt") == 1e-300);
        const cJSON *al = cJSON_GetObjectItemCaseSensitive(root, "A_l");
        CHECK(cJSON_GetArraySize(al) == NL);
        CHECK(cJSON_GetArrayItem(al, 0) && cJSON_GetArrayItem(al, 0)->valuedouble == 0.26123456789);
        CHECK(cJSON_GetArrayItem(al, 1) && cJSON_GetArrayItem(al, 1)->valuedouble == 0.1);
        check_units(root);
        cJSON_Delete(root);
    }
    free(text);

    /* Without a physics identity (the library's): nothing to read back. */
    summary_identity id;
    CHECK(!summary_read_identity(path, &id, &err));
    CHECK_CONTAINS(err.message, "does not say which run made it");
    /* With it: the seed, photons, digests and physics come back exactly
     * (64-bit values, which JSON numbers would round). */
    rep.physics = "gpu generator=0123456789abcdef nvrtc=13.0 (1 bytes, mtime 2) sm_90";
    rep.input_digest = UINT64_C(0xfedcba9876543210);
    rep.tallies_digest = UINT64_C(0x8000000000000001);
    run.photons = INT64_MAX;
    CHECK(summary_write(path, &rep, &err));
    CHECK_MSG(summary_read_identity(path, &id, &err), "%s", err.message);
    CHECK(id.seed == UINT64_MAX && id.photons == (uint64_t)INT64_MAX);
    CHECK(id.input_digest == rep.input_digest && id.tallies_digest == rep.tallies_digest);
    CHECK(strcmp(id.physics, rep.physics) == 0 && !id.partial);
    rep.partial_of = 7;
    CHECK(summary_write(path, &rep, &err) && summary_read_identity(path, &id, &err) && id.partial);
    CHECK(fs_write_bytes_atomic(path, "{\"seed\": 5", 11, &err));
    CHECK(!summary_read_identity(path, &id, &err) && strstr(err.message, "not a JSON file"));
    unlink(path);
    free(path);

    /* A directory that does not exist: the error names the file. */
    CHECK(!summary_write("/nonexistent_dir/x.json", &rep, &err));
    CHECK(strcmp(err.file, "/nonexistent_dir/x.json") == 0);
    result_free(&res);
}

/* A run of one layer with n cells each way, its result (freed by
 * result_free(&o->res)) and its report, as the JSON's odd names and optional
 * arrays need them; false when the result's arrays could not be made. */
typedef struct one_layer {
    mci_layer layers[3];
    mci_run run;
    mcml_result res;
    run_report rep;
} one_layer;

static bool one_layer_init(one_layer *o, char *out_name, const char *input_path, int n)
{
    o->layers[0] = (mci_layer){.n = 1.0};
    o->layers[1] = (mci_layer){.n = 1.4, .mua = 1, .mus = 10, .d = 0.1, .z1 = 0.1};
    o->layers[2] = (mci_layer){.n = 1.0};
    o->run = (mci_run){.out_name = out_name,
                       .out_format = 'A',
                       .photons = 10,
                       .dz = 0.1,
                       .dr = 0.1,
                       .nz = n,
                       .nr = n,
                       .na = n,
                       .num_layers = 1,
                       .layers = o->layers};
    o->rep = (run_report){.input_path = input_path,
                          .run_index = 1,
                          .run = &o->run,
                          .result = &o->res,
                          .seed = 1,
                          .engine = "cpu",
                          .rng = "mwc-per-photon"};
    return result_alloc(&o->res, n, n, n, 1);
}

/* Output names and paths may hold any bytes; the JSON must stay UTF-8, with
 * each stray byte replaced by U+FFFD and valid characters kept. */
static void test_not_utf8(void)
{
    one_layer o;
    CHECK(one_layer_init(&o, "bad\xff\xfe name \xc3 \xc3\xa9t\xc3\xa9 \xed\xa0\x80.mco",
                         "in\x80.mci", 1));
    char path[512];
    snprintf(path, sizeof path, "%s/bad.json", tmpdir);
    tm_error err = {0};
    CHECK(summary_write(path, &o.rep, &err));
    size_t size = 0;
    char *text = fs_read_text(path, &size, &err);
    CHECK(text != NULL);
    if (text) {
        CHECK(setlocale(LC_CTYPE, "C.UTF-8") != NULL);
        CHECK_MSG(mbstowcs(NULL, text, 0) != (size_t)-1, "the JSON is not valid UTF-8");
        CHECK_CONTAINS(text, "bad\xef\xbf\xbd\xef\xbf\xbd name \xef\xbf\xbd \xc3\xa9t\xc3\xa9");
        CHECK_CONTAINS(text, "in\xef\xbf\xbd.mci");
        cJSON *root = cJSON_Parse(text);
        CHECK(root != NULL);
        cJSON_Delete(root);
        setlocale(LC_CTYPE, "C");
    }
    free(text);
    unlink(path);
    result_free(&o.res);
}

/* The keys of object key of root (root itself for NULL), in the file's
 * order, each followed by a space. */
static void keys_of(const cJSON *root, const char *key, char *buf, size_t size)
{
    const cJSON *o = key ? cJSON_GetObjectItemCaseSensitive(root, key) : root, *m;
    size_t at = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(m, o)
    {
        int n = snprintf(buf + at, size - at, "%s ", m->string);
        at += n > 0 && (size_t)n < size - at ? (size_t)n : 0;
    }
}

/* The optional arrays (the output table's json rows) and their units, in
 * the order summaries have always had: the arrays after "trapped" in the
 * table's order; the units of the arrays group by group, the source's
 * between the path lengths' and the time bins', each group's input before
 * its arrays.  A run without them has none of their keys. */
static void test_optional_order(void)
{
    one_layer o;
    CHECK(one_layer_init(&o, "o.mco", "in.mci", 2));
    o.res.photons = 10;
    char path[512], keys[2048];
    snprintf(path, sizeof path, "%s/order.json", tmpdir);
    tm_error err = {0};
    for (int full = 0; full < 2; full++) {
        if (full) {
            o.run.path_lengths = true;
            o.run.time_nt = 3;
            o.run.time_dt = 0.01;
            o.run.fiber_count = 1;
            o.run.fibers[0] = (fiber_detector){0.05, 0.02, 0.22};
            o.run.source = (source_desc){.kind = SOURCE_FIBER, .radius = 0.02, .na = 0.22};
            CHECK(result_alloc_paths(&o.res) && result_alloc_time(&o.res, 3) &&
                  result_alloc_detectors(&o.res, 1));
        }
        CHECK_MSG(summary_write(path, &o.rep, &err), "%s", err.message);
        char *text = fs_read_text(path, NULL, &err);
        cJSON *root = cJSON_Parse(text ? text : "");
        CHECK(root != NULL);
        keys_of(root, NULL, keys, sizeof keys);
        const char *tail = strstr(keys, "trapped ");
        CHECK_MSG(tail && strcmp(tail, full ? "trapped A_l Rd_path_total Tt_path_total Rd_t "
                                              "Tt_t Rd_fiber tallies_digest units "
                                            : "trapped A_l tallies_digest units ") == 0,
                  "keys: %s", keys);
        keys_of(root, "units", keys, sizeof keys);
        tail = strstr(keys, "trapped.weight ");
        CHECK_MSG(tail && strcmp(tail, full ? "trapped.weight A_l Rd_path_total Tt_path_total "
                                              "input.source.r input.source.na "
                                              "input.time_bins.dt input.time_bins.c Rd_t Tt_t "
                                              "input.fiber_detector.separation "
                                              "input.fiber_detector.radius "
                                              "input.fiber_detector.na Rd_fiber "
                                            : "trapped.weight A_l ") == 0,
                  "units: %s", keys);
        if (full) {
            const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "units");
            CHECK(strcmp(str(u, "Rd_t"), "1/ns") == 0 && strcmp(str(u, "Rd_fiber"), "-") == 0);
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "Rd_t")) == 3);
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "Tt_path_total")) ==
                  o.run.num_layers);
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "Rd_fiber")));
            check_units(root);
        }
        cJSON_Delete(root);
        free(text);
    }
    unlink(path);
    result_free(&o.res);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_write_and_parse();
    test_not_utf8();
    test_optional_order();
    rmdir(tmpdir);
    return check_summary("test_summary");
}
