/* MCML 1.2.2's .mco output: writing (atomically) and reading back.
 *
 * The layout, section names, comment lines and number formats are MCML
 * 1.2.2's (WriteResult in mcmlio.c), so MCML's own tools and the usual
 * MATLAB/Python readers read our files. */
#ifndef TMCML_MCO_H
#define TMCML_MCO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "mci.h"
#include "result.h"

/* Line 10 of an .mco is a comment: MCML writes its "User time" there.
 * tmcml writes its provenance instead (version, seed, engine: see run.c), so
 * that equal seeds give byte-identical files; timings go to the JSON
 * summary.  comment is the line's text after "# ". */

/* That comment: "tmcml VERSION, ENGINE engine, seed SEED, absorption scored,
 * tallies fnv1a64:DIGEST. Timings: NAME.json." (or "-A: absorption not
 * scored"); partial (may be NULL) is put before " Timings" for a stopped
 * run's partial output.  DIGEST is tally_set_digest, as the JSON's
 * "tallies_digest" has it: an .mco and a JSON of one run name the same.  The
 * run command and the library (api/) write the same line, so equal
 * runs give byte-identical files whichever wrote them. */
#define MCO_DIGEST_WORD "tallies fnv1a64:"
void mco_provenance(char *buf, size_t size, const char *engine, uint64_t seed,
                    bool score_absorption, uint64_t tallies_digest, const char *partial,
                    const char *json_name);

/* A run whose source is not the pencil beam has one more comment line,
 * before the provenance: "# Source: DESCRIPTION (--source TEXT)", TEXT as
 * source_text writes it, which mco_read reads back into run.source. */
#define MCO_SOURCE_WORD "--source "

/* The tallies digest an .mco's provenance comment names (MCO_DIGEST_WORD),
 * reading only the lines before InParm.  False when the file cannot be read
 * (*err) or names none (*err: "names no tallies digest"). */
bool mco_read_digest(const char *path, uint64_t *digest, tm_error *err);

/* Writes res of run to path (temp file + rename).  The version line is "B1"
 * when run->out_format is 'B' (data still ASCII, as MCML).  Fails, writing
 * nothing, when res's grid or layer count differs from run's. */
bool mco_write(const char *path, const mci_run *run, const mcml_result *res, const char *comment,
               tm_error *err);

/* Writes to an open stream (used by mco_write and by tests).  Returns false
 * on a grid mismatch (nothing written) or when the stream has an error. */
bool mco_write_stream(FILE *stream, const mci_run *run, const mcml_result *res,
                      const char *comment);

/* MCML 1.2.2's comment text for a simulation time (PunchTime:
 * "User time: %8.0f sec = %8.2f hr.  ..."). */
void mco_time_comment(double seconds, char *buf, size_t size);

/* A parsed .mco: the input echo (InParm) as a run and every section. */
typedef struct mco_data {
    mci_run run;
    char *comment; /* text of the last comment line before InParm, after "# " */
    double user_seconds;
    mcml_result result;
} mco_data;

/* Reads an MCML .mco (MCML's own, CUDAMCML's or ours).  '#' starts a comment;
 * numbers are whitespace-separated and may be laid out in any lines.  The
 * file must start with "A1" or "B1" (out_format becomes 'A' or 'B') and then
 * InParm; the data sections (RAT and one per row of output_table[],
 * runtime/io/output_arrays.h) follow in any order, each exactly once, each
 * with exactly the number of values InParm's grid implies.  The optional
 * rows' sections (the path lengths, which tmcml writes after MCML's) may
 * be absent, all four together: then result's arrays of them stay NULL and
 * run.path_lengths false.
 *   run: out_name (everything before the format letter on its line, so it
 *   may hold spaces, not '#'), photons, grid, da = pi/(2 na), layers with
 *   z0/z1 summed from the printed thicknesses and the critical-angle cosines
 *   computed as MCML does, line = the out_name line.
 *   source: from the "# Source:" line (MCO_SOURCE_WORD), the pencil beam
 *   when there is none.
 *   user_seconds: from "# User time:", 0 when the line is absent.
 *   result: every section; photons = run.photons; a_l[0] and
 *   a_l[num_layers + 1] are 0 (MCML does not print them).
 * On failure *err is "file:line: what" and *out is left empty (mco_free is
 * safe). */
bool mco_read(const char *path, mco_data *out, tm_error *err);

/* Frees what mco_read allocated (comment, run.out_name, run.layers, the result). */
void mco_free(mco_data *data);

#endif
