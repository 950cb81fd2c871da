/* The per-GPU profile store (docs/tuning.md): which kernel variant won,
 * per problem class, on one GPU, under one toolchain.
 *
 * FFTW's wisdom, transposed: a profile file is the wisdom of one GPU
 * ("<device-name>.<sm_XY>.json"), its toolchain (NVRTC version and generator
 * hash) is the signature, and a file whose signature differs from this
 * program's is stale: ignored whole, with a message telling the user to
 * retune.  A corrupt file is reported and skipped, never fatal.
 *
 * Rooms: profile.c (the model, validation, lookup), profile_json.c (reading
 * and writing one file), profile_store.c (adding an entry under a lock),
 * profile_path.c (the search path and profile_find). */
#ifndef TMCML_PROFILE_H
#define TMCML_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "shape.h"
#include "spec.h"
#include "tm_limits.h"

/* The "format" field of the files this code reads and writes. */
#define PROFILE_FORMAT 1

typedef struct profile_device {
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t shared_per_block_optin; /* bytes; 0: unknown */
    int driver_version;            /* e.g. 13000; 0: unknown */
} profile_device;

typedef struct profile_toolchain {
    char nvrtc_version[32]; /* "13.0"; "" when NVRTC is not available */
    char generator[17];     /* 16 lowercase hex digits of compile_generator_hash() */
} profile_toolchain;

/* The problem class: what a kernel is specialised for, apart from the knobs
 * and the optical properties (which are kernel data): the problem's shape
 * (gen/shape.h: equal, compare, text and the nearest distance are
 * problem_shape_*'s). */
typedef problem_shape profile_class;

typedef struct profile_entry {
    profile_class cls;
    kernel_knobs config;                         /* the winning variant's knobs */
    double photons_per_second, steps_per_second; /* the winner's, measured by the tuner */
    double heuristic_photons_per_second;         /* the untuned default's, same pilot
                                                    (0: unknown) */
    uint64_t pilot_photons;                      /* 1 .. PROFILE_MAX_PILOT */
    int candidates;                              /* variants measured, >= 1 */
    double tuning_seconds;
    char date[32]; /* ISO 8601 UTC, "2026-11-22T10:00:00Z" */
} profile_entry;

typedef struct profile {
    profile_device device;
    profile_toolchain toolchain;
    int num_entries;
    profile_entry *entries; /* malloc'd, owned; freed by profile_free */
} profile;

/* ---- the model (profile.c) ---------------------------------------------- */

void profile_init(profile *p);
void profile_free(profile *p);

/* Appends a copy of e, or replaces the entry of the same class.  False only
 * when out of memory. */
bool profile_put(profile *p, const profile_entry *e);

/* "<device-name>.<sm_XY>.json", every character of the name outside
 * [A-Za-z0-9._-] replaced by '_': "NVIDIA_H100_80GB_HBM3.sm_90.json".  False
 * when it does not fit in size (buf then holds "") or the name is empty. */
bool profile_file_name(const profile_device *dev, char *buf, size_t size);

/* The device fields of a runner's device (tuner/runner.h; declared here by
 * tag only). */
struct tune_device;
void profile_device_from_info(const struct tune_device *info, profile_device *dev);

/* The toolchain of this program: the generator hash always, the NVRTC
 * version when NVRTC can be loaded.  False (with *err, tc->nvrtc_version "")
 * when it cannot: the generator field is filled all the same. */
bool profile_toolchain_current(profile_toolchain *tc, tm_error *err);

bool profile_toolchain_equal(const profile_toolchain *a, const profile_toolchain *b);

/* Whether p was made for this device (same name and compute capability;
 * SM count, shared memory and driver version may differ) by this toolchain
 * (same NVRTC version and generator hash).  An empty NVRTC version (no
 * NVRTC) is never current. */
bool profile_is_current(const profile *p, const profile_device *dev, const profile_toolchain *tc);

/* The current time as ISO 8601 UTC ("2026-11-22T10:00:00Z"). */
void profile_date_now(char *buf, size_t size);

/* Checks every field of p against the ranges profile_read enforces (and
 * that no two entries share a class).  The message names file (may be
 * NULL) and field: "entries[2].config.block_size: 100 is not a multiple of
 * 32 in 32..1024". */
bool profile_validate(const profile *p, const char *file, tm_error *err);

/* Checks one entry; where is its field prefix in messages ("entries[2]"). */
bool profile_validate_entry(const profile_entry *e, const char *file, const char *where,
                            tm_error *err);

/* ---- lookup (profile.c) --------------------------------------------------
 * EXACT: an entry of the same class.  NEAREST: else, among the entries of the
 * same num_layers and score_absorption, the one of least
 *     d = |ln(nr/nr')| + |ln(nz/nz')| + 0.25 |ln(na/na')|
 * (problem_shape_distance, weights in gen/shape.c's table)
 * (grid ratios, not differences: 100 vs 200 is as far as 250 vs 500; na
 * weighs less because it sizes global arrays only, never the shared tile);
 * ties go to the entry that comes first in the file.  NONE: no entry of the
 * same layer count and mode.  A NEAREST entry's tile may not fit the caller's
 * grid: the caller clamps it (and validates the resulting spec). */
typedef enum profile_match {
    PROFILE_MATCH_NONE,
    PROFILE_MATCH_EXACT,
    PROFILE_MATCH_NEAREST
} profile_match;

profile_match profile_lookup(const profile *p, const profile_class *c, const profile_entry **found);

const char *profile_match_name(profile_match m); /* "none", "exact", "nearest" */

