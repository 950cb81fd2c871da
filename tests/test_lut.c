/* `tmcml lut` (cli/lut_command.c, cli/lut_table.c, docs/lut.md), on the CPU
 * engine:
 *   files   the command's OUT.csv and OUT.npz for both strategies: every
 *           number of the CSV reads back as the library's own result of the
 *           point, bit for bit (sets: tmcml_run_sets of the mus' with seed
 *           S; runs: tmcml_run of the point with seed S + its mua number),
 *           and the .npz holds the same doubles and the parameters
 *   agree   sets against runs over BATCHES replicates (other seeds): every
 *           point's Rd and Rd_r within a Bonferroni bound derived from the
 *           replicates' variance (stats_compare_dependent, valid although
 *           the sets' mua share their histories)
 * Fixed seeds: deterministic. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lut_command.h"
#include "lut_table.h"
#include "stats.h"
#include "tmcml.h"

#define SEED    20261126u
#define PHOTONS 3000
#define NR      6
#define DR      0.05
#define BATCHES 32
#define ALPHA   1e-3

/* The table of both cases: a slab (so that photons end soon), 2 mus' x 4 mua. */
static const char *const table_args[] = {"--mua", "0.1:2:4:log", "--musp",   "5,12", "--d",  "0.5",
                                         "--g",   "0.8",         "--nr",     "6",    "--dr", "0.05",
                                         "--n",   "1.37",        "--engine", "cpu",  "-q"};
#define TABLE_ARGS (int)(sizeof table_args / sizeof *table_args)
static const double musp_values[2] = {5, 12};

static void spec_of(lut_spec *spec, uint64_t seed, int photons, lut_strategy strategy)
{
    memset(spec, 0, sizeof *spec);
    spec->n = 1.37;
    spec->n_above = spec->n_below = 1.0;
    spec->g = 0.8;
    spec->d = 0.5;
    spec->nr = NR;
    spec->dr = DR;
    spec->photons = photons;
    spec->seed = seed;
    spec->strategy = strategy;
    spec->engine = TMCML_ENGINE_CPU;
    tm_error err = {0};
    CHECK(lut_axis_parse("--mua", "0.1:2:4:log", &spec->mua, &err));
    CHECK(lut_axis_parse("--musp", "5,12", &spec->musp, &err));
}

/* ---- reading the files back ---------------------------------------------------- */

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            buf[n] = '\0';
            *size = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    if (f)
        fclose(f);
    return buf;
}

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

/* The bytes after the .npy header of the stored member name ("Rd.npy"), and
 * the header's text; NULL when absent. */
static const unsigned char *npz_member(const char *zip, size_t size, const char *name, char *header,
                                       size_t header_size)
{
    size_t len = strlen(name);
    for (size_t at = 0; at + 30 + len < size; at++) {
        const unsigned char *p = (const unsigned char *)zip + at;
        if (memcmp(p, "PK\3\4", 4) != 0 || le16(p + 26) != len || memcmp(p + 30, name, len) != 0)
            continue;
        const unsigned char *npy = p + 30 + len + le16(p + 28);
        size_t hlen = le16(npy + 8);
        snprintf(header, header_size, "%.*s", (int)hlen, (const char *)npy + 10);
        return npy + 10 + hlen;
    }
    return NULL;
}

static double le_double(const unsigned char *p)
{
    uint64_t bits = 0;
    for (int b = 7; b >= 0; b--)
        bits = bits << 8 | p[b];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The CSV's data lines (after the # lines and the header) into rows[] of
 * 3 + NR values; how many. */
static int read_csv(const char *path, double rows[][3 + NR], int max_rows)
{
    size_t size;
    char *text = read_all(path, &size);
    int n = 0;
    bool header = false;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        if (!header) {
            header = true;
            CHECK_MSG(strncmp(line, "musp,mua,Rd,Rd_r_0,Rd_r_1", 25) == 0, "header %s", line);
            continue;
        }
        char *p = line;
        for (int c = 0; n < max_rows && c < 3 + NR; c++) {
            rows[n][c] = strtod(p, &p);
            CHECK(*p == (c + 1 < 3 + NR ? ',' : '\0'));
            p += *p == ',';
        }
        n++;
    }
    free(text);
    return n;
}

/* ---- the library's own results ------------------------------------------------- */

static tmcml_problem *point(tmcml_session *s, double mua, double musp)
{
    tmcml_layer layer = {1.37, mua, musp / (1 - 0.8), 0.8, 0.5};
    tmcml_grid grid = {.dz = DR, .dr = DR, .nz = 1, .nr = NR, .na = 1};
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, &layer, 1, 1.0, 1.0, &grid, &p) == TMCML_OK);
    return p;
}

