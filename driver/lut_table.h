/* A lookup table of diffuse reflectance, total and per ring, of one
 * homogeneous layer over a grid of mua and mus' (docs/lut.md): what its
 * values depend on (lut_spec), and its values as its simulations fill them
 * (lut_table).  The library simulates it (api/lut.c, tmcml_lut) in library
 * calls, each of which gives the same values whenever it is made, so that
 * a table is kept and continued call by call (lut_checkpoint.h):
 *   sets  call c is column c / C's chunk c % C (C = ceil(k /
 *         TM_MAX_ABSORPTION_SETS) chunks a column): one simulation whose
 *         mua are absorption sets, seed S for every column;
 *   runs  call i is mua i's row, the m mus' batched, seed S + i (modulo
 *         2^64). */
#ifndef TMCML_LUT_TABLE_H
#define TMCML_LUT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The thickness [cm] of a semi-infinite layer (d = inf), as Python's
 * SEMI_INFINITE_D (python/tmcml/problem.py, docs/library.md): no photon
 * crosses 10^8 cm of tissue. */
#define LUT_SEMI_INFINITE_D 1e8

/* The numbers are the checkpoint's (1 sets, 2 runs) and tmcml.h's
 * TMCML_LUT_*. */
typedef enum lut_strategy { LUT_AUTO = 0, LUT_SETS = 1, LUT_RUNS = 2 } lut_strategy;

/* "auto", "sets", "runs". */
const char *lut_strategy_name(lut_strategy s);

/* What every value of a table depends on, besides its strategy and the
 * engine's physics. */
typedef struct lut_spec {
    double n, n_above, n_below, g, d; /* d in cm: LUT_SEMI_INFINITE_D for inf */
    const double *mua, *musp;         /* k and m values, 1/cm, increasing */
    int k, m;
    int nr;
    double dr; /* cm */
    int64_t photons;
    uint64_t seed;
    uint32_t max_steps; /* steps after which a photon is trapped; 0: the default */
    /* Each point's standard errors (docs/lut.md, "Error bars and a table
     * of one precision"): asked (errors), or implied by a precision, with
     * which each point runs until precision_of's relative standard error
     * (NULL: Rd's) is at most precision, photons then being its most. */
    bool errors;
    double precision; /* 0: none */
    const char *precision_of;
    /* The spatial frequencies each point scores R(fx) at (docs/lut.md,
     * "Spatial frequencies: an SFDI table"): fx_count of them in 1/cm (0:
     * none). */
    const double *fx;
    int fx_count;
} lut_spec;

typedef struct lut_table {
    int m, k, nr;          /* mus' count, mua count, rings */
    int nfx;               /* spatial frequencies (0: none) */
    double *rd;            /* [m][k]: Rd of (musp[j], mua[i]) at j * k + i (the caller's) */
    double *rd_r;          /* [m][k][nr] (1/cm2) (the caller's) */
    double *rd_fx;         /* [m][k][nfx]: R(fx) (the caller's; NULL without frequencies) */
    double rsp;            /* specular reflectance (the same at every point) */
    lut_strategy strategy; /* the one used: sets or runs */
    char engine[8];        /* "cpu" or "gpu": every call's ("" before the first) */
    int calls;             /* library calls of the whole table (lut_table_span) */
    unsigned char *done;   /* [calls]: 1 once call c's points hold its values */
    int done_count;        /* calls done: resumed and made */
    int made;              /* calls simulated, not read from a checkpoint */
    uint64_t trapped;      /* photons stopped as never ending, over the calls done */
    /* With errors (lut_spec), each point's (owned; NULL without): */
    double *rd_stderr;    /* [m][k]: Rd's standard error */
    double *rd_r_stderr;  /* [m][k][nr] */
    uint64_t *photons;    /* [m][k]: the photons it took */
    double *reached;      /* [m][k]: the relative standard error of the precision's quantity */
    double *rd_fx_stderr; /* [m][k][nfx]: with frequencies too */
} lut_table;

/* The points one call simulates, numbered j * k + i: count of them from
 * first, stride apart. */
typedef struct lut_span {
    size_t first, stride;
    int count;
} lut_span;
lut_span lut_table_span(const lut_table *t, int call);

/* The calls of a table of spec's size under strategy (sets or runs). */
int lut_table_calls(const lut_spec *spec, lut_strategy strategy);

/* An empty table of spec's size for strategy, over the caller's rd
 * (m x k), rd_r (m x k x nr) and with frequencies rd_fx (m x k x
 * fx_count), which are zeroed, with arrays of its own for the errors spec
 * asks; false with *err when out of memory. */
bool lut_table_init(lut_table *t, const lut_spec *spec, lut_strategy strategy, double *rd,
                    double *rd_r, double *rd_fx, tm_error *err);

/* No call done: every value 0 again (a checkpoint that was refused after
 * part of it was read). */
void lut_table_clear(lut_table *t);

/* The points of the calls done. */
int64_t lut_table_points_done(const lut_table *t);

/* Of a table with a precision, the points done that stopped at their most
 * photons short of it, and the photons the points done took. */
int64_t lut_table_points_short(const lut_table *t, double precision);
uint64_t lut_table_photons_done(const lut_table *t);

/* Frees what t owns (not the caller's arrays). */
void lut_table_free(lut_table *t);

#endif
