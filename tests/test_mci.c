/* Tests of runtime/io/mci.c: every good file parses to exactly MCML's values,
 * every bad file fails on the right line with the right message. */
#include "mci.h"

#include "check.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *data_path(const char *dir, const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s/%s", TMCML_TEST_DATA, dir, name);
    return buf;
}

/* MCML's CriticalAngle, written out independently. */
static double crit(double n1, double n2) { return n1 > n2 ? sqrt(1.0 - n2 * n2 / (n1 * n1)) : 0.0; }

static bool read_good(const char *name, mci_file *f)
{
    tm_error err = {0};
    bool ok = mci_read(data_path("mci", name), f, &err);
    CHECK_MSG(ok, "%s: %s:%d: %s", name, err.file, err.line, err.message);
    return ok;
}

/* Checks one run's layers as read (n mua mus g d, 5 per layer) and the
 * derived depths and critical angles. */
static void check_layers(const mci_run *run, double n_above, const double (*v)[5], double n_below)
{
    const mci_layer *l = run->layers;
    int nl = run->num_layers;
    CHECK(l[0].n == n_above);
    CHECK(l[0].mua == 0 && l[0].mus == 0 && l[0].g == 0 && l[0].d == 0);
    CHECK(l[0].z0 == 0 && l[0].z1 == 0 && l[0].cos_crit0 == 0 && l[0].cos_crit1 == 0);
    double z = 0.0;
    for (int i = 1; i <= nl; i++) {
        const double *e = v[i - 1];
        CHECK_MSG(l[i].n == e[0] && l[i].mua == e[1] && l[i].mus == e[2] && l[i].g == e[3] &&
                      l[i].d == e[4],
                  "layer %d: %g %g %g %g %g", i, l[i].n, l[i].mua, l[i].mus, l[i].g, l[i].d);
        CHECK_MSG(l[i].z0 == z, "layer %d: z0 %.17g, expected %.17g", i, l[i].z0, z);
        z += e[4];
        CHECK_MSG(l[i].z1 == z, "layer %d: z1 %.17g, expected %.17g", i, l[i].z1, z);
        double above = i == 1 ? n_above : v[i - 2][0];
        double below = i == nl ? n_below : v[i][0];
        CHECK_MSG(l[i].cos_crit0 == crit(e[0], above), "layer %d: cos_crit0 %.17g", i,
                  l[i].cos_crit0);
        CHECK_MSG(l[i].cos_crit1 == crit(e[0], below), "layer %d: cos_crit1 %.17g", i,
                  l[i].cos_crit1);
    }
    const mci_layer *b = &l[nl + 1];
    CHECK(b->n == n_below);
    CHECK(b->mua == 0 && b->mus == 0 && b->g == 0 && b->d == 0);
    CHECK(b->z0 == z && b->z1 == z && b->cos_crit0 == 0 && b->cos_crit1 == 0);
}

static void check_grid(const mci_run *run, double dz, double dr, int nz, int nr, int na)
{
    CHECK(run->dz == dz && run->dr == dr);
    CHECK(run->nz == nz && run->nr == nr && run->na == na);
    CHECK(run->da == 0.5 * M_PI / na);
}

static const double example_layers[][5] = {
    {1.37, 1, 100, 0.90, 0.1},
    {1.37, 1, 10, 0, 0.1},
    {1.37, 2, 10, 0.70, 0.2},
};

static void check_example_run(const mci_run *r, const char *name, int line)
{
    CHECK(strcmp(r->out_name, name) == 0);
    CHECK(r->out_format == 'A');
    CHECK(r->photons == 1000000);
    CHECK(r->line == line);
    CHECK(r->num_layers == 3);
    check_grid(r, 0.01, 0.01, 40, 50, 1);
    check_layers(r, 1.0, example_layers, 1.0);
}

static void test_mcml_example(void)
{
    mci_file f;
    if (!read_good("mcml_example.mci", &f))
        return;
    CHECK(f.version == 1.0);
    CHECK(f.num_runs == 1);
    CHECK(strcmp(f.path, data_path("mci", "mcml_example.mci")) == 0);
    check_example_run(&f.runs[0], "example.mco", 12);
    /* The depths MCML computes: 0, 0.1, 0.2, 0.4 by cumulative sums. */
    CHECK(f.runs[0].layers[3].z0 == 0.1 + 0.1 && f.runs[0].layers[3].z1 == 0.1 + 0.1 + 0.2);
    CHECK(f.runs[0].layers[1].cos_crit0 == sqrt(1.0 - 1.0 / (1.37 * 1.37)));
    CHECK(f.runs[0].layers[2].cos_crit0 == 0 && f.runs[0].layers[2].cos_crit1 == 0);
    mci_free(&f);
    CHECK(f.runs == NULL && f.path == NULL && f.num_runs == 0);
}