static void options(tmcml_options *o, uint64_t seed)
{
    tmcml_options_init(o);
    o->photons = PHOTONS;
    o->seed = seed;
    o->engine = TMCML_ENGINE_CPU;
    o->absorption = 0;
}

/* Row (Rd, Rd_r...) of the CSV against result r: every double equal. */
static void check_row(const double *row, double mua, double musp, const tmcml_result *r)
{
    tmcml_rat rat;
    size_t count = 0;
    tmcml_result_rat(r, &rat);
    const double *rd_r = tmcml_result_array(r, TMCML_RD_R, &count);
    CHECK_MSG(row[0] == musp && row[1] == mua, "row %g %g for %g %g", row[0], row[1], musp, mua);
    CHECK_MSG(row[2] == rat.rd, "mus' %g mua %g: Rd %.17g, the library's %.17g", musp, mua, row[2],
              rat.rd);
    for (size_t i = 0; i < NR && count == NR; i++)
        CHECK_MSG(row[3 + i] == rd_r[i], "mus' %g mua %g: Rd_r[%zu] %.17g, the library's %.17g",
                  musp, mua, i, row[3 + i], rd_r[i]);
}

/* The library's result of every point, in the CSV's order (mus' major). */
static void check_against_library(double rows[][3 + NR], const lut_spec *spec,
                                  lut_strategy strategy)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_options o;
    int k = spec->mua.count;
    for (int j = 0; j < spec->musp.count; j++) {
        double musp = spec->musp.values[j];
        tmcml_result *r[8] = {0};
        if (strategy == LUT_SETS) {
            tmcml_problem *p = point(s, spec->mua.values[0], musp);
            options(&o, SEED);
            CHECK(tmcml_run_sets(s, p, spec->mua.values, k, &o, r) == TMCML_OK);
            tmcml_problem_delete(p);
        } else {
            for (int i = 0; i < k; i++) {
                tmcml_problem *p = point(s, spec->mua.values[i], musp);
                options(&o, SEED + (uint64_t)i); /* mua number i: seed S + i */
                CHECK(tmcml_run(s, p, &o, &r[i]) == TMCML_OK);
                tmcml_problem_delete(p);
            }
        }
        for (int i = 0; i < k; i++) {
            if (r[i])
                check_row(rows[j * k + i], spec->mua.values[i], musp, r[i]);
            tmcml_result_delete(r[i]);
        }
    }
    tmcml_session_delete(s);
}

/* The .npz's Rd and Rd_r against the CSV, and its parameters. */
static void check_npz(const char *path, double rows[][3 + NR], lut_strategy strategy)
{
    size_t size = 0;
    char *zip = read_all(path, &size), header[256];
    CHECK(zip != NULL);
    if (!zip)
        return;
    const unsigned char *rd = npz_member(zip, size, "Rd.npy", header, sizeof header);
    CHECK(rd && strstr(header, "'shape': (2, 4)") && strstr(header, "<f8"));
    const unsigned char *rd_r = npz_member(zip, size, "Rd_r.npy", header, sizeof header);
    CHECK(rd_r && strstr(header, "'shape': (2, 4, 6)"));
    for (int p = 0; rd && rd_r && p < 8; p++) {
        CHECK(le_double(rd + 8 * p) == rows[p][2]);
        for (int i = 0; i < NR; i++)
            CHECK(le_double(rd_r + 8 * (p * NR + i)) == rows[p][3 + i]);
    }
    const unsigned char *r = npz_member(zip, size, "r.npy", header, sizeof header);
    CHECK(r && strstr(header, "'shape': (6,)") && le_double(r + 8) == 1.5 * DR);
    const unsigned char *seed = npz_member(zip, size, "seed.npy", header, sizeof header);
    CHECK(seed && strstr(header, "<u8"));
    uint64_t s = 0;
    for (int b = 7; seed && b >= 0; b--)
        s = s << 8 | seed[b];
    CHECK_MSG(s == SEED, "seed %llu", (unsigned long long)s);
    const unsigned char *st = npz_member(zip, size, "strategy.npy", header, sizeof header);
    CHECK(st && strstr(header, "'<U4'") && st[0] == (strategy == LUT_SETS ? 's' : 'r'));
    CHECK(npz_member(zip, size, "units.npy", header, sizeof header) != NULL);
    free(zip);
}

