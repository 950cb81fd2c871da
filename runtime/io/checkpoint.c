/* Checkpoint files (runtime/io/checkpoint.h). */
#include "checkpoint.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "le_file.h"
#include "run_options.h"
#include "textbuf.h"

#define MAGIC           "TMCMLCKP"
#define VERSION         1u
/* Version 2: version 1 followed by the path tallies (their layer count,
 * then Rd_path and Tt_path), written only by runs with path lengths, so a
 * run without them writes version 1's bytes. */
#define VERSION_PATHS   2u
/* Version 3: version 1 followed by a mask of the optional groups present
 * (bit 1 << OUTPUT_OPTION_...) and, group by group in the table's order,
 * its count (layers, time bins, detectors) and its tallies; written only
 * by runs with time bins, a detector or the derivatives, so the others
 * keep their bytes. */
#define VERSION_OPTIONS 3u
/* Version 4: version 3 (its mask may be 0) followed by the groups of the
 * standard errors (put_groups) and the group a stop cut (put_pending);
 * written only by runs that have groups or a cut one
 * (--stderr), so the others keep the bytes of versions 1 to 3. */
#define VERSION_GROUPS  4u
/* Version 5: version 4 with the mask of the arrays as u64, whose bits from
 * 32 on are the frequency domain's arrays; written only by runs with them
 * and groups, so the others keep the bytes of versions 1 to 4. */
#define VERSION_WIDE    5u
/* Version 6: version 5 with, instead of the one group a stop cut, every
 * group kept (put_kept: begun and not folded, or whole and waiting for
 * one before it: an MPI run's, whose ranks end groups out of order);
 * written only where the groups kept are not one cut group that is next,
 * so the others keep the bytes of versions 1 to 5. */
#define VERSION_KEPT    6u
/* Bounds a reader checks before allocating: texts are a few kB. */
#define MAX_TEXT        (1u << 20)

/* ---- input text ------------------------------------------------------------ */

char *checkpoint_input_text(const mci_run *run, bool score_absorption, uint32_t max_steps)
{
    textbuf t = TEXTBUF_INIT;
    textbuf_add(&t, "grid nz %d nr %d na %d dz %.17g dr %.17g\n", run->nz, run->nr, run->na,
                run->dz, run->dr);
    textbuf_add(&t, "n above %.17g\n", run->layers[0].n);
    for (int i = 1; i <= run->num_layers; i++) {
        const mci_layer *l = &run->layers[i];
        textbuf_add(&t, "layer %d: n %.17g mua %.17g mus %.17g g %.17g d %.17g\n", i, l->n, l->mua,
                    l->mus, l->g, l->d);
    }
    textbuf_add(&t, "n below %.17g\n", run->layers[run->num_layers + 1].n);
    textbuf_add(&t, "absorption %s\n", score_absorption ? "scored" : "not scored (-A)");
    textbuf_add(&t, "max_steps %" PRIu32 "\n", max_steps);
    if (run->path_lengths) /* only then: the text of a run without them is as before */
        textbuf_add(&t, "path lengths scored\n");
    if (!source_is_pencil(&run->source)) { /* likewise: a pencil run's text is as before */
        char source[160];
        source_text(&run->source, source, sizeof source);
        textbuf_add(&t, "source %s\n", source);
    }
    run_options_describe(run, "", &t); /* time bins, detector: likewise */
    if (run->history)                  /* likewise */
        textbuf_add(&t, "history of the absorption sets' reference fnv1a64:%016" PRIx64 "\n",
                    run->history);
    return textbuf_take(&t);
}

uint64_t checkpoint_done(const checkpoint *c)
{
    uint64_t n = 0;
    for (int i = 0; i < c->range_count; i++)
        n += c->ranges[i].end - c->ranges[i].begin;
    return n;
}

/* ---- writing ----------------------------------------------------------------- */

static void put_u128(le_writer *w, tally_acc_t v)
{
    le_put_u64(w, (uint64_t)v);
    le_put_u64(w, (uint64_t)(v >> 64));
}

static void put_array(le_writer *w, const tally_acc_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_u128(w, a[i]);
}

