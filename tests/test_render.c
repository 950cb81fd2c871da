/* Tests of the template engine (templates/engine.lua) and the renderer
 * (gen/render.c): template syntax, error positions, the sandbox, the float
 * and double literal helpers, the embedded placeholder kernel, the
 * --templates override.  Engine cases run through render_kernel with a
 * temporary template directory, the same path `--templates DIR` takes. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Room for the keys of these tests (short: no immediate layers). */
#define KEY_TEXT 4096

#include "check.h"
#include "example_spec.h"
#include "kernel_param.h"
#include "layer_record.h"
#include "render.h"
#include "spec.h"

/* Appended to every engine-test kernel: render_kernel requires the entry
 * point's name in the source. */
#define ENTRY_MARK "// tmcml_kernel\n"

/* ---- a temporary template directory --------------------------------------------- */

static bool write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static void remove_file(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* mkdtemp + a copy of every embedded file. */
static bool make_template_dir(char *path, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, size, "%s/tmcml_render_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(path))
        return false;
    for (size_t i = 0; i < render_embedded_count; i++)
        if (!write_file(path, render_embedded_files[i].name, render_embedded_files[i].text))
            return false;
    return true;
}

static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_file(path, e->d_name);
    closedir(d);
    rmdir(path);
}

/* The source after the banner comment. */
static const char *body_of(const char *source)
{
    const char *end = strstr(source, " */\n");
    return end ? end + 4 : source;
}

/* Renders kernel (and part.cu, when part is not NULL) from dir with spec.
 * Returns the body without the banner and ENTRY_MARK (malloc'd), or NULL
 * with *err set. */
static char *render_with(const char *dir, const kernel_spec *spec, const char *kernel,
                         const char *part, tm_error *err)
{
    size_t len = strlen(kernel);
    char *text = malloc(len + sizeof ENTRY_MARK + 1);
    if (!text)
        return NULL;
    /* A kernel without a final newline stays so: the mark starts a line. */
    snprintf(text, len + sizeof ENTRY_MARK + 1, "%s%s%s", kernel,
             len && kernel[len - 1] != '\n' ? "\n" : "", ENTRY_MARK);
    bool written = write_file(dir, "kernel.cu", text);
    free(text);
    remove_file(dir, "part.cu");
    if (!written || (part && !write_file(dir, "part.cu", part))) {
        error_set(err, dir, 0, "cannot write the test templates");
        return NULL;
    }
    render_output out;
    memset(err, 0, sizeof *err);
    if (!render_kernel(spec, dir, &out, err))
        return NULL;
    char *body = strdup(body_of(out.source));
    render_output_free(&out);
    size_t n = body ? strlen(body) : 0;
    if (n >= strlen(ENTRY_MARK) && strcmp(body + n - strlen(ENTRY_MARK), ENTRY_MARK) == 0)
        body[n - strlen(ENTRY_MARK)] = '\0';
    return body;
}

static void expect_render_spec(const char *dir, const kernel_spec *spec, const char *kernel,
                               const char *part, const char *expected)
{
    tm_error err;
    char *body = render_with(dir, spec, kernel, part, &err);
    CHECK_MSG(body != NULL, "render failed: %s:%d: %s", err.file, err.line, err.message);
    if (body)
        CHECK_MSG(strcmp(body, expected) == 0, "template:\n%s\ngave:\n%s\nexpected:\n%s", kernel,
                  body, expected);
    free(body);
}

static void expect_render(const char *dir, const char *kernel, const char *part,
                          const char *expected)
{
    kernel_spec spec = example_spec();
    expect_render_spec(dir, &spec, kernel, part, expected);
}

/* Expects the render to fail in template `file` (e.g. "template part.cu") at
 * `line` (0: any) with a message containing `needle`. */
static void expect_error(const char *dir, const char *kernel, const char *part, const char *file,
                         int line, const char *needle)
{
    kernel_spec spec = example_spec();
    tm_error err;
    char *body = render_with(dir, &spec, kernel, part, &err);
    CHECK_MSG(body == NULL, "template:\n%s\nrendered, expected an error \"%s\"", kernel, needle);
    free(body);
    if (body)
        return;
    char shown[2048];
    error_format(&err, shown, sizeof shown);
    CHECK_MSG(strcmp(err.file, file) == 0, "file \"%s\", expected \"%s\" (%s)", err.file, file,
              shown);
    if (line)
        CHECK_MSG(err.line == line, "line %d, expected %d (%s)", err.line, line, shown);
    CHECK_CONTAINS(err.message, needle);
}

/* ---- the template syntax ---------------------------------------------------------- */