static int case_files(void)
{
    char dir[] = "/tmp/test_lut_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (lut_strategy strategy = LUT_SETS; strategy <= LUT_RUNS; strategy++) {
        char out[64], seed[32], photons[32], csv[80], npz[80];
        snprintf(out, sizeof out, "%s/%s", dir, lut_strategy_name(strategy));
        snprintf(seed, sizeof seed, "%u", SEED);
        snprintf(photons, sizeof photons, "%d", PHOTONS);
        const char *argv[TABLE_ARGS + 12] = {"lut"};
        int argc = 1;
        for (int i = 0; i < TABLE_ARGS; i++)
            argv[argc++] = table_args[i];
        const char *more[] = {"-o", out,     "-S",         seed,
                              "-N", photons, "--strategy", lut_strategy_name(strategy)};
        for (int i = 0; i < 8; i++)
            argv[argc++] = more[i];
        CHECK(lut_command(argc, (char **)argv) == 0);
        snprintf(csv, sizeof csv, "%s.csv", out);
        snprintf(npz, sizeof npz, "%s.npz", out);
        double rows[8][3 + NR];
        CHECK(read_csv(csv, rows, 8) == 8);
        lut_spec spec;
        spec_of(&spec, SEED, PHOTONS, strategy);
        CHECK(spec.musp.values[1] == musp_values[1]);
        check_against_library(rows, &spec, strategy);
        check_npz(npz, rows, strategy);
        lut_axis_free(&spec.mua);
        lut_axis_free(&spec.musp);
        unlink(csv);
        unlink(npz);
    }
    CHECK(check_temp_files(dir, NULL) == 0);
    rmdir(dir);
    return check_summary("files");
}

/* ---- sets against runs ------------------------------------------------------ */

/* Rd and Rd_r of every point, one batch a replicate. */
static bool replicate(tmcml_session *s, lut_strategy strategy, uint64_t seed, batch_vec *v)
{
    lut_spec spec;
    spec_of(&spec, seed, 4000, strategy);
    lut_plan plan;
    lut_table t;
    tm_error err = {0};
    bool ok = lut_plan_choose(s, &spec, &plan, &err) && plan.strategy == strategy &&
              lut_table_simulate(s, &spec, &plan, &t, &err);
    if (ok) {
        double row[8 * (1 + NR)];
        memcpy(row, t.rd, 8 * sizeof *row);
        memcpy(row + 8, t.rd_r, 8 * NR * sizeof *row);
        batch_vec_add(v, row);
        lut_table_free(&t);
    } else {
        error_print(stderr, &err);
    }
    lut_axis_free(&spec.mua);
    lut_axis_free(&spec.musp);
    return ok;
}

static int case_agree(void)
{
    size_t n = 8 * (1 + NR);
    batch_vec sets, runs, diff;
    CHECK(batch_vec_init(&sets, n, BATCHES) && batch_vec_init(&runs, n, BATCHES) &&
          batch_vec_init(&diff, n, BATCHES));
    tmcml_session *s = tmcml_session_new();
    /* Seeds far apart: runs use S + i for mua i. */
    for (int b = 0; b < BATCHES && check_failures == 0; b++) {
        CHECK(replicate(s, LUT_SETS, 1000u * (uint64_t)b + 1, &sets));
        CHECK(replicate(s, LUT_RUNS, 1000u * (uint64_t)b + 500, &runs));
    }
    tmcml_session_delete(s);
    if (check_failures == 0) {
        batch_vec_finish(&runs);
        /* Replicate b of each strategy is independent of the other's: their
         * differences, shifted by the runs' mean, are replicates whose mean
         * is the sets' minus the runs' plus that mean (test_sets.c's
         * check_bins). */
        double *row = malloc(n * sizeof *row);
        for (int b = 0; row && b < BATCHES; b++) {
            for (size_t i = 0; i < n; i++)
                row[i] = sets.rows[(size_t)b * n + i] - runs.rows[(size_t)b * n + i] + runs.mean[i];
            batch_vec_add(&diff, row);
        }
        free(row);
        batch_vec_finish(&diff);
        /* Every bin whose difference is known to 25 % of the value. */
        z_report r = stats_compare_dependent(&diff, runs.mean, 0.25, ALPHA);
        stats_print_report("Rd, Rd_r", &r);
        CHECK_MSG(r.bins >= 8, "only %zu bins well determined", r.bins);
        CHECK_MSG(r.pass, "sets and runs disagree beyond the bound");
    }
    batch_vec_free(&sets);
    batch_vec_free(&runs);
    batch_vec_free(&diff);
    return check_summary("agree");
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"files", case_files}, {"agree", case_agree}};
    return check_case_run(argc > 1 ? argv[1] : "", cases, sizeof cases / sizeof cases[0],
                          "usage: test_lut files|agree\n");
}