/* Version 3's optional part (VERSION_OPTIONS). */
static void put_options(le_writer *w, const tally_set *t)
{
    uint32_t mask = 0;
    for (int g = OUTPUT_OPTION_PATHS; g < OUTPUT_OPTIONS; g++)
        if (tally_set_option_length(t, (output_option)g) > 0)
            mask |= 1u << g;
    le_put_u32(w, mask);
    for (int g = OUTPUT_OPTION_PATHS; g < OUTPUT_OPTIONS; g++) {
        if (!(mask & (1u << g)))
            continue;
        le_put_u32(w, (uint32_t)tally_set_option_length(t, (output_option)g));
        for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)
            if ((int)output_tally(k)->option == g)
                put_array(w, t->tally[k], (size_t)tally_set_bins(t, k));
    }
}

static void put_doubles(le_writer *w, const double *a, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        le_put_double(w, a[i]);
}

/* A group's tallies: u128 steps, u64 trapped photons, u128 trapped units
 * and each tally the checkpoint's tallies have, as they are written. */
static void put_group_tallies(le_writer *w, const tally_set *p, const tally_set *like)
{
    put_u128(w, p->steps);
    le_put_u64(w, p->trapped_photons);
    put_u128(w, p->trapped_units);
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++)
        if (tally_set_has(like, k))
            put_array(w, p->tally[k], (size_t)tally_set_bins(like, k));
}

/* After them, versions 4 and 5: the group a stop cut (the one group kept,
 * the next to fold): u64 its index, u64 its photons, and when not 0 its
 * tallies (put_group_tallies). */
static void put_pending(le_writer *w, const uncertainty *u, const tally_set *like)
{
    const uncertainty_kept *k = u->kept_count > 0 ? &u->kept[0] : NULL;
    le_put_u64(w, k ? k->group : 0);
    le_put_u64(w, k ? k->tallies.photons : 0);
    if (k)
        put_group_tallies(w, &k->tallies, like);
}

/* Version 6: u32 the groups kept, then each: u64 its index, first photon,
 * photons (0: not known) and photons done, and its tallies
 * (put_group_tallies). */
static void put_kept(le_writer *w, const uncertainty *u, const tally_set *like)
{
    le_put_u32(w, (uint32_t)u->kept_count);
    for (int i = 0; i < u->kept_count; i++) {
        const uncertainty_kept *k = &u->kept[i];
        le_put_u64(w, k->group);
        le_put_u64(w, k->first);
        le_put_u64(w, k->size);
        le_put_u64(w, k->tallies.photons);
        put_group_tallies(w, &k->tallies, like);
    }
}

/* Version 4's part: u32 groups, u64 photons, the grid (u32 nr, nz, na,
 * layers, time bins, detectors), the mask of the arrays (bit i:
 * output_table[i]; u32, from version 5 on u64), the totals' means then m2
 * (Rd, A, Tt; f64), then each array of the mask in the table's order, its
 * means then its m2 (f64, the entries it is kept in: output_stored).
 * After them the groups kept: put_pending (versions 4 and 5) or put_kept
 * (version 6). */
static void put_groups(le_writer *w, const uncertainty *u, uint32_t version)
{
    le_put_u32(w, (uint32_t)u->groups);
    le_put_u64(w, u->photons);
    const output_grid *g = &u->grid;
    const int axes[] = {g->nr, g->nz, g->na, g->num_layers, g->nt, g->detectors};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        le_put_u32(w, (uint32_t)axes[i]);
    uint64_t arrays = uncertainty_arrays(u);
    if (version >= VERSION_WIDE)
        le_put_u64(w, arrays);
    else
        le_put_u32(w, (uint32_t)arrays);
    if (u->groups == 0)
        return; /* only a cut group (put_pending) */
    put_doubles(w, u->mean, 3);
    put_doubles(w, u->m2, 3);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!u->array_mean[i])
            continue;
        uint64_t n = output_stored(&output_table[i], g);
        put_doubles(w, u->array_mean[i], n);
        put_doubles(w, u->array_m2[i], n);
    }
}

/* Whether u's groups kept are at most the one group a stop cut, the next
 * to fold (versions 4 and 5 hold that one alone). */
static bool kept_is_cut(const uncertainty *u)
{
    return u->kept_count == 0 || (u->kept_count == 1 && u->kept[0].first == u->photons);
}