static void test_syntax(const char *dir)
{
    expect_render(dir, "plain text\n", NULL, "plain text\n");
    expect_render(dir, "a {{1 + 2}} b {{'x' .. 'y'}} {{true}} {{7 // 2}}\n", NULL,
                  "a 3 b xy true 3\n");
    /* Code lines produce no output, not even a blank line; indentation of
     * output lines is kept whatever the indentation of code lines. */
    expect_render(dir,
                  "% local n = 3\n"
                  "void f()\n"
                  "{\n"
                  "%   for i = 1, n do\n"
                  "    x{{i}} = {{i * i}};\n"
                  "        % if i == 2 then\n"
                  "\ty{{i}};\n"
                  "        % end\n"
                  "%   end\n"
                  "}\n",
                  NULL, "void f()\n{\n    x1 = 1;\n    x2 = 4;\n\ty2;\n    x3 = 9;\n}\n");
    expect_render(dir,
                  "% for i = 1, 2 do\n"
                  "%   for j = i, 2 do\n"
                  "  a[{{i}}][{{j}}]\n"
                  "%   end\n"
                  "% end\n",
                  NULL, "  a[1][1]\n  a[1][2]\n  a[2][2]\n");
    /* Blank lines are output; a missing final newline and CRLF are normalised. */
    expect_render(dir, "a\n\n\nb", NULL, "a\n\n\nb\n");
    expect_render(dir, "a\r\nb\r\n", NULL, "a\nb\n");
    /* Quotes, backslashes, UTF-8 and Lua's own delimiters are plain text. */
    expect_render(dir, "printf(\"a\\\"b\\n\"); // \xce\xbc_a ]] [[ %q %s {{'x'}}\n", NULL,
                  "printf(\"a\\\"b\\n\"); // \xce\xbc_a ]] [[ %q %s x\n");
    /* '%%' starts an output line with a literal '%'. */
    expect_render(dir, "  %% not code {{1}}\n", NULL, "  % not code 1\n");
    /* A literal "{{" is an expression; "}}" alone is text. */
    expect_render(dir, "int a[2][2] = {{'{{'}}1, 2}, {3, 4}};\n", NULL,
                  "int a[2][2] = {{1, 2}, {3, 4}};\n");
    /* A call returning several values substitutes the first. */
    expect_render(dir, "{{string.gsub('aa', 'a', 'b')}}\n", NULL, "bb\n");
    /* Code may span several % lines. */
    expect_render(dir, "% local t = {\n%   1, 2,\n% }\n{{#t}}\n", NULL, "2\n");
    /* Functions defined in a template. */
    expect_render(dir, "% local function sq(x) return x * x end\n{{sq(12)}}\n", NULL, "144\n");
    /* A template that vandalises its libraries does not break the engine. */
    expect_render(dir, "% string.format = nil\n% table.concat = nil\n{{f(0.5)}}\n", NULL, "0.5f\n");
}

static void test_include(const char *dir)
{
    expect_render(dir,
                  "% who = 'world'\n"
                  "before\n"
                  "% for i = 1, 2 do\n"
                  "%   n = i\n"
                  "%   include('part.cu')\n"
                  "% end\n"
                  "after\n",
                  "  hello {{who}} {{n}}\n", "before\n  hello world 1\n  hello world 2\nafter\n");
    /* Globals set in a part are seen by the includer; locals stay local. */
    expect_render(dir, "% include('part.cu')\n{{from_part}} {{tostring(hidden)}}\n",
                  "% from_part = 'yes'\n% local hidden = 1\n", "yes nil\n");
}

