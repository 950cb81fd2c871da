/* Standard errors by batch means (runtime/io/uncertainty.h, driver/
 * session_groups.h) on the CPU engine, through the session as the run
 * command and the library use it.
 *
 *   identity  the groups change no tally: a run simulated in groups has the
 *             tallies of one call, bit for bit; its errors are the same on 1
 *             and 2 threads and for the run in a batch of two; a run cut
 *             in the middle of a group and continued has the tallies and
 *             the errors of one call, bit for bit; and so has a run shared
 *             as MPI ranks share it, a holder's pieces of groups gathered
 *             into the other's; groups of another plan (a run begun
 *             without --precision, resumed with it) loosened, the errors
 *             of every photon
 *   coverage  RUNS independent runs (seeds) of a slab with time bins and two
 *             absorption sets: for Rd, Tt, A, Rd_r at three radii, A_z at two
 *             depths, an A_rz bin, an Rd_t bin and set 2's Rd, the spread of
 *             the values across runs agrees with the root mean square of the
 *             estimated errors within 10 %, and +-1.96 errors cover the mean
 *             of the runs in 95 +- 2.5 % of them; an estimator planted
 *             wrong - A_z's error from its A_rz bins' errors, as if a
 *             photon's deposits in several rings were independent samples -
 *             fails the first test.
 *
 *   decision  a precision run stopped as the photons of a decision point
 *             end still takes that decision (its photons the unbroken
 *             run's)
 *   hole      a precision run whose decision group a stop cut on two
 *             threads, the early chunk's thread cut and the later chunk
 *             ended, decides when the gap of that hole ends the group (the
 *             gap's call has no photons after it, the run has): its
 *             photons, tallies and errors the unbroken run's
 *
 * The tolerances: with RUNS = 1000 the spread's own relative error is
 * 1/sqrt(2 (RUNS - 1)) = 2.2 % and the mean square error's about as much,
 * so 10 % is more than 3 of their combined standard deviations; 64 groups
 * (63 degrees of freedom) make the expected coverage P(|t_63| < 1.96) =
 * 94.55 %, and a coverage of 1000 runs has a standard deviation of 0.72 %:
 * 92.5 % is 2.8 of them below. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mci.h"
#include "output_arrays.h"
#include "resume.h"
#include "result.h"
#include "run_options.h"
#include "session.h"
#include "session_groups.h"
#include "tally.h"
#include "uncertainty.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define RUNS    1000
#define PHOTONS 2000
#define SETS    2

/* A 1 mm slab on a 30 x 20 grid, time bins of 2 ps. */
static const char *slab_text = "1.0\n1\nslab.mco A\n2000\n0.01 0.02\n20 30 4\n1\n1.0\n"
                               "1.37 2.0 60 0.8 0.1\n1.0\n";
static const double set_mua[SETS] = {2.0, 4.0};

static bool slab(mci_file *file)
{
    tm_error err;
    if (!mci_parse(slab_text, "slab.mci", file, &err)) {
        CHECK_MSG(false, "%s", err.message);
        return false;
    }
    file->runs[0].time_nt = 30;
    file->runs[0].time_dt = 0.002;
    return true;
}

/* Tally sets for run, count of them. */
static bool tallies_for(const mci_run *run, tally_set *t, int count)
{
    bool ok = true;
    for (int k = 0; k < count; k++)
        ok = ok && tally_set_init(&t[k], run->nr, run->nz, run->na) &&
             run_options_add_tallies(run, &t[k]);
    return ok;
}

static void tallies_free(tally_set *t, int count)
{
    for (int k = 0; k < count; k++)
        tally_set_free(&t[k]);
}

typedef struct sim_request {
    uint64_t seed;
    int threads, sets;
    bool grouped;
    uint64_t chunk; /* groups growing from it (a precision run's plan); 0: 64 equal */
} sim_request;

/* Photons [first, first + count) of run into acc (rq->sets tally sets, or
 * one), grouped into unc when asked. */