static uint32_t version_of(const checkpoint *c)
{
    const tally_set *t = &c->tallies;
    const uncertainty *u = &c->unc;
    if (!kept_is_cut(u))
        return VERSION_KEPT;
    if (u->groups > 0 || u->kept_count > 0)
        return uncertainty_arrays(u) >> 32 ? VERSION_WIDE : VERSION_GROUPS;
    if (t->nt > 0 || t->detectors > 0 || t->jacobian_layers > 0 || t->set_weights > 0 ||
        t->frequencies > 0 || t->modulations > 0 || t->xy > 0)
        return VERSION_OPTIONS;
    return t->num_layers > 0 ? VERSION_PATHS : VERSION;
}

static bool write_body(FILE *f, void *ctx, tm_error *err)
{
    const checkpoint *c = ctx;
    const tally_set *t = &c->tallies;
    le_writer w = le_writer_start(f);
    le_put(&w, MAGIC, 8);
    uint32_t version = version_of(c);
    le_put_u32(&w, version);
    le_put_u32(&w, (uint32_t)c->run_number);
    le_put_u64(&w, c->seed);
    le_put_u64(&w, c->photons);
    le_put_text(&w, c->input);
    le_put_text(&w, c->physics);
    le_put_u32(&w, (uint32_t)t->nr);
    le_put_u32(&w, (uint32_t)t->nz);
    le_put_u32(&w, (uint32_t)t->na);
    le_put_u64(&w, t->photons);
    put_u128(&w, t->steps);
    le_put_u64(&w, t->trapped_photons);
    put_u128(&w, t->trapped_units);
    le_put_u32(&w, (uint32_t)c->range_count);
    for (int i = 0; i < c->range_count; i++) {
        le_put_u64(&w, c->ranges[i].begin);
        le_put_u64(&w, c->ranges[i].end);
    }
    for (int k = 0; k < OUTPUT_TALLIES; k++)
        put_array(&w, t->tally[k], (size_t)output_tally_bins(k, t->nr, t->nz, t->na));
    if (version >= VERSION_OPTIONS)
        put_options(&w, t);
    else if (version == VERSION_PATHS) {
        le_put_u32(&w, (uint32_t)t->num_layers);
        for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL; k++)
            put_array(&w, t->tally[k], (size_t)tally_set_bins(t, k));
    }
    if (version >= VERSION_GROUPS)
        put_groups(&w, &c->unc, version);
    if (version == VERSION_KEPT)
        put_kept(&w, &c->unc, t);
    else if (version >= VERSION_GROUPS)
        put_pending(&w, &c->unc, t);
    le_put_u64(&w, w.sum);
    (void)err; /* a failed write: fs_write_atomic names errno (disk full, ulimit -f) */
    return w.ok;
}

bool checkpoint_write(const char *path, const checkpoint *c, tm_error *err)
{
    return fs_write_atomic(path, write_body, (void *)c, err);
}

/* ---- reading ------------------------------------------------------------------- */

static tally_acc_t get_u128(le_reader *r)
{
    uint64_t lo = le_get_u64(r), hi = le_get_u64(r);
    return ((tally_acc_t)hi << 64) | lo;
}

static void get_array(le_reader *r, tally_acc_t *a, size_t n)
{
    for (size_t i = 0; r->ok && i < n; i++)
        a[i] = get_u128(r);
}

/* Ranges sorted, disjoint, non-empty and within the run. */
static bool ranges_valid(const checkpoint *c)
{
    for (int i = 0; i < c->range_count; i++) {
        const photon_range *g = &c->ranges[i];
        if (g->begin >= g->end || g->end > c->photons || (i > 0 && g->begin < c->ranges[i - 1].end))
            return false;
    }
    return true;
}

static void read_head(le_reader *r, checkpoint *c, uint32_t *version_out)
{
    char magic[8];
    le_get(r, magic, 8);
    if (r->ok && memcmp(magic, MAGIC, 8) != 0)
        le_bad(r, "wrong magic bytes");
    uint32_t version = le_get_u32(r);
    if (r->ok && (version < VERSION || version > VERSION_KEPT)) {
        error_set(r->err, r->path, 0,
                  "checkpoint format version %u: this tmcml reads versions %u to %u", version,
                  VERSION, VERSION_KEPT);
        r->ok = false;
    }
    *version_out = version;
    c->run_number = (int)le_get_u32(r);
    c->seed = le_get_u64(r);
    c->photons = le_get_u64(r);
    c->input = le_get_text(r, MAX_TEXT);
    c->physics = le_get_text(r, MAX_TEXT);
}

