/* The profile store (tuner/profile.h): files read back as written, lookups
 * follow the documented rule, the search path its order, corrupt and stale
 * files are skipped with a note, and so are directories other users can
 * write, concurrent tuners lose no entry, and a failed store leaves the old
 * file as it was.  No GPU needed.  HOME,
 * XDG_DATA_HOME and TMCML_PROFILE_DIR are set to temporary places, so the
 * user's real profiles are never touched. */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fs.h"
#include "profile.h"

static char tmpdir[] = "/tmp/tmcml_test_profile.XXXXXX";

/* ---- fixtures ---------------------------------------------------------------- */

static const char *GEN = "0123456789abcdef";

static profile_device test_device(void)
{
    profile_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "tmcml Test GPU 80GB");
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.shared_per_block_optin = 232448;
    d.driver_version = 13000;
    return d;
}

static profile_toolchain test_toolchain(const char *generator)
{
    profile_toolchain t;
    memset(&t, 0, sizeof t);
    snprintf(t.nvrtc_version, sizeof t.nvrtc_version, "13.0");
    snprintf(t.generator, sizeof t.generator, "%s", generator);
    return t;
}

static profile_class cls(int layers, int nr, int nz, int na, bool a)
{
    profile_class c = {.num_layers = layers, .nr = nr, .nz = nz, .na = na, .score_absorption = a};
    return c;
}

/* A valid entry for class c; block tells entries apart in the find tests. */
static profile_entry test_entry(profile_class c, int block)
{
    profile_entry e;
    memset(&e, 0, sizeof e);
    e.cls = c;
    e.config.tile_nr = c.nr < 48 ? c.nr : 48;
    e.config.tile_nz = c.nz < 128 ? c.nz : 128;
    e.config.entry_bits = 32;
    e.config.block_size = block;
    e.config.min_blocks_per_sm = 2;
    e.config.layer_placement = SPEC_LAYERS_CONSTANT;
    e.config.last_bin_cache = true;
    e.config.edge_cache = true;
    e.config.cluster_size = block == 512 ? 4 : 1;
    e.photons_per_second = 1.5e7;
    e.steps_per_second = 9.2e9;
    e.heuristic_photons_per_second = 1e7;
    e.pilot_photons = 1000000;
    e.candidates = 48;
    e.tuning_seconds = 61.25;
    snprintf(e.date, sizeof e.date, "2026-11-22T10:00:00Z");
    return e;
}

static char *path_in(const char *dir, const char *name)
{
    char *p = fs_join(dir, name);
    if (!p)
        abort();
    return p;
}

static void make_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0)
        abort();
}

static void remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static bool put_text(FILE *s, void *ctx, tm_error *err)
{
    (void)err;
    return fputs(ctx, s) >= 0;
}

static void write_file(const char *path, const char *text)
{
    tm_error err;
    if (!fs_write_atomic(path, put_text, (void *)text, &err))
        error_print(stderr, &err);
}

static char *read_file(const char *path)
{
    tm_error err;
    return fs_read_text(path, NULL, &err);
}

/* The profile file of the test device in dir, path malloc'd. */
static char *device_path(const char *dir)
{
    profile_device d = test_device();
    char name[512];
    profile_file_name(&d, name, sizeof name);
    return path_in(dir, name);
}

/* Writes a profile of the test device with the given entries. */
static void write_profile(const char *path, const char *generator, const profile_entry *e, int n)
{
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.toolchain = test_toolchain(generator);
    for (int i = 0; i < n; i++)
        profile_put(&p, &e[i]);
    tm_error err = {0};
    CHECK_MSG(profile_write(path, &p, &err), "%s", err.message);
    profile_free(&p);
}

static bool entry_equal(const profile_entry *a, const profile_entry *b)
{
    const kernel_knobs *x = &a->config, *y = &b->config;
    return problem_shape_equal(&a->cls, &b->cls) && x->tile_nr == y->tile_nr &&
           x->tile_nz == y->tile_nz && x->entry_bits == y->entry_bits &&
           x->block_size == y->block_size && x->min_blocks_per_sm == y->min_blocks_per_sm &&
           x->layer_placement == y->layer_placement && x->last_bin_cache == y->last_bin_cache &&
           x->edge_cache == y->edge_cache && x->cluster_size == y->cluster_size &&
           a->photons_per_second == b->photons_per_second &&
           a->steps_per_second == b->steps_per_second &&
           a->heuristic_photons_per_second == b->heuristic_photons_per_second &&
           a->pilot_photons == b->pilot_photons && a->candidates == b->candidates &&
           a->tuning_seconds == b->tuning_seconds && strcmp(a->date, b->date) == 0;
}

static const profile_entry *entry_of(const profile *p, profile_class c)
{
    for (int i = 0; i < p->num_entries; i++)
        if (problem_shape_equal(&p->entries[i].cls, &c))
            return &p->entries[i];
    return NULL;
}