static void test_crlf(void)
{
    mci_file f;
    if (!read_good("crlf.mci", &f))
        return;
    CHECK(f.num_runs == 1);
    check_example_run(&f.runs[0], "crlf.mco", 13);
    mci_free(&f);
}

static void test_skin7(void)
{
    static const double skin[][5] = {
        {1.53, 0.2, 1000, 0.9, 0.002}, {1.34, 0.15, 400, 0.85, 0.008}, {1.4, 0.7, 300, 0.8, 0.01},
        {1.39, 1, 350, 0.9, 0.008},    {1.4, 0.7, 200, 0.76, 0.162},   {1.39, 1, 350, 0.95, 0.02},
        {1.44, 0.3, 150, 0.8, 0.59},
    };
    mci_file f;
    if (!read_good("skin7_600nm.mci", &f))
        return;
    CHECK(f.num_runs == 1);
    const mci_run *r = &f.runs[0];
    CHECK(strcmp(r->out_name, "skin7_600nm.mco") == 0 && r->out_format == 'A');
    CHECK(r->photons == 100000000);
    CHECK(r->line == 5);
    CHECK(r->num_layers == 7);
    check_grid(r, 0.002, 0.01, 500, 200, 30);
    check_layers(r, 1.0, skin, 1.0);
    mci_free(&f);
}

static void test_multirun(void)
{
    static const double l1[][5] = {{1.5, 0.5, 50, 0.8, 0.3}};
    static const double l2[][5] = {{1.4, 1, 100, -0.5, 0.1}, {1.4, 0.1, 10, 1, 0.2}};
    static const double l3[][5] = {{1, 0, 0, -1, 1e-3}};
    mci_file f;
    if (!read_good("multirun.mci", &f))
        return;
    CHECK(f.num_runs == 3);
    if (f.num_runs == 3) {
        const mci_run *r = f.runs;
        CHECK(strcmp(r[0].out_name, "first.mco") == 0 && r[0].out_format == 'A');
        CHECK(r[0].photons == 100 && r[0].line == 7 && r[0].num_layers == 1);
        check_grid(&r[0], 0.01, 0.02, 10, 20, 5);
        check_layers(&r[0], 1.0, l1, 1.33);

        CHECK(strcmp(r[1].out_name, "second.mco") == 0 && r[1].out_format == 'B');
        CHECK(r[1].photons == 2000 && r[1].line == 17 && r[1].num_layers == 2);
        check_grid(&r[1], 0.005, 0.005, 100, 100, 30);
        check_layers(&r[1], 1.33, l2, 1.0);

        CHECK(strcmp(r[2].out_name, "third.mco") == 0 && r[2].out_format == 'A');
        CHECK(r[2].photons == 12345 && r[2].line == 28 && r[2].num_layers == 1);
        check_grid(&r[2], 0.1, 0.1, 1, 1, 1);
        check_layers(&r[2], 1.0, l3, 1.0);
        CHECK(mci_layer_is_glass(&r[2].layers[1]));
    }
    mci_free(&f);
}

static void test_glass(void)
{
    static const double layers[][5] = {
        {1.52, 0, 0, 0.9, 0.1},  {1.37, 1, 100, 0.9, 0.1}, {1.45, 0, 0, 0, 0.05},
        {1.37, 2, 10, 0.7, 0.2}, {1.40, 1, 10, 0.7, 0},    {1.52, 0, 0, 0, 0.1},
    };
    mci_file f;
    if (!read_good("glass.mci", &f))
        return;
    const mci_run *r = &f.runs[0];
    CHECK(r->num_layers == 6);
    check_layers(r, 1.0, layers, 1.33);
    bool glass[] = {true, false, true, false, false, true};
    for (int i = 1; i <= 6; i++)
        CHECK_MSG(mci_layer_is_glass(&r->layers[i]) == glass[i - 1], "layer %d", i);
    CHECK(r->layers[5].z0 == r->layers[5].z1); /* the zero-thickness layer */
    mci_free(&f);
}

static void test_max_photons(void)
{
    mci_file f;
    if (!read_good("max_photons.mci", &f))
        return;
    CHECK(f.runs[0].photons == INT64_MAX);
    CHECK(f.runs[0].photons == 9223372036854775807LL);
    mci_free(&f);
}