static bool simulate(session *s, const mci_run *run, const sim_request *rq, uint64_t first,
                     uint64_t count, tally_set *acc, uncertainty *unc)
{
    session_sim sim = {.seed = rq->seed,
                       .score_absorption = true,
                       .threads = rq->threads,
                       .uncertainty = rq->grouped ? unc : NULL,
                       .group_chunk = rq->chunk};
    if (rq->sets) {
        sim.num_sets = rq->sets;
        sim.set_layers = 1;
        sim.set_mua = set_mua;
    }
    session_run_stats stats;
    tm_error err;
    bool ok = session_simulate(s, &sim, run, NULL, first, count, acc, &stats, &err);
    CHECK_MSG(ok, "%s", err.message);
    return ok;
}

/* The result of t with the errors of u (u may be NULL). */
static bool result_of(const mci_run *run, const tally_set *t, const uncertainty *u,
                      mcml_result *res)
{
    tm_error err;
    bool ok = result_from_tallies(run, t, res, &err) && (!u || uncertainty_fill(u, res, &err));
    CHECK_MSG(ok, "%s", err.message);
    return ok;
}

/* The row of the output table named name. */
static int row(const char *name) { return (int)(output_by_name(name) - output_table); }

static bool same_errors(const mcml_result *a, const mcml_result *b)
{
    output_grid g = result_grid(a);
    bool same = a->stderr_groups == b->stderr_groups && a->rd_stderr == b->rd_stderr &&
                a->a_stderr == b->a_stderr && a->tt_stderr == b->tt_stderr;
    for (int i = 0; same && i < OUTPUT_ARRAYS; i++)
        same =
            (a->stderr_array[i] != NULL) == (b->stderr_array[i] != NULL) &&
            (!a->stderr_array[i] || !memcmp(a->stderr_array[i], b->stderr_array[i],
                                            output_stored(&output_table[i], &g) * sizeof(double)));
    return same;
}

/* ---- identity ---------------------------------------------------------------------------- */

/* The run grouped on `threads` threads: its result with errors. */
static bool grouped_result(session *s, const mci_run *run, int threads, mcml_result *res,
                           tally_set *t)
{
    uncertainty u;
    uncertainty_init(&u);
    sim_request rq = {.seed = 7, .threads = threads, .grouped = true};
    bool ok = tallies_for(run, t, 1) && simulate(s, run, &rq, 0, PHOTONS, t, &u) &&
              result_of(run, t, &u, res);
    CHECK_MSG(u.groups == UNCERTAINTY_GROUPS, "%d groups", u.groups);
    uncertainty_free(&u);
    return ok;
}

/* The run of slot 0 in a batch beside another run: its errors those of the
 * run alone. */
static void batch_errors(session *s, const mci_file *file, const mcml_result *alone)
{
    mci_file copy;
    tm_error err;
    if (!mci_parse(slab_text, "other.mci", &copy, &err))
        return;
    copy.runs[0].photons = 700; /* 64 groups of 10 or 11 */
    copy.runs[0].time_nt = file->runs[0].time_nt;
    copy.runs[0].time_dt = file->runs[0].time_dt;
    copy.runs[0].layers[1].mua = 0.5;
    batch_part parts[2] = {{.run = &file->runs[0], .first = 0, .count = PHOTONS, .slot = 0},
                           {.run = &copy.runs[0], .first = 0, .count = 700, .slot = 1}};
    photon_batch batch;
    tally_set acc[2];
    uncertainty unc[2];
    uncertainty_init(&unc[0]);
    uncertainty_init(&unc[1]);
    session_sim sim = {.seed = 7, .score_absorption = true, .threads = 2, .uncertainty = unc};
    session_run_stats stats;
    mcml_result res = {0};
    bool ok = photon_batch_init(&batch, parts, 2, &err) &&
              tallies_for(&file->runs[0], &acc[0], 1) && tallies_for(&copy.runs[0], &acc[1], 1) &&
              session_simulate_batch(s, &sim, &batch, NULL, acc, &stats, &err);
    CHECK_MSG(ok, "%s", err.message);
    if (ok && result_of(&file->runs[0], &acc[0], &unc[0], &res))
        CHECK_MSG(same_errors(&res, alone), "the run's errors in a batch differ from alone");
    CHECK(unc[1].groups == UNCERTAINTY_GROUPS && unc[1].photons == 700);
    result_free(&res);
    photon_batch_free(&batch);
    tallies_free(acc, 2);
    uncertainty_free(&unc[0]);
    uncertainty_free(&unc[1]);
    mci_free(&copy);
}