static int count_files_with(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

/* ---- reading and writing ------------------------------------------------------- */

static void test_round_trip(void)
{
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.toolchain = test_toolchain(GEN);
    profile_entry e[3] = {test_entry(cls(7, 500, 200, 30, true), 256),
                          test_entry(cls(3, 100, 100, 1, false), 1024),
                          test_entry(cls(1, 20, 100, 30, true), 32)};
    e[1].config.tile_nr = e[1].config.tile_nz = 0;
    e[1].config.entry_bits = 64;
    e[1].config.min_blocks_per_sm = 0;
    e[1].config.layer_placement = SPEC_LAYERS_SHARED;
    e[1].config.last_bin_cache = false;
    e[1].heuristic_photons_per_second = 0;
    e[1].pilot_photons = PROFILE_MAX_PILOT; /* the largest exact one */
    e[2].config.layer_placement = SPEC_LAYERS_IMMEDIATE;
    e[2].steps_per_second = 0;
    for (int i = 0; i < 3; i++)
        CHECK(profile_put(&p, &e[i]));
    char *path = path_in(tmpdir, "round.json");
    tm_error err = {0};
    CHECK_MSG(profile_write(path, &p, &err), "%s", err.message);

    profile q;
    CHECK_MSG(profile_read(path, &q, &err), "%s", err.message);
    CHECK(strcmp(q.device.name, p.device.name) == 0 && q.device.cc_major == 9 &&
          q.device.cc_minor == 0 && q.device.sm_count == 132 &&
          q.device.shared_per_block_optin == 232448 && q.device.driver_version == 13000);
    CHECK(profile_toolchain_equal(&q.toolchain, &p.toolchain));
    CHECK(q.num_entries == 3);
    for (int i = 0; i < 3; i++) {
        const profile_entry *r = entry_of(&q, e[i].cls);
        CHECK_MSG(r && entry_equal(r, &e[i]), "entry %d differs after the round trip", i);
    }
    /* Written sorted by class (layers first), and again byte for byte. */
    CHECK(q.entries[0].cls.num_layers == 1 && q.entries[2].cls.num_layers == 7);
    char *first = read_file(path);
    CHECK(first && strstr(first, "\"format\":\t1"));
    CHECK(profile_write(path, &q, &err));
    char *second = read_file(path);
    CHECK(first && second && strcmp(first, second) == 0);
    free(first);
    free(second);
    profile_free(&q);

    /* Timings keep 6 significant digits; the rounding is idempotent. */
    p.entries[0].photons_per_second = 123456789.0;
    p.entries[0].tuning_seconds = 1.0 / 3.0;
    CHECK(profile_write(path, &p, &err));
    CHECK(profile_read(path, &q, &err));
    const profile_entry *r = entry_of(&q, e[0].cls);
    CHECK(r && r->photons_per_second == 123457000.0);
    CHECK(r && r->tuning_seconds == 0.333333);
    CHECK(profile_round_timing(profile_round_timing(2.0 / 3.0)) == profile_round_timing(2.0 / 3.0));
    profile_free(&q);

    /* Nothing invalid is ever written. */
    p.entries[1].config.block_size = 100;
    char *before = read_file(path);
    CHECK(!profile_write(path, &p, &err));
    CHECK_CONTAINS(err.message, "block_size: 100: must be 32..1024 in steps of 32");
    CHECK(strcmp(err.file, path) == 0);
    char *after = read_file(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    unlink(path);
    free(path);
    profile_free(&p);
}

/* The absorption sets' members (gen/shape.h): a class without sets is
 * written without them, as before they existed, and one with them
 * round-trips; a class that does not name them has none. */
static void test_sets_members(void)
{
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.toolchain = test_toolchain(GEN);
    profile_class with = cls(7, 500, 200, 30, true);
    with.num_sets = 64;
    with.sets_2d = true;
    profile_entry e[2] = {test_entry(cls(7, 500, 200, 30, true), 256), test_entry(with, 256)};
    CHECK(profile_put(&p, &e[0]) && profile_put(&p, &e[1]));
    char *path = path_in(tmpdir, "sets.json");
    tm_error err = {0};
    CHECK_MSG(profile_write(path, &p, &err), "%s", err.message);
    char *text = read_file(path);
    CHECK(text && strstr(text, "\"num_sets\":\t64") && strstr(text, "\"sets_2d\":\ttrue"));
    /* Only the entry with sets names them: one occurrence each. */
    CHECK(text && strstr(strstr(text, "num_sets") + 1, "num_sets") == NULL);
    profile q;
    CHECK_MSG(profile_read(path, &q, &err), "%s", err.message);
    CHECK(q.num_entries == 2);
    for (int i = 0; i < 2; i++) {
        const profile_entry *r = entry_of(&q, e[i].cls);
        CHECK_MSG(r && entry_equal(r, &e[i]), "entry %d differs after the round trip", i);
    }
    char text_a[64], text_b[64];
    problem_shape_text(&e[0].cls, text_a, sizeof text_a);
    problem_shape_text(&with, text_b, sizeof text_b);
    CHECK(strcmp(text_a, "L7 500x200x30") == 0 && strcmp(text_b, "L7 500x200x30 sets=64 2-D") == 0);
    CHECK(isinf(problem_shape_distance(&e[0].cls, &with))); /* no nearest across set counts */
    free(text);
    profile_free(&q);
    unlink(path);
    free(path);
    profile_free(&p);
}

static void test_file_name(void)
{
    profile_device d = test_device();
    char buf[512];
    snprintf(d.name, sizeof d.name, "NVIDIA H100 80GB HBM3");
    CHECK(profile_file_name(&d, buf, sizeof buf));
    CHECK_MSG(strcmp(buf, "NVIDIA_H100_80GB_HBM3.sm_90.json") == 0, "%s", buf);
    snprintf(d.name, sizeof d.name, "a/b c:d*\xc3\xa9.x-y_z");
    d.cc_major = 8;
    d.cc_minor = 6;
    CHECK(profile_file_name(&d, buf, sizeof buf));
    CHECK_MSG(strcmp(buf, "a_b_c_d___.x-y_z.sm_86.json") == 0, "%s", buf);
    CHECK(!profile_file_name(&d, buf, 10) && buf[0] == '\0');
    d.name[0] = '\0';
    CHECK(!profile_file_name(&d, buf, sizeof buf));
}

/* Duplicate classes in a profile of 36,000 entries: the first entry (in
 * file order) whose class came before is named, with the first of its
 * class, as the pairwise check named them (it took 3 s; the sort, a few
 * milliseconds). */
static void test_many_entries(void)
{
    enum { N = 36000 };
    profile p = {.device = test_device(), .toolchain = test_toolchain(GEN), .num_entries = N};
    p.entries = malloc(N * sizeof *p.entries);
    CHECK(p.entries != NULL);
    if (!p.entries)
        return;
    for (int i = 0; i < N; i++) /* distinct classes, not in sorted order */
        p.entries[i] = test_entry(cls(1 + i % 7, 100 + (i * 7919) % N, 20, 30, i % 2), 256);
    tm_error err = {0};
    CHECK_MSG(profile_validate(&p, "big.json", &err), "%s", err.message);
    static const struct {
        int at, copy_of;
        const char *says;
    } cases[] = {
        {30000, 123, "entries[30000].class: "},
        {35999, 0, "entries[35999].class: "},
        {1, 0, "entries[1].class: "},
    };
    char want[96];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        profile_entry keep = p.entries[cases[k].at];
        p.entries[cases[k].at].cls = p.entries[cases[k].copy_of].cls;
        memset(&err, 0, sizeof err);
        CHECK(!profile_validate(&p, "big.json", &err));
        CHECK_CONTAINS(err.message, cases[k].says);
        snprintf(want, sizeof want, "is also the class of entries[%d]", cases[k].copy_of);
        CHECK_CONTAINS(err.message, want);
        p.entries[cases[k].at] = keep;
    }
    /* several duplicates: the earliest in file order is named, with the
     * first entry of its class (three of one class: the second is named) */
    p.entries[20000].cls = p.entries[40].cls;
    p.entries[9000].cls = p.entries[35000].cls;
    p.entries[500].cls = p.entries[35000].cls;
    CHECK(!profile_validate(&p, "big.json", &err));
    CHECK_CONTAINS(err.message, "entries[9000].class: ");
    CHECK_CONTAINS(err.message, "is also the class of entries[500]");
    free(p.entries);
}

/* ---- lookup ------------------------------------------------------------------------ */

static void test_lookup(void)
{
    profile p;
    profile_init(&p);
    profile_entry e[] = {
        test_entry(cls(7, 500, 200, 30, true), 256),  test_entry(cls(7, 100, 100, 30, true), 512),
        test_entry(cls(7, 500, 200, 30, false), 128), test_entry(cls(3, 500, 200, 30, true), 64),
        test_entry(cls(5, 500, 200, 10, true), 96),   test_entry(cls(5, 550, 220, 20, true), 160)};
    for (size_t i = 0; i < sizeof e / sizeof *e; i++)
        profile_put(&p, &e[i]);
    const profile_entry *f = NULL;
    profile_class q = cls(7, 500, 200, 30, true);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_EXACT && f->config.block_size == 256);
    q = cls(7, 450, 190, 30, true);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NEAREST && f->config.block_size == 256);
    q = cls(7, 120, 90, 60, true);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NEAREST && f->config.block_size == 512);
    /* Same mode only: -A finds the -A entry however far. */
    q = cls(7, 100, 100, 30, false);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NEAREST && f->config.block_size == 128);
    /* na weighs a quarter: 500x200x10 (d = 0.25 ln 2) beats 550x220x20 (2 ln 1.1). */
    q = cls(5, 500, 200, 20, true);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NEAREST && f->config.block_size == 96);
    /* Other layer count, other mode: nothing. */
    q = cls(4, 500, 200, 30, true);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NONE && f == NULL);
    q = cls(3, 500, 200, 30, false);
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_NONE);
    profile_class a = cls(7, 100, 50, 30, true), b = cls(7, 200, 100, 30, true);
    CHECK(problem_shape_distance(&a, &b) > 1.386 && problem_shape_distance(&a, &b) < 1.387);
    /* profile_put replaces the entry of the same class. */
    profile_entry again = test_entry(cls(7, 500, 200, 30, true), 992);
    CHECK(profile_put(&p, &again) && p.num_entries == 6);
    q = again.cls;
    CHECK(profile_lookup(&p, &q, &f) == PROFILE_MATCH_EXACT && f->config.block_size == 992);
    profile_free(&p);
}

