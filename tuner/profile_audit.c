/* A profile file judged against this program (profile_audit.h). */
#include "profile_audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir_trust.h"
#include "fs.h"

profile_audit_state profile_audit_judge(const profile *p, const profile_audit_self *self, char *why,
                                        size_t size)
{
    const profile_toolchain *t = &p->toolchain;
    why[0] = '\0';
    if (strcmp(t->generator, self->tc.generator) != 0) {
        snprintf(why, size, "stale: generator %s (this tmcml: %s)", t->generator,
                 self->tc.generator);
        return PROFILE_AUDIT_STALE;
    }
    if (!self->nvrtc) {
        snprintf(why, size, "toolchain unknown (no NVRTC)");
        return PROFILE_AUDIT_UNKNOWN;
    }
    if (strcmp(t->nvrtc_version, self->tc.nvrtc_version) != 0) {
        snprintf(why, size, "stale: NVRTC %s (this tmcml: %s)", t->nvrtc_version,
                 self->tc.nvrtc_version);
        return PROFILE_AUDIT_STALE;
    }
    snprintf(why, size, "current");
    return PROFILE_AUDIT_CURRENT;
}

void profile_audit_examine(const char *path, bool scanned, const profile_audit_self *self,
                           profile_audit_file *f)
{
    tm_error err = {0};
    if (scanned && !dir_trust_file(path)) {
        profile_init(&f->p);
        f->whole = false;
        f->state = PROFILE_AUDIT_BAD;
        snprintf(f->why, sizeof f->why, "not read: owned by another user");
        return;
    }
    profile_status st = profile_load(path, false, &f->p, &err);
    f->whole = st == PROFILE_OK;
    if (f->whole) {
        f->state = profile_audit_judge(&f->p, self, f->why, sizeof f->why);
        return;
    }
    tm_error ignored;
    if (st == PROFILE_CORRUPT && profile_load(path, true, &f->p, &ignored) == PROFILE_OK &&
        profile_audit_judge(&f->p, self, f->why, sizeof f->why) == PROFILE_AUDIT_STALE) {
        f->state = PROFILE_AUDIT_STALE;
        return;
    }
    profile_free(&f->p);
    char line[24] = "";
    if (err.line > 0)
        snprintf(line, sizeof line, "line %d: ", err.line);
    snprintf(f->why, sizeof f->why, "%s: %s%s", st == PROFILE_CORRUPT ? "corrupt" : "unreadable",
             line, err.message);
    f->state = PROFILE_AUDIT_BAD;
}

void profile_audit_count_text(const profile_audit_file *f, char *buf, size_t size)
{
    if (!f->whole)
        snprintf(buf, size, "entries not read");
    else
        snprintf(buf, size, "%d entr%s", f->p.num_entries, f->p.num_entries == 1 ? "y" : "ies");
}

void profile_audit_name_mismatch(const char *path, const profile *p, char *buf, size_t size)
{
    char want[512];
    buf[0] = '\0';
    if (profile_file_name(&p->device, want, sizeof want) && strcmp(fs_base_name(path), want) != 0)
        snprintf(buf, size, "%s", want);
}

static int profile_audit_is_json(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
}

int profile_audit_scan(const char *dir, struct dirent ***names)
{
    return scandir(dir, names, profile_audit_is_json, alphasort);
}

void profile_audit_free_names(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
