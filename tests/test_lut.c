/* `tmcml lut` (cli/lut_command.c, the library's api/lut.c, docs/lut.md), on the CPU
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
#include "lut_axis.h"
#include "lut_command.h"
#include "lut_table.h"
#include "npz_read.h"
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

/* The table's axes as the command parses them, and its spec for the
 * library (tmcml_lut). */
typedef struct table_case {
    lut_axis mua, musp;
    tmcml_lut_spec spec;
} table_case;

static void case_of(table_case *c, lut_strategy strategy)
{
    tm_error err = {0};
    CHECK(lut_axis_parse("--mua", "0.1:2:4:log", &c->mua, &err));
    CHECK(lut_axis_parse("--musp", "5,12", &c->musp, &err));
    tmcml_lut_spec_init(&c->spec);
    c->spec.n = 1.37;
    c->spec.g = 0.8;
    c->spec.d = 0.5;
    c->spec.nr = NR;
    c->spec.dr = DR;
    c->spec.mua = c->mua.values;
    c->spec.num_mua = c->mua.count;
    c->spec.musp = c->musp.values;
    c->spec.num_musp = c->musp.count;
    c->spec.strategy = (tmcml_lut_strategy)strategy;
}

static void case_free(table_case *c)
{
    lut_axis_free(&c->mua);
    lut_axis_free(&c->musp);
}

/* ---- reading the files back ---------------------------------------------------- */

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
static void check_against_library(double rows[][3 + NR], const table_case *c, lut_strategy strategy)
{
    tmcml_session *s = tmcml_session_new();
    tmcml_options o;
    int k = c->mua.count;
    for (int j = 0; j < c->musp.count; j++) {
        double musp = c->musp.values[j];
        tmcml_result *r[8] = {0};
        if (strategy == LUT_SETS) {
            tmcml_problem *p = point(s, c->mua.values[0], musp);
            options(&o, SEED);
            CHECK(tmcml_run_sets(s, p, c->mua.values, k, &o, r) == TMCML_OK);
            tmcml_problem_delete(p);
        } else {
            for (int i = 0; i < k; i++) {
                tmcml_problem *p = point(s, c->mua.values[i], musp);
                options(&o, SEED + (uint64_t)i); /* mua number i: seed S + i */
                CHECK(tmcml_run(s, p, &o, &r[i]) == TMCML_OK);
                tmcml_problem_delete(p);
            }
        }
        for (int i = 0; i < k; i++) {
            if (r[i])
                check_row(rows[j * k + i], c->mua.values[i], musp, r[i]);
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
        table_case c;
        case_of(&c, strategy);
        CHECK(c.musp.values[1] == musp_values[1]);
        check_against_library(rows, &c, strategy);
        check_npz(npz, rows, strategy);
        case_free(&c);
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
    table_case c;
    case_of(&c, strategy);
    tmcml_options o;
    options(&o, seed);
    o.photons = 4000;
    tmcml_lut_info info;
    double row[8 * (1 + NR)];
    bool ok = tmcml_lut(s, &c.spec, &o, NULL, row, row + 8, &info) == TMCML_OK &&
              info.strategy == (tmcml_lut_strategy)strategy;
    if (ok)
        batch_vec_add(v, row);
    else
        fprintf(stderr, "tmcml_lut: %s\n", tmcml_session_message(s));
    case_free(&c);
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
