/* A lookup table through the library (tmcml_lut, tmcml.h; docs/lut.md):
 * the spec checked, its strategy and engine chosen, its calls
 * (lut_calls.h) simulated in order, kept in the caller's checkpoint file
 * (driver/lut_checkpoint.h) when it asks for one: continued from it,
 * written every ck->every seconds and when the table is cancelled or a
 * call fails, removed once the table is done.
 *
 * tmcml_lut is api_lut without a watch.  `tmcml lut` watches its table
 * (api_lut_watch) to say what the library does not: a line after each
 * simulation, a periodic checkpoint that could not be written, and its
 * files written while the checkpoint is still there. */
#ifndef TMCML_LUT_H
#define TMCML_LUT_H

#include <stdbool.h>

#include "error.h"
#include "tmcml.h"

typedef struct api_lut_watch {
    void *ctx;
    /* The checks passed and the checkpoint, if any, read: nothing
     * simulated yet (info->resumed: the simulations read). */
    void (*began)(void *ctx, const tmcml_lut_info *info);
    /* A simulation ended (info->done counts it). */
    void (*ended)(void *ctx, const tmcml_lut_info *info);
    /* A periodic checkpoint could not be written (why): the table goes on,
     * and tries again retry seconds later. */
    void (*unsaved)(void *ctx, const char *why, double retry);
    /* Every point simulated, the checkpoint not yet removed: false (with
     * *err) keeps the simulations done in the checkpoint and ends the call
     * as failed (TMCML_ERR_FILE, *err its message). */
    bool (*finish)(void *ctx, const tmcml_lut_info *info, tm_error *err);
} api_lut_watch;

/* tmcml_lut_with_frequencies (fx NULL: tmcml_lut_with_errors; errors NULL
 * too: tmcml_lut), watched (watch NULL: not). */
tmcml_status api_lut(tmcml_session *s, const tmcml_lut_spec *spec, const tmcml_options *opt,
                     const tmcml_checkpoint *ck, double *rd, double *rd_r, tmcml_lut_errors *errors,
                     const tmcml_lut_frequencies *fx, tmcml_lut_info *info,
                     const api_lut_watch *watch);

#endif
