/* Adding a tuner's winner to a profile file, safely when several tuners (in
 * several processes, or threads of one) store into the same file at once.
 *
 * The lock: an exclusive fcntl lock on a sidecar file "<path>.lock" that is
 * never renamed or removed.  Not on the profile itself, because every write
 * replaces it by rename: a second tuner that opens the path after the rename
 * gets the new inode and would lock that, unhindered by the first.  fcntl
 * rather than flock because fcntl locks also work on NFS home directories
 * (where the user's profiles live on clusters).  Where the kernel has them,
 * open-file-description locks (F_OFD_SETLKW, Linux 3.15) are used: unlike
 * classic POSIX locks they exclude threads of one process from each other and
 * are not dropped when the process closes some other descriptor of the file;
 * a process-wide mutex covers threads where only classic locks exist.  The
 * lock file stays behind (removing it would race with a tuner waiting on it);
 * `tmcml profiles` ignores it. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir_trust.h"
#include "fs.h"

static pthread_mutex_t profile_store_mutex = PTHREAD_MUTEX_INITIALIZER;

/* "<path><suffix>", malloc'd. */
static char *profile_sidecar(const char *path, const char *suffix)
{
    size_t size = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(size);
    if (s)
        snprintf(s, size, "%s%s", path, suffix);
    return s;
}

static int profile_fcntl_lock(int fd)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl); /* l_pid must be 0 for OFD locks */
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    int r;
#ifdef F_OFD_SETLKW
    while ((r = fcntl(fd, F_OFD_SETLKW, &fl)) != 0 && errno == EINTR)
        ;
    if (r == 0 || errno != EINVAL)
        return r;
#endif
    while ((r = fcntl(fd, F_SETLKW, &fl)) != 0 && errno == EINTR)
        ;
    return r;
}

/* Opens and locks "<path>.lock"; returns its descriptor (closing it
 * unlocks), or -1 with *err. */
static int profile_lock(const char *path, tm_error *err)
{
    char *name = profile_sidecar(path, ".lock");
    if (!name) {
        error_set(err, path, 0, "out of memory");
        return -1;
    }
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        error_set(err, path, 0, "cannot open the lock file '%s': %s", name, strerror(errno));
    else if (profile_fcntl_lock(fd) != 0) {
        error_set(err, path, 0, "cannot lock '%s': %s", name, strerror(errno));
        close(fd);
        fd = -1;
    }
    free(name);
    return fd;
}

typedef struct profile_bytes {
    const char *data;
    size_t size;
} profile_bytes;

static bool profile_copy_bytes(FILE *stream, void *ctx, tm_error *err)
{
    const profile_bytes *b = ctx;
    (void)err;
    return fwrite(b->data, 1, b->size, stream) == b->size;
}

/* The directory that will hold path, made when missing (0700, as
 * dir_trust_make does) and one that no other user can write. */
static bool profile_store_dir(const char *path, tm_error *err)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    tm_error why;
    bool ok = dir && dir_trust_make(dir, err);
    if (ok && !(ok = profile_dir_trusted(dir, &why)))
        error_set(err, path, 0, "not stored: %s: %s", why.file, why.message);
    if (!dir)
        error_set(err, path, 0, "out of memory");
    free(dir);
    return ok;
}

/* Copies the corrupt file to "<path>.corrupt" (replacing an older copy) and
 * says so in note.  A copy rather than a rename, so that path stays as it
 * was until the new profile replaces it. */
static bool profile_keep_corrupt(const char *path, const tm_error *why, char *note,
                                 size_t note_size, tm_error *err)
{
    char *aside = profile_sidecar(path, ".corrupt");
    size_t size = 0;
    char *text = aside ? fs_read_text(path, &size, err) : NULL;
    profile_bytes bytes = {text, size};
    bool ok = text && fs_write_atomic(aside, profile_copy_bytes, &bytes, err);
    if (!aside)
        error_set(err, path, 0, "out of memory");
    if (ok && note) {
        char reason[sizeof why->message + 32];
        snprintf(note, note_size, "%s: corrupt (%s); kept as %s, starting a new profile", path,
                 error_format(why, reason, sizeof reason), aside);
    }
    free(text);
    free(aside);
    return ok;
}

/* Loads the current file into *p, when there is one worth keeping: none,
 * a corrupt one (set aside) and a stale one (entries dropped) give an empty
 * *p.  False (file untouched) when it exists but cannot be read. */
static bool profile_take_existing(const char *path, const profile_device *dev,
                                  const profile_toolchain *tc, profile *p, char *note,
                                  size_t note_size, tm_error *err)
{
    tm_error why = {0};
    switch (profile_load(path, false, p, &why)) {
    case PROFILE_MISSING: return true;
    case PROFILE_UNREADABLE: *err = why; return false;
    case PROFILE_CORRUPT: return profile_keep_corrupt(path, &why, note, note_size, err);
    case PROFILE_OK: break;
    }
    if (profile_is_current(p, dev, tc))
        return true;
    if (note)
        snprintf(note, note_size,
                 "%s: made for %s (sm_%d%d) by generator %s, NVRTC %s; its %d entries were "
                 "dropped",
                 path, p->device.name, p->device.cc_major, p->device.cc_minor,
                 p->toolchain.generator, p->toolchain.nvrtc_version, p->num_entries);
    profile_free(p);
    return true;
}

/* Under the lock: read, merge, write. */
static bool profile_store_locked(const char *path, const profile_device *dev,
                                 const profile_toolchain *tc, const profile_entry *e, char *note,
                                 size_t note_size, tm_error *err)
{
    profile p;
    if (!profile_take_existing(path, dev, tc, &p, note, note_size, err))
        return false;
    p.device = *dev;
    p.toolchain = *tc;
    bool ok = profile_put(&p, e);
    if (!ok)
        error_set(err, path, 0, "out of memory");
    ok = ok && profile_write(path, &p, err);
    profile_free(&p);
    return ok;
}

bool profile_store_entry(const char *path, const profile_device *dev, const profile_toolchain *tc,
                         const profile_entry *e, char *note, size_t note_size, tm_error *err)
{
    if (note && note_size)
        note[0] = '\0';
    /* Refuse a bad entry before touching anything. */
    profile_entry copy = *e;
    profile check = {.device = *dev, .toolchain = *tc, .num_entries = 1, .entries = &copy};
    tm_error why;
    if (!profile_validate(&check, NULL, &why)) {
        error_set(err, path, 0, "not stored: %s", why.message);
        return false;
    }
    if (!profile_store_dir(path, err))
        return false;
    pthread_mutex_lock(&profile_store_mutex);
    int fd = profile_lock(path, err);
    bool ok = fd >= 0 && profile_store_locked(path, dev, tc, e, note, note_size, err);
    if (fd >= 0)
        close(fd); /* releases the lock */
    pthread_mutex_unlock(&profile_store_mutex);
    return ok;
}
