/* mco: MCML's own outputs read and written back byte for byte; our files
 * read back to the numbers written; broken files named with their line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fs.h"
#include "mco.h"
#include "run_grid.h"

static char tmpdir[] = "/tmp/tmcml_test_mco.XXXXXX";

#define REF(name) TMCML_TEST_DATA "/reference/" name

static char *slurp(const char *path)
{
    tm_error err;
    char *text = fs_read_text(path, NULL, &err);
    if (!text)
        error_print(stderr, &err);
    return text;
}

static char *write_to_memory(const mco_data *d, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    bool ok = mco_write_stream(f, &d->run, &d->result, d->comment);
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Line (1-based) of the first difference, 0 when equal. */
static int first_diff_line(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n')
            line++;
    return *a == *b ? 0 : line;
}

static void check_round_trip(const char *path, bool mcml_122_time_line, mco_data *d)
{
    tm_error err = {0};
    char *orig = slurp(path);
    CHECK(orig != NULL);
    bool ok = mco_read(path, d, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    if (!orig || !ok)
        return;
    size_t len = 0;
    char *again = write_to_memory(d, &len);
    CHECK(again != NULL);
    if (again) {
        /* Read and written again, MCML's file is unchanged, byte for byte. */
        CHECK_MSG(len == strlen(orig) && first_diff_line(again, orig) == 0,
                  "%s: written copy differs from line %d (%zu vs %zu bytes)", path,
                  first_diff_line(again, orig), len, strlen(orig));
    }
    if (mcml_122_time_line) {
        /* MCML 1.2.2's time text is what mco_time_comment makes. */
        char text[256];
        mco_time_comment(d->user_seconds, text, sizeof text);
        CHECK(d->comment && strcmp(d->comment, text) == 0);
    }
    free(again);
    free(orig);
}

static void test_reference_skin(void)
{
    mco_data d;
    check_round_trip(REF("mcml_skin7_600nm_1e8.mco"), true, &d);
    CHECK(d.user_seconds == 18004);
    CHECK(strcmp(d.run.out_name, "sevenlayer_600nm_100M_run1.mco") == 0);
    CHECK(d.run.out_format == 'A');
    CHECK(d.run.photons == 100000000);
    CHECK(d.run.nz == 500 && d.run.nr == 200 && d.run.na == 30 && d.run.num_layers == 7);
    CHECK(d.run.dz == 0.002 && d.run.dr == 0.01);
    CHECK(d.run.layers[0].n == 1.0 && d.run.layers[8].n == 1.0);
    CHECK(d.run.layers[1].n == 1.53 && d.run.layers[1].mus == 1000 && d.run.layers[1].d == 0.002);
    CHECK(d.run.layers[7].g == 0.8 && d.run.layers[7].mua == 0.3);
    CHECK(fabs(d.run.layers[7].z1 - 0.8) < 1e-12);
    CHECK(d.run.layers[1].cos_crit0 > 0 && d.run.layers[7].cos_crit1 > 0);
    CHECK(d.result.rsp == 0.0438845 && d.result.rd == 0.562468);
    CHECK(d.result.a == 0.390387 && d.result.tt == 0.00326087);
    CHECK(d.result.a_l[1] == 0.002529 && d.result.a_l[7] == 0.04455);
    CHECK(d.result.a_z[0] == 1.2643 && d.result.a_rz[0] == 1179.2);
    CHECK(d.result.rd_ra[0] == 117.91 && d.result.tt_ra[0] == 0.00115);
    mco_free(&d);
}

static void test_reference_example(void)
{
    mco_data d;
    /* Written by an MCML older than 1.2.2: its time line has %8.2f seconds. */
    check_round_trip(REF("mcml_example_1e6.mco"), false, &d);
    CHECK(d.user_seconds == 1488.13);
    CHECK(strcmp(d.run.out_name, "craig.mco") == 0);
    CHECK(d.run.photons == 1000000 && d.run.nz == 40 && d.run.nr == 50 && d.run.na == 1);
    CHECK(d.result.rsp == 0.0243729 && d.result.rd == 0.237544);
    CHECK(d.result.a == 0.641594 && d.result.tt == 0.0964896);
    CHECK(d.result.a_l[1] == 0.2612 && d.result.a_l[3] == 0.2316);
    CHECK(d.result.rd_a[0] == 0.034038 && d.result.tt_a[0] == 0.013826);
    CHECK(d.result.a_rz[5] == 853.63);
    mco_free(&d);
}

/* Relative error allowed by a printed precision of `digits` significant digits. */
static bool within(double got, double want, int digits)
{
    return fabs(got - want) <= 0.5 * pow(10, 1 - digits) * fabs(want) * 1.000001;
}

static void check_array(const double *got, const double *want, long n, int digits, const char *what)
{
    for (long i = 0; i < n; i++)
        CHECK_MSG(within(got[i], want[i], digits), "%s[%ld] = %.17g, wrote %.17g", what, i, got[i],
                  want[i]);
}

/* A result of our own (odd values, zeros, tiny and huge numbers) goes out
 * through mco_write and back through mco_read. */
static void test_own_round_trip(void)
{
    enum { NR = 7, NZ = 6, NA = 4, NL = 2 };
    mci_layer layers[NL + 2] = {
        {.n = 1.0},
        {.n = 1.37, .mua = 1, .mus = 100, .g = 0.9, .d = 0.1, .z0 = 0, .z1 = 0.1},
        {.n = 1.45, .mua = 0.123456789, .mus = 10.5, .g = -0.25, .d = 0.2, .z0 = 0.1, .z1 = 0.3},
        {.n = 1.33, .z0 = 0.3, .z1 = 0.3},
    };
    mci_run run = {.out_name = "dir with space/out put.mco",
                   .out_format = 'B',
                   .photons = INT64_C(9223372036854775807),
                   .num_layers = NL,
                   .layers = layers};
    run_grid(&run, 0.05, 0.0125, NZ, NR, NA);
    mcml_result res;
    CHECK(result_alloc(&res, NR, NZ, NA, NL));
    res.photons = (uint64_t)run.photons;
    res.rsp = 0.0243729111;
    res.rd = 0.123456789;
    res.a = 0.8;
    res.tt = 1.5e-9;
    res.a_l[1] = 0.33333333;
    res.a_l[2] = 4.6e-7;
    double *arrays[] = {res.a_z,  res.rd_r, res.tt_r,  res.rd_a,
                        res.tt_a, res.a_rz, res.rd_ra, res.tt_ra};
    long sizes[] = {NZ, NR, NR, NA, NA, NR * NZ, NR * NA, NR * NA};
    for (int k = 0; k < 8; k++)
        for (long i = 0; i < sizes[k]; i++)
            arrays[k][i] = (i % 3 == 0) ? 0.0 : pow(10, (double)(i % 11) - 6) * (1 + k / 7.0) / 3.0;

    char *path = fs_join(tmpdir, "own.mco");
    tm_error err = {0};
    char comment[256];
    mco_time_comment(12345.6, comment, sizeof comment);
    CHECK(mco_write(path, &run, &res, comment, &err));
    mco_data d;
    bool ok = mco_read(path, &d, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    if (ok) {
        CHECK(strcmp(d.run.out_name, run.out_name) == 0);
        CHECK(d.run.out_format == 'B');
        CHECK(d.run.photons == run.photons && d.result.photons == res.photons);
        CHECK(d.run.nr == NR && d.run.nz == NZ && d.run.na == NA && d.run.num_layers == NL);
        CHECK(d.run.da == run.da);
        CHECK(within(d.user_seconds, 12346, 6));
        CHECK(within(d.run.layers[2].mua, 0.123456789, 6) && d.run.layers[2].g == -0.25);
        CHECK(d.run.layers[3].n == 1.33 && fabs(d.run.layers[2].z1 - 0.3) < 1e-12);
        CHECK(within(d.result.rsp, res.rsp, 6) && within(d.result.rd, res.rd, 6));
        CHECK(within(d.result.a, res.a, 6) && within(d.result.tt, res.tt, 6));
        check_array(d.result.a_l + 1, res.a_l + 1, NL, 4, "A_l");
        double *back[] = {d.result.a_z,  d.result.rd_r, d.result.tt_r,  d.result.rd_a,
                          d.result.tt_a, d.result.a_rz, d.result.rd_ra, d.result.tt_ra};
        for (int k = 0; k < 8; k++)
            check_array(back[k], arrays[k], sizes[k], 5, "array");
        mco_free(&d);
    }

    /* A result whose grid differs from the run's is refused, writing nothing. */
    unlink(path);
    res.nz = NZ - 1;
    CHECK(!mco_write(path, &run, &res, "", &err));
    CHECK_CONTAINS(err.message, "does not match");
    CHECK(access(path, F_OK) != 0);
    res.nz = NZ;
    free(path);
    result_free(&res);
}

/* Writes text to a file in tmpdir and reads it as a .mco: must fail with
 * the given line and a message containing `needle`. */
static void expect_error(const char *name, const char *text, int line, const char *needle)
{
    char *path = fs_join(tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    mco_data d;
    tm_error err = {0};
    CHECK_MSG(!mco_read(path, &d, &err), "%s was accepted", name);
    CHECK_MSG(err.line == line, "%s: error at line %d, want %d (%s)", name, err.line, line,
              err.message);
    CHECK(strcmp(err.file, path) == 0);
    CHECK_CONTAINS(err.message, needle);
    CHECK(d.run.out_name == NULL && d.result.a_rz == NULL); /* left empty */
    mco_free(&d);
    unlink(path);
    free(path);
}

/* Start of line `line` (1-based) of text. */
static const char *line_start(const char *text, int line)
{
    while (--line > 0 && text)
        text = strchr(text, '\n') + 1;
    return text;
}

static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* text with line `line` replaced by `repl` (which ends in \n, or is "" to
 * delete the line). */
static char *replace_line(const char *text, int line, const char *repl)
{
    const char *s = line_start(text, line);
    const char *e = strchr(s, '\n') + 1;
    char *out = malloc(strlen(text) + strlen(repl) + 1);
    memcpy(out, text, (size_t)(s - text));
    strcpy(out + (s - text), repl);
    strcat(out, e);
    return out;
}

static void test_errors(void)
{
    char *orig = slurp(REF("mcml_example_1e6.mco"));
    if (!orig)
        return;
    int a_rz = line_of(orig, "A_rz\n");
    int rd_a = line_of(orig, "Rd_a #");
    int tt_ra = line_of(orig, "Tt_ra\n");

    /* Truncated in the middle of A_rz: the last line is named. */
    char *cut = strdup(orig);
    cut[line_start(orig, a_rz + 100) - orig] = '\0';
    expect_error("truncated.mco", cut, a_rz + 99, "file ends in A_rz after 495 of 2000 values");
    /* Cut just before a section. */
    free(cut);
    cut = strdup(orig);
    cut[line_start(orig, tt_ra - 6) - orig] = '\0';
    expect_error("no_tt_ra.mco", cut, tt_ra - 7, "without section Tt_ra");
    free(cut);

    char *t = replace_line(orig, rd_a - 5, "  2.0x2E-02\n");
    expect_error("bad_number.mco", t, rd_a - 5, "bad number '2.0x2E-02' in Rd_r (value 47 of 50)");
    free(t);

    t = replace_line(orig, rd_a - 3, "");
    expect_error("missing_value.mco", t, rd_a - 1, "Rd_r has only 49 of 50 values before Rd_a");
    free(t);

    t = replace_line(orig, rd_a + 1, "  3.4038E-02\n  1.0E-02\n");
    expect_error("extra_value.mco", t, rd_a + 2, "unexpected '1.0E-02'");
    free(t);

    /* dz and dr: at least MCI_MIN_STEP, as in a .mci (a dz of 0 made `tmcml
     * plot` say the grid was not the input's, naming the same grid twice) */
    int steps = line_of(orig, "0.01\t0.01\t\t# dz, dr [cm]");
    t = replace_line(orig, steps, "0\t0.01\n");
    expect_error("dz0.mco", t, steps, "dz = 0 in InParm: it must be at least 1e-09 cm");
    free(t);
    t = replace_line(orig, steps, "0.01 -0.01\n");
    expect_error("dr_negative.mco", t, steps, "dr = -0.01 in InParm");
    free(t);
    t = replace_line(orig, steps, "nan 0.01\n");
    expect_error("dz_nan.mco", t, steps, "dz = nan in InParm");
    free(t);
    t = replace_line(orig, steps, "0.01 inf\n");
    expect_error("dr_inf.mco", t, steps, "dr = inf in InParm");
    free(t);
    t = replace_line(orig, steps, "0.01 wide\n");
    expect_error("dr_word.mco", t, steps, "bad number 'wide' for dr in InParm");
    free(t);

    t = replace_line(orig, line_of(orig, "40\t50\t1"), "40\tfifty\t1\t# No. of dz, dr, da.\n");
    expect_error("bad_nr.mco", t, 16, "bad nr 'fifty'");
    free(t);

    t = replace_line(orig, line_of(orig, "40\t50\t1"), "40\t50000000\t1\t# No. of dz, dr, da.\n");
    expect_error("huge_nr.mco", t, 629, "file too short");
    free(t);

    t = replace_line(orig, a_rz, "Rd_a\n");
    expect_error("twice.mco", t, a_rz, "section Rd_a appears twice");
    free(t);

    expect_error("empty.mco", "", 0, "empty file");
    expect_error("not_mco.mco", "hello world\n", 1, "not an MCML .mco file");
    expect_error("header_only.mco", "A1 # version\n\n# User time: 1 sec\n", 3, "before InParm");

    mco_data d;
    tm_error err = {0};
    CHECK(!mco_read("/nonexistent/x.mco", &d, &err));
    CHECK_CONTAINS(err.message, "No such file");
    mco_free(&d);
    free(orig);
}

/* CRLF line ends and a different number layout are read all the same. */
static void test_lenient_layout(void)
{
    char *orig = slurp(REF("mcml_example_1e6.mco"));
    if (!orig)
        return;
    size_t n = strlen(orig);
    char *crlf = malloc(2 * n + 1), *q = crlf;
    for (const char *p = orig; *p; p++) {
        if (*p == '\n')
            *q++ = '\r';
        *q++ = *p;
    }
    *q = '\0';
    char *path = fs_join(tmpdir, "crlf.mco");
    FILE *f = fopen(path, "w");
    fputs(crlf, f);
    fclose(f);
    mco_data d;
    tm_error err = {0};
    bool ok = mco_read(path, &d, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    if (ok) {
        CHECK(strcmp(d.run.out_name, "craig.mco") == 0);
        CHECK(d.result.tt == 0.0964896 && d.result.a_rz[5] == 853.63);
        mco_free(&d);
    }
    unlink(path);
    free(path);
    free(crlf);
    free(orig);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_reference_skin();
    test_reference_example();
    test_own_round_trip();
    test_errors();
    test_lenient_layout();
    rmdir(tmpdir);
    return check_summary("test_mco");
}
