#include "profiles_command.h"
#include "text_escape.h"
#include "tm_limits.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "dir_trust.h"
#include "fs.h"
#include "profile.h"

typedef struct profiles_args {
    const char *action; /* "list", "show", "check" */
    const char *dir;    /* --profiles DIR */
    int num_names;
    const char *names[PROFILES_MAX_FILES];
} profiles_args;

/* This program's toolchain; nvrtc false when NVRTC cannot be loaded. */
typedef struct profiles_self {
    profile_toolchain tc;
    bool nvrtc;
} profiles_self;

static void profiles_usage(FILE *s)
{
    fputs("usage: tmcml profiles list [--profiles DIR]\n"
          "       tmcml profiles show FILE|DEVICE-NAME [--profiles DIR]\n"
          "       tmcml profiles check [FILE...] [--profiles DIR]\n"
          "\n"
          "Profiles hold the tuner's winning kernel variant per GPU and problem class.\n"
          "They are looked for in --profiles DIR, $TMCML_PROFILE_DIR, the user's data\n"
          "directory ($XDG_DATA_HOME/tmcml/profiles or ~/.local/share/tmcml/profiles)\n"
          "and the profiles shipped with tmcml, in that order.\n"
          "  list   every profile file on the search path, and whether it is current\n"
          "         (made by this tmcml's generator and NVRTC)\n"
          "  show   the entries of a file, or of the files of a device (any part of\n"
          "         its name, e.g. H100)\n"
          "  check  reads every file on the path (or those given) and reports corrupt\n"
          "         and stale ones; exit status 1 when one is corrupt\n",
          s);
}

static bool profiles_parse(int argc, char **argv, profiles_args *a, tm_error *err)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        int dir = cli_long_value(argc, argv, &i, "--profiles", "a directory", &a->dir, err);
        if (dir < 0)
            return false;
        if (dir > 0) {
            continue;
        } else if (w[0] == '-' && w[1]) {
            error_set(err, NULL, 0, "profiles: unknown option \"%s\" (tmcml profiles --help)", w);
            return false;
        } else if (!a->action) {
            a->action = w;
        } else if (a->num_names < PROFILES_MAX_FILES) {
            a->names[a->num_names++] = w;
        } else {
            error_set(err, NULL, 0, "profiles: more than %d files given", PROFILES_MAX_FILES);
            return false;
        }
    }
    if (!a->action) {
        error_set(err, NULL, 0, "profiles: expected list, show or check (tmcml profiles --help)");
        return false;
    }
    bool show = strcmp(a->action, "show") == 0;
    if (!show && strcmp(a->action, "list") != 0 && strcmp(a->action, "check") != 0) {
        error_set(err, NULL, 0, "profiles: unknown action \"%s\": expected list, show or check",
                  a->action);
        return false;
    }
    if ((show && a->num_names != 1) || (strcmp(a->action, "list") == 0 && a->num_names)) {
        error_set(err, NULL, 0,
                  show ? "profiles show: expected one FILE or DEVICE-NAME"
                       : "profiles list: takes no file names");
        return false;
    }
    return true;
}

/* ---- one file's state ---------------------------------------------------------- */

typedef enum profiles_state {
    PROFILES_CURRENT,
    PROFILES_STALE,
    PROFILES_UNKNOWN,
    PROFILES_BAD
} profiles_state;

/* Whether p's toolchain is this program's; *why says how it differs. */
static profiles_state profiles_judge(const profile *p, const profiles_self *self, char *why,
                                     size_t size)
{
    const profile_toolchain *t = &p->toolchain;
    why[0] = '\0';
    if (strcmp(t->generator, self->tc.generator) != 0) {
        snprintf(why, size, "stale: generator %s (this tmcml: %s)", t->generator,
                 self->tc.generator);
        return PROFILES_STALE;
    }
    if (!self->nvrtc) {
        snprintf(why, size, "toolchain unknown (no NVRTC)");
        return PROFILES_UNKNOWN;
    }
    if (strcmp(t->nvrtc_version, self->tc.nvrtc_version) != 0) {
        snprintf(why, size, "stale: NVRTC %s (this tmcml: %s)", t->nvrtc_version,
                 self->tc.nvrtc_version);
        return PROFILES_STALE;
    }
    snprintf(why, size, "current");
    return PROFILES_CURRENT;
}

