/* runtime/engine/footprint.c: the estimate is the element sizes of the real
 * arrays times the bins, and its file sizes bound what mco.c and summary.c
 * write, even with the widest numbers and names. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "footprint.h"
#include "mco.h"
#include "result.h"
#include "summary.h"
#include "tally.h"
#include "tm_limits.h"

#define MAX_LAYERS 40

/* A run of nl layers with the widest %G numbers mco.c and the JSON print
 * (13 characters: "-1.23457E+300"); layers must hold nl + 2 entries. */
static mci_run make_run(int nr, int nz, int na, int nl, mci_layer *layers, char *out_name)
{
    for (int i = 0; i < nl + 2; i++) {
        double v = -1.23456789e300 * (i + 1);
        layers[i] = (mci_layer){.n = v, .mua = v, .mus = v, .g = v, .d = v, .z0 = 0, .z1 = v};
    }
    return (mci_run){.out_name = out_name,
                     .out_format = 'A',
                     .photons = INT64_MAX,
                     .dz = -1.23456789e-300,
                     .dr = -1.23456789e-300,
                     .nz = nz,
                     .nr = nr,
                     .na = na,
                     .num_layers = nl,
                     .layers = layers,
                     .line = 4};
}

/* The estimate is made of the real element sizes: 64-bit batch entries,
 * 128-bit accumulators, doubles; checked on the numbers too. */
static void test_arrays(void)
{
    mci_layer layers[5];
    char name[] = "x.mco";
    mci_run run = make_run(7, 11, 5, 3, layers, name);
    run_footprint fp;
    footprint_of_run(&run, "in.mci", &fp);

    tally_batch b;
    tally_set t;
    mcml_result r;
    uint64_t rz = 7 * 11, ra = 7 * 5, nl = 3 + 2;
    CHECK(fp.batch == rz * sizeof *b.a_rz + ra * sizeof *b.rd_ra + ra * sizeof *b.tt_ra);
    CHECK(fp.batch == (77 + 2 * 35) * 8);
    CHECK(fp.tallies == rz * sizeof *t.a_rz + ra * sizeof *t.rd_ra + ra * sizeof *t.tt_ra);
    CHECK(fp.tallies == (77 + 2 * 35) * 16);
    /* result_alloc's arrays and result_absorption's per-layer sums. */
    CHECK(fp.result == nl * sizeof *r.a_l + 11 * sizeof *r.a_z + 2 * 7 * sizeof *r.rd_r +
                           2 * 5 * sizeof *r.rd_a + (rz + 2 * ra) * sizeof *r.a_rz +
                           nl * sizeof(tally_acc_t));
    CHECK(fp.result == (5 + 11 + 14 + 10 + 77 + 70) * 8 + 5 * 16);
    /* The device tallies have the batch's entries, plus a few counters. */
    CHECK(fp.device >= fp.batch && fp.device <= fp.batch + 64);
    CHECK(fp.mco_file == footprint_mco_bound(&run));
    CHECK(fp.json_text >= fp.json_file);

    /* The peak: tallies plus the larger of the batches and the results. */
    uint64_t after = fp.result + fp.json_text;
    CHECK(footprint_host_tallies(&fp, 4) == fp.tallies + 4 * fp.batch);
    CHECK(footprint_host_tallies(&fp, 0) == fp.tallies + fp.batch);
    CHECK(footprint_host_peak(&fp, 1) == fp.tallies + (after > fp.batch ? after : fp.batch));
    CHECK(footprint_host_peak(&fp, 1000) == fp.tallies + 1000 * fp.batch);

    /* The largest grid the reader accepts (nr = 1, nz = na = 2^27): about
     * 12 GiB at the peak with one thread, and 6 x 2^27 numbers (A_z, Rd_a,
     * Tt_a, A_rz, Rd_ra, Tt_ra) of 13 bytes in the .mco.  No overflow. */
    run = make_run(1, 1 << 27, 1 << 27, 3, layers, name);
    footprint_of_run(&run, "in.mci", &fp);
    CHECK(fp.batch == 3 * ((uint64_t)8 << 27));
    CHECK(fp.tallies == 3 * ((uint64_t)16 << 27));
    CHECK(fp.result > 6 * ((uint64_t)8 << 27) && fp.result < 6 * ((uint64_t)8 << 27) + 4096);
    CHECK(footprint_host_peak(&fp, 1) == fp.tallies + fp.result + fp.json_text);
    CHECK(fp.mco_file > 6 * ((uint64_t)13 << 27) && fp.mco_file < 6 * ((uint64_t)14 << 27));
}

