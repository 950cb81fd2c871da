/* Where profiles are looked for and stored (docs/tuning.md), and the
 * lookup along that path. */
#include "profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir_trust.h"
#include "fs.h"
#include "self_path.h"
#include "tmcml_config.h"

/* Equal up to trailing slashes ("a/b/" is "a/b"). */
static bool profile_same_dir(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (lb > 1 && b[lb - 1] == '/')
        lb--;
    return la == lb && strncmp(a, b, la) == 0;
}

static void profile_add_dir(profile_search_path *sp, const char *dir, const char *origin)
{
    if (!dir || !dir[0] || strlen(dir) >= PROFILE_PATH_MAX || sp->count == PROFILE_MAX_DIRS)
        return;
    for (int i = 0; i < sp->count; i++)
        if (profile_same_dir(sp->dirs[i], dir))
            return;
    snprintf(sp->dirs[sp->count], PROFILE_PATH_MAX, "%s", dir);
    sp->origin[sp->count++] = origin;
}

bool profile_shipped_dir(char *buf, size_t size)
{
    char self[PROFILE_PATH_MAX];
    self_kind kind;
    if (!self_path_dir(self, sizeof self, &kind))
        return false;
    const char *rel =
        kind == SELF_LIBRARY ? TMCML_PROFILES_FROM_LIBDIR : TMCML_PROFILES_FROM_BINDIR;
    if (!self_path_join(self, rel, buf, size))
        return false;
    /* In the build tree the sources' profiles, unless this build was
     * installed into a prefix inside its own build tree. */
    if (self_path_below(self, TMCML_BUILD_DIR) && !self_path_below(buf, TMCML_BUILD_DIR)) {
        int n = snprintf(buf, size, "%s", TMCML_SOURCE_PROFILE_DIR);
        return n >= 0 && (size_t)n < size;
    }
    return true;
}

/* Every directory alike, the shipped one too: installed with the program,
 * it is still a directory of files that pick the kernel, and one that
 * another user can write (a world-writable share/ of a shared prefix, a
 * checkout in a group's folder) is no more the installer's than a user's
 * would be the user's. */
bool profile_dir_trusted(const char *dir, tm_error *err) { return dir_trust_check(dir, err); }

/* $XDG_DATA_HOME/tmcml/profiles, else ~/.local/share/tmcml/profiles. */
static bool profile_user_dir(char *buf, size_t size)
{
    return fs_xdg_dir("XDG_DATA_HOME", ".local/share", "profiles", buf, size);
}

void profile_search_dirs(const char *explicit_dir, profile_search_path *out)
{
    memset(out, 0, sizeof *out);
    profile_add_dir(out, explicit_dir, "--profiles");
    profile_add_dir(out, getenv("TMCML_PROFILE_DIR"), "$TMCML_PROFILE_DIR");
    char user[PROFILE_PATH_MAX];
    if (profile_user_dir(user, sizeof user))
        profile_add_dir(out, user, "user");
    char shipped[PROFILE_PATH_MAX];
    if (profile_shipped_dir(shipped, sizeof shipped))
        profile_add_dir(out, shipped, "shipped");
}

bool profile_write_dir(const char *explicit_dir, char *buf, size_t size, tm_error *err)
{
    const char *env = getenv("TMCML_PROFILE_DIR");
    const char *dir = explicit_dir && explicit_dir[0] ? explicit_dir : env && env[0] ? env : NULL;
    if (dir && strlen(dir) < size) {
        snprintf(buf, size, "%s", dir);
        return true;
    }
    if (!dir && profile_user_dir(buf, size))
        return true;
    if (size)
        buf[0] = '\0';
    if (dir)
        error_set(err, dir, 0, "profile directory name too long");
    else
        error_set(err, NULL, 0,
                  "no directory to store profiles in: neither HOME nor XDG_DATA_HOME is set "
                  "(give --profiles DIR or set TMCML_PROFILE_DIR)");
    return false;
}

/* ---- profile_find ------------------------------------------------------------- */

typedef struct profile_notes {
    void (*note)(void *ctx, const char *msg);
    void *ctx;
} profile_notes;

