/* The tuner's staged search (tuner/search.h). */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "run_view.h"
#include "variant.h"

#define COMPILE_ESTIMATE_SECONDS 0.3
#define SHAPES_PER_BUDGET        3

void tune_options_init(tune_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->seed = 1;
    opt->budget_seconds = 60;
    opt->min_kernel_seconds = 0.1;
    opt->repeats = 3;
}

void tune_result_free(tune_result *res)
{
    free(res->candidates);
    memset(res, 0, sizeof *res);
}

const char *tune_status_name(tune_status s)
{
    switch (s) {
    case TUNE_MEASURED: return "measured";
    case TUNE_SKIPPED: return "skipped";
    case TUNE_FAILED: return "failed";
    case TUNE_MISMATCH: return "MISMATCH";
    }
    return "?";
}

/* ---- the search's state -------------------------------------------------- */

typedef struct search {
    measure_setup m;
    tune_result *res;
    candidate_limits lim;
    fluence_map map; /* pilot deposit events (absorption scored only) */
    bool have_map;
    uint64_t reference; /* the reference's tallies digest */
    double start;
    tm_error *err;
} search;

static double elapsed(const search *s) { return tune_runner_now(s->m.runner) - s->start; }

/* Time one more candidate would take, from the reference's. */
static bool budget_allows(const search *s)
{
    const tune_result *r = s->res;
    if (r->reference < 0)
        return true;
    double t = r->candidates[r->reference].median_seconds;
    double cost = COMPILE_ESTIMATE_SECONDS + (s->m.opt->repeats + 0.5) * t * 2;
    return elapsed(s) + cost <= s->m.opt->budget_seconds;
}

static bool known(const tune_result *r, const kernel_knobs *c)
{
    for (int i = 0; i < r->count; i++)
        if (knobs_equal(&r->candidates[i].config, c))
            return true;
    return false;
}

tune_candidate *tune_result_add(tune_result *r, const kernel_knobs *c, const char *stage)
{
    if (r->count == r->capacity) {
        int cap = r->capacity ? 2 * r->capacity : 32;
        tune_candidate *more = realloc(r->candidates, (size_t)cap * sizeof *more);
        if (!more)
            return NULL;
        r->candidates = more;
        r->capacity = cap;
    }
    tune_candidate *t = &r->candidates[r->count++];
    memset(t, 0, sizeof *t);
    t->config = *c;
    t->stage = stage;
    return t;
}

static void log_candidate(const search *s, const tune_candidate *c)
{
    FILE *f = s->m.opt->log;
    if (!f)
        return;
    char text[256];
    knobs_text(&c->config, text, sizeof text);
    if (c->status == TUNE_MEASURED)
        fprintf(f, "  %-9s %-66s %9.4g photons/s  (%d regs, %d blocks/SM)\n", c->stage, text,
                c->photons_per_second, c->registers, c->blocks_per_sm);
    else
        fprintf(f, "  %-9s %-66s %s: %s\n", c->stage, text, tune_status_name(c->status), c->why);
    fflush(f);
}

static double captured_fraction(const search *s, const kernel_knobs *c)
{
    if (!s->have_map || s->map.total == 0)
        return 0;
    return (double)(fluence_map_captured(&s->map, c->tile_nr, c->tile_nz) + s->map.edges) /
           (double)s->map.total;
}

/* Measures config unless it was measured already or the budget is spent.
 * False only on an error that stops the search. */
static bool try_config(search *s, const kernel_knobs *config, const char *stage, bool bias)
{
    tune_result *r = s->res;
    if (known(r, config) || !budget_allows(s))
        return true;
    tune_candidate *c = tune_result_add(r, config, stage);
    if (!c) {
        error_set(s->err, NULL, 0, "out of memory");
        return false;
    }
    c->captured = captured_fraction(s, config);
    if (!measure_candidate(&s->m, c, bias, NULL, s->err))
        return false;
    if (c->status == TUNE_MISMATCH)
        r->mismatches++;
    if (c->status == TUNE_MEASURED &&
        (r->winner < 0 || c->photons_per_second > r->candidates[r->winner].photons_per_second))
        r->winner = (int)(c - r->candidates);
    log_candidate(s, c);
    return true;
}

/* ---- stage 0: the reference and the pilot --------------------------------- */

