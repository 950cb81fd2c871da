/* A lookup table's checkpoint (tmcml_lut's file, `tmcml lut`'s
 * OUT.lut.ckpt: docs/lut.md, "Stops and --resume"): the values of the
 * library calls a table has finished, bit for bit, and what they depend
 * on, so that a stopped table can be continued and end byte-identical to
 * an uninterrupted one.  A call (a
 * column's chunk of sets, a row of runs: lut_table_span) is kept whole or
 * not at all: the library gives no partial result.
 *
 * Format (little-endian, versions 1 to 3): "TMCMLLUT", u32 version, u32 + bytes
 * the table's identity (lut_checkpoint_identity), u32 + bytes the physics
 * of the engine that made the values (driver/resume.h's text), u32 strategy
 * (1 sets, 2 runs), u32 m, k, nr, calls, u64 Rsp (its IEEE 754 bits), u64
 * trapped photons, u32 calls done, then each call done in increasing order:
 * u32 its number, its points' Rd (u64 bits each), then their Rd_r (nr
 * each), in lut_table_span's order, and in a table with errors (version
 * 2, or 3 whose identity has --stderr) then each point's u64 photons, Rd's standard error,
 * the relative error reached and Rd_r's standard errors (nr), and in
 * version 3 (a table with spatial frequencies: lut_spec) then each
 * point's R(fx) (u64 bits, fx_count each) and with errors then each
 * point's standard errors of them; then a u64 FNV-1a of every byte before
 * it, which catches truncation and accidental damage, not deliberate edits.
 * Written atomically (fs_write_atomic): a crash, kill -9 or a second
 * signal leaves the old file or the new one. */
#ifndef TMCML_LUT_CHECKPOINT_H
#define TMCML_LUT_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "lut_table.h"

/* What the values depend on as text, one line each named as `tmcml lut`'s
 * option ("--seed 7"; numbers exact; each axis a count line, then a line a
 * value), the strategy the table uses, and the scoring (-A, the step
 * limit): malloc'd, NULL when out of memory.  The text of version 1's
 * files: a checkpoint written before the table moved into the library
 * (issue 43) is continued by it. */
char *lut_checkpoint_identity(const lut_spec *spec, lut_strategy strategy);

/* The calls done of t, made by an engine of the given physics. */
bool lut_checkpoint_write(const char *path, const lut_spec *spec, const char *physics,
                          const lut_table *t, tm_error *err);

/* Reads path into t (lut_table_init'd for spec, no call done): whole (the
 * checksum), of this table (the identity: the first option that differs
 * is named), made by this physics (or one resume_physics_same takes as
 * it; another engine's is named, with the --engine that continues it) and
 * plausible (values finite, Rd and Rsp within 0 to 1, Rd_r not negative,
 * no more trapped photons than simulated).  The calls read are marked
 * done, t->engine is the physics' engine.  False with *err naming path;
 * the file is only read. */
bool lut_checkpoint_read(const char *path, const lut_spec *spec, const char *physics, lut_table *t,
                         tm_error *err);

#endif