/* In two gaps (a run stopped in the middle of a group and resumed, its
 * groups kept): one call's tallies, and the errors of the unbroken run bit
 * for bit (the cut group kept until its rest is simulated).  Shared as MPI
 * ranks share it (driver/ranks.c): photons [x1, x2), cut in two groups,
 * into an uncertainty that holds its groups, the others into one that
 * folds them; that one keeps the groups after the first hole, and the
 * holder's pieces added to it (as rank 0 gathers them) end with the
 * unbroken run's errors, bit for bit. */
static void gap_errors(session *s, const mci_run *run, const tally_set *whole,
                       const mcml_result *unbroken)
{
    tally_set t[1];
    uncertainty kept, lead, held;
    uncertainty_init(&kept);
    uncertainty_init(&lead);
    uncertainty_init(&held);
    held.hold = true;
    sim_request rq = {.seed = 7, .threads = 2, .grouped = true};
    uint64_t cut = PHOTONS / 3, x1 = PHOTONS / 5 + 7, x2 = 3 * PHOTONS / 4 + 3;
    mcml_result res = {0};
    bool ok = tallies_for(run, t, 1) && simulate(s, run, &rq, 0, cut, t, &kept);
    CHECK_MSG(kept.kept_count == 1 && kept.kept[0].tallies.photons > 0,
              "no group kept after a cut in one");
    ok = ok && simulate(s, run, &rq, cut, PHOTONS - cut, t, &kept);
    CHECK_MSG(ok && tally_set_equal(t, whole), "two gaps' tallies differ from one call's");
    CHECK_MSG(kept.groups == UNCERTAINTY_GROUPS && kept.kept_count == 0, "%d groups", kept.groups);
    if (ok && result_of(run, t, &kept, &res))
        CHECK_MSG(same_errors(&res, unbroken), "the errors of a run cut in a group differ");
    result_free(&res);
    tallies_free(t, 1);
    ok = ok && tallies_for(run, t, 1) && simulate(s, run, &rq, x2, PHOTONS - x2, t, &lead) &&
         simulate(s, run, &rq, x1, x2 - x1, t, &held) && simulate(s, run, &rq, 0, x1, t, &lead);
    CHECK_MSG(ok && lead.photons < x1 && lead.kept_count > 0 && held.groups == 0,
              "%d groups folded past the hole, %d by the holder", lead.groups, held.groups);
    tm_error err;
    for (int i = 0; ok && i < held.kept_count; i++) {
        const uncertainty_kept *k = &held.kept[i];
        bool added;
        ok = uncertainty_add_piece(&lead, run, k->group, k->first, k->size, &k->tallies, &added,
                                   &err);
        CHECK_MSG(ok, "%s", err.message);
    }
    CHECK_MSG(ok && lead.groups == UNCERTAINTY_GROUPS && lead.kept_count == 0,
              "%d groups gathered, %d kept", lead.groups, lead.kept_count);
    if (ok && result_of(run, t, &lead, &res))
        CHECK_MSG(same_errors(&res, unbroken), "the errors of a run shared as ranks differ");
    result_free(&res);
    tallies_free(t, 1);
    uncertainty_free(&kept);
    uncertainty_free(&lead);
    uncertainty_free(&held);
}

/* A run's groups checked against its plan, as a checkpoint's are
 * (driver/resume.c): a run's cut in a group fit its plan of 64 equal
 * groups (the cut group, read back without its size, given it), not a
 * growing one (a run begun without --precision, resumed with it);
 * loosened, the groups kept are folded, and the pieces after them (the
 * growing plan's groups, the first cut by the change) fold as they come:
 * errors of every photon. */
