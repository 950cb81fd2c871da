/* `tmcml run --mua-sets` (run_sets.h): each run of the file simulated once
 * for all its absorption sets, each set a run of its own with its lock,
 * checkpoint and outputs. */
#include "run_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "fd_room.h"
#include "hash.h"
#include "interrupt.h"
#include "resume.h"
#include "run.h"
#include "run_lock.h"
#include "run_precision.h"
#include "optics_sets.h"
#include "run_options.h"
#include "text_escape.h"

/* NAME.mco -> NAME.setK.mco (a name without .mco gets .setK). */
static char *set_name(const char *name, int k)
{
    size_t n = strlen(name);
    bool mco = n > 4 && strcmp(name + n - 4, ".mco") == 0;
    size_t stem = mco ? n - 4 : n;
    size_t size = n + 32;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "%.*s.set%d%s", (int)stem, name, k, mco ? ".mco" : "");
    return out;
}

/* The digest of the mua the sets' photons are simulated with (the
 * reference: each layer's smallest over every set), which each set's
 * tallies depend on (mci_run.history); 0 when out of memory. */
static uint64_t history_of(const mci_run *run, const mua_sets *sets)
{
    mci_run ref;
    if (!mua_sets_reference(run, sets->mua, sets->count, &ref))
        return 0;
    uint64_t h = HASH_FNV1A_START;
    for (int i = 1; i <= ref.num_layers; i++)
        h = hash_fnv1a(h, &ref.layers[i].mua, sizeof ref.layers[i].mua);
    mci_run_free(&ref);
    return h ? h : 1;
}

/* Set k of run i, named and given its mua and its history. */
static bool expand_one(const mci_run *run, const mua_sets *sets, int k, uint64_t history,
                       mci_run *out)
{
    char *name = set_name(run->out_name, k + 1);
    bool copied = sets->mus ? optics_sets_run(run, sets->mua, sets->mus, sets->g, k, out)
                            : mua_sets_run(run, sets->mua, k, out);
    if (!name || !copied) {
        free(name);
        return false;
    }
    free(out->out_name);
    out->out_name = name;
    out->history = history;
    return true;
}

/* --jacobian with optics sets: the sets keep every run's g (the
 * derivatives' g score is the reference's). */
static bool jacobian_sets_g(const driver_options *opt, const mci_file *file, mua_sets *sets,
                            tm_error *err)
{
    for (int i = 0; opt->jacobian && sets->g && i < file->num_runs; i++)
        for (size_t e = 0; e < (size_t)sets->count * (size_t)sets->layers; e++)
            if (sets->g[e] != file->runs[i].layers[e % (size_t)sets->layers + 1].g) {
                error_set(err, opt->mua_sets, 0,
                          "set %zu changes layer %zu's g: --jacobian takes optics sets of the "
                          "runs' own g",
                          e / (size_t)sets->layers + 1, e % (size_t)sets->layers + 1);
                mua_sets_free(sets);
                return false;
            }
    return true;
}

