/* Where a run's files go, checked before anything is simulated
 * (driver/outputs.h). */
#include "outputs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "run_lock.h"

/* Every file a run may write, in slot order (run_path). */
enum {
    PATH_MCO,
    PATH_JSON,
    PATH_CKPT,
    PATH_PARTIAL_MCO,
    PATH_PARTIAL_JSON,
    PATH_LOCK,
    PATH_NPZ, /* the --npz paths last: without it they are NULL */
    PATH_PARTIAL_NPZ,
    PATHS_PER_RUN
};
static const char *const path_kinds[PATHS_PER_RUN] = {".mco",         "JSON summary", "checkpoint",
                                                      "partial .mco", "partial JSON", "lock file",
                                                      ".npz",         "partial .npz"};
static const char *const path_suffixes[PATHS_PER_RUN] = {
    NULL, ".json", ".ckpt", ".partial.mco", ".partial.json", ".lock", ".npz", ".partial.npz"};

static char **run_path(run_paths *p, int kind)
{
    char **all[PATHS_PER_RUN] = {&p->mco,          &p->json, &p->ckpt, &p->partial_mco,
                                 &p->partial_json, &p->lock, &p->npz,  &p->partial_npz};
    return all[kind];
}

/* The kinds of path a run of this command writes. */
static int paths_used(const driver_options *opt) { return opt->npz ? PATHS_PER_RUN : PATH_NPZ; }

static const char *run_path_c(const run_paths *p, int kind)
{
    return *run_path((run_paths *)p, kind);
}

void outputs_free(run_paths *paths, int count)
{
    for (int i = 0; paths && i < count; i++)
        for (int k = 0; k < PATHS_PER_RUN; k++)
            free(*run_path(&paths[i], k));
    free(paths);
}

/* One file a run writes: slot PATHS_PER_RUN i + kind. */
typedef struct output_file {
    char *resolved;
    int slot;
} output_file;

static int by_path_then_slot(const void *pa, const void *pb)
{
    const output_file *a = pa, *b = pb;
    int c = strcmp(a->resolved, b->resolved);
    return c ? c : a->slot - b->slot;
}

static const char *slot_kind(int slot) { return path_kinds[slot % PATHS_PER_RUN]; }

/* No two files a run writes may be one file, and none may be the input:
 * "x" and "x.mco", "y.mco" and "y.json" of another run, "o.mco" and
 * "./o.mco" would silently overwrite each other.  Paths are compared
 * resolved (fs_resolve), sorted, so a file of many runs costs n log n. */
static bool check_collisions(const driver_options *opt, const mci_file *file,
                             const run_paths *paths, tm_error *err)
{
    int used = paths_used(opt), count = PATHS_PER_RUN * file->num_runs, made = 0;
    output_file *out = calloc((size_t)count, sizeof *out);
    bool ok = out != NULL;
    if (!ok)
        error_set(err, NULL, 0, "out of memory");
    for (int slot = 0; ok && slot < count; slot++) {
        if (slot % PATHS_PER_RUN >= used)
            continue;
        const run_paths *p = &paths[slot / PATHS_PER_RUN];
        out[made].slot = slot;
        ok = (out[made++].resolved = fs_resolve(run_path_c(p, slot % PATHS_PER_RUN), err)) != NULL;
    }
    count = made;
    tm_error ignored;
    char *input = ok ? fs_resolve(file->path, &ignored) : NULL;
    for (int k = 0; ok && input && k < count; k++)
        if (strcmp(out[k].resolved, input) == 0) {
            int s = out[k].slot;
            error_set(err, file->path, 0,
                      "run %d would write its %s over the input file itself (%s)",
                      s / PATHS_PER_RUN + 1, slot_kind(s),
                      run_path_c(&paths[s / PATHS_PER_RUN], s % PATHS_PER_RUN));
            ok = false;
        }
    if (ok)
        qsort(out, (size_t)count, sizeof *out, by_path_then_slot);
    for (int k = 0; ok && k + 1 < count; k++)
        if (strcmp(out[k].resolved, out[k + 1].resolved) == 0) {
            int a = out[k].slot, b = out[k + 1].slot;
            error_set(err, file->path, 0,
                      "runs %d and %d would write the same file %s (run %d's %s, run %d's %s): "
                      "give them different output names",
                      a / PATHS_PER_RUN + 1, b / PATHS_PER_RUN + 1, out[k].resolved,
                      a / PATHS_PER_RUN + 1, slot_kind(a), b / PATHS_PER_RUN + 1, slot_kind(b));
            ok = false;
        }
    for (int k = 0; k < made; k++)
        free(out[k].resolved);
    free(out);
    free(input);
    return ok;
}

bool output_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A fresh run would end by deleting a checkpoint left by an interrupted one
 * (hours of work, perhaps): that needs --resume, or the user deleting it. */
static bool no_checkpoint_in_the_way(const driver_options *opt, int run, const run_paths *p,
                                     tm_error *err)
{
    if (opt->resume || !output_exists(p->ckpt))
        return true;
    error_set(err, p->ckpt, 0,
              "a checkpoint of run %d exists (an interrupted run): continue it with --resume, "
              "or delete it to start over",
              run);
    return false;
}

/* With -o DIR a run's files stay in DIR: an .mci from elsewhere whose output
 * name is "/etc/passwd" or "../../x" would otherwise write there silently.
 * --allow-outside-output-dir lets it; without -o, names are MCML's,
 * relative to the current directory or absolute. */
static bool inside_out_dir(const driver_options *opt, const mci_file *file, int i, tm_error *err)
{
    const mci_run *run = &file->runs[i];
    if (!opt->out_dir || opt->allow_outside_out_dir || !fs_name_leaves_dir(run->out_name))
        return true;
    error_set(err, file->path, run->line,
              "run %d: output name \"%s\" %s -o %s: name a file inside it, or pass "
              "--allow-outside-output-dir",
              i + 1, run->out_name,
              run->out_name[0] == '/' ? "is an absolute path, outside" : "climbs out of",
              opt->out_dir);
    return false;
}

/* Every output of every run must be creatable, and distinct, before anything
 * is simulated. */
run_paths *outputs_prepare(const driver_options *opt, const mci_file *file, tm_error *err)
{
    if (opt->out_dir && !fs_make_dirs(opt->out_dir, err)) /* created when missing */
        return NULL;
    run_paths *paths = calloc((size_t)file->num_runs, sizeof *paths);
    if (!paths) {
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    bool ok = true;
    for (int i = 0; ok && i < file->num_runs; i++) {
        if (!(ok = inside_out_dir(opt, file, i, err)))
            break;
        paths[i].mco = fs_join(opt->out_dir, file->runs[i].out_name);
        for (int k = 1; k < paths_used(opt); k++)
            *run_path(&paths[i], k) =
                paths[i].mco ? fs_sibling(paths[i].mco, path_suffixes[k]) : NULL;
        for (int k = 0; ok && k < paths_used(opt); k++) {
            if (!*run_path(&paths[i], k)) {
                error_set(err, NULL, 0, "out of memory");
                ok = false;
            }
            ok = ok && fs_check_output(*run_path(&paths[i], k), err);
        }
        /* Another process writing this output now: said before its
         * checkpoint is taken for an interrupted run's. */
        ok = ok && run_lock_free(paths[i].lock, paths[i].mco, err) &&
             no_checkpoint_in_the_way(opt, i + 1, &paths[i], err);
    }
    if (ok && check_collisions(opt, file, paths, err))
        return paths;
    outputs_free(paths, file->num_runs);
    return NULL;
}
