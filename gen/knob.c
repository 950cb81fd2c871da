/* The table of kernel knobs and what is done with it (gen/knob.h). */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const placement_names[] = {"constant", "shared", "immediate", NULL};

#define AT(field) offsetof(kernel_knobs, field)

/* ORDER KNOB (gen/knob.h): append new knobs at the end. */
const knob knob_table[] = {
    {.name = "tile",
     .option = "--tile",
     .kind = KNOB_TILE,
     .offset = AT(tile_nr),
     .hi = 1000000,
     .neutral = 0,
     .absorption_only = true,
     .value_help = "NRxNZ",
     .help = "A_rz bins cached in shared memory, anchored at r = 0, z = 0 (0x0: none)"},
    {.name = "entry_bits",
     .option = "--entry",
     .kind = KNOB_INT,
     .offset = AT(entry_bits),
     .lo = 32,
     .hi = 64,
     .step = 32,
     .neutral = 64,
     .absorption_only = true,
     .value_help = "32|64",
     .help = "width of a shared entry in bits (32-bit entries are flushed exactly on wrap)"},
    {.name = "block_size",
     .option = "--block",
     .kind = KNOB_INT,
     .offset = AT(block_size),
     .lo = 32,
     .hi = 1024,
     .step = 32,
     .neutral = 256,
     .value_help = "N",
     .help = "threads per block (a multiple of 32)"},
    {.name = "min_blocks_per_sm",
     .option = "--min-blocks",
     .kind = KNOB_INT,
     .offset = AT(min_blocks_per_sm),
     .lo = 0,
     .hi = 32,
     .step = 1,
     .neutral = 0,
     .value_help = "N",
     .help = "__launch_bounds__ minimum resident blocks per SM (0: no bound)"},
    {.name = "layer_placement",
     .option = "--layers",
     .kind = KNOB_CHOICE,
     .offset = AT(layer_placement),
     .choices = placement_names,
     .neutral = 0,
     .value_help = "constant|shared|immediate",
     .help = "where the layer table lives (immediate bakes the optics into the kernel: one "
             "compile per optical properties)"},
    {.name = "last_bin_cache",
     .option = "--last-bin",
     .kind = KNOB_SWITCH,
     .offset = AT(last_bin_cache),
     .neutral = 0,
     .absorption_only = true,
     .value_help = "on|off",
     .help = "sum consecutive deposits into one A_rz bin in a register"},
    {.name = "edge_cache",
     .option = "--edge-cache",
     .kind = KNOB_SWITCH,
     .offset = AT(edge_cache),
     .neutral = 1,
     .absorption_only = true,
     .value_help = "on|off",
     .help = "cache the last row and column of A_rz (the beyond-grid bins) in shared memory"},
    {.name = "cluster_size",
     .option = "--cluster",
     .kind = KNOB_INT,
     .offset = AT(cluster_size),
     .lo = 1,
     .hi = SPEC_MAX_CLUSTER,
     .step = 1,
     .neutral = 1,
     .absorption_only = true,
     .value_help = "1..8",
     .help = "blocks of a Hopper thread-block cluster that hold one A_rz tile together in "
             "distributed shared memory, each a 1/N share (1: no cluster; sm_90 and later)"},
    /* Persistent threads take photon indices from a counter, so the blocks
     * launched change no tally; fewer than fit can be faster (the
     * intralipid slab's kernel on one block of 1024 an SM instead of two,
     * on an H100: -10 % at 3*10^7 photons, -1.3 % at 10^8; a launch's fixed
     * costs, not its pace, so the tuner does not try it: docs/tuning.md). */
    {.name = "launch_blocks_per_sm",
     .option = "--launch-blocks",
     .kind = KNOB_INT,
     .offset = AT(launch_blocks_per_sm),
     .lo = 0,
     .hi = 32,
     .step = 1,
     .neutral = 0,
     .launch_only = true,
     .value_help = "N",
     .help = "blocks launched per SM, at most those that fit (0: all that fit)"},
};
const int knob_count = (int)(sizeof knob_table / sizeof knob_table[0]);

const knob *knob_by_option(const char *option)
{
    for (int i = 0; i < knob_count; i++)
        if (option && strcmp(option, knob_table[i].option) == 0)
            return &knob_table[i];
    return NULL;
}

const knob *knob_by_name(const char *name)
{
    for (int i = 0; i < knob_count; i++)
        if (name && strcmp(name, knob_table[i].name) == 0)
            return &knob_table[i];
    return NULL;
}

int knob_index(const knob *k) { return (int)(k - knob_table); }