/* Version 3's optional part: each group's count, checked, and tallies. */
static void read_options(le_reader *r, tally_set *t)
{
    uint32_t mask = le_get_u32(r);
    if (r->ok && (mask & ~(((1u << OUTPUT_OPTIONS) - 1) & ~1u)))
        le_bad(r, "unknown optional tallies");
    static const uint32_t most[OUTPUT_OPTIONS] = {0,
                                                  TM_MAX_PATH_LAYERS,
                                                  TM_MAX_TIME_BINS,
                                                  TM_MAX_DETECTORS,
                                                  TM_MAX_PATH_LAYERS,
                                                  OUTPUT_SET_WEIGHTS,
                                                  TM_MAX_SPATIAL_FREQUENCIES,
                                                  TM_MAX_MODULATIONS,
                                                  TM_MAX_XY_CELLS};
    for (int g = OUTPUT_OPTION_PATHS; r->ok && g < OUTPUT_OPTIONS; g++) {
        if (!(mask & (1u << g)))
            continue;
        uint32_t n = le_get_u32(r);
        if (r->ok && (n == 0 || n > most[g] ||
                      (g == OUTPUT_OPTION_TIME && (uint64_t)n * (uint64_t)t->nr > MCI_MAX_BINS) ||
                      (g == OUTPUT_OPTION_XY && (uint64_t)n * (uint64_t)t->nz > MCI_MAX_BINS)))
            le_bad(r, "optional tallies' count out of range");
        output_grid lengths = output_option_grid((output_option)g, (int)n);
        bool added = r->ok && tally_set_add_options(t, &lengths);
        if (r->ok && !added) {
            error_set(r->err, r->path, 0, "out of memory for the checkpoint's tallies");
            r->ok = false;
        }
        for (int k = OUTPUT_TALLIES; r->ok && k < OUTPUT_TALLIES_ALL; k++)
            if ((int)output_tally(k)->option == g)
                get_array(r, t->tally[k], (size_t)tally_set_bins(t, k));
    }
}

static void read_tallies(le_reader *r, checkpoint *c, uint32_t version)
{
    uint32_t nr = le_get_u32(r), nz = le_get_u32(r), na = le_get_u32(r);
    if (r->ok && (nr == 0 || nz == 0 || na == 0 || (uint64_t)nr * nz > MCI_MAX_BINS ||
                  (uint64_t)nr * na > MCI_MAX_BINS))
        le_bad(r, "grid out of range");
    if (r->ok && !tally_set_init(&c->tallies, (int)nr, (int)nz, (int)na)) {
        error_set(r->err, r->path, 0, "out of memory for the checkpoint's tallies");
        r->ok = false;
    }
    if (!r->ok)
        return;
    tally_set *t = &c->tallies;
    t->photons = le_get_u64(r);
    t->steps = get_u128(r);
    t->trapped_photons = le_get_u64(r);
    t->trapped_units = get_u128(r);
    uint32_t ranges = le_get_u32(r);
    if (r->ok && ranges > CHECKPOINT_MAX_RANGES)
        le_bad(r, "too many photon ranges");
    c->range_count = r->ok ? (int)ranges : 0;
    for (int i = 0; r->ok && i < c->range_count; i++) {
        c->ranges[i].begin = le_get_u64(r);
        c->ranges[i].end = le_get_u64(r);
    }
    if (r->ok && (!ranges_valid(c) || checkpoint_done(c) != t->photons))
        le_bad(r, "inconsistent photon ranges");
    for (int k = 0; k < OUTPUT_TALLIES; k++)
        get_array(r, t->tally[k], (size_t)output_tally_bins(k, t->nr, t->nz, t->na));
    if (r->ok && version >= VERSION_OPTIONS)
        read_options(r, t);
    if (!r->ok || version != VERSION_PATHS)
        return;
    uint32_t layers = le_get_u32(r);
    if (r->ok && (layers == 0 || layers > TM_MAX_PATH_LAYERS))
        le_bad(r, "path tallies' layer count out of range");
    if (r->ok && !tally_set_add_options(t, &(output_grid){.num_layers = (int)layers})) {
        error_set(r->err, r->path, 0, "out of memory for the checkpoint's tallies");
        r->ok = false;
    }
    for (int k = OUTPUT_TALLIES; r->ok && k < OUTPUT_TALLIES_ALL; k++)
        get_array(r, t->tally[k], (size_t)tally_set_bins(t, k));
}