static void test_spec_table(const char *dir)
{
    kernel_spec spec = example_spec();
    char *key = spec_key(&spec), expected[KEY_TEXT + 256];
    snprintf(expected, sizeof expected,
             "3 50 40 30 true 256 0 64 0x0 constant 90 false nil 712\n%s\n0.00999999978f "
             "0.00200000009f 0.052359879f\n",
             key);
    expect_render_spec(dir, &spec,
                       "{{spec.num_layers}} {{spec.nr}} {{spec.nz}} {{spec.na}} "
                       "{{spec.score_absorption}} {{spec.block_size}} {{spec.min_blocks_per_sm}} "
                       "{{spec.entry_bits}} {{spec.tile_nr}}x{{spec.tile_nz}} "
                       "{{spec.layer_placement}} {{spec.arch}} {{spec.debug_out_of_bounds}} "
                       "{{tostring(spec.layers)}} {{spec.shared_bytes}}\n"
                       "{{key}}\n"
                       "{{f(spec.dr)}} {{f(spec.dz)}} {{f(spec.da)}}\n",
                       NULL, expected);

    /* -A caches no A_rz bins: only the shared layer table, 5 layer_t of 48 bytes. */
    spec.knobs.layer_placement = SPEC_LAYERS_SHARED;
    spec.score_absorption = false;
    spec.knobs.tile_nr = 8;
    spec.knobs.tile_nz = 4;
    spec.knobs.entry_bits = 32;
    expect_render_spec(dir, &spec,
                       "{{spec.layer_placement}} {{spec.score_absorption}} {{spec.shared_bytes}}\n",
                       NULL, "shared false 240\n");
    free(key);

    spec = example_spec();
    spec.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    expect_render_spec(dir, &spec,
                       "{{spec.layer_placement}} {{#spec.layers}}\n"
                       "% for i = 0, spec.num_layers + 1 do\n"
                       "{{i}}: {{f(spec.layers[i].n)}} {{f(spec.layers[i].mus)}} "
                       "{{f(spec.layers[i].z1)}}\n"
                       "% end\n"
                       "% local count = 0\n"
                       "% for k in pairs(spec.layers[1]) do count = count + 1 end\n"
                       "{{count}}\n",
                       NULL,
                       "immediate 4\n"
                       "0: 1.0f 0.0f 0.0f\n"
                       "1: 1.10000002f 100.0f 0.00999999978f\n"
                       "2: 1.20000005f 200.0f 0.0199999996f\n"
                       "3: 1.29999995f 300.0f 0.0299999993f\n"
                       "4: 1.39999998f 400.0f 0.0399999991f\n"
                       "9\n");
}

/* ---- the kernel's parameters: the rows each kernel takes ---------------------------- */

/* spec.params's names, in order, with a "/" before each that starts a
 * line of the signature. */
#define PARAM_NAMES                                                                                \
    "% local t = {}\n"                                                                             \
    "% for i = 1, #spec.params do\n"                                                               \
    "%   t[i] = (spec.params[i].new_line and \"/\" or \"\") .. spec.params[i].name\n"              \
    "% end\n"                                                                                      \
    "{{table.concat(t, \" \")}}\n"

/* A kernel's parameters are the rows of kernel_param_table[] it takes, in
 * the table's order: a run's own (its start and tallies by name), the
 * batch kernel's (its tables, every slot's tallies, with run tiles their
 * extents), the absorption sets' with every tally they can score, a timed
 * kernel's; and templates/kernel.cu writes the signature from them. */
static void test_params(const char *dir)
{
    const char *common = "first count seed";
    const char *run = "/start_weight first_layer max_steps /multipliers next /stop /a_rz rd_ra "
                      "tt_ra /counts";
    char expected[1024];
    kernel_spec spec = example_spec();
    snprintf(expected, sizeof expected, "%s %s\n", common, run);
    expect_render_spec(dir, &spec, PARAM_NAMES, NULL, expected);

    kernel_spec batch = example_spec();
    batch.knobs.tile_nr = batch.knobs.tile_nz = 8;
    spec_for_batch(&batch);
    snprintf(expected, sizeof expected,
             "%s /parts_in num_parts /batch_layers num_slots max_steps /multipliers next /stop "
             "/a_rz_all rd_ra_all /tt_ra_all counts_all /slot_done tile_nr tile_nz /edge_bins\n",
             common);
    expect_render_spec(dir, &batch, PARAM_NAMES, NULL, expected);
    batch.score_absorption = false; /* no run tiles */
    batch.knobs.tile_nr = batch.knobs.tile_nz = 0;
    batch.knobs.edge_cache = false;
    snprintf(expected, sizeof expected,
             "%s /parts_in num_parts /batch_layers num_slots max_steps /multipliers next /stop "
             "/a_rz_all rd_ra_all /tt_ra_all counts_all /slot_done\n",
             common);
    expect_render_spec(dir, &batch, PARAM_NAMES, NULL, expected);

    kernel_spec sets = example_spec();
    sets.score_absorption = false;
    spec_for_sets(&sets,
                  (sets_scoring){.num_sets = 2, .paths = true, .jacobian = true, .optics = 2});
    snprintf(expected, sizeof expected,
             "%s %s set_extra /rd_path tt_path /rd_jr rd_ja /tt_jr tt_ja /set_w\n", common, run);
    expect_render_spec(dir, &sets, PARAM_NAMES, NULL, expected);

    kernel_spec timed = example_spec();
    timed.time_bins = true;
    snprintf(expected, sizeof expected,
             "%s %s /rd_rt tt_rt rd_fiber /time_n time_start inv_c_dt nt /fiber_sep fiber_radius "
             "fiber_cos_accept\n",
             common, run);
    expect_render_spec(dir, &timed, PARAM_NAMES, NULL, expected);

    kernel_spec fx = example_spec(); /* spatial frequencies (templates/fx.cu) */
    fx.fx = 4;
    snprintf(expected, sizeof expected, "%s %s /fx_omega rd_fx tt_fx\n", common, run);
    expect_render_spec(dir, &fx, PARAM_NAMES, NULL, expected);

    /* The embedded kernel's signature, from the rows: the last line of the
     * sets' and the batch kernel's. */
    render_output out;
    tm_error err;
    CHECK_MSG(render_kernel(&sets, NULL, &out, &err), "%s", err.message);
    if (out.source)
        CHECK_CONTAINS(out.source, "tmcml_kernel(unsigned long long first, unsigned long long "
                                   "count, unsigned long long seed,\n             float "
                                   "start_weight, int first_layer, unsigned int max_steps,\n");
    if (out.source)
        CHECK_CONTAINS(out.source, "             unsigned long long *tt_jr, unsigned long long "
                                   "*tt_ja,\n             unsigned long long *set_w)\n{\n");
    render_output_free(&out);
    batch = example_spec();
    batch.knobs.tile_nr = batch.knobs.tile_nz = 8;
    spec_for_batch(&batch);
    CHECK_MSG(render_kernel(&batch, NULL, &out, &err), "%s", err.message);
    if (out.source)
        CHECK_CONTAINS(out.source, "             unsigned long long *slot_done, unsigned int "
                                   "tile_nr, unsigned int tile_nz,\n             unsigned int "
                                   "edge_bins)\n{\n");
    render_output_free(&out);
}

