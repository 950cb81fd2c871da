/* Directories whose files tmcml loads back and acts on: the cubin cache
 * (docs/cache.md) and the profile directories (docs/tuning.md).  A cubin
 * runs on the GPU as it is; a profile picks the kernel.  Hashes detect
 * accidents, never a forger, so what keeps other users' files out is the
 * directory itself, checked as ssh checks ~/.ssh (StrictModes): it, and
 * every directory above it, must be owned by this user or root, and
 * writable by no one else unless it has the sticky bit (as /tmp), where
 * others cannot rename or remove this user's files and so only files owned
 * by this user or root are read (dir_trust_file). */
#ifndef TMCML_DIR_TRUST_H
#define TMCML_DIR_TRUST_H

#include <stdbool.h>

#include "error.h"

/* Whether the files of dir may be trusted (see above).  A dir that does not
 * exist yet is judged by the nearest directory above it that does (where
 * dir_trust_make would create it).  False with *err naming the directory at
 * fault, its mode or owner, and what to do. */
bool dir_trust_check(const char *dir, tm_error *err);

/* Whether the file at path (not followed, when a link) is owned by this user
 * or root; true when it does not exist (nothing will be read).  For the
 * files of a sticky directory that dir_trust_check accepted. */
bool dir_trust_file(const char *path);

/* mkdir -p dir, each directory made with mode 0700 (the XDG base directory
 * specification's), so that a umask of 002 does not make a directory that
 * dir_trust_check then refuses.  Existing directories are left as they are. */
bool dir_trust_make(const char *dir, tm_error *err);

#endif