static bool measure_reference(search *s, const kernel_knobs *config)
{
    tune_result *r = s->res;
    tune_candidate *c = tune_result_add(r, config, "reference");
    if (!c) {
        error_set(s->err, NULL, 0, "out of memory");
        return false;
    }
    if (!measure_candidate(&s->m, c, false, &s->reference, s->err))
        return false;
    if (c->status != TUNE_MEASURED) {
        error_set(s->err, NULL, 0, "the reference kernel (the heuristic's) did not run: %s",
                  c->why);
        return false;
    }
    r->reference = r->winner = 0;
    s->m.reference = &s->reference;
    log_candidate(s, c);
    return true;
}

/* Deposit events per bin, from the reference kernel with counting on. */
static bool pilot_fluence(search *s, const kernel_spec *reference_spec)
{
    kernel_spec spec = *reference_spec;
    spec.count_deposits = true;
    tune_measurement t;
    uint64_t photons = s->m.photons / 4 > 1000 ? s->m.photons / 4 : s->m.photons;
    if (!measure_run_once(&s->m, &spec, photons, &t, s->err))
        return false;
    bool ok = t.deposits && t.nr == s->m.run->nr && t.nz == s->m.run->nz;
    if (!ok)
        error_set(s->err, NULL, 0, "the pilot's deposit map is missing or not %dx%d", s->m.run->nr,
                  s->m.run->nz);
    else if (!(ok = fluence_map_init(&s->map, t.nr, t.nz, t.deposits)))
        error_set(s->err, NULL, 0, "out of memory for the pilot's deposit map");
    tune_measurement_free(&t);
    s->have_map = ok;
    s->res->candidates[s->res->reference].captured =
        ok ? captured_fraction(s, &s->res->candidates[s->res->reference].config) : 0;
    return ok;
}

/* ---- stages 1-3 ------------------------------------------------------------ */

/* Shared memory a block of config c may give its tile at `residency`
 * blocks per SM: the residency's share less the static layer table. */
static size_t tile_budget(const search *s, const kernel_knobs *c, int residency)
{
    kernel_spec shape;
    spec_init(&shape);
    shape.num_layers = s->m.run->num_layers;
    shape.knobs.layer_placement = c->layer_placement;
    size_t bytes = candidates_shared_budget(&s->lim, residency);
    size_t table = spec_static_shared_bytes(&shape);
    return bytes > table ? bytes - table : 0;
}

/* The tile that captures most pilot events within `bytes` (0x0 when none fits). */
static void best_tile(const search *s, size_t bytes, int entry_bits, kernel_knobs *c)
{
    c->entry_bits = entry_bits;
    c->tile_nr = c->tile_nz = 0;
    if (!s->m.score_absorption || !s->have_map)
        return;
    size_t entries = candidates_tile_entries(bytes, entry_bits, s->map.nr, s->map.nz);
    tile_shape shape;
    if (candidates_tile_shapes(&s->map, entries, 1, &shape) == 1 && shape.captured > 0) {
        c->tile_nr = shape.nr;
        c->tile_nz = shape.nz;
    }
}

/* Residency level by level (full occupancy for every block size, then the
 * next), so that a budget that runs out early has still seen every block
 * size. */
static bool stage_launch(search *s, const kernel_knobs *base)
{
    static const int blocks[] = {256, 512, 128, 1024};
    enum { BLOCKS = sizeof blocks / sizeof *blocks, LEVELS = 3 };
    int residency[BLOCKS][LEVELS + 1], count[BLOCKS];
    for (int b = 0; b < BLOCKS; b++)
        count[b] = candidates_residencies(&s->lim, blocks[b], LEVELS, residency[b]);
    for (int level = 0; level < LEVELS; level++)
        for (int b = 0; b < BLOCKS; b++) {
            if (level >= count[b])
                continue;
            kernel_knobs c = *base;
            c.block_size = blocks[b];
            c.min_blocks_per_sm = residency[b][level];
            best_tile(s, tile_budget(s, &c, c.min_blocks_per_sm), 32, &c);
            if (!try_config(s, &c, "launch", false))
                return false;
        }
    return true;
}

