/* base/fs.c: atomic writes leave either the new file or the old one, never a
 * half-written file or a stray temporary; unwritable places are named. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdatomic.h>

#include "check.h"
#include "fs.h"
#include "interrupt.h"

static char tmpdir[] = "/tmp/tmcml_test_fs.XXXXXX";

/* Every call of umask() in this program, base/fs.c's included (the
 * executable's definition wins over the C library's), so a test can see
 * that a write never sets the umask: setting it, even to put it back at
 * once, changes it for every other thread of a host program (issue 21). */
static atomic_int umask_calls;
mode_t umask(mode_t mask)
{
    atomic_fetch_add(&umask_calls, 1);
    return (mode_t)syscall(SYS_umask, mask);
}

static bool write_text(FILE *stream, void *ctx, tm_error *err)
{
    (void)err;
    return fputs(ctx, stream) >= 0;
}

/* Writes half its text, then fails with its own message. */
static bool write_then_fail(FILE *stream, void *ctx, tm_error *err)
{
    fputs(ctx, stream);
    error_set(err, NULL, 0, "the writer gave up");
    return false;
}

static bool fail_silently(FILE *stream, void *ctx, tm_error *err)
{
    (void)ctx;
    (void)err;
    fputs("partial", stream);
    return false;
}

static char *read_all(const char *path)
{
    tm_error err;
    return fs_read_text(path, NULL, &err);
}

static void test_success(void)
{
    char *path = fs_join(tmpdir, "out.txt");
    tm_error err = {0};
    umask(022);
    CHECK(fs_write_atomic(path, write_text, "first version\n", &err));
    char *text = read_all(path);
    CHECK(text && strcmp(text, "first version\n") == 0);
    free(text);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_MSG((st.st_mode & 0777) == 0644, "mode %o", (unsigned)(st.st_mode & 0777));

    /* Replacing an existing file. */
    CHECK(fs_write_atomic(path, write_text, "second\n", &err));
    text = read_all(path);
    CHECK(text && strcmp(text, "second\n") == 0);
    free(text);

    /* The umask is honoured. */
    umask(077);
    CHECK(fs_write_atomic(path, write_text, "third\n", &err));
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    umask(022);
    CHECK(check_temp_files(tmpdir, "probe") == 0);
    unlink(path);
    free(path);
}

/* One session per thread, as tmcml.h recommends: writes from several
 * threads at once leave the process umask as it was, never call umask(), and
 * every file gets the mode the umask gives. */
#define UMASK_THREADS 6
#define UMASK_WRITES  40
static void *write_many(void *arg)
{
    long id = (long)(intptr_t)arg;
    char path[512];
    tm_error err;
    bool ok = true;
    for (int i = 0; i < UMASK_WRITES; i++) {
        snprintf(path, sizeof path, "%s/thread%ld_%d.txt", tmpdir, id, i % 4);
        ok = fs_write_atomic(path, write_text, "x\n", &err) && ok;
        struct stat st;
        ok = stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && ok;
    }
    return ok ? arg : NULL;
}

static void test_umask_untouched(void)
{
    umask(077);
    int before = atomic_load(&umask_calls);
    pthread_t t[UMASK_THREADS];
    for (long i = 0; i < UMASK_THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, write_many, (void *)(intptr_t)(i + 1)) == 0);
    for (long i = 0; i < UMASK_THREADS; i++) {
        void *got = NULL;
        CHECK(pthread_join(t[i], &got) == 0);
        CHECK_MSG(got == (void *)(intptr_t)(i + 1),
                  "thread %ld: a write failed or a file's mode "
                  "was not 0600 under umask 077",
                  i + 1);
    }
    CHECK_MSG(atomic_load(&umask_calls) == before, "the writes called umask() %d times",
              atomic_load(&umask_calls) - before);
    CHECK_MSG(umask(022) == 077, "the process umask changed");
    char path[512];
    for (int id = 1; id <= UMASK_THREADS; id++)
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/thread%d_%d.txt", tmpdir, id, i);
            unlink(path);
        }
    CHECK(check_temp_files(tmpdir, NULL) == 0);
}

