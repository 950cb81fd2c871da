/* libFuzzer harness of a whole CPU run: .mci text -> mci_parse -> a few
 * photons on the CPU engine (cpu_simulate, 1 thread) -> result_from_tallies
 * -> mco_write and summary_write, as `tmcml run --engine cpu` does
 * (driver/run.c).
 *
 * Checks: every result is finite and not negative (RAT, A_l and every
 * array), -A leaves the absorption at zero, the .mco written reads back
 * (mco_read) to the run's grid and writes again to the same bytes, and (for
 * one input in four) the photons simulated in two pieces give the same
 * tallies bit for bit.
 *
 * So that one input takes milliseconds, each of the file's first
 * FUZZ_MAX_RUNS runs is cut down before it is simulated: at most
 * FUZZ_MAX_PHOTONS photons of at most FUZZ_MAX_STEPS steps each and a grid
 * of at most FUZZ_MAX_BINS bins per array (nr at most FUZZ_MAX_NR); a run
 * whose photons could take very many steps is skipped (see run_affordable).  The seed and -A come from a hash
 * of the input. */
#include <math.h>

#include "cpu.h"
#include "fs.h"
#include "fuzz_util.h"
#include "mci.h"
#include "mco.h"
#include "result.h"
#include "summary.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define FUZZ_MAX_RUNS    2
#define FUZZ_MAX_PHOTONS 20
#define FUZZ_MAX_NR      64
#define FUZZ_MAX_BINS    4096
#define FUZZ_MAX_LAYERS  64
/* Optical thickness mut * d: a photon in a non-absorbing slab takes about
 * tau^2 steps to leave it; and a photon in a slab it cannot leave (total
 * internal reflection at both faces) bounces about 1/tau times between two
 * interactions. */
#define FUZZ_MAX_TAU     30.0
#define FUZZ_MIN_TAU     1e-3
/* And a photon is stopped as trapped after this many steps (the engine's
 * guard, cpu_options.max_steps): a lossless slab that traps at both faces
 * (n = 1 between media of n = 0.01) kept its photons to the default 10^7
 * steps, seconds of an input.  It also puts the guard's path under the
 * fuzzer. */
#define FUZZ_MAX_STEPS   20000u
/* Whether a few photons of run finish in milliseconds.  This is the
 * harness's budget, not a property of valid inputs: the engine must handle
 * the others too, only more slowly. */
static bool run_affordable(const mci_run *run)
{
    if (run->num_layers > FUZZ_MAX_LAYERS)
        return false;
    double total = 0;
    for (int i = 1; i <= run->num_layers; i++) {
        const mci_layer *l = &run->layers[i];
        double tau = (l->mua + l->mus) * l->d;
        if (!(tau <= FUZZ_MAX_TAU))
            return false;
        bool trapping = l->cos_crit0 > 0 && l->cos_crit1 > 0;
        if (tau > 0 && tau < FUZZ_MIN_TAU && trapping)
            return false;
        total += tau;
    }
    return total <= FUZZ_MAX_TAU;
}

static void shrink_run(mci_run *run)
{
    if (run->photons > FUZZ_MAX_PHOTONS)
        run->photons = FUZZ_MAX_PHOTONS;
    if (run->nr > FUZZ_MAX_NR)
        run->nr = FUZZ_MAX_NR;
    if (run->nz > FUZZ_MAX_BINS / run->nr)
        run->nz = FUZZ_MAX_BINS / run->nr;
    if (run->na > FUZZ_MAX_BINS / run->nr) {
        run->na = FUZZ_MAX_BINS / run->nr;
        run->da = 0.5 * M_PI / run->na;
    }
}

static void check_values(const char *what, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(isfinite(v[i]) && v[i] >= 0, "%s[%zu] = %g", what, i, v[i]);
}

static void check_result(const mci_run *run, const mcml_result *res, bool absorb)
{
    size_t nr = (size_t)run->nr, nz = (size_t)run->nz, na = (size_t)run->na;
    double rat[4] = {res->rsp, res->rd, res->a, res->tt};
    check_values("RAT", rat, 4);
    FUZZ_CHECK(res->rsp <= 1, "Rsp = %g", res->rsp);
    check_values("A_l", res->a_l, (size_t)run->num_layers + 2);
    check_values("A_z", res->a_z, nz);
    check_values("Rd_r", res->rd_r, nr);
    check_values("Rd_a", res->rd_a, na);
    check_values("Tt_r", res->tt_r, nr);
    check_values("Tt_a", res->tt_a, na);
    check_values("A_rz", res->a_rz, nr * nz);
    check_values("Rd_ra", res->rd_ra, nr * na);
    check_values("Tt_ra", res->tt_ra, nr * na);
    if (!absorb) {
        FUZZ_CHECK(res->a == 0, "-A: A = %g", res->a);
        for (size_t i = 0; i < nr * nz; i++)
            FUZZ_CHECK(res->a_rz[i] == 0, "-A: A_rz[%zu] = %g", i, res->a_rz[i]);
    }
}

