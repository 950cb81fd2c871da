/* One run kept in a checkpoint file (checkpointed.h). */
#include "checkpointed.h"

#include <string.h>
#include <sys/stat.h>

#include "resume.h"
#include "stopper.h"

bool checkpointed_begin(checkpoint *ck, const driver_options *opt, const mci_run *run,
                        const char *physics, const char *path, bool *resumed, tm_error *err)
{
    struct stat st;
    if (!opt->resume && stat(path, &st) == 0) {
        error_set(err, path, 0,
                  "a checkpoint is there (a stopped run's work): continue it (resume), or delete "
                  "it to start over");
        return false;
    }
    return resume_begin(ck, opt, run, 1, physics, path, resumed, err);
}

static bool add_range(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)part;
    return resume_add(ctx, first, first + n, err);
}

/* One engine call's times added to the call's so far. */
static void add_stats(session_run_stats *sum, const session_run_stats *one, bool first)
{
    if (first) {
        *sum = *one;
        return;
    }
    sum->compile_seconds += one->compile_seconds;
    sum->kernel_seconds += one->kernel_seconds;
}

/* The checkpoint written now; false with *err when it could not be. */
static bool keep(const checkpointed_call *c, const checkpoint *ck, tm_error *err)
{
    return checkpoint_write(c->path, ck, err);
}

checkpointed_status checkpointed_simulate(const checkpointed_call *c, checkpoint *ck,
                                          session_run_stats *stats, tm_error *err)
{
    stopper st;
    bool watched = stopper_start_also(&st, c->every, c->cancel);
    session_sim sim = c->sim;
    /* Without the watch's thread, the cancel flag stops the engines itself
     * (and no periodic checkpoint is written). */
    sim.stop = watched ? &st.flag : c->cancel;
    sim.done = add_range;
    sim.done_ctx = ck;
    checkpointed_status status = CHECKPOINTED_DONE;
    uint64_t begin, end;
    memset(stats, 0, sizeof *stats);
    for (bool first = true; status == CHECKPOINTED_DONE && resume_next_gap(ck, &begin, &end);
         first = false) {
        session_run_stats one;
        if (!session_simulate(c->ses, &sim, c->run, c->specs, begin, end - begin, &ck->tallies,
                              &one, err)) {
            status = CHECKPOINTED_FAILED;
            break;
        }
        add_stats(stats, &one, first);
        if (*c->cancel)
            status = keep(c, ck, err) ? CHECKPOINTED_CANCELLED : CHECKPOINTED_FAILED;
        else if (watched && st.flag) {
            tm_error ignored; /* a periodic one that fails is tried again a period later */
            (void)keep(c, ck, &ignored);
            stopper_rearm(&st);
        }
    }
    if (watched)
        stopper_end(&st);
    if (status == CHECKPOINTED_CANCELLED && !resume_next_gap(ck, &begin, &end))
        status = CHECKPOINTED_DONE; /* the cancel came as the last photons ended */
    return status;
}