static void test_is_current(void)
{
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.toolchain = test_toolchain(GEN);
    profile_device d = test_device();
    profile_toolchain t = test_toolchain(GEN);
    d.driver_version = 13010; /* a driver update keeps profiles */
    d.sm_count = 114;
    CHECK(profile_is_current(&p, &d, &t));
    d.cc_minor = 1;
    CHECK(!profile_is_current(&p, &d, &t));
    d = test_device();
    snprintf(t.nvrtc_version, sizeof t.nvrtc_version, "12.8");
    CHECK(!profile_is_current(&p, &d, &t));
    t = test_toolchain("fedcba9876543210");
    CHECK(!profile_is_current(&p, &d, &t));
    t.nvrtc_version[0] = '\0';
    p.toolchain.nvrtc_version[0] = '\0';
    CHECK(!profile_is_current(&p, &d, &t)); /* no NVRTC: never current */

    profile_toolchain self;
    tm_error err;
    profile_toolchain_current(&self, &err); /* NVRTC may be missing here */
    CHECK(strlen(self.generator) == 16);
    char date[32];
    profile_date_now(date, sizeof date);
    CHECK(strlen(date) == 20 && date[10] == 'T' && date[19] == 'Z');
}

/* ---- the search path ------------------------------------------------------------ */