static void test_paths(void)
{
    static const char *names[] = {"../out/run-1.v2.mco", "/tmp/tmcml_x/y_z.mco", "no_extension",
                                  ".hidden.mco.mco"};
    static const char formats[] = {'A', 'B', 'A', 'A'};
    mci_file f;
    if (!read_good("paths.mci", &f))
        return;
    CHECK(f.num_runs == 4);
    for (int i = 0; i < 4 && i < f.num_runs; i++) {
        CHECK_MSG(strcmp(f.runs[i].out_name, names[i]) == 0, "run %d: \"%s\"", i + 1,
                  f.runs[i].out_name);
        CHECK(f.runs[i].out_format == formats[i]);
        CHECK(f.runs[i].line == 4 + 8 * i);
    }
    mci_free(&f);
}

/* Text in memory: a byte-order mark, old Mac line ends, no final newline,
 * -0 normalised, g = +-1 and d = 0 accepted. */
static void test_parse_text(void)
{
    const char *text = "\xEF\xBB\xBF"
                       "1.0\r1\r\r# comment\rm.mco\tB\r5\r1e-3 2E-3\r3 4 5\r2\r1\r"
                       "1.3 -0 0 1 0\r1.4 0 0 -1 0.5\r1";
    mci_file f;
    tm_error err = {0};
    bool ok = mci_parse(text, "mem.mci", &f, &err);
    CHECK_MSG(ok, "%s:%d: %s", err.file, err.line, err.message);
    if (!ok)
        return;
    CHECK(strcmp(f.path, "mem.mci") == 0);
    const mci_run *r = &f.runs[0];
    CHECK(strcmp(r->out_name, "m.mco") == 0 && r->out_format == 'B' && r->line == 5);
    CHECK(r->photons == 5);
    check_grid(r, 1e-3, 2e-3, 3, 4, 5);
    static const double layers[][5] = {{1.3, 0, 0, 1, 0}, {1.4, 0, 0, -1, 0.5}};
    check_layers(r, 1.0, layers, 1.0);
    CHECK(!signbit(r->layers[1].mua));
    mci_free(&f);
}

static void test_copy(void)
{
    mci_file f;
    if (!read_good("mcml_example.mci", &f))
        return;
    mci_run copy;
    CHECK(mci_run_copy(&copy, &f.runs[0]));
    CHECK(copy.out_name != f.runs[0].out_name && copy.layers != f.runs[0].layers);
    mci_free(&f); /* the copy must outlive the file */
    check_example_run(&copy, "example.mco", 12);
    mci_run_free(&copy);
    CHECK(copy.out_name == NULL && copy.layers == NULL);
    mci_run_free(&copy); /* twice is harmless */
    mci_free(&f);
}

typedef struct bad_case {
    const char *file;
    int line;
    const char *message; /* a key part of the message */
} bad_case;