static void profile_say(const profile_notes *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void profile_say(const profile_notes *n, const char *fmt, ...)
{
    if (!n->note)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    n->note(n->ctx, msg);
}

static void profile_say_stale(const profile_notes *n, const char *path, const profile *p,
                              const profile_device *dev, const profile_toolchain *tc)
{
    if (strcmp(p->device.name, dev->name) != 0 || p->device.cc_major != dev->cc_major ||
        p->device.cc_minor != dev->cc_minor)
        profile_say(n, "%s: made for another device (%s, sm_%d%d); ignored", path, p->device.name,
                    p->device.cc_major, p->device.cc_minor);
    else
        profile_say(n,
                    "%s: made by another generator/NVRTC (generator %s, NVRTC %s; this tmcml: "
                    "generator %s, NVRTC %s); ignored - run `tmcml tune FILE.mci` to retune",
                    path, p->toolchain.generator, p->toolchain.nvrtc_version, tc->generator,
                    tc->nvrtc_version[0] ? tc->nvrtc_version : "none");
}

static void profile_say_corrupt(const profile_notes *n, const tm_error *why)
{
    if (why->line > 0)
        profile_say(n, "%s:%d: corrupt profile skipped: %s", why->file, why->line, why->message);
    else
        profile_say(n, "%s: corrupt profile skipped: %s", why->file, why->message);
}

/* A corrupt file whose header reads and is stale is reported as stale: a
 * file of another generator may well have other entry fields. */
static void profile_say_unusable(const profile_notes *n, const char *path, profile_status status,
                                 const tm_error *why, const profile_device *dev,
                                 const profile_toolchain *tc)
{
    if (status == PROFILE_UNREADABLE) {
        profile_say(n, "%s: unreadable profile skipped: %s", path, why->message);
        return;
    }
    profile header;
    tm_error ignored;
    if (profile_load(path, true, &header, &ignored) == PROFILE_OK &&
        !profile_is_current(&header, dev, tc))
        profile_say_stale(n, path, &header, dev, tc);
    else
        profile_say_corrupt(n, why);
    profile_free(&header);
}

/* Looks in one file; true when it holds the exact class (the search ends). */
static bool profile_consider(const char *path, const profile_device *dev,
                             const profile_toolchain *tc, const profile_class *cls,
                             profile_found *out, const profile_notes *n)
{
    profile p;
    tm_error why = {0};
    if (!dir_trust_file(path)) {
        profile_say(n, "%s: owned by another user: not read", path);
        return false;
    }
    profile_status status = profile_load(path, false, &p, &why);
    if (status == PROFILE_MISSING)
        return false;
    if (status != PROFILE_OK) {
        profile_say_unusable(n, path, status, &why, dev, tc);
        return false;
    }
    bool exact = false;
    const profile_entry *e = NULL;
    if (!profile_is_current(&p, dev, tc)) {
        profile_say_stale(n, path, &p, dev, tc);
    } else {
        profile_match m = profile_lookup(&p, cls, &e);
        exact = m == PROFILE_MATCH_EXACT;
        if (exact || (m == PROFILE_MATCH_NEAREST && out->match == PROFILE_MATCH_NONE)) {
            out->match = m;
            out->entry = *e;
            snprintf(out->path, sizeof out->path, "%s", path);
        }
    }
    profile_free(&p);
    return exact;
}

bool profile_find(const char *explicit_dir, const profile_device *dev, const profile_toolchain *tc,
                  const profile_class *cls, profile_found *out,
                  void (*note)(void *ctx, const char *msg), void *ctx, tm_error *err)
{
    memset(out, 0, sizeof *out);
    out->match = PROFILE_MATCH_NONE;
    char name[512];
    if (!profile_file_name(dev, name, sizeof name)) {
        error_set(err, NULL, 0, "no profile file name for device \"%s\"", dev->name);
        return false;
    }
    profile_notes n = {note, ctx};
    profile_search_path sp;
    profile_search_dirs(explicit_dir, &sp);
    for (int i = 0; i < sp.count; i++) {
        tm_error why;
        if (!profile_dir_trusted(sp.dirs[i], &why)) {
            profile_say(&n, "profiles in %s not read: %s: %s", sp.dirs[i], why.file, why.message);
            continue;
        }
        char *path = fs_join(sp.dirs[i], name);
        if (!path) {
            error_set(err, NULL, 0, "out of memory");
            return false;
        }
        bool exact = profile_consider(path, dev, tc, cls, out, &n);
        free(path);
        if (exact)
            break;
    }
    return true;
}