/* ---- the groups of the standard errors (version 4) ------------------------ */

static void get_doubles(le_reader *r, double *a, uint64_t n)
{
    for (uint64_t i = 0; r->ok && i < n; i++)
        a[i] = le_get_double(r);
}

/* The layers the input text lists ("layer I: ..." lines). */
static int input_layers(const char *input)
{
    int n = 0;
    for (const char *at = input; at && (at = strstr(at, "\nlayer ")) != NULL; at++)
        n++;
    return n;
}

/* Whether groups of `arrays` on grid are those of a run with the tallies
 * t of the input text `input`: its grid and layers, every run's arrays
 * and those of the optional groups t has, no other. */
static bool groups_fit(const output_grid *grid, uint64_t arrays, const tally_set *t,
                       const char *input)
{
    int paths = tally_set_option_length(t, OUTPUT_OPTION_PATHS);
    bool fit = grid->nr == t->nr && grid->nz == t->nz && grid->na == t->na &&
               grid->num_layers >= 1 && grid->num_layers == input_layers(input) &&
               (paths == 0 || paths == grid->num_layers) &&
               grid->nt == tally_set_option_length(t, OUTPUT_OPTION_TIME) &&
               grid->detectors == tally_set_option_length(t, OUTPUT_OPTION_FIBER) &&
               (arrays >> OUTPUT_ARRAYS) == 0;
    for (int i = 0; fit && i < OUTPUT_ARRAYS; i++) {
        output_option option = output_table[i].option;
        bool wanted = option == OUTPUT_OPTION_NONE || tally_set_option_length(t, option) > 0;
        fit = wanted == ((arrays >> i) & 1);
    }
    return fit;
}

/* Sums a run can have made: finite means, finite sums of squares >= 0. */
static bool sums_valid(const double *mean, const double *m2, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!isfinite(mean[i]) || !isfinite(m2[i]) || !(m2[i] >= 0.0))
            return false;
    return true;
}

/* Version 4's part (put_groups), checked against the tallies read before
 * it: its photons no more than theirs, its grid and arrays theirs. */
static void read_groups(le_reader *r, checkpoint *c, uint32_t version)
{
    const tally_set *t = &c->tallies;
    uncertainty *u = &c->unc;
    uint32_t groups = le_get_u32(r);
    uint64_t photons = le_get_u64(r);
    uint32_t axes[6];
    for (int i = 0; i < 6; i++)
        axes[i] = le_get_u32(r);
    uint64_t arrays = version >= VERSION_WIDE ? le_get_u64(r) : le_get_u32(r);
    if (!r->ok)
        return;
    char msg[256];
    if (groups > INT32_MAX || photons < groups || photons > t->photons ||
        (groups == 0) != (photons == 0)) {
        snprintf(msg, sizeof msg,
                 "the standard errors' groups: %" PRIu32 " groups of %" PRIu64
                 " photons for %" PRIu64 " photons done",
                 groups, photons, t->photons);
        le_bad(r, msg);
        return;
    }
    bool in_range = true;
    for (int i = 0; i < 6; i++)
        in_range = in_range && axes[i] <= INT32_MAX;
    /* A result's grid: no axis of the derivative or set-weight tallies; its
     * spatial and modulation frequencies and its Cartesian grid are the
     * tallies' (the part has no count of them: runs before them wrote
     * none). */
    output_grid grid = {.nr = (int)axes[0],
                        .nz = (int)axes[1],
                        .na = (int)axes[2],
                        .num_layers = (int)axes[3],
                        .nt = (int)axes[4],
                        .detectors = (int)axes[5],
                        .frequencies = tally_set_option_length(t, OUTPUT_OPTION_FX),
                        .modulations = tally_set_option_length(t, OUTPUT_OPTION_MOD),
                        .xy = tally_set_option_length(t, OUTPUT_OPTION_XY)};
    if (groups == 0) /* only a group a stop cut (read_pending) */
        return;
    if (!in_range || !groups_fit(&grid, arrays, t, c->input)) {
        le_bad(r, "the standard errors' groups have another grid or other arrays than the "
                  "tallies");
        return;
    }
    tm_error oom;
    if (!uncertainty_alloc(u, &grid, arrays, &oom)) {
        error_set(r->err, r->path, 0, "out of memory for the checkpoint's standard errors");
        r->ok = false;
        return;
    }
    u->groups = (int)groups;
    u->photons = photons;
    get_doubles(r, u->mean, 3);
    get_doubles(r, u->m2, 3);
    bool valid = sums_valid(u->mean, u->m2, 3);
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        if (!u->array_mean[i])
            continue;
        uint64_t n = output_stored(&output_table[i], &grid);
        get_doubles(r, u->array_mean[i], n);
        get_doubles(r, u->array_m2[i], n);
        valid = valid && sums_valid(u->array_mean[i], u->array_m2[i], n);
    }
    if (r->ok && !valid)
        le_bad(r, "the standard errors' groups hold a sum that is not finite or a negative sum "
                  "of squares");
}

