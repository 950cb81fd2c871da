/* Where the shipped profiles are found (tuner/profile_path.c,
 * base/self_path.c): from the program's folder (/proc/self/exe) and from the
 * library's (dladdr), relative to them, so an installed prefix can be moved;
 * in the build tree, the sources' profiles/.
 *
 * The shipped directory is trusted by the rule of every profile directory
 * (base/dir_trust.h): one that other users can write is passed over with a
 * note naming it, as a user's would be.
 *
 *   test_shipped_dir PROBE.so      the tests (PROBE: shipped_dir_probe.c)
 *   test_shipped_dir --print       prints this program's shipped directory
 *   test_shipped_dir --find        looks up the test device's profile along
 *                                  the search path: the notes, then the match
 *
 * The program and the probe are copied into temporary prefixes outside the
 * build tree (and one inside it) and run or loaded from there. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fs.h"
#include "profile.h"
#include "self_path.h"
#include "tmcml_config.h"

typedef bool (*probe_fn)(char *buf, size_t size);

static void run(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "test_shipped_dir: failed: %s\n", cmd);
        abort();
    }
}

/* mkdir -p dir, cp file into it; the copy's path (malloc'd). */
static char *copy_into(const char *file, const char *dir, const char *name)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s/%s'", dir, file, dir, name);
    run(cmd);
    return fs_join(dir, name);
}

/* The shipped directory the library at path finds; "" when it finds none. */
static void probe_at(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK_MSG(h != NULL, "dlopen %s: %s", path, dlerror());
    if (!h)
        return;
    probe_fn probe;
    *(void **)&probe = dlsym(h, "probe_shipped_dir");
    CHECK(probe && probe(buf, size));
    dlclose(h);
}

/* The shipped directory that the program at path prints. */
static void program_at(const char *path, char *buf, size_t size)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --print", path);
    FILE *p = popen(cmd, "r");
    buf[0] = '\0';
    CHECK(p && fgets(buf, (int)size, p));
    buf[strcspn(buf, "\n")] = '\0';
    CHECK(p && pclose(p) == 0);
}

static void test_join(void)
{
    char b[64];
    CHECK(self_path_join("/p/bin", "../share/x", b, sizeof b) && strcmp(b, "/p/share/x") == 0);
    CHECK(self_path_join("/p/lib/arch", "../../share/x", b, sizeof b) &&
          strcmp(b, "/p/share/x") == 0);
    CHECK(self_path_join("/bin", "../share/x", b, sizeof b) && strcmp(b, "/share/x") == 0);
    CHECK(self_path_join("/p", "share/x", b, sizeof b) && strcmp(b, "/p/share/x") == 0);
    CHECK(
        !self_path_join("/p", "a-name-longer-than-the-buffer-it-is-written-into-by-far-x", b, 16));
}

/* A prefix outside the build tree: the folder relative to the program's
 * or library's, whether or not it exists (`profiles list` names it). */