/* The .mco at path reads back to run's grid and writes to the same bytes. */
static void check_mco(const char *path, const mci_run *run)
{
    mco_data d;
    tm_error err = {0};
    FUZZ_CHECK(mco_read(path, &d, &err), "our .mco does not read back: %s:%d: %s", err.file,
               err.line, err.message);
    const mci_run *b = &d.run;
    FUZZ_CHECK(strcmp(b->out_name, run->out_name) == 0, "out_name \"%s\" read back as \"%s\"",
               run->out_name, b->out_name);
    FUZZ_CHECK(b->photons == run->photons && b->nr == run->nr && b->nz == run->nz &&
                   b->na == run->na && b->num_layers == run->num_layers,
               "the grid or photons read back differently");

    char *orig = NULL, *again = NULL;
    size_t orig_len = 0, again_len = 0;
    tm_error rerr;
    orig = fs_read_text(path, &orig_len, &rerr);
    FUZZ_CHECK(orig != NULL, "%s", rerr.message);
    FILE *f = open_memstream(&again, &again_len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    bool ok = mco_write_stream(f, &d.run, &d.result, d.comment);
    fclose(f);
    FUZZ_CHECK(ok, "the .mco read back does not write");
    FUZZ_CHECK(orig_len == again_len && memcmp(orig, again, orig_len) == 0,
               "the .mco read back writes differently:\n%s\n---\n%s", orig, again);
    free(orig);
    free(again);
    mco_free(&d);
}

static void simulate(const mci_file *file, int index, uint64_t seed, bool absorb, bool split)
{
    mci_run run;
    FUZZ_CHECK(mci_run_copy(&run, &file->runs[index]), "mci_run_copy");
    if (!run_affordable(&run)) {
        mci_run_free(&run);
        return;
    }
    shrink_run(&run);

    tally_set t;
    FUZZ_CHECK(tally_set_init(&t, run.nr, run.nz, run.na), "tally_set_init");
    cpu_options opt = {
        .seed = seed, .threads = 1, .score_absorption = absorb, .max_steps = FUZZ_MAX_STEPS};
    tm_error err = {0};
    FUZZ_CHECK(cpu_simulate(&run, &opt, 0, (uint64_t)run.photons, &t, &err), "cpu_simulate: %s",
               err.message);
    FUZZ_CHECK(t.photons == (uint64_t)run.photons, "%llu photons simulated",
               (unsigned long long)t.photons);
    if (split && run.photons > 1) {
        /* The same photons in two pieces: the same tallies, bit for bit (cpu.h). */
        uint64_t n = (uint64_t)run.photons, k = 1 + seed % (n - 1);
        tally_set pieces;
        FUZZ_CHECK(tally_set_init(&pieces, run.nr, run.nz, run.na), "tally_set_init");
        FUZZ_CHECK(cpu_simulate(&run, &opt, k, n - k, &pieces, &err) &&
                       cpu_simulate(&run, &opt, 0, k, &pieces, &err),
                   "cpu_simulate: %s", err.message);
        FUZZ_CHECK(tally_set_equal(&t, &pieces), "photons [0, %llu) in two pieces at %llu differ",
                   (unsigned long long)n, (unsigned long long)k);
        tally_set_free(&pieces);
    }
    mcml_result res = {0};
    FUZZ_CHECK(result_from_tallies(&run, &t, &res, &err), "result_from_tallies: %s", err.message);
    check_result(&run, &res, absorb);

    char mco[4200], json[4200], comment[128];
    fuzz_path(mco, sizeof mco, "run.mco");
    fuzz_path(json, sizeof json, "run.json");
    snprintf(comment, sizeof comment, "tmcml fuzz_run, cpu engine, seed %llu",
             (unsigned long long)seed);
    FUZZ_CHECK(mco_write(mco, &run, &res, comment, &err), "mco_write: %s", err.message);
    check_mco(mco, &run);

    run_report rep = {.input_path = file->path,
                      .run_index = index + 1,
                      .run = &run,
                      .result = &res,
                      .seed = seed,
                      .engine = "cpu",
                      .threads = 1,
                      .wall_seconds = 0.001,
                      .score_absorption = absorb,
                      .rng = "fuzz",
                      .steps = tally_count(t.steps),
                      .tallies_digest = tally_set_digest(&t)};
    FUZZ_CHECK(summary_write(json, &rep, &err), "summary_write: %s", err.message);

    result_free(&res);
    tally_set_free(&t);
    mci_run_free(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    mci_file file;
    tm_error err;
    bool ok = mci_parse(text, "fuzz.mci", &file, &err);
    free(text);
    if (!ok)
        return 0;
    uint64_t h = fuzz_hash(data, size);
    uint64_t seed = h % 1000 == 0 ? h : h % 1000; /* mostly small seeds, some large */
    bool absorb = (h >> 60) != 0;                 /* -A one time in 16 */
    bool split = ((h >> 56) & 3) == 0;            /* the split check one time in 4 */
    for (int i = 0; i < file.num_runs && i < FUZZ_MAX_RUNS; i++)
        simulate(&file, i, seed, absorb, split);
    mci_free(&file);
    return 0;
}