/* Whether every count of a kept group's tallies is within the tallies'
 * (its photons are some of theirs). */
static bool pending_within(const tally_set *p, const tally_set *t)
{
    bool within = p->photons <= t->photons && p->steps <= t->steps &&
                  p->trapped_photons <= t->trapped_photons && p->trapped_units <= t->trapped_units;
    for (int k = 0; within && k < OUTPUT_TALLIES_ALL; k++)
        for (uint64_t i = 0; within && tally_set_has(t, k) && i < tally_set_bins(t, k); i++)
            within = p->tally[k][i] <= t->tally[k][i];
    return within;
}

/* A group's tallies (put_group_tallies), of `photons` photons, into p
 * (allocated like the checkpoint's t), its counts within t's; false when
 * not read. */
static bool get_group_tallies(le_reader *r, tally_set *p, uint64_t photons, const tally_set *t)
{
    p->photons = photons;
    p->steps = get_u128(r);
    p->trapped_photons = le_get_u64(r);
    p->trapped_units = get_u128(r);
    for (int k = 0; r->ok && k < OUTPUT_TALLIES_ALL; k++)
        if (tally_set_has(t, k))
            get_array(r, p->tally[k], (size_t)tally_set_bins(t, k));
    if (r->ok && !pending_within(p, t))
        le_bad(r, "the standard errors' kept group holds more than the tallies");
    return r->ok;
}

/* A group kept, from the file: in its place in c's, of the tallies'
 * shape; NULL when out of memory (said). */
static uncertainty_kept *keep_read(le_reader *r, checkpoint *c, uint64_t group, uint64_t first,
                                   uint64_t size)
{
    tm_error why;
    uncertainty_kept *k = uncertainty_keep(&c->unc, group, first, size, &c->tallies, &why);
    if (!k) {
        error_set(r->err, r->path, 0, "out of memory for the checkpoint's standard errors");
        r->ok = false;
    }
    return k;
}

/* Versions 4 and 5: the group a stop cut (put_pending), checked against
 * the tallies: its photons beyond the groups', its counts within the
 * tallies'.  It starts where the groups' photons end (the next to fold);
 * its photons in all are learnt when more of it comes. */
static void read_pending(le_reader *r, checkpoint *c)
{
    const tally_set *t = &c->tallies;
    uncertainty *u = &c->unc;
    uint64_t group = le_get_u64(r), photons = le_get_u64(r);
    if (!r->ok || photons == 0) {
        if (r->ok && u->groups == 0)
            le_bad(r, "the standard errors' part holds neither a group nor a cut one");
        return;
    }
    if (photons > t->photons - u->photons) {
        le_bad(r, "the standard errors' cut group has more photons than the tallies' left");
        return;
    }
    uncertainty_kept *k = keep_read(r, c, group, u->photons, 0);
    if (k)
        get_group_tallies(r, &k->tallies, photons, t);
}

/* Version 6: the groups kept (put_kept), checked against the tallies: by
 * increasing index, each of some photons and no more than its own, after
 * the groups' photons and within the run, its counts within the tallies',
 * all of them no more photons than the tallies' left. */
