/* The kernel knobs: every variant knob of a KernelSpec is declared once, in
 * knob_table[] (gen/knob.c), in the spirit of Lua's ltm.c name table.  The
 * table drives the command-line options and their help, validation, the
 * neutral defaults, the spec key, the profile JSON fields, the Lua table the
 * templates read (`spec.NAME`), `gen --info`, and the columns of the tuner's
 * report and CSV.
 *
 * Adding a knob: a field in kernel_knobs, a row in knob_table[], the
 * template that uses it (templates/), and the values the tuner tries
 * (tuner/search.c).  Nothing else.  A knob changes how the kernel computes,
 * never what: every value must give bit-identical tallies (tests/test_gpu.c
 * identity gets a case). */
#ifndef TMCML_KNOB_H
#define TMCML_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "tm_limits.h"

/* The values of the knobs; fields are int (bool for switches) so that the
 * table can reach each one by its offset. */
typedef struct kernel_knobs {
    int tile_nr, tile_nz;     /* A_rz tile cached in shared memory (0x0: none) */
    int entry_bits;           /* shared entries: 32 (flushed exactly on wrap) or 64 */
    int block_size;           /* threads per block, multiple of 32 */
    int min_blocks_per_sm;    /* __launch_bounds__ second argument (0: none) */
    int layer_placement;      /* spec_layer_placement (gen/spec.h) */
    bool last_bin_cache;      /* consecutive deposits into one A_rz bin summed in a register */
    bool edge_cache;          /* the last row and column of A_rz cached in shared memory */
    int cluster_size;         /* blocks of a thread-block cluster sharing one tile (1: none) */
    int launch_blocks_per_sm; /* blocks launched per SM, at most those that fit (0: all) */
} kernel_knobs;

typedef enum knob_kind {
    KNOB_INT,    /* an int in lo..hi, a multiple of step above lo */
    KNOB_SWITCH, /* a bool: on | off (JSON true | false) */
    KNOB_CHOICE, /* an int naming one of choices[] (JSON and Lua: the name) */
    KNOB_TILE    /* two ints NRxNZ (JSON and Lua: NAME_nr, NAME_nz) */
} knob_kind;

typedef struct knob {
    const char *name;   /* key, JSON field, Lua field, CSV column */
    const char *option; /* command line: `OPTION VALUE` */
    knob_kind kind;
    size_t offset;              /* of its field (the first of two for a tile) in kernel_knobs */
    int lo, hi, step;           /* KNOB_INT */
    const char *const *choices; /* KNOB_CHOICE: names of 0, 1, ...; NULL-terminated */
    int neutral;                /* spec_init's value (a tile: both dimensions) */
    bool absorption_only;       /* only A_rz scoring uses it: -A kernels take the neutral value */
    /* The launch reads it, not the compiler: it never changes the kernel's
     * source, and knobs_text (so the spec key and the cubin's) names it
     * only when it is not neutral, so that the keys of every kernel made
     * before it stay as they were. */
    bool launch_only;
    const char *value_help; /* "NRxNZ", "32|64", ... */
    const char *help;
} knob;

/* ORDER KNOB: the order of the spec key, the JSON object and the report
 * columns; a new knob goes at the end, so that older keys keep their prefix. */
extern const knob knob_table[];
extern const int knob_count;

const knob *knob_by_option(const char *option);
const knob *knob_by_name(const char *name);
int knob_index(const knob *k);

/* KNOB_INT, KNOB_SWITCH and KNOB_CHOICE values as int (a tile: its nr). */
int knob_get(const knob *k, const kernel_knobs *v);
void knob_set(const knob *k, kernel_knobs *v, int value);
/* A tile's two dimensions. */
void knob_get_tile(const knob *k, const kernel_knobs *v, int *nr, int *nz);
void knob_set_tile(const knob *k, kernel_knobs *v, int nr, int nz);

/* A knob's fields as the profile JSON, the templates and the CSV name them:
 * one (NAME) for every kind but a tile, which has two (NAME_nr, NAME_nz).
 * A field's value is an int: a switch's 0 or 1, a choice's index. */
int knob_field_count(const knob *k);
void knob_field_name(const knob *k, int i, char *buf, size_t size);
int knob_field_get(const knob *k, const kernel_knobs *v, int i);
void knob_field_set(const knob *k, kernel_knobs *v, int i, int value);

/* Parses the command-line text of a value into *v and checks it; the error
 * names the option and what it expects ("--entry: expected 32|64 (got "48")"). */
bool knob_parse(const knob *k, const char *text, kernel_knobs *v, tm_error *err);
/* The value as the command line writes it ("48x128", "32", "shared", "on"). */
void knob_format(const knob *k, const kernel_knobs *v, char *buf, size_t size);
/* Characters of a table column that holds the knob's name and any value. */
int knob_column_width(const knob *k);
/* Range of one knob; the error names it and its value ("entry_bits 48: must
 * be 32 or 64"). */
bool knob_check(const knob *k, const kernel_knobs *v, tm_error *err);
/* The same test without the name: true when out of range, with the value
 * and the rule in rule ("48: must be 32..64 in steps of 32"), for callers
 * that name the field their own way (a profile: "entries[0].config.NAME"). */
bool knob_violation(const knob *k, const kernel_knobs *v, char *rule, size_t size);

void knobs_init(kernel_knobs *v); /* every knob neutral */
/* The knobs that only A_rz scoring uses set neutral (for -A kernels, which
 * score no absorption: one key for one source). */
void knobs_without_absorption(kernel_knobs *v);
bool knobs_check(const kernel_knobs *v, tm_error *err);
bool knobs_equal(const kernel_knobs *a, const kernel_knobs *b);

/* "tile=48x128 entry_bits=32 block_size=256 ...": every knob, table order
 * (a launch-only one only when it is not neutral); a buffer of
 * KNOBS_TEXT_MAX (base/tm_limits.h) holds it whole. */
void knobs_text(const kernel_knobs *v, char *buf, size_t size);
/* The help lines of the options, one per knob, into buf (NUL-terminated). */
void knobs_usage(char *buf, size_t size);

#endif
