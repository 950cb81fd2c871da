#include "run_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "progress.h"
#include "run.h"
#include "run_lock.h"
#include "stopper.h"
#include "text_escape.h"
#include "variant.h"

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

bool run_sets_expand(const cli_options *opt, mci_file *file, mua_sets *sets, tm_error *err)
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
    if (!mua_sets_read(opt->mua_sets, layers, sets, err))
        return false;
    int k_count = sets->count, n = file->num_runs;
    mci_run *runs = calloc((size_t)n * (size_t)k_count, sizeof *runs);
    bool ok = runs != NULL;
    for (int i = 0; ok && i < n; i++)
        for (int k = 0; ok && k < k_count; k++) {
            mci_run *r = &runs[i * k_count + k];
            char *name = set_name(file->runs[i].out_name, k + 1);
            ok = name && mua_sets_run(&file->runs[i], sets->mua, k, r);
            if (ok) {
                free(r->out_name);
                r->out_name = name;
            } else {
                free(name);
            }
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

/* Every set's outputs from acc[0 .. K-1] (set k is run first + k), written
 * in parallel (a run of skin's grid has 64 outputs of 10^5 numbers with 64
 * sets), then each said in order; false with *err (the first failure's)
 * when one failed. */
static bool write_sets(const cli_options *opt, const engine *eng, const mci_file *file, int first,
                       const run_paths *paths, const tally_set *acc, int count, double seconds,
                       tm_error *err)
{
    checkpoint *sets = calloc((size_t)count, sizeof *sets); /* run_finish_write reads tallies */
    const checkpoint **cks = calloc((size_t)count, sizeof *cks);
    int *index = calloc((size_t)count, sizeof *index);
    run_final *final = calloc((size_t)count, sizeof *final);
    bool ok = sets && cks && index && final;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int k = 0; ok && k < count; k++) {
        sets[k].tallies = acc[k];
        cks[k] = &sets[k];
        index[k] = first + k;
    }
    if (ok)
        run_finish_write_all(opt, eng, file, paths, index, cks, count, seconds, final);
    bool written = ok;
    for (int k = 0; written && k < count; k++) {
        if (!final[k].ok && ok) {
            *err = final[k].err;
            ok = false;
        }
        run_finish_report(opt, &paths[first + k], &sets[k], seconds, &final[k]);
    }
    free(sets);
    free(cks);
    free(index);
    free(final);
    return ok;
}

/* Simulates the K set runs first .. first + K - 1 (one history each
 * photon) into acc[0 .. K-1]; false when a signal stopped it or it failed
 * (*stopped tells). */
static bool simulate_sets(const cli_options *opt, engine *eng, const mci_file *file, int first,
                          const mua_sets *sets, tally_set *acc, bool *stopped, tm_error *err)
{
    const mci_run *run = &file->runs[first];
    progress_meter meter;
    char label[64] = "";
    int originals = file->num_runs / sets->count;
    if (originals > 1)
        snprintf(label, sizeof label, "run %d/%d: ", first / sets->count + 1, originals);
    progress_start(&meter, !opt->quiet, (uint64_t)run->photons, label);
    stopper st;
    stopper_start(&st, 0.0);
    interrupt_graceful(true);
    session_sim sim = run_session_sim(opt, eng, &meter, &st, NULL, NULL);
    sim.num_sets = sets->count;
    sim.set_layers = sets->layers;
    sim.set_mua = sets->mua;
    session_run_stats stats;
    /* On the GPUs, each one's kernel of the sets, planned for their shape */
    bool ok = !eng->pool || run_plan_gpus_sets(opt, eng, run, sets->count, sets->mua, err);
    ok = ok && session_simulate(&eng->ses, &sim, run, eng->pool ? eng->specs : NULL, 0,
                                (uint64_t)run->photons, acc, &stats, err);
    if (ok && eng->pool)
        run_note_shares(opt, eng, &stats);
    interrupt_graceful(false);
    stopper_end(&st);
    progress_finish(&meter);
    *stopped = ok && acc[0].photons < (uint64_t)run->photons;
    return ok && !*stopped;
}

/* The K runs of one original run: locked, simulated together, written. */
static bool run_one(const cli_options *opt, engine *eng, const mci_file *file, int first,
                    const run_paths *paths, const mua_sets *sets, tm_error *err)
{
    int k_count = sets->count, taken = 0;
    run_lock *locks = calloc((size_t)k_count, sizeof *locks);
    tally_set *acc = calloc((size_t)k_count, sizeof *acc);
    const mci_run *run = &file->runs[first];
    bool ok = locks && acc, stopped = false;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (; ok && taken < k_count; taken++)
        ok = run_lock_take(&locks[taken], paths[first + taken].lock, paths[first + taken].mco, err);
    int ready = 0;
    for (; ok && ready < k_count; ready++)
        if (!tally_set_init(&acc[ready], run->nr, run->nz, run->na)) {
            error_set(err, NULL, 0, "out of memory");
            ok = false;
            break;
        }
    double start = progress_now();
    ok = ok && simulate_sets(opt, eng, file, first, sets, acc, &stopped, err);
    double seconds = progress_now() - start;
    ok = ok && write_sets(opt, eng, file, first, paths, acc, k_count, seconds, err);
    for (int k = 0; k < ready; k++)
        tally_set_free(&acc[k]);
    for (int k = 0; k < taken; k++)
        run_lock_release(&locks[k]);
    free(acc);
    free(locks);
    if (stopped) {
        char kept[256];
        snprintf(kept, sizeof kept,
                 "run %d stopped: runs with --mua-sets keep no checkpoint, nothing of it is "
                 "written",
                 first / k_count + 1);
        interrupt_exit(interrupt_requested(), kept);
    }
    return ok;
}

int run_sets_all(const cli_options *opt, engine *eng, const mci_file *file, const run_paths *paths,
                 const mua_sets *sets)
{
    int status = RUN_OK;
    for (int first = 0; first < file->num_runs; first += sets->count) {
        tm_error err = {0};
        if (!run_one(opt, eng, file, first, paths, sets, &err)) {
            text_printf(stderr, "tmcml: run %d of %s failed: ", first / sets->count + 1,
                        file->path);
            error_print(stderr, &err);
            status = RUN_FAILED;
        }
    }
    return status;
}