/* ---- the layer record: the same floats baked in as uploaded ---------------------- */

/* An immediate kernel's literals are the host's layer records (gen/layer_record.c),
 * bit for bit, so the layer_placement knob cannot change a result; and the
 * derived fields are what templates/layers.cu says they are. */
static void test_layer_record(const char *dir)
{
    const char *const *fields = layer_record_field_names;
    kernel_spec spec = example_spec();
    spec.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    spec.layers[2].mua = spec.layers[2].mus = 0.0; /* a glass layer */
    spec.layers[3].cos_crit0 = 0.25;
    char kernel[2048] = "% for i = 0, spec.num_layers + 1 do\n";
    for (int f = 0; f < LAYER_RECORD_FIELDS; f++) {
        size_t n = strlen(kernel);
        snprintf(kernel + n, sizeof kernel - n, "{{f(spec.layers[i].record.%s)}}%s", fields[f],
                 f + 1 < LAYER_RECORD_FIELDS ? " " : "\n");
    }
    strcat(kernel, "% end\n");
    tm_error err;
    char *body = render_with(dir, &spec, kernel, NULL, &err);
    CHECK_MSG(body != NULL, "render failed: %s", err.message);
    if (!body)
        return;
    layer_record records[SPEC_MAX_LAYERS + 2];
    layer_records_fill(spec.layers, spec.num_layers + 2, records);
    const char *at = body;
    for (int i = 0; i < spec.num_layers + 2; i++) {
        float want[LAYER_RECORD_FIELDS];
        layer_record_values(&records[i], want);
        for (int f = 0; f < LAYER_RECORD_FIELDS; f++) {
            char *end;
            float got = strtof(at, &end);
            CHECK_MSG(end != at && *end == 'f', "layer %d %s: no float literal at \"%.20s\"", i,
                      fields[f], at);
            CHECK_MSG(memcmp(&got, &want[f], sizeof got) == 0,
                      "layer %d %s: %.9g baked, %.9g uploaded", i, fields[f], (double)got,
                      (double)want[f]);
            at = end + 1;
        }
    }
    free(body);
    const layer_record *r = records;
    CHECK(r[2].inv_mut == 0.0f && r[2].log2_scale == 0.0f); /* glass */
    double mut = spec.layers[1].mua + spec.layers[1].mus;
    CHECK(r[1].inv_mut == (float)(1.0 / mut) && r[1].mut == (float)mut);
    CHECK(r[1].log2_scale == (float)(-log(2.0) / mut));
    CHECK(r[1].mua_over_mut == (float)(spec.layers[1].mua / mut));
    CHECK(r[1].hg_h == (float)(0.9 * (2.0 - 2.0 * 0.81)));
    CHECK(r[3].eta0 == (float)(1.3 / 1.2) && r[3].eta1 == (float)(1.3 / 1.4));
    CHECK(r[3].cos_crit0 == 0.25f && r[1].z1 == (float)spec.layers[1].z1);
}

/* ---- errors name the template and line ------------------------------------------- */

