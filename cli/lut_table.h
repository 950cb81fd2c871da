/* `tmcml lut`'s table: diffuse reflectance, total and per ring, of one
 * homogeneous layer over a grid of mua and mus' (docs/lut.md), simulated
 * through the library without absorption scoring (options.absorption = 0:
 * only escapes are needed).  Two strategies:
 *   sets  each mus' (a column of the table) one problem whose mua axis is
 *         absorption sets (tmcml_run_sets, at most TMCML_MUA_SETS_MAX sets
 *         a call): one photon history serves every mua of the column, whose
 *         errors are therefore correlated; seed S for every column.
 *   runs  each point its own problem, the mus' of one mua batched
 *         (tmcml_run_batch, one kernel shape): mua k with seed S + k
 *         (modulo 2^64), so the errors of different mua are independent.
 * Point (mus' j, mua k) under runs is `tmcml run -A -S S+k` of that point,
 * bit for bit; column j under sets is `tmcml run -A -S S --mua-sets` of
 * that column (its sets in chunks of TMCML_MUA_SETS_MAX).  Each library
 * call gives the same values whenever it is made, so a table is kept and
 * continued call by call (cli/lut_resume.h). */
#ifndef TMCML_LUT_TABLE_H
#define TMCML_LUT_TABLE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "lut_axis.h"
#include "tmcml.h"

/* The thickness [cm] of a semi-infinite layer (d = inf), as Python's
 * SEMI_INFINITE_D (python/tmcml/problem.py, docs/library.md): no photon
 * crosses 10^8 cm of tissue. */
#define LUT_SEMI_INFINITE_D 1e8

/* How often a call in flight looks at lut_watch's stop flag (the library's
 * progress interval): a stop is seen within it, then the engines finish
 * the photons handed out (a CPU chunk, a GPU launch's poll). */
#define LUT_STOP_POLL_SECONDS 0.05

typedef enum lut_strategy { LUT_AUTO, LUT_SETS, LUT_RUNS } lut_strategy;

/* "auto", "sets", "runs". */
const char *lut_strategy_name(lut_strategy s);

typedef struct lut_spec {
    double n, n_above, n_below, g, d; /* d in cm: LUT_SEMI_INFINITE_D for inf */
    lut_axis mua, musp;               /* 1/cm */
    int nr;
    double dr; /* cm */
    int64_t photons;
    uint64_t seed;
    lut_strategy strategy;
    tmcml_engine engine; /* TMCML_ENGINE_AUTO: the GPU when tmcml_devices finds one */
    int gpu, threads;
    bool progress; /* a line on stderr after each call */
} lut_spec;

typedef struct lut_table {
    int m, k, nr;          /* mus' count, mua count, rings */
    double *rd;            /* [m][k]: Rd of (musp[j], mua[i]) at j * k + i */
    double *rd_r;          /* [m][k][nr] (1/cm2) */
    double rsp;            /* specular reflectance (the same at every point) */
    lut_strategy strategy; /* the one used */
    char engine[8];        /* "cpu" or "gpu": every call's ("" before the first) */
    int calls;             /* library calls of the whole table (lut_table_span) */
    unsigned char *done;   /* [calls]: 1 once call c's points hold its values */
    int done_count;        /* calls done: resumed (cli/lut_resume.h) and made */
    int made;              /* calls this process made */
    uint64_t trapped;      /* photons stopped as never ending, over the calls done */
} lut_table;

/* The points one library call simulates, numbered j * k + i: count of them
 * from first, stride apart.  Sets: call c is column c / C's chunk c % C
 * (C = ceil(k / TMCML_MUA_SETS_MAX) chunks a column); runs: call i is
 * mua i's row. */
typedef struct lut_span {
    size_t first, stride;
    int count;
} lut_span;
lut_span lut_table_span(const lut_table *t, int call);

/* The strategy and the engine of a table: spec's strategy, or for
 * LUT_AUTO sets where the engine scores them (api_engine_scores_sets) and
 * runs elsewhere; the engine TMCML_ENGINE_AUTO read as the GPU where
 * tmcml_devices finds spec's GPU, else the CPU (for the runs the library
 * is still given AUTO, which falls back to the CPU as `tmcml run` does).
 * False with *err for sets on an engine without them. */
typedef struct lut_plan {
    lut_strategy strategy;
    tmcml_engine engine;   /* what the calls are given */
    tmcml_engine expected; /* the engine they run on: TMCML_ENGINE_CPU or _GPU */
} lut_plan;
bool lut_plan_choose(tmcml_session *s, const lut_spec *spec, lut_plan *plan, tm_error *err);

/* The problem of one point (mua, mus'), photons and name unset; NULL with
 * *err on a value the library refuses. */
tmcml_problem *lut_point_problem(tmcml_session *s, const lut_spec *spec, double mua, double musp,
                                 tm_error *err);

/* An empty table of spec's size for strategy (no call done); false with
 * *err when out of memory. */
bool lut_table_init(lut_table *t, const lut_spec *spec, lut_strategy strategy, tm_error *err);

typedef enum lut_outcome { LUT_TABLE_DONE, LUT_TABLE_STOPPED, LUT_TABLE_FAILED } lut_outcome;

/* What watches the calls of lut_table_continue (both may be NULL):
 *   stop   polled between calls and, through the library's progress
 *          callback, every LUT_STOP_POLL_SECONDS during one: once raised,
 *          the call in flight is cancelled and its values discarded (only
 *          whole calls are kept), and no other call starts;
 *   ended  after each call whose values are in the table (t->done): false
 *          (with *err) ends the table as failed. */
typedef struct lut_watch {
    const volatile sig_atomic_t *stop;
    bool (*ended)(void *ctx, const lut_table *t, tm_error *err);
    void *ctx;
} lut_watch;

/* Simulates the calls of t not yet done, in order, with the session s as
 * planned: LUT_TABLE_DONE when every call is; LUT_TABLE_STOPPED when the
 * stop flag ended it first; LUT_TABLE_FAILED with *err when a call failed
 * (or ran on another engine than the table's earlier calls, whose values
 * would not match theirs: AUTO falling back to the CPU).  Either way t
 * holds exactly the calls done. */
lut_outcome lut_table_continue(tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                               lut_table *t, const lut_watch *watch, tm_error *err);

/* The whole table, unwatched: lut_table_init and lut_table_continue; false
 * with *err (nothing kept). */
bool lut_table_simulate(tmcml_session *s, const lut_spec *spec, const lut_plan *plan,
                        lut_table *out, tm_error *err);

void lut_table_free(lut_table *t);

#endif
