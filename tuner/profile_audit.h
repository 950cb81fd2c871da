/* A profile file judged against this program, as `tmcml profiles` lists,
 * shows and checks it: current, stale (another generator or NVRTC), of an
 * unknown toolchain (no NVRTC), or bad (corrupt, unreadable, another
 * user's); the *.json files of a directory. */
#ifndef TMCML_PROFILE_AUDIT_H
#define TMCML_PROFILE_AUDIT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/* This program's toolchain; nvrtc false when NVRTC cannot be loaded. */
typedef struct profile_audit_self {
    profile_toolchain tc;
    bool nvrtc;
} profile_audit_self;

typedef enum profile_audit_state {
    PROFILE_AUDIT_CURRENT,
    PROFILE_AUDIT_STALE,
    PROFILE_AUDIT_UNKNOWN,
    PROFILE_AUDIT_BAD
} profile_audit_state;

/* One file as the three actions see it. */
typedef struct profile_audit_file {
    profile_audit_state state;
    profile p;      /* empty when PROFILE_AUDIT_BAD */
    bool whole;     /* false: p holds the header only (entries not read) */
    char why[1400]; /* "current", "stale: ...", "corrupt: ..." */
} profile_audit_file;

/* Whether p's toolchain is this program's; *why says how it differs. */
profile_audit_state profile_audit_judge(const profile *p, const profile_audit_self *self, char *why,
                                        size_t size);

/* Loads path into f->p and judges it.  A file that does not read whole but
 * whose header does and is stale counts as stale (another generator may
 * write other fields): f->p then holds the header only.  A file found in a
 * directory (scanned) that belongs to another user is not read, as lookups
 * do not read it (a sticky directory).  Free f->p. */
void profile_audit_examine(const char *path, bool scanned, const profile_audit_self *self,
                           profile_audit_file *f);

/* "2 entries", "1 entry" or "entries not read". */
void profile_audit_count_text(const profile_audit_file *f, char *buf, size_t size);

/* "name.sm_XY.json" as profile_file_name would call the file, or "" when
 * p's device gives that name (a renamed file is never found by the lookup). */
void profile_audit_name_mismatch(const char *path, const profile *p, char *buf, size_t size);

/* The *.json files of dir, sorted; -1 (errno set) when it cannot be read. */
int profile_audit_scan(const char *dir, struct dirent ***names);
void profile_audit_free_names(struct dirent **names, int n);

#endif