/* Bytes mco_write_stream writes for run (zeroed arrays unless fill). */
static long mco_bytes(const mci_run *run, double fill, const char *comment)
{
    mcml_result res;
    if (!result_alloc(&res, run->nr, run->nz, run->na, run->num_layers))
        return -1;
    res.rsp = res.rd = res.a = res.tt = fill;
    size_t rz = (size_t)run->nr * run->nz, ra = (size_t)run->nr * run->na;
    for (int i = 0; i < run->num_layers + 2; i++)
        res.a_l[i] = fill;
    for (size_t i = 0; i < rz; i++)
        res.a_rz[i] = fill;
    for (size_t i = 0; i < ra; i++)
        res.rd_ra[i] = res.tt_ra[i] = fill;
    for (int i = 0; i < run->nz; i++)
        res.a_z[i] = fill;
    for (int i = 0; i < run->nr; i++)
        res.rd_r[i] = res.tt_r[i] = fill;
    for (int i = 0; i < run->na; i++)
        res.rd_a[i] = res.tt_a[i] = fill;
    if (run->xy_nx > 0 && !result_alloc_xy(&res, run->xy_nx)) {
        result_free(&res);
        return -1;
    }
    size_t cells = (size_t)run->xy_nx * run->xy_nx, xz = (size_t)run->xy_nx * run->nz;
    for (size_t i = 0; i < cells; i++)
        res.rd_xy[i] = res.tt_xy[i] = fill;
    for (size_t i = 0; i < xz; i++)
        res.a_xz[i] = fill;
    FILE *f = tmpfile();
    long n = -1;
    if (f && mco_write_stream(f, run, &res, comment))
        n = ftell(f);
    if (f)
        fclose(f);
    result_free(&res);
    return n;
}

/* The .mco bound holds for the widest numbers and names, and is not loose
 * by more than its fixed slack. */
static void test_mco_bound(void)
{
    static const int grids[][4] = {{1, 1, 1, 1},    {50, 40, 1, 3}, {7, 13, 29, 11},
                                   {101, 3, 7, 40}, {5, 200, 1, 1}, {1, 1, 600, 2}};
    char comment[256], name[256];
    memset(comment, 'c', 255);
    comment[255] = '\0';
    memset(name, 'n', 250);
    strcpy(name + 250, ".mco");
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        mci_layer layers[MAX_LAYERS + 2];
        mci_run run = make_run(grids[g][0], grids[g][1], grids[g][2], grids[g][3], layers, name);
        uint64_t bound = footprint_mco_bound(&run);
        const double fills[] = {-1.23456789e-300, 0.0, 1.0 / 3.0};
        for (size_t k = 0; k < sizeof fills / sizeof fills[0]; k++) {
            long n = mco_bytes(&run, fills[k], comment);
            CHECK(n > 0);
            CHECK_MSG((uint64_t)n <= bound, "grid %zu: %ld bytes, bound %llu", g, n,
                      (unsigned long long)bound);
            CHECK_MSG((uint64_t)n + MCO_TEXT_BYTES_BOUND >= bound,
                      "grid %zu: %ld bytes, bound %llu: loose", g, n, (unsigned long long)bound);
        }
        /* With the Cartesian grid (its header line's cell side the widest
         * a double prints) and the oblique beam's source line. */
        run.xy_dx = 1.2345678901234567e-300;
        run.xy_nx = 1 + (int)g * 3;
        run.source = (source_desc){.kind = SOURCE_OBLIQUE, .angle = 89.123456789012345};
        long n = mco_bytes(&run, fills[0], comment);
        uint64_t with_grid = footprint_mco_bound(&run);
        CHECK_MSG(n > 0 && (uint64_t)n <= with_grid &&
                      (uint64_t)n + MCO_TEXT_BYTES_BOUND >= with_grid,
                  "grid %zu with the Cartesian grid: %ld bytes, bound %llu", g, n,
                  (unsigned long long)with_grid);
    }
}

/* The JSON bound holds for control bytes in the names and many layers. */
static void test_json_bound(void)
{
    char path[] = "/tmp/tmcml_test_footprint.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char name[300], input[300];
    for (int i = 0; i < 250; i++) {
        name[i] = (char)(1 + i % 31);     /* control bytes: \u00XX each */
        input[i] = (char)(0x80 + i % 64); /* stray bytes: U+FFFD each */
    }
    strcpy(name + 250, ".mco");
    input[250] = '\0';
    mci_layer layers[MAX_LAYERS + 2];
    mci_run run = make_run(3, 4, 5, MAX_LAYERS, layers, name);
    mcml_result res;
    CHECK(result_alloc(&res, 3, 4, 5, MAX_LAYERS));
    res.photons = UINT64_MAX;
    res.rsp = res.rd = res.a = res.tt = -1.2345678901234567e-300;
    for (int i = 0; i < MAX_LAYERS + 2; i++)
        res.a_l[i] = -1.2345678901234567e-300;
    char device[256], kernel[KNOBS_TEXT_MAX + 512];
    memset(device, 'd', 255);
    device[255] = '\0';
    memset(kernel, 'k', sizeof kernel - 1);
    kernel[sizeof kernel - 1] = '\0';
    run_report rep = {.input_path = input,
                      .run_index = 1000000,
                      .run = &run,
                      .result = &res,
                      .seed = UINT64_MAX,
                      .engine = "gpu",
                      .threads = 1000000,
                      .wall_seconds = -1.2345678901234567e-300,
                      .rng = "mwc-per-photon",
                      .steps = -1.2345678901234567e-300,
                      .device = device,
                      .kernel = kernel,
                      .tallies_digest = UINT64_MAX};
    tm_error err = {0};
    CHECK(summary_write(path, &rep, &err));
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (f)
        fclose(f);
    run_footprint fp;
    footprint_of_run(&run, input, &fp);
    CHECK(n > 0);
    CHECK_MSG((uint64_t)n <= fp.json_file, "%ld bytes, bound %llu", n,
              (unsigned long long)fp.json_file);
    result_free(&res);
    unlink(path);
}

int main(void)
{
    test_arrays();
    test_mco_bound();
    test_json_bound();
    return check_summary("test_footprint");
}