static char *dir_e, *dir_v, *dir_u, *home;

static void set_env(const char *env_dir, const char *xdg)
{
    if (env_dir)
        setenv("TMCML_PROFILE_DIR", env_dir, 1);
    else
        unsetenv("TMCML_PROFILE_DIR");
    if (xdg)
        setenv("XDG_DATA_HOME", xdg, 1);
    else
        unsetenv("XDG_DATA_HOME");
    setenv("HOME", home, 1);
}

static void test_search_dirs(void)
{
    profile_search_path sp;
    set_env(dir_v, NULL);
    profile_search_dirs(dir_e, &sp);
    CHECK(sp.count == 4);
    CHECK(strcmp(sp.dirs[0], dir_e) == 0 && strcmp(sp.origin[0], "--profiles") == 0);
    CHECK(strcmp(sp.dirs[1], dir_v) == 0 && strcmp(sp.origin[1], "$TMCML_PROFILE_DIR") == 0);
    CHECK(strcmp(sp.dirs[2], dir_u) == 0 && strcmp(sp.origin[2], "user") == 0);
    CHECK(strcmp(sp.origin[3], "shipped") == 0 && strstr(sp.dirs[3], "profiles"));

    char *xdg = path_in(tmpdir, "xdg");
    char *xdg_dir = path_in(xdg, "tmcml/profiles");
    set_env(NULL, xdg);
    profile_search_dirs(NULL, &sp);
    CHECK(sp.count == 2 && strcmp(sp.dirs[0], xdg_dir) == 0);
    set_env(NULL, "relative/xdg"); /* ignored, as the XDG spec says */
    profile_search_dirs("", &sp);
    CHECK(sp.count == 2 && strcmp(sp.dirs[0], dir_u) == 0);
    set_env("", NULL);               /* empty: unset */
    profile_search_dirs(dir_u, &sp); /* listed once */
    CHECK(sp.count == 2 && strcmp(sp.dirs[0], dir_u) == 0);
    CHECK(strcmp(sp.origin[0], "--profiles") == 0);

    char buf[4096];
    tm_error err = {0};
    set_env(dir_v, NULL);
    CHECK(profile_write_dir(dir_e, buf, sizeof buf, &err) && strcmp(buf, dir_e) == 0);
    CHECK(profile_write_dir(NULL, buf, sizeof buf, &err) && strcmp(buf, dir_v) == 0);
    set_env(NULL, NULL);
    CHECK(profile_write_dir("", buf, sizeof buf, &err) && strcmp(buf, dir_u) == 0);
    set_env(NULL, xdg);
    CHECK(profile_write_dir(NULL, buf, sizeof buf, &err) && strcmp(buf, xdg_dir) == 0);
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    CHECK(!profile_write_dir(NULL, buf, sizeof buf, &err));
    CHECK_CONTAINS(err.message, "TMCML_PROFILE_DIR");
    set_env(NULL, NULL);
    free(xdg_dir);
    free(xdg);
}

typedef struct notes {
    int count;
    char text[4096];
} notes;

static void collect(void *ctx, const char *msg)
{
    notes *n = ctx;
    n->count++;
    size_t len = strlen(n->text);
    snprintf(n->text + len, sizeof n->text - len, "%s\n", msg);
}