static const bad_case bad_cases[] = {
    {"empty.mci", 0, "empty file: no data lines, expected the file version (1.0)"},
    {"comments_only.mci", 4, "empty file: no data lines"},
    {"version_2.mci", 2, "unsupported file version (2.0)"},
    {"version_text.mci", 2, "file version: not a number (\"v1.0\")"},
    {"no_runs_line.mci", 2, "unexpected end of file: expected the number of runs"},
    {"runs_zero.mci", 3, "number of runs must be positive (0)"},
    {"runs_float.mci", 3, "number of runs: not an integer (\"1.5\")"},
    {"runs_huge.mci", 3, "number of runs out of range (99999999999)"},
    {"name_no_format.mci", 5,
     "missing output format after the output name \"out.mco\" (expected A or B)"},
    {"name_hash.mci", 5, "'#' starts a comment, so a name cannot contain it"},
    {"name_space.mci", 5,
     "output name and format: unexpected extra value \"A\" (expected a name, which cannot contain "
     "spaces, and A or B)"},
    {"format_bad.mci", 5, "output format must be A or B (\"C\")"},
    {"format_word.mci", 5, "output format must be A or B (\"ASCII\")"},
    {"extra_value.mci", 7, "dz, dr: unexpected extra value \"7\" (expected 2 values: dz dr)"},
    {"photons_garbage.mci", 6,
     "number of photons: unexpected characters after the number (\"1e6x\")"},
    {"photons_exponent.mci", 6,
     "number of photons: \"1e6\" is not a decimal integer (MCML would read 1); write 1000000"},
    {"photons_float.mci", 6, "number of photons: not an integer (\"1000.5\")"},
    {"photons_text.mci", 6, "number of photons: not a number (\"many\")"},
    {"photons_zero.mci", 6, "number of photons must be positive (0)"},
    {"photons_negative.mci", 6, "number of photons must be positive (-5)"},
    {"photons_overflow.mci", 6,
     "number of photons out of range (9223372036854775808): at most 9223372036854775807"},
    {"dz_units.mci", 7, "dz: unexpected characters after the number (\"0.01cm\")"},
    {"dz_text.mci", 7, "dz: not a number (\"x\")"},
    {"dz_zero.mci", 7, "dz must be positive (0)"},
    {"dr_negative.mci", 7, "dr must be positive (-0.01)"},
    {"dz_nan.mci", 7, "dz: not a finite number (\"nan\")"},
    {"dr_inf.mci", 7, "dr: not a finite number (\"inf\")"},
    {"dz_overflow.mci", 7, "dz: not a finite number (\"1e999\")"},
    {"dzdr_one_value.mci", 7, "dz, dr: expected 2 values (dz dr), found 1"},
    {"nz_zero.mci", 8, "nz must be positive (0)"},
    {"nr_float.mci", 8, "nr: not an integer (\"50.5\")"},
    {"na_negative.mci", 8, "na must be positive (-1)"},
    {"grid_two_values.mci", 8, "nz, nr, na: expected 3 values (nz nr na), found 2"},
    {"grid_rz_too_large.mci", 8,
     "grid too large: nr*nz = 20000*20000 = 400000000 bins, more than 134217728 (2^27)"},
    {"grid_ra_too_large.mci", 8, "grid too large: nr*na = 100000*10000 = 1000000000 bins"},
    {"layers_zero.mci", 9, "number of layers must be positive (0)"},
    {"layers_decimal.mci", 9,
     "number of layers: \"3.0\" is not a decimal integer (MCML would read 3); write 3"},
    {"n_above_zero.mci", 10, "n of the medium above must be positive (0)"},
    {"n_above_extra.mci", 10,
     "n of the medium above: unexpected extra value \"1.37\" (expected 1 value: n)"},
    {"n_below_negative.mci", 14, "n of the medium below must be positive (-1)"},
    {"layer_too_few.mci", 12, "layer 2: expected 5 values (n mua mus g d), found 4"},
    {"layer_too_many.mci", 11,
     "layer 1: unexpected extra value \"0.5\" (expected 5 values: n mua mus g d)"},
    {"layer_n_zero.mci", 11, "layer 1: n must be positive (0)"},
    {"layer_n_huge.mci", 12, "layer 2: n must be between 0.01 and 100 (1e200)"},
    {"n_below_tiny.mci", 14, "n of the medium below must be between 0.01 and 100 (0.001)"},
    {"layer_g_subnormal.mci", 11,
     "layer 1: g: too small to compute with (\"1e-320\"): a number other than 0 must be at least "
     "1e-300"},
    {"dz_subnormal.mci", 7, "dz: too small to compute with (\"1e-310\")"},
    {"dr_tiny.mci", 7, "dr must be at least 1e-09 cm (1e-12)"},
    {"layer_n_two_dots.mci", 11, "layer 1: n: unexpected characters after the number (\"1.37.2\")"},
    {"layer_mua_negative.mci", 13, "layer 3: mua must not be negative (-1)"},
    {"layer_mus_negative.mci", 12, "layer 2: mus must not be negative (-0.5)"},
    {"layer_mua_tiny.mci", 12, "layer 2: mua must be 0 or between 1e-12 and 1e12 /cm (1e-300)"},
    {"layer_mus_huge.mci", 12, "layer 2: mus must be 0 or between 1e-12 and 1e12 /cm (1e13)"},
    {"layer_vanishes.mci", 12,
     "layer 2: d = 0.05 cm at a depth of 1e+16 cm is below 2^-40 of its depth"},
    {"layer_mus_nan.mci", 13, "layer 3: mus: not a finite number (\"NaN\")"},
    {"layer_g_above_1.mci", 11, "layer 1: g must be between -1 and 1 (1.5)"},
    {"layer_g_below_-1.mci", 13, "layer 3: g must be between -1 and 1 (-1.01)"},
    {"layer_d_negative.mci", 12, "layer 2: d must not be negative (-0.05)"},
    {"layer_d_text.mci", 13, "layer 3: d: not a number (\"thick\")"},
    {"eof_in_layers.mci", 14,
     "unexpected end of file: expected layer 3 (n mua mus g d) of run 1 (the file declares 1 run)"},
    {"eof_n_below.mci", 14,
     "unexpected end of file: expected the refractive index of the medium below of run 1"},
    {"fewer_runs.mci", 15,
     "unexpected end of file: expected the output name and format of run 2 (the file declares 2 "
     "runs)"},
    {"duplicate_name.mci", 16,
     "output name \"out.mco\" of run 2 is already used by run 1 (line 5)"},
    {"trailing_data.mci", 16,
     "unexpected data after run 1 (\"out2.mco\"): the file declares 1 run"},
    {"run2_bad_layer.mci", 22, "layer 1: g must be between -1 and 1 (2)"},
    {"nul_byte.mci", 4,
     "the file contains a NUL byte: not a text file, or UTF-16 text (save the file as UTF-8 or "
     "ASCII)"},
    {"utf16.mci", 1,
     "the file contains a NUL byte: not a text file but UTF-16 (save the file as UTF-8 or "
     "ASCII)"},
    {"layer_mua_underflow.mci", 11,
     "layer 1: mua: too small to compute with (\"1e-400\"): a number other than 0 must be"},
    {"layer_mus_underflow.mci", 12, "layer 2: mus: too small to compute with (\"2e-324\")"},
};

