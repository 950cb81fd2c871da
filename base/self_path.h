/* Where the running code was loaded from: the tmcml program, or the shared
 * library (libtmcml.so) this code is part of.  Files installed with tmcml
 * (the shipped profiles) are found relative to it, so an installed prefix
 * can be moved as a whole (docs/install.md). */
#ifndef TMCML_SELF_PATH_H
#define TMCML_SELF_PATH_H

#include <stdbool.h>
#include <stddef.h>

typedef enum self_kind {
    SELF_PROGRAM, /* linked into the executable (/proc/self/exe) */
    SELF_LIBRARY  /* part of a shared library (found with dladdr) */
} self_kind;

/* Writes the real directory (symbolic links resolved) of the program or
 * library that holds this code into buf, and which of the two it is into
 * *kind.  False when it cannot be found (no /proc) or does not fit. */
bool self_path_dir(char *buf, size_t size, self_kind *kind);

/* dir + "/" + rel into buf, each leading "../" of rel taking the last
 * component off dir instead: exact when dir is a real path (no links), as
 * self_path_dir's is, and the name a user reads is the plain one
 * ("/opt/tmcml/share/tmcml/profiles", not ".../bin/../share/...").  False
 * when it does not fit. */
bool self_path_join(const char *dir, const char *rel, char *buf, size_t size);

/* Whether path, once its links are resolved, is dir or lies below it.
 * False when either does not exist. */
bool self_path_below(const char *path, const char *dir);

#endif