/* Each run's own mus and g, before its sets replace it: its histories'. */
static bool keep_run_optics(const mci_file *file, mua_sets *sets, tm_error *err)
{
    size_t layers = (size_t)sets->layers;
    sets->run_mus = malloc((size_t)file->num_runs * layers * sizeof *sets->run_mus);
    sets->run_g = malloc((size_t)file->num_runs * layers * sizeof *sets->run_g);
    if (!sets->run_mus || !sets->run_g) {
        mua_sets_free(sets);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    for (int r = 0; r < file->num_runs; r++)
        for (size_t i = 1; i <= layers; i++) {
            sets->run_mus[(size_t)r * layers + i - 1] = file->runs[r].layers[i].mus;
            sets->run_g[(size_t)r * layers + i - 1] = file->runs[r].layers[i].g;
        }
    return true;
}

bool run_sets_expand(const driver_options *opt, mci_file *file, mua_sets *sets, tm_error *err)
{
    int layers = file->runs[0].num_layers;
    for (int i = 1; i < file->num_runs; i++)
        if (file->runs[i].num_layers != layers) {
            error_set(err, NULL, 0,
                      "--mua-sets: run %d of %s has %d layers and run 1 %d: one table of sets "
                      "serves runs of one layer count",
                      i + 1, file->path, file->runs[i].num_layers, layers);
            return false;
        }
    if (opt->optics_sets ? !optics_sets_read(opt->mua_sets, &file->runs[0], sets, err)
                         : !mua_sets_read(opt->mua_sets, layers, sets, err))
        return false;
    for (int i = 1; opt->optics_sets && i < file->num_runs; i++) {
        tm_error why = {0};
        if (!optics_sets_check(&file->runs[i], sets->mua, sets->mus, sets->g, sets->count, &why)) {
            error_set(err, file->path, file->runs[i].line, "--optics-sets %s for this run: %s",
                      opt->mua_sets, why.message);
            mua_sets_free(sets);
            return false;
        }
    }
    if (!jacobian_sets_g(opt, file, sets, err))
        return false;
    if (sets->mus && !keep_run_optics(file, sets, err))
        return false;
    int k_count = sets->count, n = file->num_runs;
    mci_run *runs = calloc((size_t)n * (size_t)k_count, sizeof *runs);
    bool ok = runs != NULL;
    for (int i = 0; ok && i < n; i++) {
        uint64_t history = history_of(&file->runs[i], sets);
        ok = history != 0;
        for (int k = 0; ok && k < k_count; k++)
            ok = expand_one(&file->runs[i], sets, k, history, &runs[i * k_count + k]);
    }
    if (!ok) {
        for (int j = 0; runs && j < n * k_count; j++)
            mci_run_free(&runs[j]);
        free(runs);
        mua_sets_free(sets);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++)
        mci_run_free(&file->runs[i]);
    free(file->runs);
    file->runs = runs;
    file->num_runs = n * k_count;
    return true;
}

/* ---- one run's sets ------------------------------------------------------------ */

/* What every step of one run's sets shares: set k is the file's run
 * first + k. */
typedef struct sets_call {
    const driver_options *opt;
    engine *eng;
    const mci_file *file;
    const run_paths *paths;
    const mua_sets *sets;
    int first;
    int writers;       /* threads their outputs are written on (fd_room_budget) */
    double *reference; /* each layer's smallest mua over every set */
} sets_call;

/* A set's state while its group runs: its lock, and either finished
 * outputs already there (--resume) or its checkpoint. */
typedef struct set_state {
    run_lock lock;
    bool locked, finished, open; /* open: ck holds its progress */
    bool simulated;              /* its history has been run (done, or failed) */
    checkpoint ck;
} set_state;

/* One history: the sets members[0 .. m-1] of a group (from `from`), whose
 * checkpoints hold the same photon ranges, simulated together.  Unless
 * they are every set of the run, the reference is simulated as a set of its
 * own in front of them (acc[0], thrown away), so that the photons are those
 * of all the sets together, bit for bit. */
typedef struct history {
    const sets_call *c;
    set_state *st;
    const int *members;
    int m, from;
    const mci_run *run;
    int rows, lead;              /* sets the engine scores; the members' first row */
    double *mua;                 /* rows x layers */
    double *mus, *g;             /* optics sets: rows x layers each (in mua's block); else NULL */
    tally_set *acc;              /* rows */
    uncertainty *unc;            /* rows: the groups of the standard errors (--stderr) */
    precision_stop *targets;     /* rows: --precision's (the reference's unused) */
    precision_stop_sets precise; /* the decisions over the members */
} history;

static int set_index(const history *h, int j) { return h->c->first + h->from + h->members[j]; }

/* The members' checkpoints get the engine's tallies (they share their
 * arrays: the engine may add optional ones). */
static void sync_tallies(history *h)
{
    for (int j = 0; j < h->m; j++) {
        h->st[h->members[j]].ck.tallies = h->acc[h->lead + j];
        h->st[h->members[j]].ck.unc = h->unc[h->lead + j];
    }
}

/* Photons [first, first + n) done: every member's checkpoint has them. */
static bool add_ranges(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)part;
    history *h = ctx;
    for (int j = 0; j < h->m; j++)
        if (!resume_add(&h->st[h->members[j]].ck, first, first + n, err))
            return false;
    return true;
}

static bool simulate_sets_range(void *ctx, progress_meter *meter, stopper *st, uint64_t begin,
                                uint64_t end, tm_error *err)
{
    history *h = ctx;
    const sets_call *c = h->c;
    session_sim sim = run_session_sim(c->opt, c->eng, meter, st, add_ranges, h);
    sim.num_sets = h->rows;
    sim.set_layers = c->sets->layers;
    sim.set_mua = h->mua;
    sim.set_mus = h->mus;
    sim.set_g = h->g;
    if (c->opt->stderr_groups)
        sim.uncertainty = h->unc;
    precision_stop_sets_sim(&sim, c->opt->precision > 0.0 ? &h->precise : NULL);
    session_run_stats stats;
    bool ok = session_simulate(&c->eng->ses, &sim, h->run, c->eng->pool ? c->eng->specs : NULL,
                               begin, end - begin, h->acc, &stats, err);
    if (ok && c->eng->pool)
        run_note_shares(c->opt, c->eng, &stats);
    sync_tallies(h);
    return ok;
}