static bool file_is_empty(const mci_file *f)
{
    return f->path == NULL && f->runs == NULL && f->num_runs == 0 && f->version == 0;
}

static void test_bad_files(void)
{
    size_t n = sizeof bad_cases / sizeof bad_cases[0];
    for (size_t i = 0; i < n; i++) {
        const bad_case *c = &bad_cases[i];
        const char *path = data_path("mci_bad", c->file);
        mci_file f;
        tm_error err = {0};
        bool ok = mci_read(path, &f, &err);
        CHECK_MSG(!ok, "%s: accepted", c->file);
        CHECK_MSG(file_is_empty(&f), "%s: file not left empty", c->file);
        CHECK_MSG(strcmp(err.file, path) == 0, "%s: error names \"%s\"", c->file, err.file);
        CHECK_MSG(err.line == c->line, "%s: line %d, expected %d (%s)", c->file, err.line, c->line,
                  err.message);
        CHECK_MSG(strstr(err.message, c->message) != NULL, "%s: \"%s\" does not contain \"%s\"",
                  c->file, err.message, c->message);
        mci_free(&f);
    }
}

/* No two kinds of error share a message. */
static void test_messages_distinct(void)
{
    size_t n = sizeof bad_cases / sizeof bad_cases[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK_MSG(strcmp(bad_cases[i].message, bad_cases[j].message) != 0, "%s and %s",
                      bad_cases[i].file, bad_cases[j].file);
}

static void test_cannot_read(void)
{
    mci_file f;
    tm_error err = {0};
    const char *missing = data_path("mci_bad", "no_such_file.mci");
    CHECK(!mci_read(missing, &f, &err));
    CHECK(file_is_empty(&f));
    CHECK(strcmp(err.file, missing) == 0 && err.line == 0);
    CHECK_CONTAINS(err.message, "cannot open file: No such file or directory");

    char buf[2048];
    char expected[1200];
    snprintf(expected, sizeof expected, "%s: cannot open file", missing);
    CHECK_CONTAINS(error_format(&err, buf, sizeof buf), expected);

    const char *dir = data_path("mci_bad", "");
    CHECK(!mci_read(dir, &f, &err));
    CHECK(file_is_empty(&f));
    CHECK(err.line == 0);
    CHECK_CONTAINS(err.message, "cannot open file: is a directory");
    /* An endless file: refused at the size cap, not read into all memory. */
    CHECK(!mci_read("/dev/zero", &f, &err));
    CHECK(file_is_empty(&f));
    CHECK_CONTAINS(err.message, "larger than 67108864 bytes");
}

/* "file:line: what is wrong (value)", as the user sees it. */
static void test_format(void)
{
    mci_file f;
    tm_error err = {0};
    CHECK(!mci_parse("1.0\n1\nx.mco A\n100\n0.01 -2\n", "in.mci", &f, &err));
    char buf[2048];
    CHECK(strcmp(error_format(&err, buf, sizeof buf), "in.mci:5: dr must be positive (-2)") == 0);
    CHECK(!mci_parse("", NULL, &f, &err));
    CHECK(file_is_empty(&f));
}

int main(void)
{
    test_mcml_example();
    test_crlf();
    test_skin7();
    test_multirun();
    test_glass();
    test_max_photons();
    test_paths();
    test_parse_text();
    test_copy();
    test_bad_files();
    test_messages_distinct();
    test_cannot_read();
    test_format();
    return check_summary("test_mci");
}
