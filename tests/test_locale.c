/* Numbers whatever the host's locale (issue 21): a program that sets a
 * German locale, as Python's locale.setlocale(LC_ALL, "") does on a German
 * system, gets byte for byte the .mco, .mci and generated CUDA that a
 * program in the C locale gets, valid JSON, its valid .mci files read, and
 * its own locale back after every call (and inside the progress callback).
 * Skipped (77) without a de_DE.UTF-8 locale: tests/make_locale.sh makes one
 * under $LOCPATH from Debian's `locales`. */
#include <cjson/cJSON.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "example_spec.h"
#include "fs.h"
#include "render.h"
#include "spec.h"
#include "tmcml.h"

static char tmpdir[] = "/tmp/tmcml_test_locale.XXXXXX";

/* What the library made in one locale. */
typedef struct outputs {
    char *mco, *mci, *source;
    double json_dz;
    char progress_half[16]; /* "%g" of 0.5 inside the progress callback */
    tmcml_session *s;       /* the session and the run's result, kept */
    tmcml_result *r;
} outputs;

static bool in_host_locale_is(const char *want)
{
    char half[16];
    snprintf(half, sizeof half, "%g", 0.5);
    return strcmp(half, want) == 0;
}

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    outputs *o = user;
    snprintf(o->progress_half, sizeof o->progress_half, "%g", 0.5);
    return 0;
}

static char *read_text(const char *path)
{
    tm_error err;
    char *text = fs_read_text(path, NULL, &err);
    CHECK_MSG(text != NULL, "%s: %s", path, err.message);
    return text;
}

static double json_dz(const char *path)
{
    char *text = read_text(path);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK_MSG(root != NULL, "%s is not JSON", path);
    cJSON *dz = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "input"), "dz");
    double v = cJSON_IsNumber(dz) ? dz->valuedouble : -1;
    cJSON_Delete(root);
    free(text);
    return v;
}

/* The spec of test_render.c's engine cases: fractional grid steps and
 * optics, so the source holds many decimals. */
static char *rendered_source(void)
{
    kernel_spec s = example_spec();
    render_output out;
    tm_error err;
    char *source = NULL;
    CHECK_MSG(render_kernel(&s, NULL, &out, &err), "render: %s", err.message);
    if (out.source)
        source = strdup(out.source);
    render_output_free(&out);
    return source;
}

/* MCML's three-layer example from arrays (no parsing), in the current
 * locale; NULL with a failed check. */
static tmcml_problem *example_problem(tmcml_session *s, const char *tag)
{
    const tmcml_layer layers[3] = {
        {1.37, 1.0, 100.0, 0.90, 0.1}, {1.37, 1.0, 10.0, 0.0, 0.1}, {1.37, 2.0, 10.0, 0.70, 0.2}};
    const tmcml_grid grid = {0.01, 0.01, 40, 50, 1};
    tmcml_problem *p = NULL;
    bool ok = tmcml_problem_new(s, layers, 3, 1.0, 1.0, &grid, &p) == TMCML_OK &&
              tmcml_problem_set_photons(s, p, 2000) == TMCML_OK &&
              tmcml_problem_set_name(s, p, "example.mco") == TMCML_OK;
    CHECK_MSG(ok, "%s: %s", tag, tmcml_session_message(s));
    return p;
}

/* A CPU run (its progress callback on), .mco, JSON and .mci written, each
 * read back, MCML's example .mci read, and a kernel rendered, in the current
 * locale; the files go in tmpdir/tag/ under the same names, so two locales'
 * files compare. */