static void clear_dirs(void)
{
    char *paths[3] = {device_path(dir_e), device_path(dir_v), device_path(dir_u)};
    for (int i = 0; i < 3; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
}

/* Runs profile_find for q on the three test directories. */
static profile_found find(profile_class q, notes *n)
{
    profile_device d = test_device();
    profile_toolchain t = test_toolchain(GEN);
    profile_found out;
    tm_error err = {0};
    memset(n, 0, sizeof *n);
    set_env(dir_v, NULL);
    CHECK_MSG(profile_find(dir_e, &d, &t, &q, &out, collect, n, &err), "%s", err.message);
    return out;
}

static void put_in(const char *dir, const profile_entry *e, int count, const char *generator)
{
    char *path = device_path(dir);
    write_profile(path, generator, e, count);
    free(path);
}

static void unlink_device_file(const char *dir)
{
    char *p = device_path(dir);
    unlink(p);
    free(p);
}

static void test_find_order(void)
{
    profile_class c = cls(7, 500, 200, 30, true), near = cls(7, 400, 200, 30, true),
                  nearer = cls(7, 480, 200, 30, true);
    profile_entry ce = test_entry(c, 128), cv = test_entry(c, 256), cu = test_entry(c, 512);
    notes n;

    /* Explicit beats env beats user. */
    clear_dirs();
    put_in(dir_e, &ce, 1, GEN);
    put_in(dir_v, &cv, 1, GEN);
    put_in(dir_u, &cu, 1, GEN);
    profile_found f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 128);
    CHECK(strstr(f.path, dir_e) == f.path && n.count == 0);
    unlink_device_file(dir_e);
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 256 && n.count == 0);
    CHECK(strstr(f.path, dir_v) == f.path);
    unlink_device_file(dir_v);
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512);

    /* An exact entry in a later directory beats a nearest one in an earlier. */
    profile_entry ne = test_entry(near, 64), nv = test_entry(nearer, 96);
    put_in(dir_e, &ne, 1, GEN);
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512);
    CHECK(strstr(f.path, dir_u) == f.path);

    /* With no exact entry anywhere, the first nearest in search order wins,
     * even when a later directory holds a nearer one. */
    unlink_device_file(dir_u);
    put_in(dir_v, &nv, 1, GEN);
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_NEAREST && f.entry.config.block_size == 64);
    CHECK(problem_shape_equal(&f.entry.cls, &near) && strstr(f.path, dir_e) == f.path);

    /* Nothing of this layer count or mode: NONE, and still success. */
    f = find(cls(2, 500, 200, 30, true), &n);
    CHECK(f.match == PROFILE_MATCH_NONE && n.count == 0);
    f = find(cls(7, 500, 200, 30, false), &n);
    CHECK(f.match == PROFILE_MATCH_NONE);
    clear_dirs();
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_NONE && n.count == 0); /* no files at all: silent */
}

static void test_find_stale(void)
{
    profile_class c = cls(7, 500, 200, 30, true);
    profile_entry ce = test_entry(c, 128), cu = test_entry(c, 512);
    notes n;
    clear_dirs();
    put_in(dir_e, &ce, 1, "fedcba9876543210"); /* another generator */
    put_in(dir_u, &cu, 1, GEN);
    profile_found f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512);
    CHECK(n.count == 1);
    CHECK_CONTAINS(n.text, "made by another generator/NVRTC");
    CHECK_CONTAINS(n.text, "fedcba9876543210");
    CHECK_CONTAINS(n.text, "tmcml tune");
    CHECK_CONTAINS(n.text, dir_e);

    /* A stale file of another schema (a field this tmcml does not know of
     * missing) is still called stale, not corrupt. */
    char *pe = device_path(dir_e);
    char *text = read_file(pe);
    char *k = text ? strstr(text, "\"last_bin_cache\"") : NULL;
    if (k)
        memcpy(k, "\"other_knob_xyz\"", 16);
    write_file(pe, text ? text : "");
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && n.count == 1);
    CHECK_CONTAINS(n.text, "made by another generator/NVRTC");
    free(text);

    /* A file of another device under this device's name. */
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.device.cc_minor = 9;
    p.toolchain = test_toolchain(GEN);
    profile_put(&p, &ce);
    tm_error err;
    CHECK(profile_write(pe, &p, &err));
    profile_free(&p);
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512 && n.count == 1);
    CHECK_CONTAINS(n.text, "made for another device");
    free(pe);
    clear_dirs();
}

/* ---- corrupt files -------------------------------------------------------------- */