static void test_writer_failure(void)
{
    char *path = fs_join(tmpdir, "keep.txt");
    tm_error err = {0};
    CHECK(fs_write_atomic(path, write_text, "old contents\n", &err));

    CHECK(!fs_write_atomic(path, write_then_fail, "new half", &err));
    CHECK_CONTAINS(err.message, "the writer gave up");
    CHECK(strcmp(err.file, path) == 0);
    char *text = read_all(path);
    CHECK(text && strcmp(text, "old contents\n") == 0);
    free(text);
    CHECK(check_temp_files(tmpdir, "probe") == 0);

    /* A writer that fails without a message still gets one. */
    memset(&err, 0, sizeof err);
    CHECK(!fs_write_atomic(path, fail_silently, NULL, &err));
    CHECK(err.message[0] != '\0');
    CHECK(strcmp(err.file, path) == 0);
    text = read_all(path);
    CHECK(text && strcmp(text, "old contents\n") == 0);
    free(text);
    CHECK(check_temp_files(tmpdir, "probe") == 0);

    /* Failure before any byte is written: the destination's directory is
     * missing, so nothing at all is created. */
    char *missing = fs_join(tmpdir, "no_such_dir/out.txt");
    CHECK(!fs_write_atomic(missing, write_text, "x", &err));
    CHECK(strcmp(err.file, missing) == 0);
    CHECK_CONTAINS(err.message, "No such file or directory");
    free(missing);

    unlink(path);
    free(path);
}

static void test_check_writable(void)
{
    tm_error err = {0};
    char *ok = fs_join(tmpdir, "result.mco");
    CHECK(fs_check_writable(ok, &err));
    CHECK(check_temp_files(tmpdir, "probe") == 0);
    CHECK(access(ok, F_OK) != 0); /* nothing created */
    free(ok);

    /* Tests run as root, for whom mode bits do not stop writes: use a
     * directory that does not exist and one that is a regular file. */
    char *missing = fs_join(tmpdir, "missing_dir/result.mco");
    CHECK(!fs_check_writable(missing, &err));
    CHECK_CONTAINS(err.message, "missing_dir");
    CHECK_CONTAINS(err.message, "No such file or directory");
    free(missing);

    char *file = fs_join(tmpdir, "plain_file");
    CHECK(fs_write_atomic(file, write_text, "not a directory", &err));
    char *under_file = fs_join(file, "result.mco");
    CHECK(!fs_check_writable(under_file, &err));
    CHECK_CONTAINS(err.message, "plain_file");
    CHECK_CONTAINS(err.message, "Not a directory");
    CHECK(!fs_write_atomic(under_file, write_text, "x", &err));
    CHECK_CONTAINS(err.message, "Not a directory");
    unlink(file);
    free(under_file);
    free(file);

    /* A bare name lives in the current directory. */
    CHECK(fs_check_writable("tmcml_probe_test.mco", &err));
    CHECK(access("tmcml_probe_test.mco", F_OK) != 0);
}