static void test_installed(const char *probe, const char *prefix)
{
    char self[4096], expect[4096], got[4096];
    self_kind kind;
    CHECK(self_path_dir(self, sizeof self, &kind) && kind == SELF_PROGRAM);

    char *bin = fs_join(prefix, "bin"), *libdir = fs_join(prefix, "lib/arch/x");
    char *exe = realpath("/proc/self/exe", NULL); /* this program, not the shell's cp */
    CHECK(exe != NULL);
    char *program = copy_into(exe ? exe : "", bin, "tmcml_probe");
    char *lib = copy_into(probe, libdir, "libprobe.so");
    char *real_bin = realpath(bin, NULL), *real_lib = realpath(libdir, NULL);
    CHECK(real_bin && real_lib);

    CHECK(self_path_join(real_bin, TMCML_PROFILES_FROM_BINDIR, expect, sizeof expect));
    program_at(program, got, sizeof got);
    CHECK_MSG(strcmp(got, expect) == 0, "program: %s, expected %s", got, expect);
    CHECK(self_path_join(real_lib, TMCML_PROFILES_FROM_LIBDIR, expect, sizeof expect));
    probe_at(lib, got, sizeof got);
    CHECK_MSG(strcmp(got, expect) == 0, "library: %s, expected %s", got, expect);

    /* Moved as a whole: found in the new place. */
    char moved[4200], cmd[8600];
    snprintf(moved, sizeof moved, "%s.moved", prefix);
    snprintf(cmd, sizeof cmd, "mv '%s' '%s'", prefix, moved);
    run(cmd);
    char *moved_lib = fs_join(moved, "lib/arch/x/libprobe.so");
    char *moved_dir = fs_join(moved, "lib/arch/x");
    char *real_moved = realpath(moved_dir, NULL);
    CHECK(real_moved &&
          self_path_join(real_moved, TMCML_PROFILES_FROM_LIBDIR, expect, sizeof expect));
    probe_at(moved_lib, got, sizeof got);
    CHECK_MSG(strcmp(got, expect) == 0, "moved library: %s, expected %s", got, expect);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", moved);
    run(cmd);
    free(exe), free(bin), free(libdir), free(program), free(lib), free(real_bin), free(real_lib);
    free(moved_lib), free(moved_dir), free(real_moved);
}

/* In the build tree: the sources' profiles, for the program and the
 * library; but a prefix installed inside the build tree finds its own. */
static void test_build_tree(const char *probe)
{
    char got[4096];
    CHECK(profile_shipped_dir(got, sizeof got) && strcmp(got, TMCML_SOURCE_PROFILE_DIR) == 0);
    probe_at(probe, got, sizeof got);
    CHECK_MSG(strcmp(got, TMCML_SOURCE_PROFILE_DIR) == 0, "build-tree library: %s", got);

    char prefix[] = TMCML_BUILD_DIR "/tests/shipped_dir.XXXXXX";
    CHECK(mkdtemp(prefix) != NULL);
    char *libdir = fs_join(prefix, "lib/arch/x");
    char *lib = copy_into(probe, libdir, "libprobe.so");
    char *real_lib = realpath(libdir, NULL);
    char expect[4096], cmd[8400];
    CHECK(real_lib && self_path_join(real_lib, TMCML_PROFILES_FROM_LIBDIR, expect, sizeof expect));
    probe_at(lib, got, sizeof got); /* the prefix has no profiles: the sources' */
    CHECK_MSG(strcmp(got, TMCML_SOURCE_PROFILE_DIR) == 0, "no installed profiles: %s", got);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", expect);
    run(cmd);
    probe_at(lib, got, sizeof got);
    CHECK_MSG(strcmp(got, expect) == 0, "installed in the build tree: %s, expected %s", got,
              expect);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", prefix);
    run(cmd);
    free(libdir), free(lib), free(real_lib);
}

/* ---- the shipped directory's trust ------------------------------------------- */

static profile_device test_device(void)
{
    profile_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "tmcml Shipped Test GPU");
    d.cc_major = 9;
    d.sm_count = 132;
    return d;
}

static profile_toolchain test_toolchain(void)
{
    profile_toolchain t;
    memset(&t, 0, sizeof t);
    snprintf(t.nvrtc_version, sizeof t.nvrtc_version, "13.0");
    snprintf(t.generator, sizeof t.generator, "0123456789abcdef");
    return t;
}

static profile_class test_class(void)
{
    profile_class c = {.num_layers = 7, .nr = 200, .nz = 500, .na = 30, .score_absorption = true};
    return c;
}

static void print_note(void *ctx, const char *msg)
{
    (void)ctx;
    printf("note: %s\n", msg);
}