static void test_errors(const char *dir)
{
    const char *K = "template kernel.cu", *P = "template part.cu";
    expect_error(dir, "line1\n  x = {{undefined_thing}};\n", NULL, K, 2,
                 "{{undefined_thing}} is nil");
    expect_error(dir, "a\n% include('part.cu')\n", "\n\n{{nope}}\n", P, 3, "{{nope}} is nil");
    /* Lua syntax errors, in code lines and in expressions. */
    expect_error(dir, "% for i = 1, 3 do\nx\n% end end\n", NULL, K, 3, "<eof>");
    expect_error(dir, "ok\n{{1 +}}\n", NULL, K, 2, "unexpected symbol");
    expect_error(dir, "a\n% include('part.cu')\n", "% if true then\nx\n", P, 0, "'end' expected");
    /* Runtime errors: Lua's, a C function's, error(). */
    expect_error(dir, "a\nb\n% local x = nil + 1\n", NULL, K, 3, "attempt to perform arithmetic");
    expect_error(dir, "\n{{string.rep()}}\n", NULL, K, 2, "bad argument #1 to 'rep'");
    expect_error(dir, "\n\n% error('custom')\n", NULL, K, 3, "custom");
    expect_error(dir, "\n% error({})\n", NULL, K, 2, "(error object is a table value)");
    expect_error(dir, "% local function g() local t = nil; return t.x end\n\n{{g()}}\n", NULL, K, 1,
                 "attempt to index a nil value");
    /* Values that have no C spelling. */
    expect_error(dir, "{{spec.dr}}\n", NULL, K, 1,
                 "{{spec.dr}} is the non-integer number 0.01: write f(...) or d(...)");
    expect_error(dir, "\n{{spec}}\n", NULL, K, 2, "{{spec}} is a table");
    expect_error(dir, "{{f(nil)}}\n", NULL, K, 1, "f(): expected a number, got nil");
    expect_error(dir, "{{f('1')}}\n", NULL, K, 1, "f(): expected a number, got string");
    expect_error(dir, "\n{{f(1e39)}}\n", NULL, K, 2, "f(): 9.9999999999999994e+38 is outside");
    expect_error(dir, "{{f(-0x1.ffffffp127)}}\n", NULL, K, 1, "outside the range of float");
    expect_error(dir, "{{f(0/0)}}\n", NULL, K, 1, "is not finite");
    expect_error(dir, "{{d(math.huge)}}\n", NULL, K, 1, "d(): inf is not finite");
    /* The spec is strict and read-only. */
    expect_error(dir, "\n\n\n% if spec.score_absorbtion then\n% end\n", NULL, K, 4,
                 "spec.score_absorbtion does not exist");
    expect_error(dir, "% spec.nr = 1\n", NULL, K, 1, "spec.nr is read-only");
    /* Includes. */
    expect_error(dir, "x\n% include('missing.cu')\n", NULL, K, 2,
                 "cannot load template missing.cu");
    expect_error(dir, "% include('kernel.cu')\n", NULL, K, 1, "nested deeper than 32");
    expect_error(dir, "% include()\n", NULL, K, 1, "include(): expected a template name");
    /* The entry point must exist. */
    kernel_spec spec = example_spec();
    tm_error err;
    write_file(dir, "kernel.cu", "// no entry point\n");
    render_output out;
    CHECK(!render_kernel(&spec, dir, &out, &err));
    CHECK(strcmp(err.file, K) == 0);
    CHECK_CONTAINS(err.message, "defines no tmcml_kernel");
}

/* ---- the sandbox ------------------------------------------------------------------- */

static void test_sandbox(const char *dir)
{
    expect_render(dir,
                  "{{type(io)}} {{type(os)}} {{type(require)}} {{type(package)}} {{type(load)}} "
                  "{{type(loadfile)}} {{type(dofile)}} {{type(debug)}} {{type(print)}} "
                  "{{type(getmetatable)}} {{type(setmetatable)}} {{type(rawset)}} "
                  "{{type(rawget)}} {{type(collectgarbage)}} {{type(_G)}} {{type(coroutine)}} "
                  "{{type(utf8)}}\n",
                  NULL, "nil nil nil nil nil nil nil nil nil nil nil nil nil nil nil nil nil\n");
    expect_render(dir,
                  "{{type(string.format)}} {{type(table.concat)}} {{type(math.floor)}} "
                  "{{type(ipairs)}} {{type(pairs)}} {{type(tostring)}} {{type(include)}}\n",
                  NULL, "function function function function function function function\n");
    expect_error(dir, "\n% io.open('/etc/passwd')\n", NULL, "template kernel.cu", 2,
                 "attempt to index a nil value (global 'io')");
    expect_error(dir, "% os.getenv('HOME')\n", NULL, "template kernel.cu", 1, "global 'os'");
    /* include() reads nothing but templates of the set. */
    const char *bad[] = {
        "../kernel.cu", "/etc/passwd", "engine.lua", "rng_mwc.h", ".hidden.cu", "sub/part.cu", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char kernel[128];
        snprintf(kernel, sizeof kernel, "%% include('%s')\n", bad[i]);
        expect_error(dir, kernel, NULL, "template kernel.cu", 1,
                     "template names are plain file names ending in .cu");
    }
}