static void test_join(void)
{
    struct {
        const char *dir, *name, *want;
    } cases[] = {
        {"out", "a.mco", "out/a.mco"},
        {"out/", "a.mco", "out/a.mco"},
        {NULL, "a.mco", "a.mco"},
        {"", "a.mco", "a.mco"},
        {"out", "/abs/a.mco", "/abs/a.mco"},
        {"/", "a.mco", "/a.mco"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = fs_join(cases[i].dir, cases[i].name);
        CHECK_MSG(got && strcmp(got, cases[i].want) == 0, "fs_join(%s, %s) = %s",
                  cases[i].dir ? cases[i].dir : "NULL", cases[i].name, got ? got : "NULL");
        free(got);
    }
}

/* Names that fs_join would carry out of its directory. */
static void test_leaves_dir(void)
{
    const char *out[] = {"/etc/passwd", "../x.mco", "a/../../x.mco", "./../x", "a//..//../x", ".."};
    const char *in[] = {"x.mco",       "a/x.mco", "a/../x.mco", "./x.mco",
                        "a/b/../../x", "..x.mco", "x..",        "a/..b/x"};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        CHECK_MSG(fs_name_leaves_dir(out[i]), "%s stays inside?", out[i]);
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        CHECK_MSG(!fs_name_leaves_dir(in[i]), "%s leaves?", in[i]);
}

static void test_read_text(void)
{
    tm_error err = {0};
    char *path = fs_join(tmpdir, "big.txt");
    /* Larger than the first read chunk, so the buffer must grow. */
    size_t n = 200000;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    CHECK(fs_write_atomic(path, write_text, big, &err));
    size_t size = 0;
    char *text = fs_read_text(path, &size, &err);
    CHECK(text && size == n && strcmp(text, big) == 0);
    free(text);
    free(big);
    unlink(path);
    free(path);

    CHECK(fs_read_text("/nonexistent/file.mci", NULL, &err) == NULL);
    CHECK(strcmp(err.file, "/nonexistent/file.mci") == 0);
    CHECK_CONTAINS(err.message, "No such file or directory");
}

/* The XDG rules, one function for the cubin cache and the profiles: an
 * absolute $XDG_* wins, a relative one is ignored (the specification), then
 * $HOME; nothing without either. */
static void test_xdg(void)
{
    char buf[256];
    setenv("HOME", "/home/u", 1);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    CHECK(fs_xdg_dir("XDG_CACHE_HOME", ".cache", "", buf, sizeof buf) &&
          strcmp(buf, "/x/cache/tmcml") == 0);
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    CHECK(fs_xdg_dir("XDG_CACHE_HOME", ".cache", "", buf, sizeof buf) &&
          strcmp(buf, "/home/u/.cache/tmcml") == 0);
    unsetenv("XDG_DATA_HOME");
    CHECK(fs_xdg_dir("XDG_DATA_HOME", ".local/share", "profiles", buf, sizeof buf) &&
          strcmp(buf, "/home/u/.local/share/tmcml/profiles") == 0);
    CHECK(!fs_xdg_dir("XDG_DATA_HOME", ".local/share", "profiles", buf, 10)); /* does not fit */
    unsetenv("HOME");
    CHECK(!fs_xdg_dir("XDG_CACHE_HOME", ".cache", "", buf, sizeof buf));
}

/* fs_file_size / fs_read_exact: the size, then exactly those bytes. */
static void test_read_exact(void)
{
    char path[512], buf[8];
    snprintf(path, sizeof path, "%s/exact.bin", tmpdir);
    tm_error err = {0};
    CHECK(fs_write_bytes_atomic(path, "abcdef", 6, &err));
    size_t size = 0;
    CHECK(fs_file_size(path, &size, &err) && size == 6);
    CHECK(fs_read_exact(path, buf, 6, &err) && memcmp(buf, "abcdef", 6) == 0);
    CHECK(!fs_read_exact(path, buf, 5, &err)); /* longer than said */
    CHECK_CONTAINS(err.message, "changed while being read");
    CHECK(!fs_file_size(tmpdir, &size, &err));
    CHECK_CONTAINS(err.message, "not a regular file");
}

/* fs_resolve: one answer for every spelling of one file, existing or not. */
static void test_resolve(void)
{
    char a[512], b[512], c[512], sub[512];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    mkdir(sub, 0755);
    snprintf(a, sizeof a, "%s/o.mco", tmpdir);
    snprintf(b, sizeof b, "%s/./o.mco", tmpdir);
    snprintf(c, sizeof c, "%s/sub/../o.mco", tmpdir);
    tm_error err = {0};
    char *ra = fs_resolve(a, &err), *rb = fs_resolve(b, &err), *rc = fs_resolve(c, &err);
    CHECK(ra && rb && rc && strcmp(ra, rb) == 0 && strcmp(ra, rc) == 0);
    CHECK(ra && ra[0] == '/' && strcmp(fs_base_name(ra), "o.mco") == 0);
    free(ra);
    free(rb);
    free(rc);
    snprintf(a, sizeof a, "%s/no/such/dir/o.mco", tmpdir);
    CHECK(fs_resolve(a, &err) == NULL);
    CHECK_CONTAINS(err.message, "cannot resolve directory");
    /* a directory where a file will go */
    CHECK(!fs_check_output(sub, &err));
    CHECK_CONTAINS(err.message, "is a directory");
    rmdir(sub);
}

/* A write interrupted by SIGTERM leaves neither the file nor its temp file,
 * and the program exits with 143 (base/interrupt.c). */
static bool raise_term(FILE *stream, void *ctx, tm_error *err)
{
    (void)ctx;
    (void)err;
    fputs("half", stream);
    fflush(stream);
    raise(SIGTERM);
    return true; /* not reached */
}

static void test_interrupted_write(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/interrupted.mco", tmpdir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        interrupt_install();
        tm_error err;
        fs_write_atomic(path, raise_term, NULL, &err);
        _exit(0); /* not reached */
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 143, "status %d", status);
    CHECK(access(path, F_OK) != 0);
    DIR *d = opendir(tmpdir);
    bool temp_left = false;
    for (struct dirent *e; d && (e = readdir(d));)
        temp_left = temp_left || strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    CHECK_MSG(!temp_left, "a temp file was left in %s", tmpdir);
}

/* A character device is written through, never replaced: as root, renaming
 * a temp file over `-o /dev/null` made /dev/null a regular file for the
 * whole machine (issue 21).  A private node of the same device (1, 3) in the
 * temp directory stands in for it; without the right to make one (not
 * root), the case is skipped with a note. */
