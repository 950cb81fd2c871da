/* The library calls a lookup table is made of (tmcml_lut, api/lut.c;
 * docs/lut.md): call c of the table (driver/lut_table.h's span) simulated
 * on the session with the same problems, seeds and options whenever it is
 * made, so that a table stopped and continued call by call ends with the
 * values of an uninterrupted one, bit for bit.
 *   sets  column j's chunk of mua: the point (mua[0], musp[j])'s problem
 *         with the chunk's mua as absorption sets (api_run_sets), seed S;
 *   runs  mua i's row: the m points (mua[i], musp[j]) as one batch
 *         (api_run_batch), seed S + i (modulo 2^64); or, when the GPU
 *         scores the table's spatial frequencies (point_runs), each point
 *         a run of its own with that seed, as the GPU's kernel of them is
 *         a run's own (templates/fx.cu): the same values as a batch's.
 * Absorption is never scored (a table of reflectance needs the escapes
 * alone); one z bin, the table's rings; the spatial frequencies, if any,
 * on every point. */
#ifndef TMCML_LUT_CALLS_H
#define TMCML_LUT_CALLS_H

#include <stdint.h>

#include "api.h"
#include "lut_table.h"

/* One tmcml_lut call's table, as its calls fill it. */
typedef struct lut_work {
    tmcml_session *s;
    const tmcml_options *opt; /* the caller's: photons, seed, engine, ..., progress */
    tmcml_engine engine;      /* what each call is given */
    bool point_runs;          /* runs: a row's points one at a time, not batched */
    lut_spec spec;
    lut_table t;
    /* The whole table's photons, for the caller's progress callback: a
     * call's (sets: one history serves the chunk's mua; runs: the m
     * points'), the table's (saturated at 2^64 - 1), and the calls done
     * before the one in flight, and its point runs ended (point_runs). */
    uint64_t per_call, total;
    int before;
    uint64_t within;
} lut_work;

/* The progress counts of w's table (per_call, total). */
void lut_work_count(lut_work *w);

/* The problem of the point (mua, mus'), photons and name unset; NULL with
 * the session's error (TMCML_ERR_ARGUMENT) naming the point. */
tmcml_problem *lut_point_problem(lut_work *w, double mua, double musp);

/* Call c simulated into w->t: its points, Rsp, trapped photons and engine
 * (one engine for the whole table: its values differ from the other's).
 * TMCML_OK; TMCML_ERR_CANCELLED when the session's stop flag (a cancel,
 * the progress callback's answer) ended it; another failure naming the
 * column or row.  Failed, the call's points are left as they were. */
tmcml_status lut_call(lut_work *w, int c);

#endif
