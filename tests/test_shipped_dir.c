/* Where the shipped profiles are found (tuner/profile_path.c,
 * base/self_path.c): from the program's folder (/proc/self/exe) and from the
 * library's (dladdr), relative to them, so an installed prefix can be moved;
 * in the build tree, the sources' profiles/.
 *
 *   test_shipped_dir PROBE.so      the tests (PROBE: shipped_dir_probe.c)
 *   test_shipped_dir --print       prints this program's shipped directory
 *
 * The program and the probe are copied into temporary prefixes outside the
 * build tree (and one inside it) and run or loaded from there. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--print") == 0) {
        char dir[4096];
        if (!profile_shipped_dir(dir, sizeof dir))
            return 1;
        printf("%s\n", dir);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_shipped_dir PROBE.so | --print\n");
        return 2;
    }
    test_join();
    test_build_tree(argv[1]);
    char prefix[] = "/tmp/tmcml_test_shipped_dir.XXXXXX";
    CHECK(mkdtemp(prefix) != NULL);
    test_installed(argv[1], prefix);
    return check_summary("test_shipped_dir");
}