static void read_kept(le_reader *r, checkpoint *c)
{
    const tally_set *t = &c->tallies;
    uncertainty *u = &c->unc;
    uint32_t count = le_get_u32(r);
    uint64_t left = t->photons - u->photons;
    if (r->ok && count == 0 && u->groups == 0)
        le_bad(r, "the standard errors' part holds neither a group nor a kept one");
    for (uint32_t i = 0; r->ok && i < count; i++) {
        uint64_t group = le_get_u64(r), first = le_get_u64(r), size = le_get_u64(r),
                 photons = le_get_u64(r);
        if (!r->ok)
            return;
        bool in_order = u->kept_count == 0 || group > u->kept[u->kept_count - 1].group;
        if (!in_order || photons == 0 || photons > left || (size > 0 && photons > size) ||
            first < u->photons || first > c->photons || size > c->photons - first) {
            le_bad(r, "the standard errors' kept groups are out of order, empty, or larger than "
                      "their group, the run or the tallies' photons left");
            return;
        }
        left -= photons;
        uncertainty_kept *k = keep_read(r, c, group, first, size);
        if (k)
            get_group_tallies(r, &k->tallies, photons, t);
    }
}

/* ---- plausibility ------------------------------------------------------------ */

/* The most tally units N photons can score, all arrays and the trapped
 * weight together (checkpoint.h): each photon its start weight, at most 1,
 * i.e. 2^24 units; plus 2^18 units (1/64 weight) each for the roulette's
 * gains and the GPU's float32 rounding; plus 2 units each for rounding to
 * fixed point; plus 2^20 units (1/16 weight) for the roulettes the photons
 * as a whole may survive beyond N/2.  At most about 2^88 for 2^64 photons:
 * sums of entries below it cannot wrap 128 bits. */
#define UNITS_PER_WEIGHT ((tally_acc_t)1 << TALLY_UNITS_PER_WEIGHT_LOG2)

static tally_acc_t most_units(uint64_t photons)
{
    if (photons == 0)
        return 0;
    return (tally_acc_t)photons * (UNITS_PER_WEIGHT + UNITS_PER_WEIGHT / 64 + 2) +
           UNITS_PER_WEIGHT / 16;
}

/* Adds a[0..n) to *sum; false at the first entry, or sum, above limit (so
 * nothing wraps). */
static bool add_within(const tally_acc_t *a, size_t n, tally_acc_t limit, tally_acc_t *sum)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] > limit)
            return false;
        *sum += a[i];
        if (*sum > limit)
            return false;
    }
    return true;
}

/* The tally arrays' names, in the table's order, ", " between them. */
static void tally_names(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < OUTPUT_TALLIES && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? ", " : "", output_tally(k)->name);
}

/* The per-photon step limit the input text names ("max_steps N"), or 0. */
static uint64_t input_max_steps(const char *input)
{
    const char *at = input ? strstr(input, "max_steps ") : NULL;
    return at ? strtoull(at + strlen("max_steps "), NULL, 10) : 0;
}

/* Tallies that no run could have made from the photons done: an edited
 * file (the checksum is recomputed by anyone who edits one) or one written
 * by a broken tmcml.  Cheap invariants, not a proof of authenticity. */
static void check_plausible(le_reader *r, const checkpoint *c)
{
    const tally_set *t = &c->tallies;
    char msg[256];
    if (!r->ok)
        return;
    if (t->trapped_photons > t->photons) {
        snprintf(msg, sizeof msg,
                 "implausible tallies: %" PRIu64 " trapped photons of %" PRIu64 " done",
                 t->trapped_photons, t->photons);
        le_bad(r, msg);
        return;
    }
    /* A trapped photon's weight is at most its start weight, 1. */
    if (t->trapped_units > (tally_acc_t)t->trapped_photons * (UNITS_PER_WEIGHT + 1)) {
        snprintf(msg, sizeof msg,
                 "implausible tallies: %" PRIu64 " trapped photons hold %.6g "
                 "unit weights",
                 t->trapped_photons, tally_weight(t->trapped_units));
        le_bad(r, msg);
        return;
    }
    uint64_t max_steps = input_max_steps(c->input);
    if (max_steps > 0 && t->steps > (tally_acc_t)t->photons * max_steps) {
        snprintf(msg, sizeof msg,
                 "implausible tallies: %.6g steps for %" PRIu64 " photons of at "
                 "most %" PRIu64 " steps",
                 tally_count(t->steps), t->photons, max_steps);
        le_bad(r, msg);
        return;
    }
    tally_acc_t limit = most_units(t->photons), sum = t->trapped_units;
    bool within = sum <= limit;
    for (int k = 0; within && k < OUTPUT_TALLIES; k++)
        within =
            add_within(t->tally[k], (size_t)output_tally_bins(k, t->nr, t->nz, t->na), limit, &sum);
    if (!within) {
        char names[128];
        tally_names(names, sizeof names);
        snprintf(msg, sizeof msg,
                 "implausible tallies: %s and the trapped "
                 "weight add up to more than %" PRIu64 " photons can deposit (%.6g unit weights)",
                 names, t->photons, tally_weight(limit));
        le_bad(r, msg);
    }
}

