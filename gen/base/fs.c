#include "fs.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory part of path ("." when path has none), malloc'd. */
static char *fs_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static const char *fs_base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* mkstemp creates files with mode 0600; a result file should get the mode
 * any other new file would (0666 less the umask).  umask can only be read by
 * setting it, so it is set back at once; nothing else in tmcml creates files
 * concurrently with the writers. */
static mode_t fs_new_file_mode(void)
{
    mode_t mask = umask(022);
    umask(mask);
    return (mode_t)(0666 & ~mask);
}

/* The temp files that exist right now, so that an interrupted run can remove
 * them (fs_remove_temps, from a signal handler: no allocation, no locks; the
 * program writes its files from one thread).  A slot is copied in before it
 * is marked live and marked dead before it is reused. */
#define FS_TEMP_SLOTS 16
#define FS_TEMP_NAME  4096
static char fs_temp_names[FS_TEMP_SLOTS][FS_TEMP_NAME];
static volatile sig_atomic_t fs_temp_live[FS_TEMP_SLOTS];

static void fs_temp_remember(const char *name)
{
    if (strlen(name) >= FS_TEMP_NAME)
        return;
    for (int i = 0; i < FS_TEMP_SLOTS; i++)
        if (!fs_temp_live[i]) {
            memcpy(fs_temp_names[i], name, strlen(name) + 1);
            fs_temp_live[i] = 1;
            return;
        }
}

/* The temp file is gone (renamed or removed): forget and free its name. */
static void fs_temp_forget(char *name)
{
    for (int i = 0; name && i < FS_TEMP_SLOTS; i++)
        if (fs_temp_live[i] && strcmp(fs_temp_names[i], name) == 0) {
            fs_temp_live[i] = 0;
            break;
        }
    free(name);
}

void fs_remove_temps(void)
{
    for (int i = 0; i < FS_TEMP_SLOTS; i++)
        if (fs_temp_live[i]) {
            unlink(fs_temp_names[i]);
            fs_temp_live[i] = 0;
        }
}

/* Creates an empty temporary file named "<dir>/.<base>.tmp.XXXXXX"; returns
 * its descriptor and leaves the name in *tmp (malloc'd), or -1 with errno.
 * Only the first TEMP_BASE_MAX bytes of base go into the name, so that an
 * output name near the file system's 255-byte limit still gets a temp file
 * (the rename gives it its whole name). */
#define TEMP_BASE_MAX 200
static int fs_make_temp(const char *path, char **tmp)
{
    char *dir = fs_dir_of(path);
    const char *base = fs_base_of(path);
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
    int fd = mkstemp(name);
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
 * size limit (SIGXFSZ is ignored: gen/base/interrupt.c), not the disk. */
static const char *fs_write_failure(int e)
{
    if (e == EFBIG)
        return "File too large: beyond this process's file size limit (ulimit -f)";
    return e ? strerror(e) : "could not write the file";
}

/* Runs write on the open temp file and makes sure every byte reached the
 * disk; closes the stream in every case.  On failure *why holds the message. */
static bool fs_fill_temp(FILE *stream, bool (*write)(FILE *, void *, tm_error *), void *ctx,
                         tm_error *why)
{
    why->message[0] = '\0';
    bool ok = write(stream, ctx, why);
    if (ok && (fflush(stream) != 0 || ferror(stream)))
        ok = false;
    if (ok && fsync(fileno(stream)) != 0)
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

/* Makes the rename itself durable; failure only weakens the guarantee
 * against power loss, so it is not reported. */
static void fs_sync_dir(const char *path)
{
    char *dir = fs_dir_of(path);
    if (!dir)
        return;
    FILE *d = fopen(dir, "r");
    if (d) {
        (void)fsync(fileno(d));
        fclose(d);
    }
    free(dir);
}

bool fs_write_atomic(const char *path, bool (*write)(FILE *stream, void *ctx, tm_error *err),
                     void *ctx, tm_error *err)
{
    char *tmp = NULL;
    int fd = fs_make_temp(path, &tmp);
    if (fd < 0) {
        error_set(err, path, 0, "%s", strerror(errno));
        return false;
    }
    FILE *stream = NULL;
    if (fchmod(fd, fs_new_file_mode()) != 0 || !(stream = fdopen(fd, "w"))) {
        error_set(err, path, 0, "%s", strerror(errno));
        close(fd);
        unlink(tmp);
        fs_temp_forget(tmp);
        return false;
    }
    errno = 0;
    tm_error why;
    if (!fs_fill_temp(stream, write, ctx, &why)) {
        /* Keep the writer's own file/line when it named one. */
        if (why.file[0]) {
            if (err)
                *err = why;
        } else
            error_set(err, path, why.line, "%s", why.message);
        unlink(tmp);
        fs_temp_forget(tmp);
        return false;
    }
    if (rename(tmp, path) != 0) {
        error_set(err, path, 0, "%s", strerror(errno));
        unlink(tmp);
        fs_temp_forget(tmp);
        return false;
    }
    fs_temp_forget(tmp);
    fs_sync_dir(path);
    return true;
}

char *fs_resolve(const char *path, tm_error *err)
{
    char *dir = fs_dir_of(path);
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

bool fs_check_output(const char *path, tm_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        error_set(err, path, 0, "is a directory: the output file cannot go there");
        return false;
    }
    return fs_check_writable(path, err);
}

bool fs_check_writable(const char *path, tm_error *err)
{
    char *dir = fs_dir_of(path);
    if (!dir) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        error_set(err, path, 0, "cannot write to directory '%s': %s", dir, strerror(errno));
        free(dir);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        error_set(err, path, 0, "cannot write to directory '%s': %s", dir, strerror(ENOTDIR));
        free(dir);
        return false;
    }
    char *tmp = NULL;
    int fd = fs_make_temp(path, &tmp);
    if (fd < 0) {
        error_set(err, path, 0, "cannot write to directory '%s': %s", dir, strerror(errno));
        free(dir);
        return false;
    }
    close(fd);
    unlink(tmp);
    fs_temp_forget(tmp);
    free(dir);
    return true;
}

char *fs_join(const char *dir, const char *name)
{
    if (!dir || !dir[0] || name[0] == '/')
        return strdup(name);
    size_t dl = strlen(dir);
    bool slash = dir[dl - 1] == '/';
    size_t size = dl + strlen(name) + 2;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "%s%s%s", dir, slash ? "" : "/", name);
    return out;
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

const char *fs_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool fs_make_dirs(const char *dir, tm_error *err)
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
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
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

char *fs_sibling(const char *mco_path, const char *suffix)
{
    size_t n = strlen(mco_path), s = strlen(suffix);
    size_t stem = n >= 4 && strcmp(mco_path + n - 4, ".mco") == 0 ? n - 4 : n;
    char *p = malloc(stem + s + 1);
    if (p) {
        memcpy(p, mco_path, stem);
        memcpy(p + stem, suffix, s + 1);
    }
    return p;
}
