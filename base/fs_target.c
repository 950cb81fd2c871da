/* Where a write lands (base/fs_target.h). */
#include "fs_target.h"
#include "path_name.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed before giving up, as the kernel's MAXSYMLINKS. */
#define FS_TARGET_MAX_LINKS 40

/* The kernel's fs.protected_symlinks rule: in a sticky world-writable
 * directory a link is followed only when it belongs to us or to the
 * directory's owner, so another user's link in /tmp cannot send a result
 * over a file of ours.  tmcml resolves links itself (to rename beside the
 * target), where the kernel's rule would not apply, so it applies it here. */
static bool fs_target_link_trusted(const char *link, const struct stat *lst)
{
    char *dir = fs_dir_name(link);
    struct stat ds;
    bool ok = dir && stat(dir, &ds) == 0 &&
              (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) || lst->st_uid == geteuid() ||
               lst->st_uid == ds.st_uid);
    free(dir);
    return ok;
}

/* What link holds, as `ls -l` shows it; malloc'd, NULL with errno. */
static char *fs_target_read_link(const char *link)
{
    char to[PATH_MAX];
    ssize_t n = readlink(link, to, sizeof to - 1);
    if (n < 0)
        return NULL;
    if ((size_t)n >= sizeof to - 1) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    to[n] = '\0';
    return strdup(to);
}

/* What link points to, as a path usable from here (a relative target is
 * relative to the link's directory); malloc'd, NULL with errno. */
static char *fs_target_next(const char *link)
{
    char *to = fs_target_read_link(link);
    if (!to || to[0] == '/')
        return to;
    char *dir = fs_dir_name(link);
    char *next = dir ? fs_join(dir, to) : NULL;
    free(dir);
    free(to);
    return next;
}

/* The file at the end of path's chain of symbolic links (path itself when
 * it is not a link); malloc'd, or NULL with *err. */
static char *fs_target_chain_end(const char *path, tm_error *err)
{
    char *cur = strdup(path);
    struct stat lst;
    for (int hops = 0; cur && lstat(cur, &lst) == 0 && S_ISLNK(lst.st_mode); hops++) {
        char *next = NULL;
        if (hops == FS_TARGET_MAX_LINKS)
            error_set(err, path, 0, "%s", strerror(ELOOP));
        else if (!fs_target_link_trusted(cur, &lst))
            error_set(err, path, 0,
                      "not followed: the symbolic link %s belongs to another user and sits in a "
                      "sticky world-writable directory (remove it, or write elsewhere)",
                      cur);
        else if (!(next = fs_target_next(cur)))
            error_set(err, path, 0, "cannot follow the symbolic link %s: %s", cur, strerror(errno));
        free(cur);
        if (!next)
            return NULL;
        cur = next;
    }
    if (!cur)
        error_set(err, path, 0, "out of memory");
    return cur;
}

/* path does not stat: a new file, unless it is a link that leads nowhere. */
static bool fs_target_missing(const char *path, int stat_errno, fs_target *t, tm_error *err)
{
    struct stat lst;
    if (stat_errno == ELOOP) {
        error_set(err, path, 0, "%s", strerror(ELOOP));
        return false;
    }
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        char *to = fs_target_read_link(path);
        error_set(err, path, 0,
                  "is a symbolic link to %s, which does not exist: tmcml writes through a link "
                  "only to an existing file (create the file, or remove the link)",
                  to ? to : "a missing file");
        free(to);
        return false;
    }
    t->path = strdup(path);
    if (!t->path)
        error_set(err, path, 0, "out of memory");
    return t->path != NULL;
}

bool fs_target_find(const char *path, fs_target *t, tm_error *err)
{
    *t = (fs_target){NULL, false};
    struct stat st;
    if (stat(path, &st) != 0)
        return fs_target_missing(path, errno, t, err);
    const char *refused = S_ISDIR(st.st_mode)    ? "is a directory: the output file cannot go there"
                          : S_ISBLK(st.st_mode)  ? "is a block device: tmcml does not write its "
                                                   "files onto a disk or partition"
                          : S_ISSOCK(st.st_mode) ? "is a socket: tmcml cannot write a file there"
                          : !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)
                              ? "is not a regular file, a character device or a FIFO"
                              : NULL;
    if (refused) {
        error_set(err, path, 0, "%s", refused);
        return false;
    }
    t->through = !S_ISREG(st.st_mode);
    /* A device or FIFO is opened by its name (the kernel follows the links,
     * /dev/stdout's magic one included); a file is replaced at the end of
     * its links, so the links stay. */
    if (!t->through)
        return (t->path = fs_target_chain_end(path, err)) != NULL;
    t->path = strdup(path);
    if (!t->path)
        error_set(err, path, 0, "out of memory");
    return t->path != NULL;
}

void fs_target_free(fs_target *t)
{
    free(t->path);
    t->path = NULL;
}
