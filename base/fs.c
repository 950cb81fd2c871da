#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs_target.h"
#include "hash.h"

/* The temp files that exist right now, so that an interrupted run can remove
 * them (fs_remove_temps, from a signal handler: no allocation, no locks).
 * Library sessions write from several threads at once, so a slot is claimed
 * by an atomic exchange (FREE -> FILLING), its name copied in, then marked
 * LIVE; only LIVE slots are read, and only the writer that claimed a slot
 * frees it.  The run command writes from at most 17 threads at once: two
 * batches' writers (RUN_FINISH_THREADS each, driver/run_batch.c) and the main
 * thread's checkpoints. */
#define FS_TEMP_SLOTS 32
#define FS_TEMP_NAME  4096
enum { FS_SLOT_FREE, FS_SLOT_FILLING, FS_SLOT_LIVE };
static char fs_temp_names[FS_TEMP_SLOTS][FS_TEMP_NAME];
static atomic_int fs_temp_state[FS_TEMP_SLOTS];

static void fs_temp_remember(const char *name)
{
    if (strlen(name) >= FS_TEMP_NAME)
        return;
    for (int i = 0; i < FS_TEMP_SLOTS; i++) {
        int free_slot = FS_SLOT_FREE;
        if (atomic_compare_exchange_strong(&fs_temp_state[i], &free_slot, FS_SLOT_FILLING)) {
            memcpy(fs_temp_names[i], name, strlen(name) + 1);
            atomic_store(&fs_temp_state[i], FS_SLOT_LIVE);
            return;
        }
    }
}

/* The temp file is gone (renamed or removed): forget and free its name.
 * Names are unique, so the slot that matches is this writer's own. */
static void fs_temp_forget(char *name)
{
    for (int i = 0; name && i < FS_TEMP_SLOTS; i++)
        if (atomic_load(&fs_temp_state[i]) == FS_SLOT_LIVE && strcmp(fs_temp_names[i], name) == 0) {
            atomic_store(&fs_temp_state[i], FS_SLOT_FREE);
            break;
        }
    free(name);
}

void fs_remove_temps(void)
{
    for (int i = 0; i < FS_TEMP_SLOTS; i++) {
        int live = FS_SLOT_LIVE;
        if (atomic_compare_exchange_strong(&fs_temp_state[i], &live, FS_SLOT_FREE))
            unlink(fs_temp_names[i]);
    }
}

/* Six characters for a temp file's name, as mkstemp's XXXXXX: from the
 * kernel's random bytes, or (should getrandom fail) from the time, the
 * process and a counter.  O_EXCL, not the name, keeps the file ours. */
static void fs_temp_letters(char out[6])
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_uint_fast64_t counter;
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        uint64_t parts[3] = {(uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec,
                             (uint64_t)getpid(), atomic_fetch_add(&counter, 1)};
        r = hash_mix(parts, sizeof parts);
    }
    for (int i = 0; i < 6; i++, r /= 62)
        out[i] = letters[r % 62];
}

/* Creates an empty temporary file named "<dir>/.<base>.tmp.XXXXXX"; returns
 * its descriptor and leaves the name in *tmp (malloc'd), or -1 with errno.
 * It is created with mode 0666, so the kernel applies the umask (and a
 * directory's default ACL) as for any new file: the umask is never read by
 * setting it, which would race with every other thread of a host program.
 * Only the first TEMP_BASE_MAX bytes of base go into the name, so that an
 * output name near the file system's 255-byte limit still gets a temp file
 * (the rename gives it its whole name). */
#define TEMP_BASE_MAX   200
#define TEMP_NAME_TRIES 100
static int fs_make_temp(const char *path, char **tmp)
{
    char *dir = fs_dir_name(path);
    const char *base = fs_base_name(path);
    *tmp = NULL;
    if (!dir)
        return -1;
    size_t size = strlen(dir) + strlen(base) + sizeof "/..tmp.XXXXXX";
    char *name = malloc(size);
    if (!name) {
        free(dir);
        return -1;
    }
    snprintf(name, size, "%s/.%.*s.tmp.XXXXXX", dir, TEMP_BASE_MAX, base);
    free(dir);
    char *letters = name + strlen(name) - 6;
    int fd = -1;
    for (int i = 0; fd < 0 && i < TEMP_NAME_TRIES; i++) {
        fs_temp_letters(letters);
        fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int saved = errno;
        free(name);
        errno = saved;
        return -1;
    }
    fs_temp_remember(name);
    *tmp = name;
    return fd;
}

/* What a failed write's errno means to a user: EFBIG is the process's file
 * size limit (SIGXFSZ is ignored: base/interrupt.c), not the disk. */
static const char *fs_write_failure(int e)
{
    if (e == EFBIG)
        return "File too large: beyond this process's file size limit (ulimit -f)";
    return e ? strerror(e) : "could not write the file";
}

/* Runs write on the open stream and makes sure every byte reached the file
 * (and, with sync, the disk); closes the stream in every case.  On failure
 * *why holds the message. */