static void test_device_written_through(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/null", tmpdir);
    int fd = -1;
    if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0 || (fd = open(path, O_WRONLY)) < 0) {
        /* Not root, or a file system mounted nodev. */
        printf("test_fs: no character device case (%s)\n", strerror(errno));
        unlink(path);
        return;
    }
    close(fd);
    tm_error err = {0};
    CHECK(fs_check_output(path, &err));
    CHECK(fs_write_atomic(path, write_text, "into the void\n", &err));
    CHECK(fs_write_bytes_atomic(path, "abc", 3, &err));
    struct stat st;
    CHECK_MSG(lstat(path, &st) == 0 && S_ISCHR(st.st_mode), "the device node became mode %o",
              (unsigned)st.st_mode);
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    /* Through a symbolic link too (as /dev/stdout leads to a device). */
    char link[512];
    snprintf(link, sizeof link, "%s/null_link", tmpdir);
    CHECK(symlink("null", link) == 0);
    CHECK(fs_write_atomic(link, write_text, "x", &err));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(path, &st) == 0 && S_ISCHR(st.st_mode));
    unlink(link);
    unlink(path);

    /* A block device is refused before anything is opened. */
    snprintf(path, sizeof path, "%s/disk", tmpdir);
    CHECK(mknod(path, S_IFBLK | 0600, makedev(7, 250)) == 0);
    CHECK(!fs_check_output(path, &err));
    CHECK_CONTAINS(err.message, "block device");
    CHECK(!fs_write_atomic(path, write_text, "x", &err));
    CHECK(lstat(path, &st) == 0 && S_ISBLK(st.st_mode));
    unlink(path);
}

/* A FIFO is written through to its reader, and stays a FIFO. */
static void *read_fifo(void *arg)
{
    FILE *f = fopen(arg, "r"); /* blocks until the writer opens */
    char *text = calloc(1, 256);
    if (f && text && fread(text, 1, 255, f) == 0)
        text[0] = '\0';
    if (f)
        fclose(f);
    return text;
}

static void test_fifo_written_through(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pipe.mco", tmpdir);
    CHECK(mkfifo(path, 0600) == 0);
    tm_error err = {0};
    CHECK(fs_check_output(path, &err)); /* checked without blocking */
    pthread_t reader;
    CHECK(pthread_create(&reader, NULL, read_fifo, path) == 0);
    CHECK(fs_write_atomic(path, write_text, "through the pipe\n", &err));
    char *got = NULL;
    CHECK(pthread_join(reader, (void **)&got) == 0);
    CHECK_MSG(got && strcmp(got, "through the pipe\n") == 0, "the reader got \"%s\"",
              got ? got : "(nothing)");
    free(got);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(check_temp_files(tmpdir, NULL) == 0);
    unlink(path);

    /* A socket cannot be opened: refused with a message. */
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s/sock", tmpdir);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    CHECK(!fs_write_atomic(addr.sun_path, write_text, "x", &err));
    CHECK_CONTAINS(err.message, "socket");
    CHECK(lstat(addr.sun_path, &st) == 0 && S_ISSOCK(st.st_mode));
    close(fd);
    unlink(addr.sun_path);
}

static bool is_link_to(const char *link, const char *want)
{
    char to[512];
    ssize_t n = readlink(link, to, sizeof to - 1);
    if (n < 0)
        return false;
    to[n] = '\0';
    return strcmp(to, want) == 0;
}

/* A symbolic link is followed: its final target is replaced atomically
 * (temp file beside the target) and the links stay links (`plot -o LINK`
 * replaced the link with a file).  A link to nothing, a loop, and another
 * user's link in a sticky world-writable directory are refused. */