static bool stage_tile(search *s)
{
    if (!s->m.score_absorption || !s->have_map)
        return true;
    kernel_knobs best = s->res->candidates[s->res->winner].config;
    int residency = best.min_blocks_per_sm > 0 ? best.min_blocks_per_sm : 1;
    size_t bytes = tile_budget(s, &best, residency);
    static const int widths[] = {32, 64};
    for (int w = 0; w < 2; w++)
        for (int half = 0; half < 2; half++) {
            size_t entries =
                candidates_tile_entries(half ? bytes / 2 : bytes, widths[w], s->map.nr, s->map.nz);
            tile_shape shapes[SHAPES_PER_BUDGET];
            int n = candidates_tile_shapes(&s->map, entries, SHAPES_PER_BUDGET, shapes);
            for (int i = 0; i < n; i++) {
                kernel_knobs c = best;
                c.entry_bits = widths[w];
                c.tile_nr = shapes[i].nr;
                c.tile_nz = shapes[i].nz;
                if (!try_config(s, &c, "tile", false))
                    return false;
            }
        }
    kernel_knobs none = best;
    none.tile_nr = none.tile_nz = 0;
    return try_config(s, &none, "tile", false);
}

/* Thread-block clusters (sm_90): the winner's launch with a cluster of 2, 4
 * and 8 blocks holding together a tile that many times larger, the shape
 * that captures most pilot events in it. */
static bool stage_cluster(search *s)
{
    if (!s->m.score_absorption || !s->have_map || s->m.runner->device->cc_major < 9)
        return true;
    kernel_knobs best = s->res->candidates[s->res->winner].config;
    int residency = best.min_blocks_per_sm > 0 ? best.min_blocks_per_sm : 1;
    size_t per_block = candidates_tile_entries(tile_budget(s, &best, residency), best.entry_bits,
                                               s->map.nr, s->map.nz);
    static const int sizes[] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        tile_shape shape;
        if (candidates_tile_shapes(&s->map, per_block * (size_t)sizes[k], 1, &shape) != 1 ||
            shape.captured == 0)
            continue;
        kernel_knobs c = best;
        c.cluster_size = sizes[k];
        c.tile_nr = shape.nr;
        c.tile_nz = shape.nz;
        if (!try_config(s, &c, "cluster", false))
            return false;
    }
    return true;
}

static bool chosen(const int *list, int n, int i)
{
    for (int k = 0; k < n; k++)
        if (list[k] == i)
            return true;
    return false;
}

/* Indices of the `count` fastest measured candidates, fastest first. */
static int fastest(const tune_result *r, int count, int *out)
{
    int n = 0;
    for (; n < count; n++) {
        int best = -1;
        for (int i = 0; i < r->count; i++)
            if (r->candidates[i].status == TUNE_MEASURED && !chosen(out, n, i) &&
                (best < 0 ||
                 r->candidates[i].photons_per_second > r->candidates[best].photons_per_second))
                best = i;
        if (best < 0)
            break;
        out[n] = best;
    }
    return n;
}

/* The other layer placement (constant <-> shared), the tile refitted to the
 * shared memory left. */
static void other_placement(const search *s, const kernel_knobs *best, kernel_knobs *c)
{
    *c = *best;
    c->layer_placement =
        best->layer_placement == SPEC_LAYERS_SHARED ? SPEC_LAYERS_CONSTANT : SPEC_LAYERS_SHARED;
    if (best->tile_nr > 0 && best->min_blocks_per_sm > 0) {
        size_t bytes = tile_budget(s, c, best->min_blocks_per_sm);
        kernel_knobs fitted = *c;
        best_tile(s, bytes, best->entry_bits, &fitted);
        if ((long)fitted.tile_nr * fitted.tile_nz < (long)c->tile_nr * c->tile_nz) {
            c->tile_nr = fitted.tile_nr;
            c->tile_nz = fitted.tile_nz;
        }
    }
}

/* Around the three fastest: the other layer placement, the last-bin cache
 * toggled, the edge cache toggled, no launch bound. */
static bool stage_refine(search *s)
{
    int top[3];
    int n = fastest(s->res, 3, top);
    kernel_knobs best[3];
    for (int i = 0; i < n; i++)
        best[i] = s->res->candidates[top[i]].config;
    for (int i = 0; i < n; i++) {
        kernel_knobs c;
        other_placement(s, &best[i], &c);
        if (!try_config(s, &c, "refine", false))
            return false;
        if (s->m.score_absorption) {
            c = best[i];
            c.last_bin_cache = !best[i].last_bin_cache;
            if (!try_config(s, &c, "refine", false))
                return false;
            c = best[i];
            c.edge_cache = !best[i].edge_cache;
            if (!try_config(s, &c, "refine", false))
                return false;
        }
        c = best[i];
        c.min_blocks_per_sm = 0;
        if (!try_config(s, &c, "refine", false))
            return false;
    }
    return true;
}