/* text with the first occurrence of from replaced by to (malloc'd). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "fixture: \"%s\" not found\n", from);
        return strdup(text);
    }
    size_t size = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(size);
    snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_corrupt(void)
{
    profile_class c = cls(7, 500, 200, 30, true);
    /* entries[0] is the smaller grid (files are sorted by class). */
    profile_entry two[2] = {test_entry(c, 128), test_entry(cls(7, 100, 200, 30, true), 64)};
    profile_entry cu = test_entry(c, 512);
    clear_dirs();
    put_in(dir_u, &cu, 1, GEN);
    char *pe = device_path(dir_e);
    write_profile(pe, GEN, two, 2);
    char *good = read_file(pe);
    if (!good)
        abort();
    size_t len = strlen(good);
    char truncated[8192];
    snprintf(truncated, sizeof truncated, "%.*s", (int)(len / 2), good);

    struct {
        char *text;
        const char *want;
    } cases[] = {
        {strdup(truncated), "not valid JSON: truncated"},
        {strdup(""), "empty file"},
        {strdup("  \n\t\n"), "empty file"},
        {strdup("[1, 2]"), "expected an object, got an array"},
        {strdup("{\"format\": 1} trailing"), "not valid JSON"},
        {replace(good, "\"nr\":\t100", "\"nr\":\t\"100\""),
         "entries[0].class.nr: expected an integer, got a string"},
        {replace(good, "\"nr\":\t100", "\"nr\":\t100.5"),
         "entries[0].class.nr: expected an integer"},
        {replace(good, "\"score_absorption\":\ttrue", "\"score_absorption\":\t1"),
         "entries[0].class.score_absorption: expected true or false, got a number"},
        {replace(good, "\"date\":", "\"dates\":"), "entries[0].date: missing"},
        {replace(good, "\"block_size\":\t64", "\"block_size\":\t100"),
         "entries[0].config.block_size: 100: must be 32..1024 in steps of 32"},
        {replace(good, "\"entry_bits\":\t32", "\"entry_bits\":\t48"),
         "entries[0].config.entry_bits: 48: must be 32..64 in steps of 32"},
        {replace(good, "\"tile_nr\":\t48", "\"tile_nr\":\t-4"),
         "entries[0].config.tile_nr: -4 is out of range"},
        {replace(good, "\"constant\"", "\"texture\""),
         "entries[0].config.layer_placement: \"texture\" is not one of constant|shared|immediate"},
        {replace(good, "\"nr\":\t100", "\"nr\":\t500"),
         "entries[1].class: L7 500x200x30 is also the class of entries[0]"},
        {replace(good, "\"format\":\t1", "\"format\":\t2"), "format: 2 is not supported"},
        {replace(good, "\"format\":\t1,", ""), "format: missing"},
        {replace(good, GEN, "xyz"), "toolchain.generator: \"xyz\" is not 16 lowercase hex"},
        {replace(good, "\"sm_count\":\t132", "\"sm_count\":\t1e300"),
         "device.sm_count: 1.0000000000000001e+300 is out of range"},
        {replace(good, "\"entries\":\t[", "\"entries\":\t{\"x\":[") /* then invalid */,
         "not valid JSON"},
        {replace(good, "\"pilot_photons\":\t1000000", "\"pilot_photons\":\t0"),
         "entries[0].pilot_photons: 0 is out of range"},
        {replace(good, "2026-11-22T10:00:00Z", "yesterday"), "entries[0].date: \"yesterday\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_file(pe, cases[i].text);
        profile p;
        tm_error err = {0};
        CHECK_MSG(profile_load(pe, false, &p, &err) == PROFILE_CORRUPT, "case %zu", i);
        CHECK_MSG(p.entries == NULL && p.num_entries == 0, "case %zu", i);
        CHECK(strcmp(err.file, pe) == 0);
        CHECK_MSG(strstr(err.message, cases[i].want), "case %zu: \"%s\" lacks \"%s\"", i,
                  err.message, cases[i].want);
        notes n;
        profile_found f = find(c, &n);
        CHECK_MSG(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512,
                  "case %zu: the corrupt file was not skipped", i);
        CHECK_MSG(n.count == 1 && strstr(n.text, "corrupt profile skipped") && strstr(n.text, pe) &&
                      strstr(n.text, cases[i].want),
                  "case %zu: note \"%s\"", i, n.text);
        free(cases[i].text);
    }
    /* Bad JSON is located by line. */
    write_file(pe, "{\n\"format\": 1,\n\"device\": {,\n}\n");
    profile p;
    tm_error err = {0};
    CHECK(profile_load(pe, false, &p, &err) == PROFILE_CORRUPT && err.line == 3);

    /* Missing and unreadable are told apart from corrupt. */
    unlink(pe);
    CHECK(profile_load(pe, false, &p, &err) == PROFILE_MISSING);
    make_dir(pe);
    CHECK(profile_load(pe, false, &p, &err) == PROFILE_UNREADABLE);
    notes n;
    profile_found f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && n.count == 1);
    CHECK_CONTAINS(n.text, "unreadable profile skipped");
    rmdir(pe);
    free(pe);
    free(good);
    clear_dirs();
}

/* A directory other users can write is passed over with a note naming it
 * and its mode; in a sticky one, another user's file is (chown: root). */