static void save_sets(void *ctx)
{
    history *h = ctx;
    for (int j = 0; j < h->m; j++)
        run_periodic_checkpoint(h->c->opt, h->c->paths[set_index(h, j)].ckpt,
                                &h->st[h->members[j]].ck);
}

/* Row 0 of a group that is not every set: the reference, each layer's
 * smallest mua over every set, with the run's own mus and g. */
static void reference_row(history *h)
{
    int layers = h->c->sets->layers;
    memcpy(h->mua, h->c->reference, (size_t)layers * sizeof *h->mua);
    for (int i = 1; h->mus && i <= layers; i++) {
        h->mus[i - 1] = h->run->layers[i].mus;
        h->g[i - 1] = h->run->layers[i].g;
    }
}

/* The rows the engine scores: every set as the table has them, or the
 * reference and then the members. */
static bool history_rows(history *h)
{
    const mua_sets *sets = h->c->sets;
    size_t layers = (size_t)sets->layers;
    bool all = h->m == sets->count;
    h->rows = all ? h->m : h->m + 1;
    h->lead = all ? 0 : 1;
    size_t table = (size_t)h->rows * layers;
    h->mua = malloc((sets->mus ? 3 : 1) * table * sizeof *h->mua);
    h->acc = calloc((size_t)h->rows, sizeof *h->acc);
    h->unc = calloc((size_t)h->rows, sizeof *h->unc);
    h->targets = calloc((size_t)h->rows, sizeof *h->targets);
    if (!h->mua || !h->acc || !h->unc || !h->targets)
        return false;
    h->mus = sets->mus ? h->mua + table : NULL;
    h->g = sets->mus ? h->mua + 2 * table : NULL;
    h->precise = (precision_stop_sets){h->targets, h->rows, h->lead};
    if (!all)
        reference_row(h);
    for (int j = 0; j < h->m; j++) {
        size_t k = (size_t)(h->from + h->members[j]) * layers, row = (h->lead + j) * layers;
        memcpy(h->mua + row, sets->mua + k, layers * sizeof *h->mua);
        if (sets->mus) {
            memcpy(h->mus + row, sets->mus + k, layers * sizeof *h->mus);
            memcpy(h->g + row, sets->g + k, layers * sizeof *h->g);
        }
        h->acc[h->lead + j] = h->st[h->members[j]].ck.tallies;
        h->unc[h->lead + j] = h->st[h->members[j]].ck.unc;
    }
    return all || (tally_set_init(&h->acc[0], h->run->nr, h->run->nz, h->run->na) &&
                   run_options_add_tallies(h->run, &h->acc[0]));
}

static void history_free(history *h)
{
    if (h->acc && h->lead > 0)
        tally_set_free(&h->acc[0]);
    if (h->unc && h->lead > 0)
        uncertainty_free(&h->unc[0]);
    free(h->acc);
    free(h->unc);
    free(h->targets);
    free(h->mua);
}

/* Each member's --precision target, its checkpoint the one whose photons
 * become those taken (nothing without --precision). */
static bool history_targets(history *h, tm_error *err)
{
    for (int j = 0; j < h->m; j++) {
        int index = set_index(h, j);
        if (!run_precision_target(h->c->opt, &h->c->file->runs[index], &h->st[h->members[j]].ck,
                                  &h->targets[h->lead + j], err))
            return false;
    }
    return true;
}

/* The progress line's label: "run I/N: " of a file of several runs, then
 * "sets A-B: " when the history holds some of the sets. */
static void history_label(const history *h, char *label, size_t size)
{
    const sets_call *c = h->c;
    int originals = c->file->num_runs / c->sets->count, pos = 0;
    label[0] = '\0';
    if (originals > 1)
        pos = snprintf(label, size, "run %d/%d: ", c->first / c->sets->count + 1, originals);
    if (h->m < c->sets->count && pos >= 0 && (size_t)pos < size)
        snprintf(label + pos, size - (size_t)pos, "sets %d-%d: ", set_index(h, 0) - c->first + 1,
                 set_index(h, h->m - 1) - c->first + 1);
}