/* Test-only: a kernel that scores one unit too many per escape; the gate
 * must reject it. */
static bool stage_wrong(search *s)
{
    kernel_knobs c = s->res->candidates[s->res->reference].config;
    c.block_size = c.block_size == 128 ? 64 : 128; /* a configuration of its own */
    tune_candidate *t = tune_result_add(s->res, &c, "wrong");
    if (!t) {
        error_set(s->err, NULL, 0, "out of memory");
        return false;
    }
    if (!measure_candidate(&s->m, t, true, NULL, s->err))
        return false;
    if (t->status == TUNE_MISMATCH)
        s->res->mismatches++;
    log_candidate(s, t);
    return true;
}

static void limits_of(const tune_device *dev, candidate_limits *lim)
{
    lim->shared_per_sm = dev->shared_per_sm;
    lim->shared_per_block_optin = dev->shared_per_block_optin;
    lim->max_threads_per_sm = dev->max_threads_per_sm;
    lim->regs_per_sm = dev->regs_per_sm;
}

static bool run_stages(search *s)
{
    const tune_device *dev = s->m.runner->device;
    variant_options none;
    variant_options_init(&none);
    kernel_spec heuristic;
    if (!variant_spec_for_run(s->m.run, s->m.score_absorption, dev, &none, &heuristic, s->err) ||
        (s->m.opt->num_sets > 0 &&
         !variant_sets_spec(&heuristic,
                            (sets_scoring){s->m.opt->num_sets, s->m.opt->sets_paths,
                                           s->m.opt->sets_jacobian, s->m.opt->sets_optics},
                            &none, dev, s->err)))
        return false;
    kernel_knobs base;
    base = heuristic.knobs;
    if (!measure_pilot_size(&s->m, &heuristic, &s->m.photons, &s->res->steps_per_photon, NULL,
                            s->err) ||
        !measure_reference(s, &base))
        return false;
    if (s->m.score_absorption && !pilot_fluence(s, &heuristic))
        return false;
    if (s->m.opt->debug_wrong_candidate && !stage_wrong(s))
        return false;
    return stage_launch(s, &base) && stage_tile(s) && stage_cluster(s) && stage_refine(s);
}

bool tune_search(const tune_runner *runner, const mci_run *run, bool score_absorption,
                 const tune_options *opt, tune_result *res, tm_error *err)
{
    memset(res, 0, sizeof *res);
    res->reference = res->winner = -1;
    search s = {
        .m = {.runner = runner, .run = run, .score_absorption = score_absorption, .opt = opt},
        .res = res,
        .start = tune_runner_now(runner),
        .err = err};
    limits_of(runner->device, &s.lim);
    bool ok = run_stages(&s);
    res->num_sets = opt->num_sets;
    res->sets_paths = opt->sets_paths;
    res->sets_jacobian = opt->sets_jacobian;
    res->sets_optics = opt->sets_optics;
    res->pilot_photons = s.m.photons;
    res->seconds = elapsed(&s);
    fluence_map_free(&s.map);
    return ok;
}

/* ---- results ------------------------------------------------------------- */

void tune_result_entry(const tune_result *res, const mci_run *run, bool score_absorption,
                       profile_entry *e)
{
    memset(e, 0, sizeof *e);
    e->cls = run_view_shape(run, score_absorption);
    problem_shape_for_sets(&e->cls, (sets_scoring){res->num_sets, res->sets_paths,
                                                   res->sets_jacobian, res->sets_optics});
    const tune_candidate *w = &res->candidates[res->winner];
    e->config = w->config;
    e->photons_per_second = w->photons_per_second;
    e->steps_per_second = w->photons_per_second * res->steps_per_photon;
    e->heuristic_photons_per_second = res->candidates[res->reference].photons_per_second;
    e->pilot_photons = res->pilot_photons;
    e->candidates = 0;
    for (int i = 0; i < res->count; i++)
        e->candidates += res->candidates[i].status == TUNE_MEASURED;
    e->tuning_seconds = res->seconds;
    profile_date_now(e->date, sizeof e->date);
}
