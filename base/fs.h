/* Files written so that nothing is ever half-written: a temporary file in
 * the destination's directory, flushed, then renamed over the destination
 * (docs/outputs.md). */
#ifndef TMCML_FS_H
#define TMCML_FS_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "path_name.h"

/* Calls write(stream, ctx) on a temporary file next to path and renames it to
 * path when write returns true and every byte reached the disk; otherwise
 * removes the temporary file and leaves path untouched.  write may set *err;
 * if it returns false without doing so a generic message is set.
 * Where path is a symbolic link to a file, the temp file goes beside that
 * file and replaces it: the link stays.  A character device (/dev/null) or
 * a FIFO is written in place, never replaced.  A directory, a block device,
 * a socket and a link to nothing are refused (fs_target.h).  The new file
 * gets mode 0666 less the umask, which is never changed. */
bool fs_write_atomic(const char *path, bool (*write)(FILE *stream, void *ctx, tm_error *err),
                     void *ctx, tm_error *err);

/* Removes every temp file of a write in progress.  Async-signal-safe: for
 * the handler of SIGINT and SIGTERM (base/interrupt.c). */
void fs_remove_temps(void);

/* Checks, before any work, that fs_write_atomic(path) would not be refused
 * and that a file can be created in the directory that will hold it (or,
 * for a device or FIFO, that it is writable), creating nothing that stays. */
bool fs_check_writable(const char *path, tm_error *err);
/* The same (kept for the callers that check an output file). */
bool fs_check_output(const char *path, tm_error *err);

/* The absolute path a file name refers to, whether or not the file exists:
 * the end of its symbolic links when they lead to a file, else the real
 * path of its directory (symbolic links, "." and ".." resolved) and its base
 * name; so "o.mco", "./o.mco", "dir/../o.mco" and a link to o.mco give one
 * answer.  Malloc'd; NULL with *err when the directory does not exist. */
char *fs_resolve(const char *path, tm_error *err);

/* mkdir -p dir.  The error names the directory that could not be made
 * ("cannot create directory: Permission denied"). */
bool fs_make_dirs(const char *dir, tm_error *err);
/* The same, the directories it makes given mode (before the umask). */
bool fs_make_dirs_mode(const char *dir, unsigned mode, tm_error *err);

/* mkdir -p of the directory that holds path (nothing when path has no '/'). */
bool fs_make_parent(const char *path, tm_error *err);

/* Reads a whole file into a NUL-terminated malloc'd buffer (binary files
 * too: *size counts the bytes, the NUL is extra). */
char *fs_read_text(const char *path, size_t *size, tm_error *err);
/* The same, refusing more than max bytes (so /dev/zero ends with an error,
 * not a full memory) and, with regular_only, anything but a regular file (a
 * FIFO would block the reader).  A directory is always refused. */
char *fs_read_file(const char *path, size_t max, bool regular_only, size_t *size, tm_error *err);

/* fs_write_atomic of size bytes of data. */
bool fs_write_bytes_atomic(const char *path, const void *data, size_t size, tm_error *err);

/* The size of a regular file ("not a regular file" otherwise). */
bool fs_file_size(const char *path, size_t *size, tm_error *err);
/* Reads exactly size bytes of path into buf (the caller learnt size from
 * fs_file_size): an error if the file is shorter or longer by now. */
bool fs_read_exact(const char *path, void *buf, size_t size, tm_error *err);

/* The user's directory of this kind for tmcml, by the XDG base directory
 * rules: "$XDG_VAR/tmcml/SUB" when $XDG_VAR is an absolute path (the
 * specification ignores a relative one), else "$HOME/HOME_DEFAULT/tmcml/SUB"
 * (e.g. XDG_DATA_HOME, ".local/share", "profiles"; SUB may be "").  False
 * when neither variable helps or the result does not fit. */
bool fs_xdg_dir(const char *xdg_var, const char *home_default, const char *sub, char *buf,
                size_t size);

#endif
