/* A long run kept in a checkpoint file through the public header alone
 * (tmcml_run_checkpointed, docs/library.md "Checkpoints"): cancelled by the
 * progress callback it keeps the photons done in the file; continued from
 * it (twice), it ends with tmcml_run's tallies bit for bit and the file is
 * removed; periodic checkpoints appear while it runs; a file of another run
 * (another seed) is refused and kept, a file there without resume is
 * refused, bad arguments are named.  The CPU engine, or with "gpu" the GPU
 * (skipped, status 77, without one). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmcml.h"

/* Long-lived photons (little absorption under strong scattering): a run
 * of `photons` takes about a second (10^8 on a GPU), so a cancel at the
 * first progress call, 0.01 s in, comes while it simulates. */
static int64_t photons = 60000;
static const tmcml_layer slab[1] = {{1.4, 0.02, 150.0, 0.9, 1.0}};
static const tmcml_grid grid = {0.01, 0.01, 20, 20, 4};

static tmcml_engine engine = TMCML_ENGINE_CPU;
static char path[512];

/* Cancels at its first call; counts whether the checkpoint file was seen. */
typedef struct watch {
    int calls;
    int cancel_at; /* the call that answers 1 (0: never) */
    int seen_file;
} watch;

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    watch *w = user;
    w->calls++;
    w->seen_file += access(path, F_OK) == 0;
    return w->cancel_at > 0 && w->calls >= w->cancel_at;
}

static void options(tmcml_options *o, uint64_t seed, watch *w)
{
    tmcml_options_init(o);
    o->engine = engine;
    o->photons = photons;
    o->seed = seed;
    o->threads = 2;
    o->progress = on_progress;
    o->progress_user = w;
    o->progress_interval = 0.01;
}

static uint64_t digest(const tmcml_result *r)
{
    tmcml_info info;
    tmcml_result_info(r, &info);
    return info.tallies_digest;
}

static char *read_file(const char *name, size_t *size)
{
    FILE *f = fopen(name, "rb");
    if (!f)
        return NULL;
    char *data = malloc(1 << 24);
    *size = data ? fread(data, 1, 1 << 24, f) : 0;
    fclose(f);
    return data;
}

/* A checkpointed run cancelled at the first progress call: CANCELLED, the
 * file there. */
static void cancelled(tmcml_session *s, const tmcml_problem *p, int resume)
{
    watch w = {.cancel_at = 1};
    tmcml_options o;
    options(&o, 7, &w);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.resume = resume;
    tmcml_result *r = (tmcml_result *)1;
    CHECK(tmcml_run_checkpointed(s, p, &o, &ck, &r) == TMCML_ERR_CANCELLED);
    CHECK(r == NULL);
    CHECK_CONTAINS(tmcml_session_message(s), "are kept in");
    CHECK(access(path, F_OK) == 0);
}

static void test_stop_and_resume(tmcml_session *s, const tmcml_problem *p, uint64_t whole)
{
    unlink(path);
    cancelled(s, p, 0);
    cancelled(s, p, 1); /* continued, and cancelled again */

    /* Another seed: another run's file, refused and kept as it was. */
    size_t before_size = 0, after_size = 0;
    char *before = read_file(path, &before_size);
    watch w = {0};
    tmcml_options o;
    options(&o, 8, &w);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.resume = 1;
    tmcml_result *r = NULL;
    CHECK(tmcml_run_checkpointed(s, p, &o, &ck, &r) == TMCML_ERR_FILE);
    CHECK_CONTAINS(tmcml_session_message(s), "seed");
    char *after = read_file(path, &after_size);
    CHECK(before && after && before_size == after_size && memcmp(before, after, before_size) == 0);
    free(before);
    free(after);

    /* Without resume, the file is a stopped run's work: refused. */
    options(&o, 7, &w);
    ck.resume = 0;
    CHECK(tmcml_run_checkpointed(s, p, &o, &ck, &r) == TMCML_ERR_FILE);
    CHECK_CONTAINS(tmcml_session_message(s), "a checkpoint is there");

    /* Continued to the end: tmcml_run's tallies, the file gone. */
    ck.resume = 1;
    CHECK(tmcml_run_checkpointed(s, p, &o, &ck, &r) == TMCML_OK);
    CHECK_MSG(r && digest(r) == whole, "resumed digest %016llx, uninterrupted %016llx",
              r ? (unsigned long long)digest(r) : 0ULL, (unsigned long long)whole);
    CHECK(access(path, F_OK) != 0);
    tmcml_result_delete(r);
}

static void test_periodic(tmcml_session *s, const tmcml_problem *p, uint64_t whole)
{
    unlink(path);
    watch w = {0};
    tmcml_options o;
    options(&o, 7, &w);
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0.05;
    tmcml_result *r = NULL;
    CHECK(tmcml_run_checkpointed(s, p, &o, &ck, &r) == TMCML_OK);
    CHECK_MSG(w.seen_file > 0, "no periodic checkpoint seen in %d progress calls", w.calls);
    CHECK(r && digest(r) == whole);
    CHECK(access(path, F_OK) != 0);
    tmcml_result_delete(r);
}

static void test_arguments(tmcml_session *s, const tmcml_problem *p)
{
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    CHECK(ck.path == NULL && ck.every == 600.0 && ck.resume == 0);
    tmcml_result *r = NULL;
    CHECK(tmcml_run_checkpointed(s, p, NULL, NULL, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "checkpoint: NULL");
    CHECK(tmcml_run_checkpointed(s, p, NULL, &ck, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "checkpoint path");
    ck.path = path;
    ck.every = -1;
    CHECK(tmcml_run_checkpointed(s, p, NULL, &ck, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "checkpoint every");
    ck.every = 1;
    ck.resume = 2;
    CHECK(tmcml_run_checkpointed(s, p, NULL, &ck, &r) == TMCML_ERR_ARGUMENT);
    CHECK_CONTAINS(tmcml_session_message(s), "checkpoint resume");
    CHECK(tmcml_run_checkpointed(s, NULL, NULL, &ck, &r) == TMCML_ERR_ARGUMENT);
    CHECK(tmcml_run_checkpointed(NULL, p, NULL, &ck, &r) == TMCML_ERR_ARGUMENT);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        engine = TMCML_ENGINE_GPU;
        photons = 100000000;
        tmcml_session *probe = tmcml_session_new();
        int count = 0;
        tmcml_device dev;
        bool none = tmcml_devices(probe, &dev, 1, &count) != TMCML_OK || count == 0;
        tmcml_session_delete(probe);
        if (none) {
            printf("test_api_checkpoint gpu: no usable GPU: skipped\n");
            return 77;
        }
    }
    char dir[] = "/tmp/tmcml_ckpt_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, slab, 1, 1.0, 1.0, &grid, &p) == TMCML_OK);
    watch w = {0};
    tmcml_options o;
    options(&o, 7, &w);
    tmcml_result *whole = NULL;
    CHECK(tmcml_run(s, p, &o, &whole) == TMCML_OK);
    uint64_t d = whole ? digest(whole) : 0;
    tmcml_result_delete(whole);
    test_stop_and_resume(s, p, d);
    test_periodic(s, p, d);
    test_arguments(s, p);
    tmcml_problem_delete(p);
    tmcml_session_delete(s);
    unlink(path);
    rmdir(dir);
    return check_summary("test_api_checkpoint");
}