static bool fs_fill(FILE *stream, bool sync, bool (*write)(FILE *, void *, tm_error *), void *ctx,
                    tm_error *why)
{
    why->message[0] = '\0';
    why->file[0] = '\0';
    errno = 0;
    bool ok = write(stream, ctx, why);
    if (ok && (fflush(stream) != 0 || ferror(stream)))
        ok = false;
    if (ok && sync && fsync(fileno(stream)) != 0)
        ok = false;
    int saved = errno;
    if (fclose(stream) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    if (!ok && !why->message[0])
        error_set(why, NULL, 0, "%s", fs_write_failure(saved));
    return ok;
}

/* The writer's failure as the caller's error: the writer's own file and
 * line when it named one, else path. */
static void fs_fill_failed(const char *path, const tm_error *why, tm_error *err)
{
    if (why->file[0]) {
        if (err)
            *err = *why;
    } else
        error_set(err, path, why->line, "%s", why->message);
}

/* Makes the rename itself durable; failure only weakens the guarantee
 * against power loss, so it is not reported. */
static void fs_sync_dir(const char *path)
{
    char *dir = fs_dir_name(path);
    if (!dir)
        return;
    FILE *d = fopen(dir, "r");
    if (d) {
        (void)fsync(fileno(d));
        fclose(d);
    }
    free(dir);
}

/* A system error about writing path, whose file is target (the end of its
 * symbolic links): both named when they differ. */
static void fs_write_error(const char *path, const char *target, int errnum, tm_error *err)
{
    if (strcmp(path, target) == 0)
        error_set(err, path, 0, "%s", strerror(errnum));
    else
        error_set(err, path, 0, "%s (writing %s, the file its link leads to)", strerror(errnum),
                  target);
}

/* The temp file beside target, renamed over it: target is never seen
 * half-written, and path (a symbolic link to it) stays a link. */
static bool fs_replace(const char *path, const char *target,
                       bool (*write)(FILE *, void *, tm_error *), void *ctx, tm_error *err)
{
    char *tmp = NULL;
    int fd = fs_make_temp(target, &tmp);
    if (fd < 0) {
        fs_write_error(path, target, errno, err);
        return false;
    }
    FILE *stream = fdopen(fd, "w");
    tm_error why;
    bool ok = stream != NULL;
    if (!ok) {
        fs_write_error(path, target, errno, err);
        close(fd);
    } else if (!(ok = fs_fill(stream, true, write, ctx, &why)))
        fs_fill_failed(path, &why, err);
    else if (!(ok = rename(tmp, target) == 0))
        fs_write_error(path, target, errno, err);
    if (!ok)
        unlink(tmp);
    fs_temp_forget(tmp);
    if (ok)
        fs_sync_dir(target);
    return ok;
}

/* A character device or a FIFO, written in place: there is nothing to
 * rename over (a file renamed over /dev/null would take its place for the
 * whole machine).  A FIFO waits for its reader, as a shell's > does. */
static bool fs_write_through(const char *path, bool (*write)(FILE *, void *, tm_error *), void *ctx,
                             tm_error *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        error_set(err, path, 0, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        error_set(err, path, 0, "changed while being opened: not written");
        close(fd);
        return false;
    }
    FILE *stream = fdopen(fd, "w");
    if (!stream) {
        error_set(err, path, 0, "%s", strerror(errno));
        close(fd);
        return false;
    }
    tm_error why;
    bool ok = fs_fill(stream, false, write, ctx, &why);
    if (!ok)
        fs_fill_failed(path, &why, err);
    return ok;
}

bool fs_write_atomic(const char *path, bool (*write)(FILE *stream, void *ctx, tm_error *err),
                     void *ctx, tm_error *err)
{
    fs_target t;
    if (!fs_target_find(path, &t, err))
        return false;
    bool ok = t.through ? fs_write_through(path, write, ctx, err)
                        : fs_replace(path, t.path, write, ctx, err);
    fs_target_free(&t);
    return ok;
}

/* The end of path's symbolic links when it has any that resolve, else the
 * real path of its directory and its base name. */
char *fs_resolve(const char *path, tm_error *err)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (real)
            return real;
    }
    char *dir = fs_dir_name(path);
    char *real = dir ? realpath(dir, NULL) : NULL;
    char *out = NULL;
    if (real) {
        const char *base = fs_base_name(path);
        size_t n = strlen(real) + strlen(base) + 2;
        out = malloc(n);
        if (out)
            snprintf(out, n, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", base);
    }
    if (!out)
        error_set(err, path, 0, "cannot resolve directory '%s': %s", dir ? dir : path,
                  dir && !real ? strerror(errno) : "out of memory");
    free(real);
    free(dir);
    return out;
}

bool fs_check_output(const char *path, tm_error *err) { return fs_check_writable(path, err); }

