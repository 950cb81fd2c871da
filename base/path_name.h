/* Paths as text: joined, split, checked by name alone (no file system
 * call; base/fs.c does those). */
#ifndef TMCML_PATH_NAME_H
#define TMCML_PATH_NAME_H

#include <stdbool.h>

/* dir + "/" + name (name alone when dir is NULL or empty, or name is absolute).
 * Returns malloc'd string or NULL. */
char *fs_join(const char *dir, const char *name);

/* Whether name, joined to a directory by fs_join, would name something
 * outside it: an absolute name, or ".." components that climb above it
 * ("../x", "a/../../x"; "a/../x" stays inside).  By name only: a symbolic
 * link inside the directory may still lead elsewhere. */
bool fs_name_leaves_dir(const char *name);

/* The path of a file beside an output: "skin.mco" -> "skin" + suffix
 * ("skin.json"); other names get the suffix appended.  malloc'd, or NULL. */
char *fs_sibling(const char *mco_path, const char *suffix);

/* The directory part of path ("." when path has none, "/" for "/x"),
 * malloc'd or NULL. */
char *fs_dir_name(const char *path);

/* The part of path after its last '/'. */
const char *fs_base_name(const char *path);

#endif
