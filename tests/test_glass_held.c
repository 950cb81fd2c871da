/* Photons held in a glass layer (issue 42, item 5; runtime/engine/cpu_photon.c,
 * held_in_glass): a point source inside glass sends the photons whose |uz|
 * both faces reflect totally back and forth for ever.  The CPU engine stops
 * each as trapped as soon as it sees it held; stepped one hop at a time it
 * would be stopped as trapped at max_steps.  The cases compare the two over
 * the same photons and the same max_steps (cpu_problem.stop_held on and
 * off), so every tally must be equal bit for bit but the steps, which must
 * be fewer:
 *   slab      a point in a glass slab between n 1.0 above and 1.33 below
 *             (two critical angles), the plain step loop;
 *   sandwich  a point in glass between two turbid layers of lower n: the
 *             photons that leave come back into the glass, scattered, and
 *             are not held (they can leave again);
 *   sets      the sandwich in the sets' step loop: three absorption sets, the
 *             third absorbing in the glass (which the reference sees as
 *             glass), with path lengths, time bins and a fiber detector;
 *   limit     the engine as users run it (cpu_simulate, two threads, the
 *             default max_steps of 10^7): the slab's 2000 photons take a few
 *             steps each, not the 10^7 each held one took before (tens of
 *             seconds), and trap what the step-by-step engine traps with a
 *             limit of 1000. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "cpu_photon.h"
#include "cpu_problem_setup.h"
#include "mci.h"
#include "run_options.h"
#include "source.h"
#include "tally.h"

#define SEED      5u
#define PHOTONS   2000u
#define MAX_STEPS 1000u

static const char *slab = "1.0\n1\ns.mco A\n1000\n0.01 0.01\n20 20 5\n1\n1.0\n"
                          "1.5 0 0 0 0.1\n1.33\n";
static const char *sandwich = "1.0\n1\nw.mco A\n1000\n0.01 0.01\n40 30 5\n3\n1.0\n"
                              "1.4 1 50 0.8 0.1\n1.5 0 0 0 0.05\n1.33 0.5 30 0.9 0.2\n1.0\n";

/* The one run of text, with the source of that text. */
static bool point_run(const char *text, const char *source, mci_file *f)
{
    tm_error err;
    if (!mci_parse(text, "inline", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    source_desc s;
    if (!source_parse(source, "source", &s, &err) ||
        !source_check_run(&s, &f->runs[0], "source", &err)) {
        error_print(stderr, &err);
        mci_free(f);
        return false;
    }
    f->runs[0].source = s;
    return true;
}

/* A tally set for run's grid and optional tallies (paths, time, detector). */
static bool set_init(tally_set *t, const mci_run *run)
{
    return tally_set_init(t, run->nr, run->nz, run->na) && run_options_add_tallies(run, t);
}

static bool batch_init(tally_batch *b, const mci_run *run)
{
    output_grid lengths = run_options_lengths(run);
    return tally_batch_init(b, run->nr, run->nz, run->na) && tally_batch_add_options(b, &lengths);
}

/* Photons [0, PHOTONS) of p, held ones stopped at once or not, into out[k]
 * (one set, or p->num_sets). */
static bool simulate(cpu_problem *p, const mci_run *run, bool stop_held, tally_set *out)
{
    int sets = p->num_sets > 0 ? p->num_sets : 1;
    tally_batch b[3];
    bool ok = sets <= 3;
    for (int k = 0; ok && k < sets; k++)
        ok = batch_init(&b[k], run) && set_init(&out[k], run);
    if (!ok)
        return false;
    p->stop_held = stop_held;
    p->max_steps = MAX_STEPS;
    for (uint64_t i = 0; i < PHOTONS; i++)
        if (p->num_sets > 0)
            cpu_photon_simulate_sets(p, i, b);
        else
            cpu_photon_simulate(p, i, &b[0]);
    for (int k = 0; k < sets; k++) {
        tally_set_add_batch(&out[k], &b[k], PHOTONS);
        tally_batch_free(&b[k]);
    }
    return true;
}

/* Stopped at once and stepped to the limit: equal tallies but the steps,
 * fewer steps, and some photons held (else the case tests nothing). */
static void compare(const char *name, int k, tally_set *now, tally_set *stepped)
{
    tally_acc_t steps_now = now->steps, steps_stepped = stepped->steps;
    now->steps = stepped->steps = 0;
    bool equal = tally_set_equal(now, stepped);
    printf("  %-8s set %d: %llu trapped of %u, weight %.6f; steps %.0f stopped at once, %.0f "
           "stepped to %u; other tallies %s\n",
           name, k + 1, (unsigned long long)now->trapped_photons, PHOTONS,
           tally_weight(now->trapped_units) / PHOTONS, tally_count(steps_now),
           tally_count(steps_stepped), MAX_STEPS, equal ? "equal" : "DIFFERENT");
    CHECK_MSG(equal, "%s set %d: the tallies differ", name, k + 1);
    CHECK_MSG(now->trapped_photons > 0, "%s set %d: no photon trapped", name, k + 1);
    CHECK_MSG(steps_now < steps_stepped, "%s set %d: no steps saved", name, k + 1);
}

/* run's photons through p, held ones stopped at once and stepped. */
static void compare_run(const char *name, cpu_problem *p, const mci_run *run)
{
    int sets = p->num_sets > 0 ? p->num_sets : 1;
    tally_set now[3], stepped[3];
    CHECK(simulate(p, run, true, now) && simulate(p, run, false, stepped));
    for (int k = 0; k < sets; k++) {
        compare(name, k, &now[k], &stepped[k]);
        tally_set_free(&now[k]);
        tally_set_free(&stepped[k]);
    }
}

static int case_plain(const char *name, const char *text, const char *source)
{
    mci_file f;
    cpu_problem p;
    if (!point_run(text, source, &f) || !cpu_problem_init(&p, &f.runs[0], SEED, true))
        return 1;
    compare_run(name, &p, &f.runs[0]);
    cpu_problem_free(&p);
    mci_free(&f);
    return check_summary(name);
}

static int case_sets(void)
{
    mci_file f;
    if (!point_run(sandwich, "point:0.125", &f))
        return 1;
    mci_run *run = &f.runs[0];
    run->path_lengths = true;
    run->time_nt = 40;
    run->time_dt = 0.002;
    run->fiber_count = 1;
    run->fibers[0] = (fiber_detector){0.05, 0.03, 0.5};
    /* The reference takes each layer's least mua: the glass's 0. */
    static const double set_mua[] = {1, 0, 0.5, 2, 0, 0.5, 1, 3, 0.5};
    cpu_problem p;
    if (!cpu_problem_init_sets(&p, run, SEED, true, 3, set_mua))
        return 1;
    p.paths = true;
    cpu_problem_set_options(&p, run);
    CHECK(p.layers[2].glass && p.time_nt == 40 && p.fiber);
    compare_run("sets", &p, run);
    cpu_problem_free(&p);
    mci_free(&f);
    return check_summary("sets");
}

static int case_limit(void)
{
    mci_file f;
    cpu_problem p;
    if (!point_run(slab, "point:0.05", &f) || !cpu_problem_init(&p, &f.runs[0], SEED, true))
        return 1;
    const mci_run *run = &f.runs[0];
    tally_set users, stepped;
    tm_error err;
    cpu_options opt = {.seed = SEED, .threads = 2, .score_absorption = true};
    bool ok = set_init(&users, run) && cpu_simulate(run, &opt, 0, PHOTONS, &users, &err);
    if (!ok)
        error_print(stderr, &err);
    CHECK(ok);
    CHECK(simulate(&p, run, false, &stepped));
    double per_photon = tally_count(users.steps) / PHOTONS;
    printf("  limit: %llu trapped of %u, %.2f steps a photon with the default max_steps; %llu "
           "trapped stepped to %u\n",
           (unsigned long long)users.trapped_photons, PHOTONS, per_photon,
           (unsigned long long)stepped.trapped_photons, MAX_STEPS);
    /* A held photon ends at its first reflection, certain as both faces'
     * are: one step; one that escapes takes a few. */
    CHECK_MSG(per_photon < 10.0, "%.0f steps a photon", per_photon);
    CHECK(users.trapped_photons == stepped.trapped_photons);
    CHECK(users.trapped_units == stepped.trapped_units);
    tally_set_free(&users);
    tally_set_free(&stepped);
    cpu_problem_free(&p);
    mci_free(&f);
    return check_summary("limit");
}

int main(int argc, char **argv)
{
    const char *c = argc == 2 ? argv[1] : "";
    if (strcmp(c, "slab") == 0)
        return case_plain("slab", slab, "point:0.05");
    if (strcmp(c, "sandwich") == 0)
        return case_plain("sandwich", sandwich, "point:0.125");
    if (strcmp(c, "sets") == 0)
        return case_sets();
    if (strcmp(c, "limit") == 0)
        return case_limit();
    fprintf(stderr, "usage: test_glass_held slab|sandwich|sets|limit\n");
    return 2;
}
