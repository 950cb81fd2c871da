/* KernelSpec -> CUDA source, through the Lua templates (the .cu files in templates/ and
 * the template engine templates/engine.lua, docs/templates.md), embedded in
 * the binary at build time or read from a directory given with --templates. */
#ifndef TMCML_RENDER_H
#define TMCML_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "spec.h"

/* A header the generated source #includes; NVRTC gets these by name
 * (nvrtcCreateProgram's headers), so the source needs no include path. */
typedef struct render_header {
    const char *name; /* e.g. "rng_mwc.h" */
    const char *text;
} render_header;

typedef struct render_output {
    char *source; /* malloc'd, NUL-terminated CUDA C++ source */
    size_t num_headers;
    const render_header *headers; /* the embedded (or --templates) headers; owned by
                                     the output: valid until render_output_free */
    char *kernel_name;            /* malloc'd: the __global__ entry point */
    void *storage;                /* private: what headers points into, freed by
                                     render_output_free */
} render_output;

/* One embedded file: the engine, a template or a header.  text is
 * NUL-terminated; size excludes the NUL. */
typedef struct render_file {
    const char *name; /* base name, e.g. "kernel.cu" */
    const char *text;
    size_t size;
} render_file;

/* The files embedded at build time (tools/embed.cmake writes this table into
 * generated/embedded_templates.c), sorted by name. */
extern const render_file render_embedded_files[];
extern const size_t render_embedded_count;

/* The embedded file of that name, or NULL. */
const render_file *render_embedded(const char *name);

/* template_dir: NULL for the embedded templates, else a directory holding
 * files of the same names (engine.lua, kernel.cu and the parts it includes,
 * the headers): all of them are read from there, none from the embedded set.
 * The source starts with a comment naming tmcml, the spec key and the
 * generator hash.  On error (a Lua error in a template, a missing file) *err
 * says which template and line: err->file is "template NAME" and err->line
 * the template's line, so error_format prints "template NAME:LINE: what";
 * for a file that cannot be read, err->file is its path.  The spec is
 * validated first (spec_validate without a shared-memory budget).
 * Thread-safe: every call works in a Lua state of its own. */
bool render_kernel(const kernel_spec *spec, const char *template_dir, render_output *out,
                   tm_error *err);
void render_output_free(render_output *out);

/* Hash of the generator: the embedded templates, engine and headers, and
 * the kernel's parameter rows (gen/kernel_param.h), for profiles'
 * toolchain fingerprint and the cubin cache key: FNV-1a 64 over every
 * embedded file's name and contents, continued over the rows
 * (kernel_param_hash). */
uint64_t render_generator_hash(void);

#endif
