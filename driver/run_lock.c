/* One writer per output (driver/run_lock.h). */
#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Attempts at a lock file that its holder removes as we open it. */
#define RUN_LOCK_ATTEMPTS 8

static struct flock whole_file(short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET; /* l_start = l_len = 0: the whole file */
    return fl;
}

/* "OUTPUT is being written by process ...": the holder as its lock file
 * says (pid, host, start), else as the kernel does (the pid alone). */
static void say_holder(int fd, const char *output, tm_error *err)
{
    char text[512] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    long pid = 0;
    char host[256] = "", started[64] = "";
    if (sscanf(text, "pid %ld\nhost %255[^\n]\nstarted %63[^\n]", &pid, host, started) != 3) {
        struct flock fl = whole_file(F_WRLCK);
        pid = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (long)fl.l_pid : 0;
        snprintf(host, sizeof host, "this or another host");
        snprintf(started, sizeof started, "just now");
    }
    error_set(err, NULL, 0,
              "%s is being written by process %ld on %s (started %s): wait for it to end, or "
              "give this run another output name",
              output, pid, host, started);
}

/* Our pid, host and the time into the locked file, for say_holder. */
static void record_holder(int fd)
{
    char host[256] = "?", started[64] = "?", text[512];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    time_t now = time(NULL);
    struct tm local;
    if (localtime_r(&now, &local))
        strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S %z", &local);
    int n = snprintf(text, sizeof text, "pid %ld\nhost %s\nstarted %s\n", (long)getpid(), host,
                     started);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n)
        return; /* the lock holds without its note: say_holder falls back on the pid */
}

/* Whether fd is still the file at path (its holder may have removed it). */
static bool still_there(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

bool run_lock_take(run_lock *lk, const char *path, const char *output, tm_error *err)
{
    lk->fd = -1;
    lk->path = NULL;
    for (int attempt = 0; attempt < RUN_LOCK_ATTEMPTS; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            error_set(err, path, 0, "cannot make the lock file: %s", strerror(errno));
            return false;
        }
        struct flock fl = whole_file(F_WRLCK);
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            if (e == EACCES || e == EAGAIN)
                say_holder(fd, output, err);
            close(fd);
            if (e == EACCES || e == EAGAIN)
                return false;
            fprintf(stderr,
                    "tmcml: warning: %s: cannot lock (%s): nothing keeps another "
                    "process from writing %s at the same time\n",
                    path, strerror(e), output);
            return true;
        }
        if (still_there(fd, path)) {
            lk->path = strdup(path);
            if (!lk->path) {
                close(fd);
                error_set(err, NULL, 0, "out of memory");
                return false;
            }
            lk->fd = fd;
            record_holder(fd);
            return true;
        }
        close(fd);
    }
    error_set(err, path, 0, "cannot lock: the lock file keeps being replaced");
    return false;
}

void run_lock_release(run_lock *lk)
{
    if (lk->fd >= 0) {
        unlink(lk->path); /* while locked: see run_lock.h */
        close(lk->fd);
    }
    free(lk->path);
    lk->fd = -1;
    lk->path = NULL;
}

bool run_lock_free(const char *path, const char *output, tm_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true; /* no lock file: nobody holds it */
    struct flock fl = whole_file(F_WRLCK);
    bool held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    if (held)
        say_holder(fd, output, err);
    close(fd);
    return !held;
}