static void plan_errors(session *s, const mci_run *run)
{
    tally_set t[1];
    uncertainty u;
    uncertainty_init(&u);
    sim_request rq = {.seed = 7, .threads = 2, .grouped = true};
    uint64_t cut = PHOTONS / 3;
    groups_plan equal = {.photons = PHOTONS}, growing = {.photons = PHOTONS, .chunk = 10};
    bool ok = tallies_for(run, t, 1) && simulate(s, run, &rq, 0, cut, t, &u) && u.kept_count == 1;
    CHECK_MSG(ok, "no group kept after a cut in one");
    uint64_t size = ok ? u.kept[0].size : 0;
    if (ok)
        u.kept[0].size = 0; /* as a checkpoint of version 4 reads it */
    CHECK(ok && groups_fit_plan(&equal, &u) && u.kept[0].size == size && size > 0);
    CHECK(ok && !groups_fit_plan(&growing, &u));
    tm_error err;
    ok = ok && uncertainty_loosen(&u, run, &err);
    CHECK(ok && u.loose && u.kept_count == 0 && u.photons == cut);
    rq.chunk = growing.chunk;
    ok = ok && simulate(s, run, &rq, cut, PHOTONS - cut, t, &u);
    CHECK_MSG(ok && u.photons == PHOTONS && u.kept_count == 0, "%llu photons folded, %d kept",
              (unsigned long long)u.photons, u.kept_count);
    mcml_result res = {0};
    if (ok && result_of(run, t, &u, &res))
        CHECK(res.stderr_groups > UNCERTAINTY_GROUPS && res.rd_stderr > 0);
    result_free(&res);
    tallies_free(t, 1);
    uncertainty_free(&u);
}

static int case_identity(void)
{
    mci_file file;
    if (!slab(&file))
        return check_summary("identity");
    const mci_run *run = &file.runs[0];
    session s;
    session_init(&s);
    tally_set plain[1], one[1], two[1];
    sim_request rq = {.seed = 7, .threads = 2};
    mcml_result r1 = {0}, r2 = {0};
    bool ok = tallies_for(run, plain, 1) && simulate(&s, run, &rq, 0, PHOTONS, plain, NULL) &&
              grouped_result(&s, run, 1, &r1, one) && grouped_result(&s, run, 2, &r2, two);
    CHECK_MSG(ok && tally_set_equal(plain, one) && tally_set_equal(plain, two),
              "grouped tallies differ from one call's");
    CHECK_MSG(ok && same_errors(&r1, &r2), "errors on 1 and 2 threads differ");
    CHECK(ok && r1.stderr_groups == UNCERTAINTY_GROUPS && r1.rd_stderr > 0 &&
          r1.stderr_array[0] != NULL);
    if (ok) {
        batch_errors(&s, &file, &r1);
        gap_errors(&s, run, plain, &r1);
        plan_errors(&s, run);
    }
    result_free(&r1);
    result_free(&r2);
    tallies_free(plain, 1);
    tallies_free(one, 1);
    tallies_free(two, 1);
    session_close(&s);
    mci_free(&file);
    return check_summary("identity");
}

/* ---- a stop at a decision point ---------------------------------------------------------- */

/* What the precision run's callbacks saw. */
typedef struct decision_watch {
    volatile sig_atomic_t stop; /* raised once `at` photons are done */
    uint64_t done, at;
    int asked; /* decisions asked */
} decision_watch;

static bool count_done(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)part, (void)first, (void)err;
    decision_watch *w = ctx;
    w->done += n;
    if (w->done >= w->at)
        w->stop = 1;
    return true;
}

/* Met at the first decision point (64 groups). */
static bool met_at_first(void *ctx, int slot, const uncertainty *u)
{
    (void)slot;
    decision_watch *w = ctx;
    w->asked++;
    return u->groups >= UNCERTAINTY_GROUPS;
}

/* The slab's run as a precision run of at most 10^6 photons, and a
 * session; NULL when the slab could not be read. */
static mci_run *precision_slab(mci_file *file, session *s)
{
    if (!slab(file))
        return NULL;
    file->runs[0].photons = 1000000;
    session_init(s);
    return &file->runs[0];
}