/* Simulates what is left of the members' photons (their common gaps). */
static sim_status simulate_history(history *h, tm_error *err)
{
    const sets_call *c = h->c;
    sim_status status = SIM_FAILED;
    if (!history_rows(h))
        error_set(err, NULL, 0, "out of memory");
    else if (history_targets(h, err) &&
             (!c->eng->pool ||
              run_plan_gpus_sets(c->opt, c->eng, h->run, h->rows, h->mua, h->mus, h->g, err))) {
        char label[96];
        history_label(h, label, sizeof label);
        run_gap_calls calls = {simulate_sets_range, save_sets, h};
        status = run_gaps(c->opt, &h->st[h->members[0]].ck, (uint64_t)h->run->photons, label,
                          &calls, err);
    }
    history_free(h);
    return status;
}

/* The members' outputs written in parallel, then each said in order; false
 * with *err (the first failure's) when one failed. */
static bool write_members(const history *h, double seconds, tm_error *err)
{
    const sets_call *c = h->c;
    const checkpoint **cks = calloc((size_t)h->m, sizeof *cks);
    int *index = calloc((size_t)h->m, sizeof *index);
    run_final *final = calloc((size_t)h->m, sizeof *final);
    bool ok = cks && index && final;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int j = 0; ok && j < h->m; j++) {
        cks[j] = &h->st[h->members[j]].ck;
        index[j] = set_index(h, j);
    }
    if (ok)
        run_finish_write_all(c->opt, c->eng, c->file, c->paths, index, cks, h->m, c->writers,
                             seconds, final);
    bool written = ok;
    for (int j = 0; written && j < h->m; j++) {
        if (!final[j].ok && ok) {
            *err = final[j].err;
            ok = false;
        }
        run_finish_report(c->opt, &c->paths[index[j]], cks[j], seconds, &final[j]);
    }
    free(cks);
    free(index);
    free(final);
    return ok;
}

/* A signal stopped the history: each member's checkpoint and partial
 * outputs, every lock of the group released, then the exit. */
static _Noreturn void stop_history(const history *h, set_state *st, int n, double seconds)
{
    const sets_call *c = h->c;
    char said[1024], kept[512];
    for (int j = 0; j < h->m; j++)
        run_save_stopped(c->opt, c->eng, c->file, set_index(h, j), &c->paths[set_index(h, j)],
                         &st[h->members[j]].ck, seconds, said, sizeof said);
    for (int k = 0; k < n; k++)
        run_lock_release(&st[k].lock);
    snprintf(kept, sizeof kept,
             "run %d stopped: the checkpoints and partial outputs of its sets %d to %d are kept "
             "beside their outputs (continue with --resume)",
             c->first / c->sets->count + 1, set_index(h, 0) - c->first + 1,
             set_index(h, h->m - 1) - c->first + 1);
    interrupt_exit(interrupt_requested(), kept);
}

/* Whether two checkpoints hold the same photon ranges. */
static bool same_ranges(const checkpoint *a, const checkpoint *b)
{
    return a->range_count == b->range_count &&
           memcmp(a->ranges, b->ranges, (size_t)a->range_count * sizeof a->ranges[0]) == 0;
}

/* The next history of the group: the first set still to simulate and
 * every other whose ranges are its own, into members; their count. */
static int next_members(const set_state *st, int n, int *members)
{
    int m = 0, p = -1;
    for (int k = 0; k < n; k++)
        if (st[k].open && !st[k].simulated && (p < 0 || same_ranges(&st[k].ck, &st[p].ck))) {
            p = p < 0 ? k : p;
            members[m++] = k;
        }
    return m;
}

/* Set k of the group locked, then found finished (--resume), or its
 * checkpoint begun. */
static bool open_set(const sets_call *c, set_state *s, int index, tm_error *err)
{
    const run_paths *p = &c->paths[index];
    const mci_run *run = &c->file->runs[index];
    if (!run_lock_take(&s->lock, p->lock, p->mco, err))
        return false;
    s->locked = true;
    if (!run_already_finished(c->opt, c->eng, run, p, &s->finished, err))
        return false;
    if (s->finished) {
        run_say_skipped(c->opt, index, p);
        return true;
    }
    bool resumed;
    if (!resume_begin(&s->ck, c->opt, run, index + 1, c->eng->physics, p->ckpt, &resumed, err))
        return false;
    s->open = true;
    if (resumed)
        run_say_resumed(c->opt, index, p, &s->ck);
    return true;
}

