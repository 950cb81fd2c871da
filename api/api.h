/* The library's handles and its error discipline, shared by the files of
 * api/ (not installed: tmcml.h is the public header). */
#ifndef TMCML_API_H
#define TMCML_API_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "c_locale.h"
#include "checkpoint.h"
#include "error.h"
#include "mci.h"
#include "precision.h"
#include "precision_stop.h"
#include "result.h"
#include "session.h"
#include "tally.h"
#include "tmcml.h"

/* Calls take turns: each waits for its turn under lock, holds the session
 * (busy) while it works, and counts in calls from its entry to its end, so
 * that tmcml_session_delete can wait for every call already entered (the one
 * under way, cancelled, and those waiting for their turn, refused). */
struct tmcml_session {
    pthread_mutex_t lock; /* guards busy, calls and closing; held briefly */
    pthread_cond_t turn;  /* signalled when a call ends */
    bool busy;            /* a call is under way */
    int calls;            /* calls entered and not yet left */
    bool closing;         /* tmcml_session_delete has begun: no new turns */
    session eng;
    volatile sig_atomic_t stop; /* the engines' pause flag: tmcml_session_cancel */
    tmcml_status status;
    char message[2048];
    locale_t caller_locale; /* the calling thread's, while a call works in C's (api_enter) */
};

/* A checked run.  photons 0 and out_name NULL: not set (arrays).  The
 * caller's output requests that a .mci does not hold live beside it, so
 * that a problem rebuilt from its .mci text (set_run) keeps them. */
struct tmcml_problem {
    mci_run run;
    bool stderr_groups; /* tmcml_problem_set_stderr: standard errors asked for */
    /* tmcml_problem_set_precision: the relative error asked (0: none), of
     * what, and the most photons (0: the options' or the run's). */
    double precision;
    char precision_of[64];
    int64_t max_photons;
};

struct tmcml_result {
    tmcml_problem problem; /* as simulated: photons are the run's */
    mcml_result res;
    bool has_tallies;
    tally_set tallies;
    tmcml_precision precision; /* with problem.precision > 0: how the run ended */
    tmcml_info info;           /* its strings point into the fields below */
    char *variant, *kernel, *comment;
    char engine[8], device[256];
};

/* Every call: api_enter waits for the session's turn, clears its error and
 * its stop flag (a cancel asked before this call is not for it) and switches
 * the calling thread to the C locale (base/c_locale.h: numbers in files
 * and messages whatever the host's locale); api_leave gives the thread its
 * locale back, gives the turn back and returns status.  False from api_enter: the session
 * is being deleted, and the call returns TMCML_ERR_CANCELLED without touching
 * s again.  s must not be NULL (callers check). */
bool api_enter(tmcml_session *s);
tmcml_status api_leave(tmcml_session *s, tmcml_status status);

/* One pointer a call needs: NULL is refused as "NAME: NULL". */
typedef struct api_arg {
    const void *pointer;
    const char *name;
} api_arg;
/* The pointers a call needs, in the order it checks them (api_begin). */
#define API_ARGS(...) ((const api_arg[]){__VA_ARGS__, {NULL, NULL}})

/* Every call's entry, its arguments checked as Lua's luaL_argcheck does: s
 * NULL gives TMCML_ERR_ARGUMENT (there is no session to keep a message in),
 * a session being deleted TMCML_ERR_CANCELLED (api_enter); then the first
 * of args (API_ARGS; NULL for none) that is NULL is refused,
 * TMCML_ERR_ARGUMENT with "NAME: NULL", and the session left again.
 * TMCML_OK: the session is entered, and the call ends with api_leave. */
tmcml_status api_begin(tmcml_session *s, const api_arg *args);

/* An argument refused after api_begin (a value out of range, an empty
 * text): the session's error set to TMCML_ERR_ARGUMENT and the message,
 * and the session left; returns TMCML_ERR_ARGUMENT. */