/* A stop that comes as the photons of the first decision point end (the
 * 64th group whole, the stop flag up): the decision is still taken, so a
 * run stopped there ends as the run done at once would (its photons are
 * the decision's), not with a group more after --resume. */
static int case_decision(void)
{
    mci_file file;
    session s;
    mci_run *run = precision_slab(&file, &s);
    if (!run)
        return check_summary("decision");
    tally_set acc[1];
    uncertainty u;
    uncertainty_init(&u);
    decision_watch w = {.at = (uint64_t)UNCERTAINTY_GROUPS * 1000};
    session_sim sim = {.seed = 3,
                       .score_absorption = true,
                       .threads = 1,
                       .stop = &w.stop,
                       .done = count_done,
                       .done_ctx = &w,
                       .uncertainty = &u,
                       .group_chunk = 1000,
                       .enough = met_at_first,
                       .enough_ctx = &w};
    session_run_stats stats;
    tm_error err;
    bool ok = tallies_for(run, acc, 1) &&
              session_simulate(&s, &sim, run, NULL, 0, (uint64_t)run->photons, acc, &stats, &err);
    CHECK_MSG(ok, "%s", err.message);
    CHECK_MSG(w.stop && acc->photons == w.at && u.groups == UNCERTAINTY_GROUPS,
              "stopped %d, %llu photons, %d groups", (int)w.stop, (unsigned long long)acc->photons,
              u.groups);
    CHECK_MSG(w.asked == 1, "the decision at the stop was asked %d times, not once", w.asked);
    tallies_free(acc, 1);
    uncertainty_free(&u);
    session_close(&s);
    mci_free(&file);
    return check_summary("decision");
}

/* ---- a decision group ended in a hole ---------------------------------------------------- */

/* A precision run kept in a checkpoint, as driver/run.c keeps one: the
 * ranges its calls did, and its photon count the decision's once met
 * (driver/precision_stop.c). */
typedef struct hole_run {
    checkpoint *ck;
    tally_set acc[1];
    uncertainty u;
    int asked; /* decisions asked */
} hole_run;

static bool add_done(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)part;
    hole_run *h = ctx;
    return resume_add(h->ck, first, first + n, err);
}

/* Met at the second decision point (80 groups): the run takes their photons. */
static bool met_at_second(void *ctx, int slot, const uncertainty *u)
{
    (void)slot;
    hole_run *h = ctx;
    h->asked++;
    if (u->groups < UNCERTAINTY_GROUPS + 16)
        return false;
    h->ck->photons = u->photons;
    return true;
}

/* Photons [first, end) of run into h, as a precision run's call. */
static bool precise_call(session *s, const mci_run *run, hole_run *h, uint64_t first, uint64_t end)
{
    session_sim sim = {.seed = 3,
                       .score_absorption = true,
                       .threads = 2,
                       .done = add_done,
                       .done_ctx = h,
                       .uncertainty = &h->u,
                       .group_chunk = 1000,
                       .enough = met_at_second,
                       .enough_ctx = h};
    session_run_stats stats;
    tm_error err;
    bool ok = session_simulate(s, &sim, run, NULL, first, end - first, h->acc, &stats, &err);
    CHECK_MSG(ok, "%s", err.message);
    return ok;
}

/* h's run from its checkpoint: its gaps in order, as driver/run_steps.c's
 * run_gaps (a pause between them changes nothing). */
static bool gaps_of(session *s, const mci_run *run, hole_run *h)
{
    uint64_t begin, end;
    bool ok = true;
    while (ok && resume_next_gap(h->ck, &begin, &end))
        ok = precise_call(s, run, h, begin, end);
    return ok;
}

static bool hole_begin(hole_run *h, const mci_run *run)
{
    memset(h, 0, sizeof *h);
    uncertainty_init(&h->u);
    h->ck = calloc(1, sizeof *h->ck);
    if (!h->ck)
        return false;
    h->ck->photons = (uint64_t)run->photons;
    return tallies_for(run, h->acc, 1);
}

static void hole_end(hole_run *h)
{
    tallies_free(h->acc, 1);
    uncertainty_free(&h->u);
    free(h->ck);
}

