#include "dir_trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

static bool dir_trust_owner(uid_t uid) { return uid == geteuid() || uid == 0; }

/* One directory of the walk up; path is absolute and resolved. */
static bool dir_trust_one(const char *path, tm_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return true; /* vanished or unreadable: nothing will be read through it */
    if (!dir_trust_owner(st.st_uid)) {
        error_set(err, path, 0,
                  "owned by uid %u, not by you (uid %u) or root: its owner could change the files "
                  "below it",
                  (unsigned)st.st_uid, (unsigned)geteuid());
        return false;
    }
    mode_t w = st.st_mode & (S_IWGRP | S_IWOTH);
    if (w && !(st.st_mode & S_ISVTX)) {
        error_set(err, path, 0,
                  "writable by %s (mode %04o, not sticky): other users could change the files "
                  "below it (chmod go-w it, or use a directory of your own)",
                  w == S_IWGRP   ? "its group"
                  : w == S_IWOTH ? "everyone"
                                 : "its group and everyone",
                  (unsigned)(st.st_mode & 07777));
        return false;
    }
    return true;
}

/* The nearest directory at or above dir that exists, resolved (malloc'd);
 * NULL when there is none to judge (a file in the way, no permission). */
static char *dir_trust_existing(const char *dir)
{
    char *path = strdup(dir[0] ? dir : ".");
    struct stat st;
    while (path && stat(path, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(path, '/');
        while (slash && slash > path && slash[1] == '\0') { /* "a/b/" */
            *slash = '\0';
            slash = strrchr(path, '/');
        }
        if (!slash)
            strcpy(path, ".");
        else
            slash[slash == path] = '\0'; /* "/a" -> "/" */
    }
    char *real = path && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? realpath(path, NULL) : NULL;
    free(path);
    return real;
}

bool dir_trust_check(const char *dir, tm_error *err)
{
    char *path = dir_trust_existing(dir);
    if (!path)
        return true;
    bool ok = true;
    for (;;) {
        if (!(ok = dir_trust_one(path, err)))
            break;
        char *slash = strrchr(path, '/');
        if (!slash || path[1] == '\0')
            break;
        slash[slash == path] = '\0';
    }
    free(path);
    return ok;
}

bool dir_trust_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 || dir_trust_owner(st.st_uid);
}

bool dir_trust_make(const char *dir, tm_error *err) { return fs_make_dirs_mode(dir, 0700, err); }