/* One file as the three actions see it. */
typedef struct profiles_file {
    profiles_state state;
    profile p;      /* empty when PROFILES_BAD */
    bool whole;     /* false: p holds the header only (entries not read) */
    char why[1400]; /* "current", "stale: ...", "corrupt: ..." */
} profiles_file;

/* Loads path into f->p and judges it.  A file that does not read whole but
 * whose header does and is stale counts as stale (another generator may
 * write other fields): f->p then holds the header only.  A file found in a
 * directory (scanned) that belongs to another user is not read, as lookups
 * do not read it (a sticky directory).  Free f->p. */
static void profiles_examine(const char *path, bool scanned, const profiles_self *self,
                             profiles_file *f)
{
    tm_error err = {0};
    if (scanned && !dir_trust_file(path)) {
        profile_init(&f->p);
        f->whole = false;
        f->state = PROFILES_BAD;
        snprintf(f->why, sizeof f->why, "not read: owned by another user");
        return;
    }
    profile_status st = profile_load(path, false, &f->p, &err);
    f->whole = st == PROFILE_OK;
    if (f->whole) {
        f->state = profiles_judge(&f->p, self, f->why, sizeof f->why);
        return;
    }
    tm_error ignored;
    if (st == PROFILE_CORRUPT && profile_load(path, true, &f->p, &ignored) == PROFILE_OK &&
        profiles_judge(&f->p, self, f->why, sizeof f->why) == PROFILES_STALE) {
        f->state = PROFILES_STALE;
        return;
    }
    profile_free(&f->p);
    char line[24] = "";
    if (err.line > 0)
        snprintf(line, sizeof line, "line %d: ", err.line);
    snprintf(f->why, sizeof f->why, "%s: %s%s", st == PROFILE_CORRUPT ? "corrupt" : "unreadable",
             line, err.message);
    f->state = PROFILES_BAD;
}

/* "2 entries", "1 entry" or "entries not read". */
static void profiles_count_text(const profiles_file *f, char *buf, size_t size)
{
    if (!f->whole)
        snprintf(buf, size, "entries not read");
    else
        snprintf(buf, size, "%d entr%s", f->p.num_entries, f->p.num_entries == 1 ? "y" : "ies");
}

/* "name.sm_XY.json" as profile_file_name would call the file, or "" when p's
 * device gives that name (a renamed file is never found by the lookup). */
static void profiles_name_mismatch(const char *path, const profile *p, char *buf, size_t size)
{
    char want[512];
    buf[0] = '\0';
    if (profile_file_name(&p->device, want, sizeof want) && strcmp(fs_base_name(path), want) != 0)
        snprintf(buf, size, "%s", want);
}

/* ---- the files of a directory -------------------------------------------------- */

static int profiles_is_json(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
}

/* The *.json files of dir, sorted; -1 (errno set) when it cannot be read. */
static int profiles_scan(const char *dir, struct dirent ***names)
{
    return scandir(dir, names, profiles_is_json, alphasort);
}