/* Group 79 (2000 photons from 94 000), whose end is the decision point of
 * 80 groups, cut by a stop on two threads: the thread of its first chunk
 * (1024 photons) stopped after 500, the other had ended the second chunk.
 * The checkpoint then holds [0, 94 500) and [95 024, 96 000), and its first
 * gap, [94 500, 95 024), ends the group in a call that has no photon after
 * it: the decision is still taken there, as the unbroken run takes it
 * (else the run went on to the next decision point, 128 000 photons). */
static int case_hole(void)
{
    mci_file file;
    session s;
    mci_run *run = precision_slab(&file, &s);
    if (!run)
        return check_summary("hole");
    uint64_t group = 64000 + 15 * 2000, cut = group + 500, chunk_end = group + 1024,
             decided = group + 2000;
    hole_run whole, holed;
    bool ok = hole_begin(&whole, run);
    ok = hole_begin(&holed, run) && ok && gaps_of(&s, run, &whole) &&
         precise_call(&s, run, &holed, 0, cut) && precise_call(&s, run, &holed, chunk_end, decided);
    CHECK_MSG(ok && uncertainty_kept_photons(&holed.u) == decided - chunk_end + 500,
              "the cut group is not pending");
    ok = ok && gaps_of(&s, run, &holed);
    CHECK_MSG(ok && whole.ck->photons == decided && whole.acc->photons == decided,
              "the unbroken run took %llu photons", (unsigned long long)whole.acc->photons);
    CHECK_MSG(ok && holed.ck->photons == decided && holed.acc->photons == decided,
              "the run whose decision group was ended in its hole took %llu photons, not %llu",
              (unsigned long long)holed.acc->photons, (unsigned long long)decided);
    CHECK_MSG(ok && tally_set_equal(holed.acc, whole.acc), "its tallies differ from unbroken");
    CHECK_MSG(ok && whole.asked == 2 && holed.asked == 2, "decisions asked: %d unbroken, %d holed",
              whole.asked, holed.asked);
    mcml_result a = {0}, b = {0};
    if (ok && result_of(run, whole.acc, &whole.u, &a) && result_of(run, holed.acc, &holed.u, &b))
        CHECK_MSG(same_errors(&a, &b), "its errors differ from the unbroken run's");
    result_free(&a);
    result_free(&b);
    hole_end(&whole);
    hole_end(&holed);
    session_close(&s);
    mci_free(&file);
    return check_summary("hole");
}

/* ---- coverage ---------------------------------------------------------------------------- */

enum { Q_RD, Q_TT, Q_A, Q_RDR1, Q_RDR2, Q_RDR3, Q_AZ1, Q_AZ2, Q_ARZ, Q_RDT, Q_SET_RD, Q_WRONG, QS };
static const char *q_names[QS] = {"Rd",         "Tt",      "A",          "Rd_r[1]",
                                  "Rd_r[4]",    "Rd_r[9]", "A_z[1]",     "A_z[6]",
                                  "A_rz[2][3]", "Rd_t[6]", "set 2's Rd", "planted A_z[1]"};

/* A_z[iz]'s error from its A_rz bins' errors as if they were independent
 * (A_z[iz] = sum over rings of A_rz[ir][iz] times the ring's area). */
static double planted_az_error(const mci_run *run, const mcml_result *res, int iz)
{
    double v = 0.0;
    for (int ir = 0; ir < run->nr; ir++) {
        double area = 2.0 * M_PI * (ir + 0.5) * run->dr * run->dr;
        double e = res->stderr_array[row("A_rz")][ir * run->nz + iz] * area;
        v += e * e;
    }
    return sqrt(v);
}

