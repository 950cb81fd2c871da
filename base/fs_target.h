/* Where a write to a path lands (base/fs.c's writers): a new or regular
 * file is replaced atomically, through its symbolic links (the links stay);
 * a character device or a FIFO is written in place; anything else is
 * refused.  docs/outputs.md tells users the same. */
#ifndef TMCML_FS_TARGET_H
#define TMCML_FS_TARGET_H

#include <stdbool.h>

#include "error.h"

typedef struct fs_target {
    char *path;   /* malloc'd: the file to create or replace (a link's final
                     target), or the path as given when written in place */
    bool through; /* a character device (/dev/null) or a FIFO: opened and
                     written, never replaced by a file */
} fs_target;

/* Finds where a write to path lands.  False with *err naming path for a
 * directory, a block device, a socket, a symbolic link that leads nowhere
 * (dangling, or a loop), and a link that another user left in a sticky
 * world-writable directory such as /tmp (the kernel's protected_symlinks
 * rule, which tmcml applies to the links it follows itself).  A path whose
 * directory is missing is not refused here: creating the temp file names
 * that error. */
bool fs_target_find(const char *path, fs_target *t, tm_error *err);

void fs_target_free(fs_target *t);

#endif
