/* `tmcml lut`'s stops and --resume (lut_resume.h). */
#include "lut_resume.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "fs.h"
#include "interrupt.h"
#include "lut_checkpoint.h"
#include "resume.h"
#include "text_escape.h"

void lut_resume_init(lut_resume *r, const char *path, bool resume, double every, bool quiet)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->resume = resume;
    r->every = every;
    r->quiet = quiet;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The physics of an engine as `tmcml run` records it (driver/resume.h): the
 * GPU's through the library, which knows its compute capability. */
static bool physics_of(lut_resume *r, tmcml_engine engine, char *buf, size_t size, tm_error *err)
{
    if (engine != TMCML_ENGINE_GPU)
        return resume_physics(NULL, buf, size, err);
    int gpu = r->spec->gpu, count = 0;
    tmcml_device *devices = calloc((size_t)gpu + 1, sizeof *devices);
    bool listed =
        devices && tmcml_devices(r->session, devices, gpu + 1, &count) == TMCML_OK && count > gpu;
    bool ok =
        listed && resume_gpu_physics(devices[gpu].cc_major, devices[gpu].cc_minor, buf, size, err);
    if (!listed)
        error_set(err, NULL, 0, "--gpu %d: no such GPU (%s)", gpu,
                  devices ? tmcml_session_message(r->session) : "out of memory");
    free(devices);
    return ok;
}

/* Without --resume, a checkpoint at path is an interrupted table's work. */
static bool no_checkpoint_in_the_way(const lut_resume *r, tm_error *err)
{
    if (r->resume || !exists(r->path))
        return true;
    error_set(err, r->path, 0,
              "a checkpoint of this table exists (an interrupted tmcml lut): continue it with "
              "--resume, or delete it to start over");
    return false;
}

bool lut_resume_begin(lut_resume *r, tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                      lut_table *t, tm_error *err)
{
    r->spec = spec;
    r->session = s;
    if (!fs_check_output(r->path, err) || !no_checkpoint_in_the_way(r, err) ||
        !lut_table_init(t, spec, plan->strategy, err))
        return false;
    /* A fresh table's physics is its first call's engine's (call_ended):
     * AUTO may fall back to the CPU, and a GPU unused needs no NVRTC. */
    if (!r->resume || !exists(r->path))
        return true;
    if (!physics_of(r, plan->expected, r->physics, sizeof r->physics, err) ||
        !lut_checkpoint_read(r->path, spec, r->physics, t, err)) {
        lut_table_free(t);
        return false;
    }
    r->saved = t->done_count;
    if (!r->quiet)
        text_printf(stderr, "tmcml lut: resuming from %s, %d of %d simulations done\n", r->path,
                    t->done_count, t->calls);
    return true;
}

/* Writes the calls done to the checkpoint; false with *err (the file
 * before, if any, left as it was). */
static bool save(lut_resume *r, const lut_table *t, tm_error *err)
{
    if (!lut_checkpoint_write(r->path, r->spec, r->physics, t, err))
        return false;
    r->saved = t->done_count;
    return true;
}

/* After each call: the physics of the engine the calls ran on (known
 * after the first: AUTO may have fallen back to the CPU), and the periodic
 * checkpoint.
 * One that cannot be written (a disk full for a moment) is said and tried
 * again a period later, the one before, if any, left as it was. */
static bool call_ended(void *ctx, const lut_table *t, tm_error *err)
{
    lut_resume *r = ctx;
    size_t word = strcspn(r->physics, " ");
    if (strlen(t->engine) != word || strncmp(t->engine, r->physics, word) != 0) {
        tmcml_engine engine = strcmp(t->engine, "gpu") == 0 ? TMCML_ENGINE_GPU : TMCML_ENGINE_CPU;
        if (!physics_of(r, engine, r->physics, sizeof r->physics, err))
            return false;
    }
    double now = clock_now();
    if (r->every <= 0 || now < r->due)
        return true;
    tm_error failed = {0};
    if (!save(r, t, &failed)) {
        char text[2048];
        fprintf(stderr, "tmcml: warning: checkpoint not written: %s; retrying in %g s\n",
                error_format(&failed, text, sizeof text), r->every);
    }
    r->due = now + r->every;
    return true;
}

/* What the checkpoint holds, for the messages: "4 of 10 simulations (24 of
 * 60 points) in OUT.lut.ckpt". */
static void held(const lut_resume *r, const lut_table *t, char *buf, size_t size)
{
    long long points = 0;
    for (int c = 0; c < t->calls; c++)
        if (t->done[c])
            points += lut_table_span(t, c).count;
    snprintf(buf, size, "%d of %d simulations (%lld of %lld points) in %s", t->done_count, t->calls,
             points, (long long)t->m * t->k, r->path);
}

/* A signal stopped the table: the calls done kept, the process ended. */
_Noreturn static void stopped(lut_resume *r, const lut_table *t)
{
    char kept[1536], what[1024];
    tm_error err = {0};
    held(r, t, what, sizeof what);
    if (t->done_count == 0)
        snprintf(kept, sizeof kept, "no simulation of the table had ended: nothing kept");
    else if (t->done_count > r->saved && !save(r, t, &err)) {
        error_print(stderr, &err);
        snprintf(kept, sizeof kept,
                 "the checkpoint could not be written: the last one, if any, is kept");
    } else
        snprintf(kept, sizeof kept,
                 "kept %s (a simulation cut short is not kept): continue with the same command "
                 "and --resume",
                 what);
    interrupt_exit(interrupt_requested(), kept);
}

bool lut_resume_simulate(lut_resume *r, const lut_spec *spec, const lut_plan *plan, lut_table *t,
                         tm_error *err)
{
    lut_watch watch = {interrupt_flag(), call_ended, r};
    r->due = clock_now() + r->every;
    interrupt_graceful(true);
    lut_outcome outcome = lut_table_continue(r->session, spec, plan, t, &watch, err);
    if (outcome == LUT_TABLE_STOPPED)
        stopped(r, t);
    /* Done or failed, the graceful mode stays while the files are written
     * (or the checkpoint kept): a signal then lets them end whole. */
    return outcome == LUT_TABLE_DONE;
}

void lut_resume_end(lut_resume *r)
{
    if (unlink(r->path) != 0 && errno != ENOENT)
        text_printf(stderr, "tmcml: warning: cannot remove %s: %s\n", r->path, strerror(errno));
    interrupt_graceful(false);
}

void lut_resume_keep(lut_resume *r, const lut_table *t)
{
    tm_error err = {0};
    if (t->done_count > r->saved && !save(r, t, &err))
        error_print(stderr, &err);
    interrupt_graceful(false);
    char what[1024];
    held(r, t, what, sizeof what);
    if (r->saved > 0 && r->saved == t->done_count)
        text_printf(stderr, "tmcml: kept %s: continue with the same command and --resume\n", what);
    else if (r->saved > 0)
        text_printf(stderr,
                    "tmcml: %s still holds %d of %d simulations: continue with the same command "
                    "and --resume\n",
                    r->path, r->saved, t->calls);
}
