/* The generated source as one file: what `tmcml gen` writes.  NVRTC gets the
 * kernel's headers (rng_mwc.h, fixed_point.h) by name from the embedded set
 * (render_output.headers), so the source it compiles says #include "NAME"
 * and needs no include path; a reader compiling the written file with nvcc
 * or NVRTC has no templates/ beside it.  The written file therefore carries
 * each header's text in place of its #include.  The source NVRTC compiles,
 * and with it the cubin cache's key and the profiles' identity, stays as it
 * is: only the written copy is inlined. */
#ifndef TMCML_STANDALONE_H
#define TMCML_STANDALONE_H

#include "render.h"

/* src->source with every line #include "NAME" that names one of
 * src->headers replaced by that header's text between two comment lines
 * (each header once: the headers have include guards, a second #include of
 * one is dropped), the headers' own #includes of each other too.  Other
 * lines are copied as they are.  Malloc'd, or NULL when out of memory. */
char *standalone_source(const render_output *src);

#endif