static void profiles_free_names(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void profiles_print_self(const profiles_self *self)
{
    if (self->nvrtc)
        text_printf(stdout, "this tmcml: generator %s, NVRTC %s\n", self->tc.generator,
                    self->tc.nvrtc_version);
    else
        text_printf(stdout, "this tmcml: generator %s, NVRTC not available (toolchain unknown)\n",
                    self->tc.generator);
}

/* ---- list ------------------------------------------------------------------------ */

static void profiles_list_file(const char *path, const profiles_self *self)
{
    profiles_file f;
    profiles_examine(path, true, self, &f);
    if (f.state == PROFILES_BAD) {
        text_printf(stdout, "  %s  %s\n", path, f.why);
        return;
    }
    char count[32];
    profiles_count_text(&f, count, sizeof count);
    text_printf(stdout, "  %s  %s  sm_%d%d  %s  %s\n", path, f.p.device.name, f.p.device.cc_major,
                f.p.device.cc_minor, count, f.why);
    profile_free(&f.p);
}

static int profiles_list(const profiles_args *a, const profiles_self *self)
{
    profile_search_path sp;
    profile_search_dirs(a->dir, &sp);
    profiles_print_self(self);
    for (int i = 0; i < sp.count; i++) {
        struct dirent **names;
        int n = profiles_scan(sp.dirs[i], &names);
        if (n < 0) {
            text_printf(stdout, "%s: %s (%s)\n", sp.origin[i], sp.dirs[i],
                        errno == ENOENT ? "no such directory" : strerror(errno));
            continue;
        }
        tm_error why;
        if (!profile_dir_trusted(sp.dirs[i], &why)) {
            text_printf(stdout, "%s: %s (not read: %s: %s)\n", sp.origin[i], sp.dirs[i], why.file,
                        why.message);
            profiles_free_names(names, n);
            continue;
        }
        text_printf(stdout, "%s: %s (%d profile file%s)\n", sp.origin[i], sp.dirs[i], n,
                    n == 1 ? "" : "s");
        for (int k = 0; k < n; k++) {
            char *path = fs_join(sp.dirs[i], names[k]->d_name);
            if (path)
                profiles_list_file(path, self);
            free(path);
        }
        profiles_free_names(names, n);
    }
    return 0;
}

/* ---- show -------------------------------------------------------------------------- */

static void profiles_print_entry(const profile_entry *e)
{
    char cls[64], speedup[32] = "-";
    problem_shape_text(&e->cls, cls, sizeof cls);
    if (e->heuristic_photons_per_second > 0)
        snprintf(speedup, sizeof speedup, "%.2fx",
                 e->photons_per_second / e->heuristic_photons_per_second);
    text_printf(stdout, "%-20s", cls);
    for (int i = 0; i < knob_count; i++) {
        char value[64];
        knob_format(&knob_table[i], &e->config, value, sizeof value);
        text_printf(stdout, " %-*s", knob_column_width(&knob_table[i]), value);
    }
    text_printf(stdout, " %11.4g %7s  %s\n", e->photons_per_second, speedup, e->date);
}

/* Prints one file; false when it cannot be read whole. */
static bool profiles_show_file(const char *path, bool scanned, const profiles_self *self)
{
    profiles_file f;
    profiles_examine(path, scanned, self, &f);
    text_printf(stdout, "%s\n", path);
    if (f.state == PROFILES_BAD) {
        text_printf(stdout, "  %s\n", f.why);
        return false;
    }
    const profile *p = &f.p;
    const profile_device *d = &p->device;
    text_printf(stdout, "  device: %s, sm_%d%d, %d SMs, %zu bytes shared per block, driver %d\n",
                d->name, d->cc_major, d->cc_minor, d->sm_count, d->shared_per_block_optin,
                d->driver_version);
    text_printf(stdout, "  toolchain: generator %s, NVRTC %s: %s\n", p->toolchain.generator,
                p->toolchain.nvrtc_version, f.why);
    if (!f.whole) {
        text_printf(stdout, "  (entries not read: the file is from another generator)\n");
    } else {
        text_printf(stdout, "%-20s", "class");
        for (int i = 0; i < knob_count; i++)
            text_printf(stdout, " %-*s", knob_column_width(&knob_table[i]), knob_table[i].name);
        text_printf(stdout, " %11s %7s  %s\n", "photons/s", "speedup", "date");
        for (int i = 0; i < p->num_entries; i++)
            profiles_print_entry(&p->entries[i]);
    }
    profile_free(&f.p);
    return true;
}

/* Whether the file name (without ".sm_XY.json") contains the sanitised
 * device name, ignoring case. */
static bool profiles_name_matches(const char *file, const char *device)
{
    profile_device d = {.cc_major = 0};
    char want[512];
    snprintf(d.name, sizeof d.name, "%s", device);
    if (!profile_file_name(&d, want, sizeof want))
        return false;
    *strstr(want, ".sm_") = '\0';
    const char *sm = strstr(file, ".sm_");
    size_t n = sm ? (size_t)(sm - file) : strlen(file);
    char stem[512];
    snprintf(stem, sizeof stem, "%.*s", (int)n, file);
    return strcasestr(stem, want) != NULL;
}

static int profiles_show(const profiles_args *a, const profiles_self *self)
{
    const char *name = a->names[0];
    struct stat st;
    if (stat(name, &st) == 0 && !S_ISDIR(st.st_mode))
        return profiles_show_file(name, false, self) ? 0 : 1;
    profile_search_path sp;
    profile_search_dirs(a->dir, &sp);
    int shown = 0;
    bool ok = true;
    for (int i = 0; i < sp.count; i++) {
        struct dirent **names;
        tm_error why;
        int n = profiles_scan(sp.dirs[i], &names);
        if (n >= 0 && !profile_dir_trusted(sp.dirs[i], &why)) {
            text_printf(stderr, "tmcml: profiles in %s not read: %s: %s\n", sp.dirs[i], why.file,
                        why.message);
            profiles_free_names(names, n);
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (!profiles_name_matches(names[k]->d_name, name) &&
                strcmp(names[k]->d_name, name) != 0)
                continue;
            char *path = fs_join(sp.dirs[i], names[k]->d_name);
            if (path) {
                text_printf(stdout, "%s", shown++ ? "\n" : "");
                ok = profiles_show_file(path, true, self) && ok;
            }
            free(path);
        }
        if (n >= 0)
            profiles_free_names(names, n);
    }
    if (shown == 0) {
        text_printf(stderr,
                    "tmcml: no profile file or device matches \"%s\" on the search path "
                    "(tmcml profiles list shows them)\n",
                    name);
        return 2;
    }
    return ok ? 0 : 1;
}

/* ---- check --------------------------------------------------------------------------- */

typedef struct profiles_tally {
    int files, current, stale, unknown, bad;
} profiles_tally;

static void profiles_check_file(const char *path, bool scanned, const profiles_self *self,
                                profiles_tally *t)
{
    profiles_file f;
    profiles_examine(path, scanned, self, &f);
    t->files++;
    if (f.state == PROFILES_BAD) {
        t->bad++;
        text_printf(stdout, "%s: %s\n", path, f.why);
        return;
    }
    t->current += f.state == PROFILES_CURRENT;
    t->stale += f.state == PROFILES_STALE;
    t->unknown += f.state == PROFILES_UNKNOWN;
    char count[32];
    profiles_count_text(&f, count, sizeof count);
    text_printf(stdout, "%s: %s, %s (%s, sm_%d%d)\n", path,
                f.state == PROFILES_STALE ? f.why : "ok", count, f.p.device.name,
                f.p.device.cc_major, f.p.device.cc_minor);
    if (f.state == PROFILES_UNKNOWN)
        text_printf(stdout, "%s: %s\n", path, f.why);
    char want[512];
    profiles_name_mismatch(path, &f.p, want, sizeof want);
    if (want[0])
        text_printf(stdout,
                    "%s: warning: its device's profiles are named %s: lookups will not find this "
                    "file\n",
                    path, want);
    profile_free(&f.p);
}

static void profiles_check_dir(const char *dir, const profiles_self *self, profiles_tally *t)
{
    struct dirent **names;
    int n = profiles_scan(dir, &names);
    if (n < 0) {
        if (errno != ENOENT) {
            text_printf(stdout, "%s: unreadable directory: %s\n", dir, strerror(errno));
            t->bad++;
        }
        return;
    }
    tm_error why;
    if (!profile_dir_trusted(dir, &why)) {
        text_printf(stdout, "%s: not read: %s: %s\n", dir, why.file, why.message);
        t->bad++;
        profiles_free_names(names, n);
        return;
    }
    for (int k = 0; k < n; k++) {
        char *path = fs_join(dir, names[k]->d_name);
        if (path)
            profiles_check_file(path, true, self, t);
        free(path);
    }
    profiles_free_names(names, n);
}

static int profiles_check(const profiles_args *a, const profiles_self *self)
{
    profiles_tally t = {0};
    if (a->num_names) {
        for (int i = 0; i < a->num_names; i++)
            profiles_check_file(a->names[i], false, self, &t);
    } else {
        profile_search_path sp;
        profile_search_dirs(a->dir, &sp);
        for (int i = 0; i < sp.count; i++)
            profiles_check_dir(sp.dirs[i], self, &t);
    }
    text_printf(stdout,
                "%d profile file%s: %d current, %d stale, %d toolchain unknown, %d corrupt or "
                "unreadable\n",
                t.files, t.files == 1 ? "" : "s", t.current, t.stale, t.unknown, t.bad);
    return t.bad ? 1 : 0;
}

int profiles_command(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            profiles_usage(stdout);
            return 0;
        }
    profiles_args a;
    tm_error err = {0};
    if (!profiles_parse(argc, argv, &a, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    profiles_self self;
    tm_error no_nvrtc;
    self.nvrtc = profile_toolchain_current(&self.tc, &no_nvrtc);
    if (strcmp(a.action, "list") == 0)
        return profiles_list(&a, &self);
    if (strcmp(a.action, "show") == 0)
        return profiles_show(&a, &self);
    return profiles_check(&a, &self);
}