/* ---- f() and d() ------------------------------------------------------------------- */

static const double awkward[] = {
    0.1,
    0.01,
    1.0 / 3,
    2.0 / 3,
    0.7,
    0.015,
    707.7,
    0.87,
    1.33,
    1e-4,
    1e-10,
    3.14159265358979,
    6.02214076e23,
    299792458.0,
    123456789.0,
    16777217.0,
    16777219.0,
    1.0 + 0x1p-24,
    1.0 + 3 * 0x1p-24,
    1.0 - 0x1p-25,
    0x1.fffffe8p-1,
    FLT_MIN,
    FLT_MIN / 2,
    FLT_TRUE_MIN,
    FLT_TRUE_MIN / 2 * 1.0000001,
    FLT_TRUE_MIN / 2,
    1e-50,
    5e-324,
    FLT_MAX,
    0x1.ffffffp127 * (1 - 1e-16),
    1e30,
    1e-30,
    0.0,
    -0.0,
    1.0,
    -2.5,
    -0.1,
    65504.0,
    1e38,
    0.1f,
    0.3f,
};
enum { NUM_AWKWARD = sizeof awkward / sizeof awkward[0] };

static void test_literals(const char *dir)
{
    /* Values reach Lua exactly as hex floats. */
    char kernel[NUM_AWKWARD * 80 + 1] = "";
    for (size_t i = 0; i < NUM_AWKWARD; i++) {
        char line[80];
        snprintf(line, sizeof line, "{{f(%a)}} {{d(%a)}}\n", awkward[i], awkward[i]);
        strcat(kernel, line);
    }
    kernel_spec spec = example_spec();
    tm_error err;
    char *body = render_with(dir, &spec, kernel, NULL, &err);
    CHECK_MSG(body != NULL, "%s", err.message);
    if (!body)
        return;
    char *line = body;
    for (size_t i = 0; i < NUM_AWKWARD && line && *line; i++) {
        char *flit = line, *dlit = strchr(line, ' ');
        char *next = strchr(line, '\n');
        if (!dlit || !next)
            break;
        *dlit++ = '\0';
        *next = '\0';
        size_t flen = strlen(flit);
        float want = (float)awkward[i];
        char *end;
        float got = strtof(flit, &end);
        CHECK_MSG(flen > 1 && flit[flen - 1] == 'f' && end == flit + flen - 1,
                  "f(%a) = \"%s\" is not a float literal", awkward[i], flit);
        CHECK_MSG(strpbrk(flit, ".e") != NULL, "f(%a) = \"%s\" reads as an integer", awkward[i],
                  flit);
        CHECK_MSG(got == want && signbit(got) == signbit(want), "f(%a) = \"%s\" reads back as %a",
                  awkward[i], flit, (double)got);
        double dgot = strtod(dlit, &end);
        CHECK_MSG(*end == '\0' && strpbrk(dlit, ".e") != NULL, "d(%a) = \"%s\"", awkward[i], dlit);
        CHECK_MSG(dgot == awkward[i] && signbit(dgot) == signbit(awkward[i]),
                  "d(%a) = \"%s\" reads back as %a", awkward[i], dlit, dgot);
        line = next + 1;
    }
    free(body);
    /* The spelling. */
    expect_render(dir,
                  "{{f(1)}} {{f(3)}} {{f(0.5)}} {{f(-0.0)}} {{f(0.01)}} {{f(1e30)}} "
                  "{{f(16777217)}} {{f(1 + 0x1p-24)}}\n"
                  "{{d(1)}} {{d(0.1)}} {{d(-0.0)}} {{d(1e300)}}\n",
                  NULL,
                  "1.0f 3.0f 0.5f -0.0f 0.00999999978f 1.00000002e+30f 16777216.0f 1.0f\n"
                  "1.0 0.10000000000000001 -0.0 1.0000000000000001e+300\n");
}

/* ---- the embedded set and the placeholder kernel ------------------------------------ */