static void test_symlinks(void)
{
    char sub[256], target[512], link[512], link2[512];
    snprintf(sub, sizeof sub, "%s/data", tmpdir);
    CHECK(mkdir(sub, 0755) == 0);
    snprintf(target, sizeof target, "%s/result.mco", sub);
    snprintf(link, sizeof link, "%s/result.mco", tmpdir);
    snprintf(link2, sizeof link2, "%s/latest.mco", tmpdir);
    tm_error err = {0};
    CHECK(fs_write_atomic(target, write_text, "old\n", &err));
    CHECK(symlink("data/result.mco", link) == 0); /* relative to the link's directory */
    CHECK(symlink(link, link2) == 0);             /* a chain of two */
    CHECK(fs_check_output(link2, &err));
    CHECK(fs_write_atomic(link2, write_text, "new\n", &err));
    CHECK(is_link_to(link, "data/result.mco") && is_link_to(link2, link));
    char *text = read_all(target);
    CHECK(text && strcmp(text, "new\n") == 0);
    free(text);
    CHECK(check_temp_files(tmpdir, NULL) == 0 && check_temp_files(sub, NULL) == 0);
    char *a = fs_resolve(link2, &err), *b = fs_resolve(target, &err);
    CHECK_MSG(a && b && strcmp(a, b) == 0, "fs_resolve: %s and %s", a ? a : "NULL", b ? b : "NULL");
    free(a);
    free(b);
    unlink(link2);
    unlink(link);
    unlink(target);

    /* A link to nothing: refused, nothing created at either end. */
    CHECK(symlink("data/missing.mco", link) == 0);
    CHECK(!fs_check_output(link, &err));
    CHECK_CONTAINS(err.message, "does not exist");
    CHECK(!fs_write_atomic(link, write_text, "x", &err));
    CHECK_CONTAINS(err.message, "data/missing.mco");
    CHECK(is_link_to(link, "data/missing.mco"));
    snprintf(target, sizeof target, "%s/missing.mco", sub);
    CHECK(access(target, F_OK) != 0);
    unlink(link);
    /* A loop. */
    CHECK(symlink("result.mco", link) == 0);
    CHECK(!fs_write_atomic(link, write_text, "x", &err));
    CHECK_CONTAINS(err.message, "symbolic links");
    CHECK(is_link_to(link, "result.mco"));
    unlink(link);
    rmdir(sub);
}

/* The kernel's protected_symlinks rule: in a sticky world-writable
 * directory a link owned by someone else (neither us nor the directory's
 * owner) is not followed, so a planted link cannot aim a result at a file
 * of ours.  Needs root to give a link to another user. */
static void test_foreign_link_in_sticky_dir(void)
{
    char shared[256], victim[512], link[512];
    snprintf(shared, sizeof shared, "%s/shared", tmpdir);
    snprintf(victim, sizeof victim, "%s/precious", tmpdir);
    snprintf(link, sizeof link, "%s/out.mco", shared);
    tm_error err = {0};
    CHECK(mkdir(shared, 0777) == 0 && chmod(shared, 01777) == 0);
    CHECK(fs_write_atomic(victim, write_text, "keep me\n", &err));
    CHECK(symlink(victim, link) == 0);
    if (geteuid() != 0 || lchown(link, 4242, 4242) != 0) {
        printf("test_fs: no foreign-link case (not root)\n");
    } else {
        CHECK(!fs_check_output(link, &err));
        CHECK(!fs_write_atomic(link, write_text, "overwritten\n", &err));
        CHECK_CONTAINS(err.message, "belongs to another user");
        char *text = read_all(victim);
        CHECK(text && strcmp(text, "keep me\n") == 0);
        free(text);
        /* Our own link there is followed. */
        CHECK(lchown(link, geteuid(), getegid()) == 0);
        CHECK(fs_write_atomic(link, write_text, "ours\n", &err));
        text = read_all(victim);
        CHECK(text && strcmp(text, "ours\n") == 0);
        free(text);
    }
    unlink(link);
    unlink(victim);
    rmdir(shared);
}

/* A FIFO is refused at once where a regular file is needed (a profile
 * directory with a FIFO named x.json once hung `profiles list`). */
static void test_read_fifo(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fifo.json", tmpdir);
    CHECK(mkfifo(path, 0600) == 0);
    tm_error err = {0};
    size_t size;
    CHECK(fs_read_file(path, 1 << 20, true, &size, &err) == NULL);
    CHECK_CONTAINS(err.message, "not a regular file");
    unlink(path);
    snprintf(path, sizeof path, "%s/small.txt", tmpdir);
    CHECK(fs_write_bytes_atomic(path, "0123456789", 10, &err));
    CHECK(fs_read_file(path, 9, true, &size, &err) == NULL);
    CHECK_CONTAINS(err.message, "larger than 9 bytes");
    char *t = fs_read_file(path, 10, true, &size, &err);
    CHECK(t && size == 10 && strcmp(t, "0123456789") == 0);
    free(t);
    unlink(path);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_success();
    test_umask_untouched();
    test_writer_failure();
    test_check_writable();
    test_join();
    test_leaves_dir();
    test_read_text();
    test_read_exact();
    test_xdg();
    test_resolve();
    test_interrupted_write();
    test_read_fifo();
    test_device_written_through();
    test_fifo_written_through();
    test_symlinks();
    test_foreign_link_in_sticky_dir();
    rmdir(tmpdir);
    return check_summary("test_fs");
}