/* One seed's values and errors of the quantities. */
static bool one_run(session *s, const mci_run *run, uint64_t seed, double *v, double *e)
{
    tally_set acc[SETS];
    uncertainty unc[SETS];
    for (int k = 0; k < SETS; k++)
        uncertainty_init(&unc[k]);
    sim_request rq = {.seed = seed, .threads = 2, .sets = SETS, .grouped = true};
    mcml_result res = {0}, set = {0};
    bool ok = tallies_for(run, acc, SETS) && simulate(s, run, &rq, 0, PHOTONS, acc, unc) &&
              result_of(run, &acc[0], &unc[0], &res) && result_of(run, &acc[1], &unc[1], &set);
    if (ok) {
        const double *const *a = (const double *const *)res.array;
        const double *const *se = (const double *const *)res.stderr_array;
        struct {
            int array, at;
        } bins[] = {{row("Rd_r"), 1}, {row("Rd_r"), 4}, {row("Rd_r"), 9},
                    {row("A_z"), 1},  {row("A_z"), 6},  {row("A_rz"), 2 * run->nz + 3},
                    {row("Rd_t"), 6}};
        v[Q_RD] = res.rd, e[Q_RD] = res.rd_stderr;
        v[Q_TT] = res.tt, e[Q_TT] = res.tt_stderr;
        v[Q_A] = res.a, e[Q_A] = res.a_stderr;
        for (int b = 0; b < 7; b++) {
            v[Q_RDR1 + b] = a[bins[b].array][bins[b].at];
            e[Q_RDR1 + b] = se[bins[b].array][bins[b].at];
        }
        v[Q_SET_RD] = set.rd, e[Q_SET_RD] = set.rd_stderr;
        v[Q_WRONG] = v[Q_AZ1], e[Q_WRONG] = planted_az_error(run, &res, 1);
    }
    result_free(&res);
    result_free(&set);
    tallies_free(acc, SETS);
    for (int k = 0; k < SETS; k++)
        uncertainty_free(&unc[k]);
    return ok;
}

/* Quantity q over the runs: whether its errors are honest (spread within
 * 10 % of their root mean square, coverage within 95 +- 2.5 %). */
static bool honest(int q, const double *v, const double *e, bool say)
{
    double mean = 0, ms = 0, var = 0;
    for (int i = 0; i < RUNS; i++)
        mean += v[i * QS + q] / RUNS, ms += e[i * QS + q] * e[i * QS + q] / RUNS;
    int covered = 0;
    for (int i = 0; i < RUNS; i++) {
        double d = v[i * QS + q] - mean;
        var += d * d / (RUNS - 1);
        covered += fabs(d) <= 1.96 * e[i * QS + q];
    }
    double ratio = sqrt(ms / var), coverage = (double)covered / RUNS;
    bool ok = fabs(ratio - 1.0) <= 0.10 && fabs(coverage - 0.95) <= 0.025;
    if (say)
        printf("  %-15s mean %.5g  spread %.4g  rms stderr %.4g  (ratio %.3f)  coverage %.1f %%\n",
               q_names[q], mean, sqrt(var), sqrt(ms), ratio, 100.0 * coverage);
    return ok;
}

static int case_coverage(void)
{
    mci_file file;
    if (!slab(&file))
        return check_summary("coverage");
    session s;
    session_init(&s);
    double *v = calloc((size_t)RUNS * QS, sizeof *v), *e = calloc((size_t)RUNS * QS, sizeof *e);
    bool ok = v && e;
    for (int i = 0; ok && i < RUNS; i++)
        ok = one_run(&s, &file.runs[0], 1000 + (uint64_t)i, v + i * QS, e + i * QS);
    CHECK(ok);
    printf("%d runs of %d photons, %d groups each:\n", RUNS, PHOTONS, UNCERTAINTY_GROUPS);
    for (int q = 0; ok && q < QS; q++) {
        bool h = honest(q, v, e, true);
        if (q == Q_WRONG)
            CHECK_MSG(!h, "the planted estimator passed: the test cannot tell a wrong one");
        else
            CHECK_MSG(h, "%s: its standard errors are not honest", q_names[q]);
    }
    free(v);
    free(e);
    session_close(&s);
    mci_free(&file);
    return check_summary("coverage");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (!strcmp(which, "identity"))
        return case_identity();
    if (!strcmp(which, "coverage"))
        return case_coverage();
    if (!strcmp(which, "decision"))
        return case_decision();
    if (!strcmp(which, "hole"))
        return case_hole();
    fprintf(stderr, "usage: test_uncertainty identity|coverage|decision|hole\n");
    return 2;
}