static void test_embedded(void)
{
    const char *names[] = {"engine.lua", "kernel.cu", "rng_mwc.h", "fixed_point.h"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const render_file *f = render_embedded(names[i]);
        CHECK_MSG(f != NULL, "%s is not embedded", names[i]);
        if (f)
            CHECK(f->size == strlen(f->text) && f->size > 0);
    }
    CHECK(render_embedded("nonexistent.cu") == NULL);
    for (size_t i = 1; i < render_embedded_count; i++)
        CHECK(strcmp(render_embedded_files[i - 1].name, render_embedded_files[i].name) < 0);

    /* FNV-1a 64 over each file's name, NUL, contents, NUL. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < render_embedded_count; i++) {
        const render_file *f = &render_embedded_files[i];
        for (size_t k = 0; k <= strlen(f->name); k++)
            h = (h ^ (unsigned char)f->name[k]) * 0x100000001b3ull;
        for (size_t k = 0; k < f->size; k++)
            h = (h ^ (unsigned char)f->text[k]) * 0x100000001b3ull;
        h = (h ^ 0) * 0x100000001b3ull;
    }
    /* then each parameter row's type, NUL, name, NUL, condition and layout */
    for (int i = 0; i < KERNEL_PARAM_ROWS; i++) {
        const kernel_param *p = &kernel_param_table[i];
        for (size_t k = 0; k <= strlen(p->type); k++)
            h = (h ^ (unsigned char)p->type[k]) * 0x100000001b3ull;
        for (size_t k = 0; k <= strlen(p->name); k++)
            h = (h ^ (unsigned char)p->name[k]) * 0x100000001b3ull;
        h = (h ^ (unsigned char)p->when) * 0x100000001b3ull;
        h = (h ^ (p->new_line ? 1u : 0u)) * 0x100000001b3ull;
    }
    CHECK(render_generator_hash() == h);
    CHECK(render_generator_hash() == render_generator_hash());
}

static void test_placeholder(void)
{
    kernel_spec spec = example_spec();
    spec.knobs.min_blocks_per_sm = 2;
    render_output out, again;
    tm_error err;
    CHECK_MSG(render_kernel(&spec, NULL, &out, &err), "%s", err.message);
    if (!out.source)
        return;
    char *key = spec_key(&spec), line[KEY_TEXT + 64];
    CHECK(strncmp(out.source, "/* Generated by tmcml ", 22) == 0);
    snprintf(line, sizeof line, " *   spec:      %s\n", key);
    free(key);
    CHECK_CONTAINS(out.source, line);
    snprintf(line, sizeof line, " *   generator: %016" PRIx64 " (embedded templates)\n",
             render_generator_hash());
    CHECK_CONTAINS(out.source, line);
    CHECK_CONTAINS(out.source, "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"
                               "tmcml_kernel(");
    CHECK_CONTAINS(out.source, "#define NR 50\n#define NZ 40\n#define NA 30\n");
    CHECK_CONTAINS(out.source, "#define INV_DR 100.0f\n");
    CHECK_CONTAINS(out.source, "__constant__ layer_t tmcml_layers[NUM_LAYERS + 2];");
    CHECK_CONTAINS(out.source, "fixed_point_deposit_f(dw, &p.residue)");
    CHECK(strcmp(out.kernel_name, "tmcml_kernel") == 0);
    CHECK(out.num_headers == 2);
    for (size_t i = 0; i < out.num_headers; i++) {
        const render_file *f = render_embedded(out.headers[i].name);
        CHECK(f && strcmp(f->text, out.headers[i].text) == 0);
    }
    CHECK(out.num_headers == 2 && strcmp(out.headers[0].name, "fixed_point.h") == 0 &&
          strcmp(out.headers[1].name, "rng_mwc.h") == 0);

    /* Deterministic. */
    CHECK(render_kernel(&spec, NULL, &again, &err));
    CHECK(again.source && strcmp(out.source, again.source) == 0);
    render_output_free(&again);
    render_output_free(&out);
    CHECK(out.source == NULL && out.headers == NULL); /* freed and cleared */
    render_output_free(&out);                         /* twice is harmless */

    /* Variants. */
    spec.score_absorption = false;
    spec.knobs.layer_placement = SPEC_LAYERS_IMMEDIATE;
    CHECK_MSG(render_kernel(&spec, NULL, &out, &err), "%s", err.message);
    if (out.source) {
        /* -A: no absorption scoring, no tile. */
        CHECK(strstr(out.source, "fixed_point_deposit_f(dw") == NULL);
        CHECK(strstr(out.source, "extern __shared__") == NULL);
        /* Immediate layers: values baked into an initialised table, none
         * uploaded (layer 1's record: ..., g 0.9, hg_h 0.342, mut 100.5). */
        CHECK(strstr(out.source, "__constant__ layer_t tmcml_layers") == NULL);
        CHECK_CONTAINS(out.source, "__constant__ layer_t tmcml_baked_layers[NUM_LAYERS + 2] = {");
        CHECK_CONTAINS(out.source, ", 0.899999976f, 0.342000008f, 100.5f, ");
    }
    render_output_free(&out);

    /* A launch-only knob: the spec key names it, the kernel does not
     * change (the source after its banner is the same). */
    spec = example_spec();
    render_output launched;
    spec.knobs.launch_blocks_per_sm = 1;
    CHECK(render_kernel(&spec, NULL, &launched, &err));
    spec.knobs.launch_blocks_per_sm = 0;
    CHECK(render_kernel(&spec, NULL, &out, &err));
    const char *body_a = launched.source ? strstr(launched.source, " */\n") : NULL;
    const char *body_b = out.source ? strstr(out.source, " */\n") : NULL;
    CHECK(body_a && body_b && strcmp(body_a, body_b) == 0);
    CHECK(launched.source && strcmp(launched.source, out.source) != 0);
    CHECK_CONTAINS(launched.source, "launch_blocks_per_sm=1");
    render_output_free(&launched);
    render_output_free(&out);

    /* An invalid spec is refused before any template runs. */
    spec.knobs.block_size = 100;
    CHECK(!render_kernel(&spec, NULL, &out, &err));
    CHECK_CONTAINS(err.message, "block_size 100");
    CHECK(out.source == NULL);
}