static void test_find_trust(void)
{
    profile_class c = cls(7, 500, 200, 30, true);
    profile_entry ce = test_entry(c, 128), cu = test_entry(c, 512);
    notes n;
    clear_dirs();
    put_in(dir_e, &ce, 1, GEN);
    put_in(dir_u, &cu, 1, GEN);
    CHECK(chmod(dir_e, 0775) == 0);
    profile_found f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512 && n.count == 1);
    CHECK_CONTAINS(n.text, "not read");
    CHECK_CONTAINS(n.text, dir_e);
    CHECK_CONTAINS(n.text, "writable by its group (mode 0775, not sticky)");
    tm_error err = {0};
    CHECK(!profile_dir_trusted(dir_e, &err));
    CHECK(chmod(dir_e, 01777) == 0 && profile_dir_trusted(dir_e, &err));
    f = find(c, &n);
    CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 128 && n.count == 0);
    char *path = device_path(dir_e);
    if (chown(path, 54321, 54321) == 0) {
        f = find(c, &n);
        CHECK(f.match == PROFILE_MATCH_EXACT && f.entry.config.block_size == 512);
        CHECK_CONTAINS(n.text, "owned by another user: not read");
    }
    free(path);
    CHECK(chmod(dir_e, 0755) == 0);
    clear_dirs();
}

/* ---- storing --------------------------------------------------------------------- */

static bool store(const char *path, const char *generator, const profile_entry *e, char *note,
                  size_t size, tm_error *err)
{
    profile_device d = test_device();
    profile_toolchain t = test_toolchain(generator);
    return profile_store_entry(path, &d, &t, e, note, size, err);
}

