#include "profiles_command.h"
#include "text_escape.h"
#include "tm_limits.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "option_once.h"
#include "option_table.h"
#include "profile_audit.h"

typedef struct profiles_args {
    const char *action; /* "list", "show", "check" */
    const char *dir;    /* --profiles DIR */
    int num_names;
    const char *names[PROFILES_MAX_FILES];
} profiles_args;

enum { PROFILES_DIR, PROFILES_HELP };

static const cli_option rows[] = {
    {"--profiles", NULL, "DIR", "a profile directory searched first", PROFILES_DIR, 0, 0, 0},
    {"--help", "-h", NULL, "this text", PROFILES_HELP, 0, 0, 0},
};

static const cli_option_table profiles_options = {"profiles: ", rows,
                                                  (int)(sizeof rows / sizeof *rows)};

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
          "         and stale ones; exit status 1 when one is corrupt\n"
          "\n",
          s);
    option_table_usage(&profiles_options, 0, s);
}

/* One word: an option of the table, given once (--help is looked for
 * before: profiles_command), the action or a file. */
static bool profiles_word(int argc, char **argv, int *i, profiles_args *a, options_given *given,
                          tm_error *err)
{
    const char *w = argv[*i];
    if (w[0] == '-' && w[1]) {
        option_read o;
        int got = option_table_read(&profiles_options, argc, argv, i, &o, err);
        if (got == 0)
            option_table_unknown(&profiles_options, NULL, 0, w, "tmcml profiles --help", err);
        if (got > 0 && o.row->id == PROFILES_DIR)
            a->dir = o.value;
        return got > 0 && option_once_read(given, &o, err);
    }
    if (!a->action) {
        a->action = w;
    } else if (a->num_names < PROFILES_MAX_FILES) {
        a->names[a->num_names++] = w;
    } else {
        error_set(err, NULL, 0, "profiles: more than %d files given", PROFILES_MAX_FILES);
        return false;
    }
    return true;
}

static bool profiles_parse(int argc, char **argv, profiles_args *a, tm_error *err)
{
    memset(a, 0, sizeof *a);
    options_given given = {calloc((size_t)argc, sizeof *given.at), 0};
    bool ok = given.at != NULL;
    if (!ok)
        error_set(err, NULL, 0, "profiles: out of memory");
    for (int i = 1; ok && i < argc; i++)
        ok = profiles_word(argc, argv, &i, a, &given, err);
    free(given.at);
    if (!ok)
        return false;
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

static void profiles_print_self(const profile_audit_self *self)
{
    if (self->nvrtc)
        text_printf(stdout, "this tmcml: generator %s, NVRTC %s\n", self->tc.generator,
                    self->tc.nvrtc_version);
    else
        text_printf(stdout, "this tmcml: generator %s, NVRTC not available (toolchain unknown)\n",
                    self->tc.generator);
}

/* ---- list ------------------------------------------------------------------------ */

static void profiles_list_file(const char *path, const profile_audit_self *self)
{
    profile_audit_file f;
    profile_audit_examine(path, true, self, &f);
    if (f.state == PROFILE_AUDIT_BAD) {
        text_printf(stdout, "  %s  %s\n", path, f.why);
        return;
    }
    char count[32];
    profile_audit_count_text(&f, count, sizeof count);
    text_printf(stdout, "  %s  %s  sm_%d%d  %s  %s\n", path, f.p.device.name, f.p.device.cc_major,
                f.p.device.cc_minor, count, f.why);
    profile_free(&f.p);
}

static int profiles_list(const profiles_args *a, const profile_audit_self *self)
{
    profile_search_path sp;
    profile_search_dirs(a->dir, &sp);
    profiles_print_self(self);
    for (int i = 0; i < sp.count; i++) {
        struct dirent **names;
        int n = profile_audit_scan(sp.dirs[i], &names);
        if (n < 0) {
            text_printf(stdout, "%s: %s (%s)\n", sp.origin[i], sp.dirs[i],
                        errno == ENOENT ? "no such directory" : strerror(errno));
            continue;
        }
        tm_error why;
        if (!profile_dir_trusted(sp.dirs[i], &why)) {
            text_printf(stdout, "%s: %s (not read: %s: %s)\n", sp.origin[i], sp.dirs[i], why.file,
                        why.message);
            profile_audit_free_names(names, n);
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
        profile_audit_free_names(names, n);
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
static bool profiles_show_file(const char *path, bool scanned, const profile_audit_self *self)
{
    profile_audit_file f;
    profile_audit_examine(path, scanned, self, &f);
    text_printf(stdout, "%s\n", path);
    if (f.state == PROFILE_AUDIT_BAD) {
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

static int profiles_show(const profiles_args *a, const profile_audit_self *self)
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
        int n = profile_audit_scan(sp.dirs[i], &names);
        if (n >= 0 && !profile_dir_trusted(sp.dirs[i], &why)) {
            text_printf(stderr, "tmcml: profiles in %s not read: %s: %s\n", sp.dirs[i], why.file,
                        why.message);
            profile_audit_free_names(names, n);
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
            profile_audit_free_names(names, n);
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

static void profiles_check_file(const char *path, bool scanned, const profile_audit_self *self,
                                profiles_tally *t)
{
    profile_audit_file f;
    profile_audit_examine(path, scanned, self, &f);
    t->files++;
    if (f.state == PROFILE_AUDIT_BAD) {
        t->bad++;
        text_printf(stdout, "%s: %s\n", path, f.why);
        return;
    }
    t->current += f.state == PROFILE_AUDIT_CURRENT;
    t->stale += f.state == PROFILE_AUDIT_STALE;
    t->unknown += f.state == PROFILE_AUDIT_UNKNOWN;
    char count[32];
    profile_audit_count_text(&f, count, sizeof count);
    text_printf(stdout, "%s: %s, %s (%s, sm_%d%d)\n", path,
                f.state == PROFILE_AUDIT_STALE ? f.why : "ok", count, f.p.device.name,
                f.p.device.cc_major, f.p.device.cc_minor);
    if (f.state == PROFILE_AUDIT_UNKNOWN)
        text_printf(stdout, "%s: %s\n", path, f.why);
    char want[512];
    profile_audit_name_mismatch(path, &f.p, want, sizeof want);
    if (want[0])
        text_printf(stdout,
                    "%s: warning: its device's profiles are named %s: lookups will not find this "
                    "file\n",
                    path, want);
    profile_free(&f.p);
}

static void profiles_check_dir(const char *dir, const profile_audit_self *self, profiles_tally *t)
{
    struct dirent **names;
    int n = profile_audit_scan(dir, &names);
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
        profile_audit_free_names(names, n);
        return;
    }
    for (int k = 0; k < n; k++) {
        char *path = fs_join(dir, names[k]->d_name);
        if (path)
            profiles_check_file(path, true, self, t);
        free(path);
    }
    profile_audit_free_names(names, n);
}

static int profiles_check(const profiles_args *a, const profile_audit_self *self)
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
    profile_audit_self self;
    tm_error no_nvrtc;
    self.nvrtc = profile_toolchain_current(&self.tc, &no_nvrtc);
    if (strcmp(a.action, "list") == 0)
        return profiles_list(&a, &self);
    if (strcmp(a.action, "show") == 0)
        return profiles_show(&a, &self);
    return profiles_check(&a, &self);
}