/* ---- --templates DIR ---------------------------------------------------------------- */

static void test_template_dir(void)
{
    char dir[512];
    CHECK(make_template_dir(dir, sizeof dir));
    kernel_spec spec = example_spec();
    render_output embedded, fromdir;
    tm_error err;
    CHECK(render_kernel(&spec, NULL, &embedded, &err));
    CHECK_MSG(render_kernel(&spec, dir, &fromdir, &err), "%s", err.message);
    if (embedded.source && fromdir.source) {
        /* Same files, same body; the banner says where the templates came from. */
        CHECK(strcmp(body_of(embedded.source), body_of(fromdir.source)) == 0);
        CHECK_CONTAINS(fromdir.source, "generator: templates from a --templates directory, "
                                       "files hash ");
        CHECK(fromdir.num_headers == 2);
    }
    render_output_free(&fromdir);

    /* A modified kernel and header are used. */
    const render_file *k = render_embedded("kernel.cu");
    size_t size = strlen(k->text) + 64;
    char *modified = malloc(size);
    snprintf(modified, size, "// modified by test_render\n%s", k->text);
    write_file(dir, "kernel.cu", modified);
    free(modified);
    write_file(dir, "fixed_point.h", "/* modified header */\n");
    CHECK_MSG(render_kernel(&spec, dir, &fromdir, &err), "%s", err.message);
    if (fromdir.source) {
        CHECK_CONTAINS(fromdir.source, " */\n// modified by test_render\n");
        CHECK(strcmp(fromdir.headers[0].name, "fixed_point.h") == 0);
        CHECK(strcmp(fromdir.headers[0].text, "/* modified header */\n") == 0);
        /* Another file hash than the unmodified directory's. */
        CHECK(strcmp(fromdir.source, embedded.source) != 0);
    }
    render_output_free(&fromdir);
    render_output_free(&embedded);

    /* Missing and broken files. */
    remove_file(dir, "rng_mwc.h");
    CHECK(!render_kernel(&spec, dir, &fromdir, &err));
    CHECK_CONTAINS(err.file, "/rng_mwc.h");
    CHECK_CONTAINS(err.message, "cannot read");
    write_file(dir, "engine.lua", "local x = \n");
    CHECK(!render_kernel(&spec, dir, &fromdir, &err));
    CHECK_CONTAINS(err.message, "engine.lua:");
    remove_file(dir, "engine.lua");
    CHECK(!render_kernel(&spec, dir, &fromdir, &err));
    CHECK_CONTAINS(err.file, "/engine.lua");
    remove_file(dir, "kernel.cu");
    CHECK(!render_kernel(&spec, "/nonexistent/tmcml", &fromdir, &err));
    CHECK_CONTAINS(err.file, "/nonexistent/tmcml/engine.lua");
    remove_dir(dir);
}

int main(void)
{
    test_embedded();
    test_placeholder();
    test_template_dir();

    char dir[512];
    if (!make_template_dir(dir, sizeof dir)) {
        fprintf(stderr, "cannot make a temporary template directory: %s\n", strerror(errno));
        return 1;
    }
    test_syntax(dir);
    test_include(dir);
    test_spec_table(dir);
    test_params(dir);
    test_layer_record(dir);
    test_errors(dir);
    test_sandbox(dir);
    test_literals(dir);
    remove_dir(dir);
    return check_summary("test_render");
}