static void make_outputs(const char *tag, const char *half, outputs *o)
{
    char dir[256], mco[512], json[512], mci[512];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, tag);
    snprintf(mco, sizeof mco, "%s/run.mco", dir);
    snprintf(json, sizeof json, "%s/run.json", dir);
    snprintf(mci, sizeof mci, "%s/run.mci", dir);
    CHECK(mkdir(dir, 0700) == 0);
    memset(o, 0, sizeof *o);
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = example_problem(s, tag);
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.threads = 1;
    opt.progress = on_progress;
    opt.progress_user = o;
    tmcml_result *r = NULL, *loaded = NULL;
    CHECK_MSG(p && tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s: %s", tag, tmcml_session_message(s));
    CHECK_MSG(p && tmcml_mci_write(s, mci, (const tmcml_problem *const *)&p, 1) == TMCML_OK,
              "%s: %s", tag, tmcml_session_message(s));
    if (r) {
        CHECK_MSG(tmcml_result_write_mco(s, r, mco) == TMCML_OK, "%s: %s", tag,
                  tmcml_session_message(s));
        o->mco = read_text(mco);
        o->json_dz = json_dz(json);
    }
    CHECK(in_host_locale_is(half)); /* the caller's locale, given back */
    /* Reading: the .mco and .mci just written, and MCML's own .mci. */
    CHECK_MSG(tmcml_result_read_mco(s, mco, &loaded) == TMCML_OK, "%s: %s", tag,
              tmcml_session_message(s));
    if (loaded) {
        tmcml_grid grid;
        tmcml_problem_grid(tmcml_result_problem(loaded), &grid);
        CHECK_MSG(grid.dz == 0.01 && grid.dr == 0.01, "%s: read back dz %g dr %g", tag, grid.dz,
                  grid.dr);
    }
    const char *inputs[2] = {mci, TMCML_TEST_DATA "/reference/mcml_example.mci"};
    for (int i = 0; i < 2; i++) {
        tmcml_problem **runs = NULL;
        int count = 0;
        tmcml_layer layer = {0};
        CHECK_MSG(tmcml_mci_read(s, inputs[i], &runs, &count) == TMCML_OK, "%s: %s", tag,
                  tmcml_session_message(s));
        CHECK(count == 1 && tmcml_problem_layer(runs[0], 3, &layer) && layer.g == 0.70);
        tmcml_problems_delete(runs, count);
    }
    CHECK(in_host_locale_is(half));
    o->mci = read_text(mci);
    o->source = rendered_source();
    CHECK(in_host_locale_is(half));
    tmcml_result_delete(loaded);
    tmcml_problem_delete(p);
    o->s = s;
    o->r = r;
    unlink(mco);
    unlink(json);
    unlink(mci);
    rmdir(dir);
}

static void outputs_free(outputs *o)
{
    tmcml_result_delete(o->r);
    tmcml_session_delete(o->s);
    free(o->mco);
    free(o->mci);
    free(o->source);
}

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    outputs c, de;
    make_outputs("c", "0.5", &c);
    CHECK(c.mco && c.mci && c.source && c.json_dz == 0.01);
    CHECK_MSG(strcmp(c.progress_half, "0.5") == 0, "progress callback saw %s", c.progress_half);
    const char *set = setlocale(LC_ALL, "de_DE.UTF-8");
    char german[256];
    snprintf(german, sizeof german, "%s", set ? set : "");
    if (!set || !in_host_locale_is("0,5")) {
        printf("test_locale: skipped: no de_DE.UTF-8 locale with a decimal comma (LOCPATH=%s; "
               "tests/make_locale.sh makes one from Debian's locales package)\n",
               getenv("LOCPATH") ? getenv("LOCPATH") : "");
        outputs_free(&c);
        rmdir(tmpdir);
        return 77;
    }
    /* The case: a result made in C's locale, saved in German. */
    char again[512], again_json[512];
    snprintf(again, sizeof again, "%s/run.mco", tmpdir);
    snprintf(again_json, sizeof again_json, "%s/run.json", tmpdir);
    CHECK(c.r && tmcml_result_write_mco(c.s, c.r, again) == TMCML_OK);
    char *text = read_text(again);
    CHECK_MSG(same(text, c.mco), "the .mco saved under de_DE differs from C's");
    CHECK_MSG(json_dz(again_json) == 0.01, "the JSON saved under de_DE: dz is not 0.01");
    free(text);
    unlink(again);
    unlink(again_json);
    make_outputs("de", "0,5", &de);
    CHECK_MSG(same(c.mco, de.mco), "the .mco written under de_DE differs from C's");
    CHECK_MSG(same(c.mci, de.mci), "the .mci written under de_DE differs from C's");
    CHECK_MSG(same(c.source, de.source), "the CUDA source rendered under de_DE differs from C's");
    CHECK_MSG(de.json_dz == 0.01, "JSON dz under de_DE: %g", de.json_dz);
    /* The host's callback runs in the host's locale. */
    CHECK_MSG(strcmp(de.progress_half, "0,5") == 0, "progress callback saw %s", de.progress_half);
    CHECK(strcmp(setlocale(LC_NUMERIC, NULL), german) == 0);
    outputs_free(&c);
    outputs_free(&de);
    rmdir(tmpdir);
    return check_summary("test_locale");
}