static int *int_field(const knob *k, kernel_knobs *v) { return (int *)((char *)v + k->offset); }
static const int *int_field_c(const knob *k, const kernel_knobs *v)
{
    return (const int *)((const char *)v + k->offset);
}

int knob_get(const knob *k, const kernel_knobs *v)
{
    if (k->kind == KNOB_SWITCH)
        return *(const bool *)((const char *)v + k->offset) ? 1 : 0;
    return *int_field_c(k, v);
}

void knob_set(const knob *k, kernel_knobs *v, int value)
{
    if (k->kind == KNOB_SWITCH)
        *(bool *)((char *)v + k->offset) = value != 0;
    else
        *int_field(k, v) = value;
}

void knob_get_tile(const knob *k, const kernel_knobs *v, int *nr, int *nz)
{
    *nr = int_field_c(k, v)[0];
    *nz = int_field_c(k, v)[1];
}

void knob_set_tile(const knob *k, kernel_knobs *v, int nr, int nz)
{
    int_field(k, v)[0] = nr;
    int_field(k, v)[1] = nz;
}

int knob_field_count(const knob *k) { return k->kind == KNOB_TILE ? 2 : 1; }

void knob_field_name(const knob *k, int i, char *buf, size_t size)
{
    if (k->kind == KNOB_TILE)
        snprintf(buf, size, "%s_%s", k->name, i ? "nz" : "nr");
    else
        snprintf(buf, size, "%s", k->name);
}

int knob_field_get(const knob *k, const kernel_knobs *v, int i)
{
    return k->kind == KNOB_TILE ? int_field_c(k, v)[i] : knob_get(k, v);
}

void knob_field_set(const knob *k, kernel_knobs *v, int i, int value)
{
    if (k->kind == KNOB_TILE)
        int_field(k, v)[i] = value;
    else
        knob_set(k, v, value);
}

/* ---- text ------------------------------------------------------------------- */

/* A non-negative decimal int at text; *end after it. */
static bool parse_count(const char *text, const char **end, int *value)
{
    if (*text < '0' || *text > '9')
        return false;
    errno = 0;
    char *stop;
    long v = strtol(text, &stop, 10);
    if (errno || v > 1000000000L)
        return false;
    *value = (int)v;
    *end = stop;
    return true;
}

static bool parse_int_text(const char *text, int *value)
{
    const char *end;
    bool negative = text[0] == '-';
    if (!parse_count(text + negative, &end, value) || *end != '\0')
        return false;
    if (negative)
        *value = -*value;
    return true;
}

static bool parse_tile_text(const char *text, int *nr, int *nz)
{
    const char *p = text;
    int a, b;
    if (!parse_count(p, &p, &a) || (*p != 'x' && *p != 'X'))
        return false;
    if (!parse_count(p + 1, &p, &b) || *p != '\0')
        return false;
    *nr = a;
    *nz = b;
    return true;
}

static bool parse_choice(const knob *k, const char *text, int *value)
{
    for (int i = 0; k->choices[i]; i++)
        if (strcmp(text, k->choices[i]) == 0) {
            *value = i;
            return true;
        }
    return false;
}

static bool parse_switch(const char *text, int *value)
{
    if (strcmp(text, "on") != 0 && strcmp(text, "off") != 0)
        return false;
    *value = strcmp(text, "on") == 0;
    return true;
}

static int choice_count(const knob *k)
{
    int n = 0;
    while (k->choices[n])
        n++;
    return n;
}

bool knob_parse(const knob *k, const char *text, kernel_knobs *v, tm_error *err)
{
    kernel_knobs tried = *v;
    int a = 0, b = 0;
    bool ok = text != NULL;
    if (ok && k->kind == KNOB_TILE) {
        ok = parse_tile_text(text, &a, &b);
        if (ok)
            knob_set_tile(k, &tried, a, b);
    } else if (ok) {
        if (k->kind == KNOB_INT)
            ok = parse_int_text(text, &a);
        else if (k->kind == KNOB_CHOICE)
            ok = parse_choice(k, text, &a);
        else
            ok = parse_switch(text, &a);
        if (ok)
            knob_set(k, &tried, a);
    }
    tm_error why;
    if (!ok || !knob_check(k, &tried, &why)) {
        error_set(err, NULL, 0, "%s: expected %s (got \"%s\")", k->option, k->value_help,
                  text ? text : "");
        return false;
    }
    *v = tried;
    return true;
}