bool checkpoint_read(const char *path, checkpoint *c, tm_error *err)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, path, 0, "cannot open the checkpoint");
        return false;
    }
    le_reader r = le_reader_start(f, path, "tmcml checkpoint", UINT64_MAX, err);
    uint32_t version = 0;
    read_head(&r, c, &version);
    read_tallies(&r, c, version);
    if (r.ok && version >= VERSION_GROUPS)
        read_groups(&r, c, version);
    if (r.ok && version == VERSION_KEPT)
        read_kept(&r, c);
    else if (r.ok && version >= VERSION_GROUPS)
        read_pending(&r, c);
    uint64_t expected = r.sum, stored = le_get_u64(&r);
    if (r.ok && stored != expected)
        le_bad(&r, "checksum mismatch (the file was damaged after it was written: a disk or copy "
                   "error, or a partial overwrite)");
    char extra;
    if (r.ok && fread(&extra, 1, 1, f) == 1)
        le_bad(&r, "data after the checksum");
    check_plausible(&r, c);
    fclose(f);
    if (!r.ok)
        checkpoint_free(c);
    return r.ok;
}

/* The first line where two texts differ, as "LINE_A" vs "LINE_B". */
static void first_difference(const char *a, const char *b, char *out, size_t size)
{
    while (*a && *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            snprintf(out, size, "\"%.*s\" in the checkpoint, \"%.*s\" now",
                     (int)(la < 200 ? la : 200), a, (int)(lb < 200 ? lb : 200), b);
            return;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    /* One ends first: the other's next line is what differs (an option
     * such as --jacobian adds a line). */
    const char *more = *a ? a : b;
    int len = (int)strcspn(more, "\n");
    snprintf(out, size, "\"%.*s\" %s", len < 200 ? len : 200, more,
             *a ? "in the checkpoint, not now" : "now, not in the checkpoint");
}

bool checkpoint_matches(const checkpoint *c, const char *path, int run_number, uint64_t seed,
                        uint64_t photons, const char *input, const char *physics, tm_error *err)
{
    char diff[512];
    if (c->run_number != run_number) {
        error_set(err, path, 0, "the checkpoint is of run %d, not run %d", c->run_number,
                  run_number);
        return false;
    }
    if (c->seed != seed) {
        error_set(err, path, 0,
                  "the checkpoint was made with seed %" PRIu64 ", this run has seed %" PRIu64
                  ": resume with -S %" PRIu64,
                  c->seed, seed, c->seed);
        return false;
    }
    if (c->photons != photons) {
        error_set(err, path, 0,
                  "the checkpoint is of a run of %" PRIu64 " photons, this one has %" PRIu64,
                  c->photons, photons);
        return false;
    }
    if (strcmp(c->input, input) != 0) {
        first_difference(c->input, input, diff, sizeof diff);
        error_set(err, path, 0, "the input differs from the checkpoint's: %s", diff);
        return false;
    }
    if (strcmp(c->physics, physics) != 0) {
        error_set(err, path, 0,
                  "the checkpoint was made by other physics code (%s; this tmcml: %s): its tallies "
                  "could not be continued bit for bit",
                  c->physics, physics);
        return false;
    }
    return true;
}

void checkpoint_free(checkpoint *c)
{
    free(c->input);
    free(c->physics);
    tally_set_free(&c->tallies);
    uncertainty_free(&c->unc);
    memset(c, 0, sizeof *c);
}