/* --find: the test device's entry along this program's search path. */
static int find_test_profile(void)
{
    profile_device dev = test_device();
    profile_toolchain tc = test_toolchain();
    profile_class c = test_class();
    profile_found found;
    tm_error err = {0};
    if (!profile_find(NULL, &dev, &tc, &c, &found, print_note, NULL, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    printf("match: %s\n", profile_match_name(found.match));
    return 0;
}

/* The test device's profile, one entry for test_class(), in dir. */
static void write_test_profile(const char *dir)
{
    profile p;
    profile_init(&p);
    p.device = test_device();
    p.toolchain = test_toolchain();
    profile_entry e;
    memset(&e, 0, sizeof e);
    e.cls = test_class();
    knobs_init(&e.config);
    e.photons_per_second = 1e8;
    e.steps_per_second = 1e10;
    e.pilot_photons = 1000000;
    e.candidates = 1;
    e.tuning_seconds = 1;
    snprintf(e.date, sizeof e.date, "2026-11-22T10:00:00Z");
    char name[512];
    tm_error err = {0};
    CHECK(profile_put(&p, &e) && profile_file_name(&p.device, name, sizeof name));
    char *path = fs_join(dir, name);
    CHECK_MSG(path && profile_write(path, &p, &err), "%s", err.message);
    free(path);
    profile_free(&p);
}

/* What the program at path prints with --find (the user's folders those of
 * the prefix, empty). */
static void find_at(const char *program, const char *prefix, char *buf, size_t size)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd,
             "unset TMCML_PROFILE_DIR; XDG_DATA_HOME='%s/xdg' HOME='%s/home' '%s' --find", prefix,
             prefix, program);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(buf, 1, size - 1, p) : 0;
    buf[n] = '\0';
    CHECK(p && pclose(p) == 0);
}

/* An installed prefix whose shipped folder others can write: its profiles
 * are not read, with the note a user's folder gets; its own again once
 * only its owner can write it. */
static void test_untrusted(const char *prefix)
{
    char *bin = fs_join(prefix, "bin");
    char *exe = realpath("/proc/self/exe", NULL);
    CHECK(exe != NULL);
    char *program = copy_into(exe ? exe : "", bin, "tmcml_probe");
    char *real_bin = realpath(bin, NULL);
    char shipped[4096], cmd[8400], out[16384];
    CHECK(real_bin &&
          self_path_join(real_bin, TMCML_PROFILES_FROM_BINDIR, shipped, sizeof shipped));
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", shipped);
    run(cmd);
    write_test_profile(shipped);
    CHECK(chmod(shipped, 0755) == 0);
    find_at(program, prefix, out, sizeof out);
    CHECK_CONTAINS(out, "match: exact");
    CHECK(!strstr(out, "not read"));

    static const struct {
        mode_t mode;
        const char *said;
    } open_to[] = {{0757, "writable by everyone (mode 0757, not sticky)"},
                   {0775, "writable by its group (mode 0775, not sticky)"}};
    for (size_t i = 0; i < sizeof open_to / sizeof *open_to; i++) {
        CHECK(chmod(shipped, open_to[i].mode) == 0);
        find_at(program, prefix, out, sizeof out);
        char said[2 * sizeof shipped + 64];
        snprintf(said, sizeof said, "note: profiles in %s not read: %s: ", shipped, shipped);
        CHECK_CONTAINS(out, said);
        CHECK_CONTAINS(out, open_to[i].said);
        CHECK_CONTAINS(out, "match: none");
    }
    CHECK(chmod(shipped, 0755) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", prefix);
    run(cmd);
    free(bin), free(exe), free(program), free(real_bin);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--find") == 0)
        return find_test_profile();
    if (argc == 2 && strcmp(argv[1], "--print") == 0) {
        char dir[4096];
        if (!profile_shipped_dir(dir, sizeof dir))
            return 1;
        printf("%s\n", dir);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_shipped_dir PROBE.so | --print | --find\n");
        return 2;
    }
    test_join();
    test_build_tree(argv[1]);
    char prefix[] = "/tmp/tmcml_test_shipped_dir.XXXXXX";
    CHECK(mkdtemp(prefix) != NULL);
    test_installed(argv[1], prefix);
    char untrusted[] = "/tmp/tmcml_test_shipped_trust.XXXXXX";
    CHECK(mkdtemp(untrusted) != NULL);
    test_untrusted(untrusted);
    return check_summary("test_shipped_dir");
}