tmcml_status api_arg_error(tmcml_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets the session's error (err as "file:line: message") and returns
 * status. */
tmcml_status api_fail(tmcml_session *s, tmcml_status status, const tm_error *err);
tmcml_status api_failf(tmcml_session *s, tmcml_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- runs that stop at a precision (api/precision.c) ---- */

/* The precisions of results r[0 .. count-1] (their problems' fields,
 * their photons the most they may take) checked for a run with o:
 * every result asks for one or none (else TMCML_ERR_ARGUMENT naming the
 * first that differs), each at least 64000 photons and its target valid
 * with o's absorption.  *out: one per result, or NULL when none asks
 * (freed by the caller). */
tmcml_status api_precision_plan(tmcml_session *s, tmcml_result *const *r, int count,
                                const tmcml_options *o, precision_stop **out);
/* Result r after its run: its photons those taken, its precision reached
 * from u's groups (nothing for a result without a precision). */
void api_precision_finish(tmcml_result *r, const precision_stop *prec, const uncertainty *u);
/* The photons of a call's results when it ran to its end: a precision
 * run's are those it took once met, else its own. */
uint64_t api_precision_expected(tmcml_result *const *r, int count, const precision_stop *prec);

/* Frees what a result owns (not r itself). */
void api_result_clear(tmcml_result *r);

/* ---- the work of public calls, for a call that makes others (a lookup
 * table: api/lut.c) ----
 * Each does what its public function does once the session is entered and
 * the pointers are checked: a public function that called another on its
 * own session would wait for its own turn forever (api_enter). */

/* tmcml_problem_new's. */
tmcml_status api_problem_new(tmcml_session *s, const tmcml_layer *layers, int num_layers,
                             double n_above, double n_below, const tmcml_grid *grid,
                             tmcml_problem **out);
/* tmcml_problem_set_precision's. */
tmcml_status api_problem_precision(tmcml_session *s, tmcml_problem *p, double relative,
                                   const char *of, int64_t max_photons);
/* tmcml_problem_set_spatial_frequencies's. */
tmcml_status api_problem_spatial_frequencies(tmcml_session *s, tmcml_problem *p, const double *fx,
                                             int count);
/* tmcml_run_batch's, count within 1 .. TMCML_BATCH_MAX, o not NULL. */
tmcml_status api_run_batch(tmcml_session *s, const tmcml_problem *const *problems, int count,
                           const tmcml_options *o, tmcml_result **out);
/* tmcml_run_sets's, num_sets within 1 .. TMCML_MUA_SETS_MAX, o not NULL. */
tmcml_status api_run_sets(tmcml_session *s, const tmcml_problem *p, const double *mua_sets,
                          int num_sets, const tmcml_options *o, tmcml_result **out);
/* A run's options checked (TMCML_ERR_ARGUMENT naming the field): *photons
 * gets o's, else problem_photons (a problem's), refused when neither. */
tmcml_status api_check_options(tmcml_session *s, const tmcml_options *o, int64_t problem_photons,
                               int64_t *photons);
/* A tmcml_checkpoint checked: its path, period and resume. */
tmcml_status api_check_checkpoint(tmcml_session *s, const tmcml_checkpoint *ck);
/* ---- the Cartesian grid and the oblique beam (api/problem_xy.c) ---- */

/* Whether a problem of p[0 .. count-1] has the grid or the oblique beam
 * where the GPU does not score it: a run's own kernel scores and launches
 * them (templates/xy.cu, source.cu), a batch's and the sets' none (the
 * call's sets: sets; so with the derivatives neither).  AUTO then takes
 * the CPU engine. */
bool api_xy_cpu_only(const tmcml_problem *const *p, int count, bool sets);
/* A call's problems checked: an oblique beam needs the grid and is
 * refused with what assumes a beam along the axis (time bins, detectors,
 * frequencies, derivatives, the call's sets: sets), naming the setter; a
 * grid too large for a problem's depth bins; the GPU engine asked for
 * either where it does not score them (api_xy_cpu_only).
 * TMCML_ERR_ARGUMENT with the message. */
tmcml_status api_check_xy(tmcml_session *s, const tmcml_problem *const *p, int count, bool sets,
                          tmcml_engine engine);

/* GPU number index as tmcml_devices describes it; false with *err where
 * there is none (the session's error untouched). */
bool api_device(int index, tmcml_device *out, tm_error *err);
/* o's progress callback with done of total photons, in the caller's locale
 * (a call works in C's): its answer. */
int api_host_progress(tmcml_session *s, const tmcml_options *o, uint64_t done, uint64_t total);

#endif
