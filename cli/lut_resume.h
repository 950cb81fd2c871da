/* `tmcml lut`'s stops and --resume (docs/lut.md, "Stops and --resume"):
 * the table's finished calls kept in OUT.lut.ckpt (lut_checkpoint.h)
 * every --checkpoint-every seconds and when a signal stops it
 * (base/interrupt.h), read back and checked by --resume, removed once
 * OUT.csv and OUT.npz are written.
 *
 *     lut_resume r;  lut_resume_init(&r, path, resume, every, quiet);
 *     lut_resume_begin(&r, s, spec, plan, &t, &err)        exit 2 if false
 *     lut_resume_simulate(&r, s, spec, plan, &t, &err)     a stop exits here
 *     ... the outputs written ...
 *     lut_resume_end(&r)                 or, failed: lut_resume_keep(&r, ...)
 *
 * A signal while the calls run (the interrupt's graceful mode) stops the
 * call in flight within LUT_STOP_POLL_SECONDS and discards it, writes the
 * checkpoint of the calls done and exits 128 + the signal, saying what was
 * kept and how to continue. */
#ifndef TMCML_LUT_RESUME_H
#define TMCML_LUT_RESUME_H

#include <stdbool.h>

#include "clock.h"
#include "error.h"
#include "lut_table.h"

typedef struct lut_resume {
    const char *path; /* OUT.lut.ckpt */
    bool resume;      /* --resume */
    double every;     /* --checkpoint-every seconds; 0: only on a stop */
    bool quiet;       /* nothing said but warnings and errors */
    const lut_spec *spec;
    tmcml_session *session;
    char physics[256]; /* of the engine of the table's values (driver/resume.h) */
    int saved;         /* calls done that the file at path holds */
    double due;        /* clock_now of the next periodic checkpoint */
} lut_resume;

void lut_resume_init(lut_resume *r, const char *path, bool resume, double every, bool quiet);

/* Before anything is simulated: the checkpoint's place can be written; then
 * t, an empty table of the plan's strategy, or with --resume and a
 * checkpoint at path the calls it holds (lut_checkpoint_read: refused,
 * naming what differs, when it is another table's, another engine's or
 * damaged).  Without --resume an existing checkpoint is refused (the work
 * it holds would be lost): continue it with --resume, or delete it.  False
 * with *err, the file as it was. */
bool lut_resume_begin(lut_resume *r, tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                      lut_table *t, tm_error *err);

/* The calls of t not done yet, checkpointed when due.  A stop signal
 * writes the checkpoint and exits the process (128 + the signal); true
 * when every call is done, false with *err when one failed. */
bool lut_resume_simulate(lut_resume *r, const lut_spec *spec, const lut_plan *plan, lut_table *t,
                         tm_error *err);

/* The table written: its checkpoint is of the past (removed). */
void lut_resume_end(lut_resume *r);

/* The table failed (a call, or writing its files): the calls done are
 * written to the checkpoint when it lacks some, and what it holds is said
 * on stderr, for --resume. */
void lut_resume_keep(lut_resume *r, const lut_table *t);

#endif
