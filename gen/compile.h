/* CUDA source -> cubin with NVRTC (loaded at run time with dlopen), and the
 * on-disk cubin cache. */
#ifndef TMCML_COMPILE_H
#define TMCML_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "render.h"

typedef struct compile_options {
    int arch; /* e.g. 90 -> sm_90 cubin */
    const char *
        cache_dir; /* NULL: $TMCML_CACHE_DIR, else $XDG_CACHE_HOME/tmcml, else ~/.cache/tmcml; "" disables */
    bool fast_math;    /* --use_fast_math */
    int max_registers; /* > 0: --maxrregcount=N (per thread); 0: ptxas decides */
    bool verbose;      /* one-line notes on stderr about cache entries rebuilt or not written */
} compile_options;

typedef struct compile_result {
    void *cubin; /* malloc'd */
    size_t cubin_size;
    bool from_cache;
    double seconds;                /* compile time (0 on a cache hit) */
    int registers;                 /* from ptxas -v (-1 if unknown) */
    int spill_stores, spill_loads; /* bytes, from ptxas -v */
    int stack_bytes;
    char *log; /* malloc'd NVRTC log (may be empty) */
} compile_result;
/* registers and stack_bytes are those of the entry point src->kernel_name
 * (the largest of all entry points when it is NULL or not in the log);
 * spill_stores and spill_loads are summed over every function of the module,
 * so a spill in a non-inlined helper counts against the kernel that calls it.
 * On a cache hit they come from the entry's .info file (docs/cache.md). */

/* Whether NVRTC could be loaded; *version gets "13.0" etc. */
bool compile_nvrtc_available(char *version, size_t size, tm_error *err);

/* The NVRTC release as the cubin cache tells them apart, without the
 * library's path: "13.0 (109338064 bytes, mtime 1760564160)".  NVRTC
 * reports only major.minor; a patch release of it (which may generate other
 * code) is another library file.  What a GPU checkpoint records
 * (driver/resume.c), so that it resumes on another node with the same
 * installation but not under another patch release. */
bool compile_nvrtc_release(char *release, size_t size, tm_error *err);

/* The generator's identity for profiles: the embedded templates
 * (render_generator_hash) and the options every kernel is compiled with. */
uint64_t compile_generator_hash(void);

/* Compiles (or fetches from the cache) src for opt->arch.  On a compile
 * error *err holds NVRTC's error lines with the offending generated lines
 * quoted (numbered), and out->log the whole log.  *out is initialised in
 * every case: free it with compile_result_free whether or not this succeeds.
 * Safe to call from several threads at once.  The library is looked up as
 * libnvrtc.so.13/.12/.so on the loader path, then in $CUDA_HOME/lib64,
 * $CUDA_PATH/lib64 and /usr/local/cuda/lib64; $TMCML_NVRTC (a path) replaces
 * that search. */
bool compile_cubin(const render_output *src, const compile_options *opt, compile_result *out,
                   tm_error *err);
void compile_result_free(compile_result *r);

/* Whether the cache directory opt leads to (into dir, "" when the cache is
 * off) may be used: false, with *err naming the directory and its mode or
 * owner, when another user could write it (base/dir_trust.h).
 * compile_cubin then compiles without the cache, saying so only when
 * verbose; a command calls this once to warn the user. */
bool compile_cache_check(const compile_options *opt, char *dir, size_t size, tm_error *err);

#endif