void knob_format(const knob *k, const kernel_knobs *v, char *buf, size_t size)
{
    int nr, nz;
    switch (k->kind) {
    case KNOB_TILE:
        knob_get_tile(k, v, &nr, &nz);
        snprintf(buf, size, "%dx%d", nr, nz);
        break;
    case KNOB_SWITCH: snprintf(buf, size, "%s", knob_get(k, v) ? "on" : "off"); break;
    case KNOB_CHOICE:
        nr = knob_get(k, v);
        snprintf(buf, size, "%s", nr >= 0 && nr < choice_count(k) ? k->choices[nr] : "unknown");
        break;
    case KNOB_INT: snprintf(buf, size, "%d", knob_get(k, v)); break;
    }
}

int knob_column_width(const knob *k)
{
    int w = (int)strlen(k->name), v = 0;
    switch (k->kind) {
    case KNOB_TILE:
        v = 9; /* "1000x1000" */
        break;
    case KNOB_INT: v = snprintf(NULL, 0, "%d", k->hi); break;
    case KNOB_SWITCH: v = 3; break;
    case KNOB_CHOICE:
        for (int i = 0; k->choices[i]; i++)
            v = (int)strlen(k->choices[i]) > v ? (int)strlen(k->choices[i]) : v;
        break;
    }
    return w > v ? w : v;
}

/* ---- ranges ------------------------------------------------------------------ */

bool knob_violation(const knob *k, const kernel_knobs *v, char *rule, size_t size)
{
    int x = knob_get(k, v), nr, nz;
    switch (k->kind) {
    case KNOB_TILE:
        knob_get_tile(k, v, &nr, &nz);
        if (nr < 0 || nz < 0 || nr > k->hi || nz > k->hi || (nr == 0) != (nz == 0)) {
            snprintf(rule, size, "%dx%d: both dimensions must be 1..%d (or 0x0 for none)", nr, nz,
                     k->hi);
            return true;
        }
        return false;
    case KNOB_INT:
        if (x < k->lo || x > k->hi || (x - k->lo) % k->step != 0) {
            if (k->step > 1)
                snprintf(rule, size, "%d: must be %d..%d in steps of %d", x, k->lo, k->hi, k->step);
            else
                snprintf(rule, size, "%d: must be %d..%d", x, k->lo, k->hi);
            return true;
        }
        return false;
    case KNOB_CHOICE:
        if (x < 0 || x >= choice_count(k)) {
            snprintf(rule, size, "%d: not one of %s", x, k->value_help);
            return true;
        }
        return false;
    case KNOB_SWITCH: return false;
    }
    return false;
}

bool knob_check(const knob *k, const kernel_knobs *v, tm_error *err)
{
    char rule[256];
    if (!knob_violation(k, v, rule, sizeof rule))
        return true;
    error_set(err, NULL, 0, "%s %s", k->name, rule);
    return false;
}

static void set_neutral(const knob *k, kernel_knobs *v)
{
    for (int f = 0; f < knob_field_count(k); f++)
        knob_field_set(k, v, f, k->neutral);
}

void knobs_init(kernel_knobs *v)
{
    memset(v, 0, sizeof *v);
    for (int i = 0; i < knob_count; i++)
        set_neutral(&knob_table[i], v);
}

void knobs_without_absorption(kernel_knobs *v)
{
    for (int i = 0; i < knob_count; i++)
        if (knob_table[i].absorption_only)
            set_neutral(&knob_table[i], v);
}

bool knobs_check(const kernel_knobs *v, tm_error *err)
{
    for (int i = 0; i < knob_count; i++)
        if (!knob_check(&knob_table[i], v, err))
            return false;
    return true;
}

bool knobs_equal(const kernel_knobs *a, const kernel_knobs *b)
{
    for (int i = 0; i < knob_count; i++)
        for (int f = 0; f < knob_field_count(&knob_table[i]); f++)
            if (knob_field_get(&knob_table[i], a, f) != knob_field_get(&knob_table[i], b, f))
                return false;
    return true;
}

void knobs_text(const kernel_knobs *v, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < knob_count && len + 1 < size; i++) {
        const knob *k = &knob_table[i];
        if (k->launch_only && knob_get(k, v) == k->neutral)
            continue;
        char value[64];
        knob_format(k, v, value, sizeof value);
        int n = snprintf(buf + len, size - len, "%s%s=%s", len ? " " : "", k->name, value);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

void knobs_usage(char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < knob_count && len + 1 < size; i++) {
        const knob *k = &knob_table[i];
        char head[64];
        snprintf(head, sizeof head, "%s %s", k->option, k->value_help);
        int n;
        if (strlen(head) < 22) /* the help beside the option, else on the next line */
            n = snprintf(buf + len, size - len, "  %-22s%s\n", head, k->help);
        else
            n = snprintf(buf + len, size - len, "  %s\n%24s%s\n", head, "", k->help);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}
