/* What the tests of a run's statistics through the public header share
 * (test_api_precision.c, test_api_stderr.c): their two layers and grid, a
 * slab of long-lived photons, results compared bit for bit, `tmcml run` of
 * a problem with its JSON and .npz read back, and a checkpointed run
 * cancelled and resumed. */
#ifndef TMCML_TESTS_API_RUN_CHECKS_H
#define TMCML_TESTS_API_RUN_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "npz_read.h"
#include "tmcml.h"

static const tmcml_layer two_layers[2] = {
    {1.4, 0.5, 60.0, 0.8, 0.05},
    {1.37, 1.0, 30.0, 0.9, 0.1},
};
static const tmcml_grid grid = {0.02, 0.02, 10, 8, 3};

/* A new problem of one slab whose photons live long (as
 * test_api_checkpoint's): a cancel at the first progress call comes while
 * it runs; NULL on failure. */
static inline tmcml_problem *slab_problem(tmcml_session *s)
{
    static const tmcml_layer slab = {1.4, 0.02, 150.0, 0.9, 1.0};
    tmcml_problem *p = NULL;
    CHECK_MSG(tmcml_problem_new(s, &slab, 1, 1.0, 1.0, &grid, &p) == TMCML_OK, "%s",
              tmcml_session_message(s));
    return p;
}

static inline uint64_t digest(const tmcml_result *r)
{
    tmcml_info info;
    tmcml_result_info(r, &info);
    return info.tallies_digest;
}

static inline bool same_bits(const double *a, const double *b, size_t n)
{
    return (a == NULL) == (b == NULL) && (n == 0 || memcmp(a, b, n * sizeof *a) == 0);
}

/* ---- the command's ------------------------------------------------------------------ */

/* What `tmcml run` wrote: its JSON and its .npz (zip_size bytes). */
typedef struct command_output {
    char *json, *zip;
    size_t zip_size;
} command_output;

/* p, named NAME.mco, written to dir/NAME.mci and run there by `tmcml run
 * NAME.mci -q --engine cpu -S seed --threads 2 FLAGS`; its JSON and .npz
 * read back (NULL where missing; command_output_free frees them). */
static inline command_output run_command(tmcml_session *s, tmcml_problem *p, const char *tmcml,
                                         const char *dir, const char *name, unsigned seed,
                                         const char *flags)
{
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s.mco", name);
    CHECK(tmcml_problem_set_name(s, p, path) == TMCML_OK);
    snprintf(path, sizeof path, "%s/%s.mci", dir, name);
    CHECK(tmcml_mci_write(s, path, (const tmcml_problem *const *)&p, 1) == TMCML_OK);
    snprintf(cmd, sizeof cmd, "cd %s && %s run %s.mci -q --engine cpu -S %u --threads 2 %s", dir,
             tmcml, name, seed, flags);
    CHECK(system(cmd) == 0);
    command_output out = {NULL, NULL, 0};
    size_t size = 0;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    out.json = read_all(path, &size);
    snprintf(path, sizeof path, "%s/%s.npz", dir, name);
    out.zip = read_all(path, &out.zip_size);
    return out;
}

static inline void command_output_free(command_output *out)
{
    free(out->json);
    free(out->zip);
}

/* The number after "key": in text from `from` on; NAN when absent. */
static inline double json_number(const char *text, const char *from, const char *key)
{
    const char *at = text ? strstr(text, from) : NULL;
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    at = at ? strstr(at, quoted) : NULL;
    return at ? strtod(at + strlen(quoted), NULL) : NAN;
}

/* The command's .npz member name holds values[0 .. count-1] bit for bit. */
static inline void check_member(const command_output *out, const char *name, const double *values,
                                size_t count)
{
    bool found;
    size_t differ = npz_differing(out->zip, out->zip_size, name, values, count, &found);
    CHECK_MSG(found, "%s missing from the command's .npz", name);
    CHECK_MSG(!found || differ == 0, "%s: %zu of %zu entries differ from the library's", name,
              differ, count);
}

/* ---- a checkpointed run ---------------------------------------------------------------- */

static inline int cancel_first(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    (void)user;
    return 1;
}

/* p run with o three times, checkpointed to path (written only when
 * cancelled: the groups are tmcml_run's): whole, its checkpoint then gone;
 * cancelled at the first progress call, its checkpoint kept; resumed from
 * it.  `same` compares the whole run ("checkpointed") and the resumed one
 * ("resumed") with `whole`. */
static inline void
check_cancelled_and_resumed(tmcml_session *s, const tmcml_problem *p, const tmcml_options *o,
                            const char *path, const tmcml_result *whole,
                            void (*same)(const tmcml_result *, const tmcml_result *, const char *))
{
    tmcml_checkpoint ck;
    tmcml_checkpoint_init(&ck);
    ck.path = path;
    ck.every = 0;
    tmcml_options opt = *o;
    tmcml_result *kept = NULL, *cancelled = NULL, *resumed = NULL;
    CHECK_MSG(tmcml_run_checkpointed(s, p, &opt, &ck, &kept) == TMCML_OK, "%s",
              tmcml_session_message(s));
    same(kept, whole, "checkpointed");
    struct stat st;
    CHECK_MSG(stat(path, &st) != 0, "the finished run's checkpoint is left");
    opt.progress = cancel_first;
    opt.progress_interval = 0.01;
    CHECK(tmcml_run_checkpointed(s, p, &opt, &ck, &cancelled) == TMCML_ERR_CANCELLED);
    CHECK_MSG(stat(path, &st) == 0, "the cancelled run kept no checkpoint");
    opt.progress = NULL;
    ck.resume = 1;
    CHECK_MSG(tmcml_run_checkpointed(s, p, &opt, &ck, &resumed) == TMCML_OK, "%s",
              tmcml_session_message(s));
    same(resumed, whole, "resumed");
    tmcml_result_delete(kept);
    tmcml_result_delete(cancelled);
    tmcml_result_delete(resumed);
}

#endif