static void test_store(void)
{
    char *dir = path_in(tmpdir, "store/deeper/dir"); /* created by the store */
    char *path = device_path(dir);
    char note[2048];
    tm_error err = {0};
    profile_entry a = test_entry(cls(7, 500, 200, 30, true), 256);
    profile_entry b = test_entry(cls(7, 500, 200, 30, false), 128);
    CHECK_MSG(store(path, GEN, &a, note, sizeof note, &err), "%s", err.message);
    CHECK(note[0] == '\0');
    CHECK(store(path, GEN, &b, note, sizeof note, &err));
    a.config.block_size = 1024; /* a retune replaces the entry */
    CHECK(store(path, GEN, &a, note, sizeof note, &err) && note[0] == '\0');
    profile p;
    CHECK(profile_read(path, &p, &err));
    CHECK(p.num_entries == 2 && entry_of(&p, a.cls));
    CHECK(entry_of(&p, a.cls) && entry_of(&p, a.cls)->config.block_size == 1024);
    profile_free(&p);

    /* A bad entry is refused before anything is touched. */
    char *before = read_file(path);
    profile_entry bad = a;
    bad.config.entry_bits = 16;
    CHECK(!store(path, GEN, &bad, note, sizeof note, &err));
    CHECK_CONTAINS(err.message, "entry_bits: 16: must be 32..64 in steps of 32");
    char *after = read_file(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(after);

    /* Another generator's file loses its entries, saying so. */
    CHECK(store(path, "fedcba9876543210", &b, note, sizeof note, &err));
    CHECK_CONTAINS(note, "its 2 entries were dropped");
    CHECK(profile_read(path, &p, &err) && p.num_entries == 1);
    CHECK(strcmp(p.toolchain.generator, "fedcba9876543210") == 0);
    profile_free(&p);

    /* A corrupt file is kept aside as .corrupt and a fresh one started. */
    const char garbage[] = "{\"format\": 1, \"device\": [garbage";
    write_file(path, garbage);
    CHECK(store(path, GEN, &a, note, sizeof note, &err));
    CHECK_CONTAINS(note, "corrupt");
    CHECK_CONTAINS(note, ".corrupt");
    char *aside_path = malloc(strlen(path) + 16);
    sprintf(aside_path, "%s.corrupt", path);
    char *aside = read_file(aside_path);
    CHECK(aside && strcmp(aside, garbage) == 0);
    CHECK(profile_read(path, &p, &err) && p.num_entries == 1 && entry_of(&p, a.cls));
    profile_free(&p);
    CHECK(count_files_with(dir, ".tmp.") == 0);
    free(aside);
    free(aside_path);
    free(before);
    free(path);
    free(dir);
}

/* The store makes its directories private, and refuses a directory that
 * other users can write, leaving the file as it was. */
static void test_store_trust(void)
{
    char *dir = path_in(tmpdir, "private/profiles");
    char *path = device_path(dir);
    char note[1024];
    tm_error err = {0};
    profile_entry a = test_entry(cls(7, 500, 200, 30, true), 256);
    profile_entry b = test_entry(cls(3, 500, 200, 30, true), 128);
    mode_t old = umask(002);
    CHECK_MSG(store(path, GEN, &a, note, sizeof note, &err), "%s", err.message);
    umask(old);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    char *before = read_file(path);
    CHECK(chmod(dir, 0770) == 0);
    CHECK(!store(path, GEN, &b, note, sizeof note, &err));
    CHECK_CONTAINS(err.message, "not stored");
    CHECK_CONTAINS(err.message, "writable by its group (mode 0770, not sticky)");
    char *after = read_file(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(after);
    free(before);
    free(path);
    free(dir);
}

/* Several tuners at once: 8 processes, 4 classes each, started together. */
static void test_concurrent(void)
{
    enum { WRITERS = 8, EACH = 4 };
    char *dir = path_in(tmpdir, "concurrent");
    char *path = device_path(dir);
    int gate[2];
    if (pipe(gate) != 0)
        abort();
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            char c;
            close(gate[1]);
            if (read(gate[0], &c, 1) < 0) /* returns at EOF: all start at once */
                _exit(3);
            int failed = 0;
            for (int k = 0; k < EACH; k++) {
                profile_entry e = test_entry(cls(7, 100 + w, 50 + k, 30, true), 32 * (w + 1));
                tm_error err;
                char note[512];
                if (!store(path, GEN, &e, note, sizeof note, &err)) {
                    error_print(stderr, &err);
                    failed = 1;
                }
            }
            _exit(failed);
        }
    }
    close(gate[0]);
    close(gate[1]);
    int ok = 0;
    for (int w = 0; w < WRITERS; w++) {
        int status;
        if (pids[w] > 0 && waitpid(pids[w], &status, 0) == pids[w] && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ok++;
    }
    CHECK(ok == WRITERS);
    profile p;
    tm_error err = {0};
    CHECK_MSG(profile_read(path, &p, &err), "%s", err.message);
    CHECK_MSG(p.num_entries == WRITERS * EACH, "%d entries", p.num_entries);
    for (int w = 0; w < WRITERS; w++)
        for (int k = 0; k < EACH; k++) {
            const profile_entry *e = entry_of(&p, cls(7, 100 + w, 50 + k, 30, true));
            CHECK(e && e->config.block_size == 32 * (w + 1));
        }
    profile_free(&p);
    CHECK(count_files_with(dir, ".tmp.") == 0);
    free(path);
    free(dir);
}

/* Failures leave the old file as it was and say why. */
static void test_unwritable(void)
{
    profile_entry a = test_entry(cls(7, 500, 200, 30, true), 256);
    profile_entry b = test_entry(cls(3, 500, 200, 30, true), 128);
    char note[1024];
    tm_error err = {0};

    /* The directory cannot be made: a regular file is in the way. */
    char *plain = path_in(tmpdir, "plain");
    write_file(plain, "not a directory");
    char *under = path_in(plain, "sub/x.json");
    CHECK(!store(under, GEN, &a, note, sizeof note, &err));
    CHECK_CONTAINS(err.message, "cannot create directory");
    CHECK_CONTAINS(err.message, "Not a directory");
    free(under);
    unlink(plain);
    free(plain);

    /* The lock cannot be taken ("<path>.lock" is a directory). */
    char *dir = path_in(tmpdir, "unwritable");
    char *path = device_path(dir);
    CHECK(store(path, GEN, &a, note, sizeof note, &err));
    char *before = read_file(path);
    char *lock = malloc(strlen(path) + 8);
    sprintf(lock, "%s.lock", path);
    unlink(lock);
    make_dir(lock);
    CHECK(!store(path, GEN, &b, note, sizeof note, &err));
    CHECK_CONTAINS(err.message, "lock");
    char *after = read_file(path);
    CHECK(before && after && strcmp(before, after) == 0);
    free(after);
    rmdir(lock);

    /* The disk fills up mid-write (a file size limit, which binds root too):
     * in a child, so the limit stays there. */
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim = {64, 64};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(3);
        tm_error e = {0};
        bool stored = store(path, GEN, &b, note, sizeof note, &e);
        _exit(!stored && strstr(e.message, "File too large") ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    after = read_file(path);
    CHECK(before && after && strcmp(before, after) == 0);
    CHECK(count_files_with(dir, ".tmp.") == 0);
    free(after);

    /* Mode bits stop writes only for other users than root. */
    if (geteuid() != 0) {
        chmod(dir, 0555);
        CHECK(!store(path, GEN, &b, note, sizeof note, &err));
        chmod(dir, 0755);
        after = read_file(path);
        CHECK(before && after && strcmp(before, after) == 0);
        free(after);
    }
    free(lock);
    free(before);
    free(path);
    free(dir);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    dir_e = path_in(tmpdir, "explicit");
    dir_v = path_in(tmpdir, "env");
    home = path_in(tmpdir, "home");
    dir_u = path_in(home, ".local/share/tmcml/profiles");
    make_dir(dir_e);
    make_dir(dir_v);
    make_dir(dir_u);
    set_env(NULL, NULL);

    test_round_trip();
    test_sets_members();
    test_file_name();
    test_many_entries();
    test_lookup();
    test_is_current();
    test_search_dirs();
    test_find_order();
    test_find_stale();
    test_find_trust();
    test_corrupt();
    test_store();
    test_store_trust();
    test_concurrent();
    test_unwritable();

    remove_tree(tmpdir);
    free(dir_e);
    free(dir_v);
    free(dir_u);
    free(home);
    return check_summary("test_profile");
}