/* ---- one file (profile_json.c) ------------------------------------------ */

typedef enum profile_status {
    PROFILE_OK,
    PROFILE_MISSING,    /* no such file */
    PROFILE_UNREADABLE, /* exists but cannot be read (permissions, a directory, I/O) */
    PROFILE_CORRUPT     /* not JSON, or a field missing, ill-typed or out of range */
} profile_status;

/* Reads path into *p (which profile_load initialises; free it in every
 * case).  header_only: device and toolchain only, the entries left out (so
 * that a file of another format or generator is told apart from a corrupt
 * one).  *err names the file, and for a corrupt file the field and value
 * ("x.json: entries[2].config.block_size: 100 is not a multiple of 32 in
 * 32..1024") or, for bad JSON, the line. */
profile_status profile_load(const char *path, bool header_only, profile *p, tm_error *err);

/* profile_load(path, false, ...) == PROFILE_OK. */
bool profile_read(const char *path, profile *p, tm_error *err);

/* Writes p as pretty JSON, atomically (temp file + rename), after
 * profile_validate.  Fields in a fixed order, entries sorted by class
 * (layers, mode, nr, nz, na), so equal profiles give equal bytes.  Measured
 * rates and tuning_seconds are rounded to 6 significant digits (timings are
 * not more precise than that, short numbers keep shipped files readable, and
 * cJSON prints at most 15 digits exactly); every number reads back exactly
 * as written. */
bool profile_write(const char *path, const profile *p, tm_error *err);

/* Rounds to 6 significant digits, as profile_write does (idempotent). */
double profile_round_timing(double x);

/* ---- adding an entry (profile_store.c) -----------------------------------
 * Under an exclusive lock on "<path>.lock": re-reads path, replaces the entry
 * of e's class (or appends it), writes atomically, unlocks.  Creates the
 * directory (mkdir -p).  A corrupt existing file is renamed to
 * "<path>.corrupt" and a fresh one started; an existing file of another
 * device or toolchain loses its entries; either is said in note (a line, ""
 * when nothing was dropped; note may be NULL).  dev and tc become the file's
 * header.  The directory is made with mode 0700 when missing, and refused
 * when it is not profile_dir_trusted.  On error the existing file is
 * untouched. */
bool profile_store_entry(const char *path, const profile_device *dev, const profile_toolchain *tc,
                         const profile_entry *e, char *note, size_t note_size, tm_error *err);

/* ---- the search path (profile_path.c) ------------------------------------
 * In order: the explicit directory (--profiles DIR), $TMCML_PROFILE_DIR, the
 * user's data directory ($XDG_DATA_HOME/tmcml/profiles when XDG_DATA_HOME is
 * an absolute path, else $HOME/.local/share/tmcml/profiles), then the
 * profiles shipped with tmcml (profile_shipped_dir).  Unset or empty
 * variables are skipped, and a directory already listed is not listed twice. */

typedef struct profile_search_path {
    int count;
    char dirs[PROFILE_MAX_DIRS][PROFILE_PATH_MAX];
    /* "--profiles", "$TMCML_PROFILE_DIR", "user" or "shipped" */
    const char *origin[PROFILE_MAX_DIRS];
} profile_search_path;

/* The profiles shipped with tmcml: DATADIR/tmcml/profiles of the prefix
 * the program or library was installed into, found relative to its own
 * file (the prefix may be moved); in the build tree, the sources'
 * profiles/.  False when neither can be named (no /proc). */
bool profile_shipped_dir(char *buf, size_t size);

/* explicit_dir: NULL or "" for none. */
void profile_search_dirs(const char *explicit_dir, profile_search_path *out);

/* Whether the profiles in dir may be read, or stored there: false, with
 * *err naming the directory at fault and its mode or owner, when another
 * user could write it or a directory above it (base/dir_trust.h).  The
 * shipped directory is judged by the same rule. */
bool profile_dir_trusted(const char *dir, tm_error *err);

/* Where a tuner stores: the explicit directory, else $TMCML_PROFILE_DIR, else
 * the user's data directory; never the shipped one.  False when none is
 * known (no HOME) or it does not fit in size. */
bool profile_write_dir(const char *explicit_dir, char *buf, size_t size, tm_error *err);

typedef struct profile_found {
    profile_match match;         /* NONE: nothing applies; path and entry unset */
    char path[PROFILE_PATH_MAX]; /* the file the entry came from */
    profile_entry entry;
} profile_found;

/* Looks up cls for dev in the files "<dir>/<profile_file_name(dev)>" along
 * the search path.  A missing file is passed over silently; an unreadable,
 * corrupt or stale (other device, format or toolchain) one is passed over
 * with a note ("<path>: corrupt profile skipped: <why>", "<path>: made by
 * another generator/NVRTC (...); ignored - run `tmcml tune FILE.mci` to
 * retune").  The first file with an EXACT entry wins; when no file has one,
 * the first NEAREST entry in search order is used (an exact entry in a later
 * directory beats a nearest one in an earlier directory: it was measured on
 * this very class).  A directory that is not profile_dir_trusted, and in a
 * sticky one a file of another user, is passed over with a note.  Returns
 * true with out->match NONE when nothing applies;
 * false only on a real error (out of memory, no file name for dev).  note
 * may be NULL. */
bool profile_find(const char *explicit_dir, const profile_device *dev, const profile_toolchain *tc,
                  const profile_class *cls, profile_found *out,
                  void (*note)(void *ctx, const char *msg), void *ctx, tm_error *err);

#endif