/* A temp file can be made beside target (and is removed at once). */
static bool fs_check_dir(const char *path, const char *target, tm_error *err)
{
    char *dir = fs_dir_name(target);
    if (!dir) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    struct stat st;
    int fd = -1;
    char *tmp = NULL;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            fd = fs_make_temp(target, &tmp);
        else
            errno = ENOTDIR;
    }
    if (fd < 0)
        error_set(err, path, 0, "cannot write to directory '%s': %s", dir, strerror(errno));
    else {
        close(fd);
        unlink(tmp);
        fs_temp_forget(tmp);
    }
    free(dir);
    return fd >= 0;
}

bool fs_check_writable(const char *path, tm_error *err)
{
    fs_target t;
    if (!fs_target_find(path, &t, err))
        return false;
    bool ok = true;
    if (!t.through)
        ok = fs_check_dir(path, t.path, err);
    else if (access(path, W_OK) != 0) {
        error_set(err, path, 0, "cannot write: %s", strerror(errno));
        ok = false;
    }
    fs_target_free(&t);
    return ok;
}

/* Opens path for reading without blocking on a FIFO, then (when allowed)
 * reads it blocking as usual; -1 with *err set. */
static int fs_open_input(const char *path, bool regular_only, tm_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_set(err, path, 0, "cannot open file: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (regular_only && !S_ISREG(st.st_mode)) || S_ISDIR(st.st_mode)) {
        error_set(err, path, 0, "cannot open file: %s",
                  S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

char *fs_read_file(const char *path, size_t max, bool regular_only, size_t *size, tm_error *err)
{
    int fd = fs_open_input(path, regular_only, err);
    if (fd < 0)
        return NULL;
    /* Read in growing chunks rather than trusting the file size, so pipes
     * and files that change size work too, and stop past max. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    bool too_big = false, failed = false;
    while (buf) {
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            failed = n < 0;
            break;
        }
        len += (size_t)n;
        if (len > max) {
            too_big = true;
            break;
        }
        if (len < cap)
            continue;
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int saved = errno;
    close(fd);
    if (!buf || too_big || failed) {
        if (!buf)
            error_set(err, path, 0, "out of memory reading the file");
        else if (too_big)
            error_set(err, path, 0, "larger than %zu bytes: not a file tmcml reads", max);
        else
            error_set(err, path, 0, "read error: %s", strerror(saved));
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

char *fs_read_text(const char *path, size_t *size, tm_error *err)
{
    return fs_read_file(path, SIZE_MAX - 1, false, size, err);
}

bool fs_make_dirs(const char *dir, tm_error *err) { return fs_make_dirs_mode(dir, 0777, err); }

bool fs_make_dirs_mode(const char *dir, unsigned mode, tm_error *err)
{
    char *path = strdup(dir);
    if (!path) {
        error_set(err, dir, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (char *p = path + 1; ok; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end)
            continue;
        *p = '\0';
        if (mkdir(path, (mode_t)mode) != 0 && errno != EEXIST) {
            error_set(err, path, 0, "cannot create directory: %s", strerror(errno));
            ok = false;
        }
        if (end)
            break;
        *p = '/';
    }
    free(path);
    return ok;
}

bool fs_make_parent(const char *path, tm_error *err)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return true;
    char *dir = strndup(path, (size_t)(slash - path));
    if (!dir) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    bool ok = fs_make_dirs(dir, err);
    free(dir);
    return ok;
}

typedef struct bytes {
    const void *data;
    size_t size;
} bytes;

static bool write_bytes(FILE *stream, void *ctx, tm_error *err)
{
    (void)err;
    const bytes *b = ctx;
    return fwrite(b->data, 1, b->size, stream) == b->size;
}

bool fs_write_bytes_atomic(const char *path, const void *data, size_t size, tm_error *err)
{
    bytes b = {data, size};
    return fs_write_atomic(path, write_bytes, &b, err);
}

bool fs_file_size(const char *path, size_t *size, tm_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        error_set(err, path, 0, "cannot read: %s", strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error_set(err, path, 0, "not a regular file");
        return false;
    }
    *size = (size_t)st.st_size;
    return true;
}

bool fs_read_exact(const char *path, void *buf, size_t size, tm_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, path, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    size_t got = fread(buf, 1, size, f);
    bool at_end = got == size && fgetc(f) == EOF;
    bool failed = ferror(f);
    fclose(f);
    if (failed || !at_end) {
        error_set(err, path, 0, "cannot read (or it changed while being read)");
        return false;
    }
    return true;
}

bool fs_xdg_dir(const char *xdg_var, const char *home_default, const char *sub, char *buf,
                size_t size)
{
    const char *xdg = getenv(xdg_var);
    const char *home = getenv("HOME");
    const char *slash = sub && sub[0] ? "/" : "";
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/tmcml%s%s", xdg, slash, sub ? sub : "");
    else if (home && home[0])
        n = snprintf(buf, size, "%s/%s/tmcml%s%s", home, home_default, slash, sub ? sub : "");
    else
        return false;
    return n > 0 && (size_t)n < size;
}