/* Sets from .. to - 1 of the run: locked, simulated in as few histories as
 * their checkpoints allow (one, unless some were resumed from apart), and
 * written. */
/* A copy of a set's run with the mus and g of the file's run it is a set
 * of: the run its optics sets' histories are simulated with. */
static bool run_own_optics(const sets_call *c, const mci_run *set_run, mci_run *own)
{
    if (!mci_run_copy(own, set_run))
        return false;
    size_t layers = (size_t)c->sets->layers, at = (size_t)(c->first / c->sets->count) * layers;
    for (size_t i = 1; i <= layers; i++) {
        own->layers[i].mus = c->sets->run_mus[at + i - 1];
        own->layers[i].g = c->sets->run_g[at + i - 1];
    }
    return true;
}

static bool run_group(const sets_call *c, int from, int to, tm_error *err)
{
    int n = to - from;
    set_state *st = calloc((size_t)n, sizeof *st);
    int *members = calloc((size_t)n, sizeof *members);
    bool ok = st && members;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int k = 0; ok && k < n; k++)
        ok = open_set(c, &st[k], c->first + from + k, err);
    for (int m; ok && (m = next_members(st, n, members)) > 0;) {
        history h = {.c = c, .st = st, .members = members, .m = m, .from = from};
        h.run = &c->file->runs[set_index(&h, 0)];
        mci_run own; /* optics sets: the histories of the run's own mus and g */
        if (c->sets->mus && !(ok = run_own_optics(c, h.run, &own))) {
            error_set(err, NULL, 0, "out of memory");
            break;
        }
        if (c->sets->mus)
            h.run = &own;
        double start = clock_now();
        sim_status status = simulate_history(&h, err);
        double seconds = clock_now() - start;
        if (status == SIM_STOPPED)
            stop_history(&h, st, n, seconds);
        for (int j = 0; j < m; j++)
            st[members[j]].simulated = true;
        ok = status == SIM_DONE && write_members(&h, seconds, err);
        if (c->sets->mus)
            mci_run_free(&own);
    }
    for (int k = 0; st && k < n; k++) {
        if (st[k].open)
            checkpoint_free(&st[k].ck);
        if (st[k].locked)
            run_lock_release(&st[k].lock);
    }
    free(st);
    free(members);
    return ok;
}

/* The run's sets in groups of as many as the descriptors can lock at once
 * (fd_room.h): all of them, unless the limit is low. */
static bool run_one(sets_call *c, tm_error *err)
{
    fd_budget room;
    int count = c->sets->count;
    if (!fd_room_budget(1, RUN_FINISH_THREADS, &room, err))
        return false;
    int group = count < room.runs ? count : room.runs;
    c->writers = room.writers;
    if (group < count && !c->opt->quiet)
        fprintf(stderr,
                "tmcml: run %d: %d absorption sets hold an output lock each, and the open-file "
                "limit (ulimit -n) leaves room for %d: simulated in %d groups, each with its own "
                "photons (that many times the time); raise the limit to simulate them at once\n",
                c->first / count + 1, count, group, (count + group - 1) / group);
    bool ok = true;
    for (int from = 0; ok && from < count; from += group)
        ok = run_group(c, from, from + group < count ? from + group : count, err);
    return ok;
}

/* Each layer's smallest mua over every set (mua_sets_reference's). */
static double *reference_of(const mci_run *run, const mua_sets *sets)
{
    mci_run ref;
    double *mua = malloc((size_t)sets->layers * sizeof *mua);
    if (!mua || !mua_sets_reference(run, sets->mua, sets->count, &ref)) {
        free(mua);
        return NULL;
    }
    for (int i = 1; i <= sets->layers; i++)
        mua[i - 1] = ref.layers[i].mua;
    mci_run_free(&ref);
    return mua;
}

int run_sets_all(const driver_options *opt, engine *eng, const mci_file *file,
                 const run_paths *paths, const mua_sets *sets)
{
    int status = RUN_OK;
    for (int first = 0; first < file->num_runs; first += sets->count) {
        tm_error err = {0};
        sets_call c = {opt, eng, file, paths, sets, first, 1, NULL};
        c.reference = reference_of(&file->runs[first], sets);
        if (!c.reference)
            error_set(&err, NULL, 0, "out of memory");
        if (!c.reference || !run_one(&c, &err)) {
            text_printf(stderr, "tmcml: run %d of %s failed: ", first / sets->count + 1,
                        file->path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
        free(c.reference);
    }
    return status;
}
