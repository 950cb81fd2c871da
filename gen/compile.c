/* CUDA source -> cubin with NVRTC, and the on-disk cubin cache
 * (docs/cache.md).
 *
 * libnvrtc is loaded with dlopen, once per process (pthread_once), so the
 * binary starts without it.  Apart from that handle nothing here is shared
 * between calls: the tuner compiles candidates from several threads at once,
 * and NVRTC itself is thread-safe for distinct programs.
 *
 * A cache entry is three files named by a 128-bit hash of everything that
 * goes into the cubin (the "key material": source, headers, NVRTC build,
 * options):  <key>.cu holds the key material itself and is compared byte for
 * byte on load, so a hash collision cannot hand back a wrong cubin;
 * <key>.info names its key and holds the cubin's size and SHA-256, the ptxas
 * figures and the log, so a cubin and .info moved under another key are
 * refused; <key>.cubin is the binary.  Every file is read as a regular file
 * of bounded size, and only from a directory that no other user can write
 * (base/dir_trust.h): the hashes catch accidents, not forgers.  Each
 * file is written atomically (temporary file + rename).  Anything wrong with
 * an entry means "rebuild", never an error: the cache is an optimisation. */
#include "compile.h"
#include "dir_trust.h"
#include "fs.h"
#include "hash.h"
#include "sha256.h"
#include "text_escape.h"
#include "tm_limits.h"

#include "tmcml_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvrtc_abi.h"

void compile_result_free(compile_result *r)
{
    if (!r)
        return;
    free(r->cubin);
    free(r->log);
    r->cubin = NULL;
    r->log = NULL;
    r->cubin_size = 0;
}

static void result_init(compile_result *out)
{
    memset(out, 0, sizeof *out);
    out->registers = -1;
}

/* Bump when the layout of the entry files or the key material changes:
 * old entries then simply stop matching.  2: the .info names its key and
 * the cubin's SHA-256. */
#define CACHE_FORMAT 2

/* ---- loading NVRTC ------------------------------------------------------- */

typedef struct nvrtc_api {
    void *lib;
    int major, minor;
    char identity[PATH_MAX + 96]; /* file, size and mtime of the library: part of the key */
    char release[96];             /* major.minor, size and mtime: compile_nvrtc_release */
    char error[900];              /* why loading failed ("" when it did not) */
    nvrtcResult (*Version)(int *, int *);
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*GetNumSupportedArchs)(int *); /* optional (NVRTC >= 11.2) */
    nvrtcResult (*GetSupportedArchs)(int *);    /* optional */
} nvrtc_api;

/* Written only inside nvrtc_once; read-only afterwards. */
static nvrtc_api nvrtc;
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;

_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "dlsym results are stored into function pointers");

static bool nvrtc_bind(void *lib)
{
    static const struct {
        const char *name;
        size_t offset;
        bool required;
    } syms[] = {
        {"nvrtcVersion", offsetof(nvrtc_api, Version), true},
        {"nvrtcGetErrorString", offsetof(nvrtc_api, GetErrorString), true},
        {"nvrtcCreateProgram", offsetof(nvrtc_api, CreateProgram), true},
        {"nvrtcDestroyProgram", offsetof(nvrtc_api, DestroyProgram), true},
        {"nvrtcCompileProgram", offsetof(nvrtc_api, CompileProgram), true},
        {"nvrtcGetProgramLogSize", offsetof(nvrtc_api, GetProgramLogSize), true},
        {"nvrtcGetProgramLog", offsetof(nvrtc_api, GetProgramLog), true},
        /* cubins straight from NVRTC: 11.1 and later */
        {"nvrtcGetCUBINSize", offsetof(nvrtc_api, GetCUBINSize), true},
        {"nvrtcGetCUBIN", offsetof(nvrtc_api, GetCUBIN), true},
        {"nvrtcGetNumSupportedArchs", offsetof(nvrtc_api, GetNumSupportedArchs), false},
        {"nvrtcGetSupportedArchs", offsetof(nvrtc_api, GetSupportedArchs), false},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p && syms[i].required) {
            snprintf(nvrtc.error, sizeof nvrtc.error,
                     "the NVRTC library found lacks %s (NVRTC 12 or newer is needed)",
                     syms[i].name);
            return false;
        }
        memcpy((char *)&nvrtc + syms[i].offset, &p, sizeof p);
    }
    return true;
}

/* The library's file, size and mtime, so that a patch release of the same
 * major.minor (which may generate different code) gets its own entries. */
static void nvrtc_identify(void)
{
    Dl_info info;
    void *sym;
    memcpy(&sym, &nvrtc.Version, sizeof sym);
    struct stat st;
    if (dladdr(sym, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
        snprintf(nvrtc.identity, sizeof nvrtc.identity, "%s, %lld bytes, mtime %lld",
                 info.dli_fname, (long long)st.st_size, (long long)st.st_mtime);
        snprintf(nvrtc.release, sizeof nvrtc.release, "%d.%d (%lld bytes, mtime %lld)", nvrtc.major,
                 nvrtc.minor, (long long)st.st_size, (long long)st.st_mtime);
    } else {
        snprintf(nvrtc.identity, sizeof nvrtc.identity, "(library file unknown)");
        snprintf(nvrtc.release, sizeof nvrtc.release, "%d.%d (library file unknown)", nvrtc.major,
                 nvrtc.minor);
    }
}

static void *nvrtc_try(const char *name, char *first_error, size_t size)
{
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib && !first_error[0]) {
        const char *e = dlerror();
        snprintf(first_error, size, "%.400s", e ? e : name);
    }
    return lib;
}

static void *nvrtc_search(char *first_error, size_t size)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *dirs[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    void *lib;
    for (size_t i = 0; i < 3; i++)
        if ((lib = nvrtc_try(names[i], first_error, size)))
            return lib;
    /* The toolkit's lib64 is often not on the loader path. */
    for (size_t d = 0; d < 3; d++) {
        if (!dirs[d] || !dirs[d][0])
            continue;
        for (size_t i = 0; i < 3; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[i]);
            if ((lib = nvrtc_try(path, first_error, size)))
                return lib;
        }
    }
    return NULL;
}

static void nvrtc_load(void)
{
    char first_error[512] = "";
    const char *forced = getenv("TMCML_NVRTC");
    void *lib = forced && forced[0] ? nvrtc_try(forced, first_error, sizeof first_error)
                                    : nvrtc_search(first_error, sizeof first_error);
    if (!lib) {
        snprintf(nvrtc.error, sizeof nvrtc.error,
                 "NVRTC could not be loaded (%s); install the CUDA Toolkit's NVRTC 12 or 13, "
                 "or set CUDA_HOME or TMCML_NVRTC",
                 first_error);
        return;
    }
    if (!nvrtc_bind(lib) || nvrtc.Version(&nvrtc.major, &nvrtc.minor) != NVRTC_SUCCESS) {
        if (!nvrtc.error[0])
            snprintf(nvrtc.error, sizeof nvrtc.error, "nvrtcVersion failed");
        dlclose(lib);
        return;
    }
    if (nvrtc.major < 12) {
        snprintf(nvrtc.error, sizeof nvrtc.error,
                 "NVRTC %d.%d is too old: tmcml needs NVRTC 12 or newer", nvrtc.major, nvrtc.minor);
        dlclose(lib);
        return;
    }
    nvrtc_identify();
    nvrtc.lib = lib; /* kept for the life of the process */
}

static bool nvrtc_ready(tm_error *err)
{
    pthread_once(&nvrtc_once, nvrtc_load);
    if (!nvrtc.lib) {
        error_set(err, NULL, 0, "%s", nvrtc.error);
        return false;
    }
    return true;
}

bool compile_nvrtc_available(char *version, size_t size, tm_error *err)
{
    if (version && size)
        version[0] = '\0';
    if (!nvrtc_ready(err))
        return false;
    if (version && size)
        snprintf(version, size, "%d.%d", nvrtc.major, nvrtc.minor);
    return true;
}

bool compile_nvrtc_release(char *release, size_t size, tm_error *err)
{
    if (release && size)
        release[0] = '\0';
    if (!nvrtc_ready(err))
        return false;
    if (release && size)
        snprintf(release, size, "%s", nvrtc.release);
    return true;
}

/* A clear message for an arch this NVRTC cannot target, instead of NVRTC's
 * "invalid option". */
static bool nvrtc_check_arch(int arch, tm_error *err)
{
    int n = 0;
    if (!nvrtc.GetNumSupportedArchs || !nvrtc.GetSupportedArchs ||
        nvrtc.GetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256)
        return true; /* unknown: let NVRTC decide */
    int archs[256];
    if (nvrtc.GetSupportedArchs(archs) != NVRTC_SUCCESS)
        return true;
    for (int i = 0; i < n; i++)
        if (archs[i] == arch)
            return true;
    char list[512] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list - 16; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, " sm_%d", archs[i]);
    error_set(err, NULL, 0, "NVRTC %d.%d cannot compile for sm_%d; it supports%s", nvrtc.major,
              nvrtc.minor, arch, list);
    return false;
}

/* ---- a growable string, for the key material and messages ------------------ */

typedef struct strbuf {
    char *data; /* malloc'd, NUL-terminated; NULL after an allocation failure */
    size_t len, cap;
    bool failed;
} strbuf;

static void sb_append(strbuf *sb, const char *s, size_t n)
{
    if (sb->failed)
        return;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 4096;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *p = realloc(sb->data, cap);
        if (!p) {
            free(sb->data);
            *sb = (strbuf){.failed = true};
            return;
        }
        sb->data = p;
        sb->cap = cap;
    }
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

static void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *sb, const char *fmt, ...)
{
    char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_append(sb, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ---- options and key material --------------------------------------------------- */

#define MAX_OPTIONS     12
#define NO_CACHE_OPTION "--no-cache"

typedef struct option_list {
    const char *argv[MAX_OPTIONS];
    int argc;
    char arch[40], maxrreg[40];
} option_list;

/* The options every kernel is compiled with, whatever its variant: part of
 * the generator (compile_generator_hash), so profiles tuned with other
 * options are stale.
 *  - No implicit a*b+c -> fma contraction: the compiler contracts per
 *    variant (seen: -A rounded the weight differently from the variant that
 *    scores A_rz), which would break the bit-identity contract between
 *    variants.  Templates write fmaf() where they want one.
 *  - Denormals flushed to zero and sqrtf through the hardware's reciprocal
 *    square root: the same in every variant, so variants stay bit-identical;
 *    about 40 of 220 instructions a step fewer (the slow paths of a precise
 *    square root and the denormal guards of __logf and __fdividef).  The
 *    GPU validation suite, the contrast case included, shows no bias
 *    (docs/validation.md). */
static const char *const fixed_options[] = {
    "-std=c++17",   "-Xptxas=-v", /* registers and spills, parsed from the log */
    "-lineinfo",                  /* profilers map SASS back to the generated source */
    "--fmad=false", "-ftz=true",  "-prec-sqrt=false",
};
#define FIXED_OPTIONS (sizeof fixed_options / sizeof fixed_options[0])

uint64_t compile_generator_hash(void)
{
    uint64_t templates = render_generator_hash();
    uint64_t h = hash_fnv1a(HASH_FNV1A_START, &templates, sizeof templates);
    for (size_t i = 0; i < FIXED_OPTIONS; i++)
        h = hash_fnv1a(h, fixed_options[i], strlen(fixed_options[i]) + 1);
    return h;
}

static void options_build(const compile_options *opt, option_list *o)
{
    o->argc = 0;
    snprintf(o->arch, sizeof o->arch, "--gpu-architecture=sm_%d", opt->arch);
    o->argv[o->argc++] = o->arch; /* a real arch: NVRTC emits a cubin */
    for (size_t i = 0; i < FIXED_OPTIONS; i++)
        o->argv[o->argc++] = fixed_options[i];
    /* NVRTC 13 keeps its own cache in the driver's ComputeCache when a driver
     * is present, and a hit there skips ptxas and so its -v figures (seen on
     * an H200: registers and spills missing from the second compile on).  We
     * cache ourselves, figures included.  NVRTCs without the option get a
     * retry without it (run_nvrtc). */
    o->argv[o->argc++] = NO_CACHE_OPTION;
    if (opt->fast_math)
        o->argv[o->argc++] = "--use_fast_math";
    if (opt->max_registers > 0) {
        snprintf(o->maxrreg, sizeof o->maxrreg, "--maxrregcount=%d", opt->max_registers);
        o->argv[o->argc++] = o->maxrreg;
    }
}

/* Everything the cubin depends on, as one readable text.  Each piece carries
 * its byte length, so two different inputs never serialise alike. */
static void key_material(const render_output *src, const char *program, const option_list *o,
                         strbuf *sb)
{
    sb_printf(sb, "// tmcml cubin cache entry (format %d): the exact input of <key>.cubin\n",
              CACHE_FORMAT);
    sb_printf(sb, "// nvrtc %d.%d: %s\n// options:", nvrtc.major, nvrtc.minor, nvrtc.identity);
    for (int i = 0; i < o->argc; i++)
        sb_printf(sb, " %s", o->argv[i]);
    sb_printf(sb, "\n// ---- source %s (%zu bytes) ----\n", program, strlen(src->source));
    sb_append(sb, src->source, strlen(src->source));
    for (size_t i = 0; i < src->num_headers; i++) {
        const render_header *h = &src->headers[i];
        size_t n = h->text ? strlen(h->text) : 0;
        sb_printf(sb, "\n// ---- header %s (%zu bytes) ----\n", h->name, n);
        sb_append(sb, h->text ? h->text : "", n);
    }
    sb_append(sb, "\n", 1);
}

/* ---- ptxas -v ------------------------------------------------------------------ */

/* Lines look like (CUDA 12/13):
 *   ptxas info    : Compiling entry function 'k' for 'sm_90'
 *   ptxas info    : Function properties for k
 *   ptxas         .     400 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
 *   ptxas info    : Used 30 registers, used 0 barriers, ... */
static void ptxas_parse(const char *log, const char *kernel, compile_result *out)
{
    char current[256] = "";
    int max_regs = -1, max_stack = 0, regs = -1, stack = -1;
    out->spill_stores = out->spill_loads = 0;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        const char *p;
        int a, b, c;
        if ((p = strstr(buf, "Compiling entry function '"))) {
            p += strlen("Compiling entry function '");
            snprintf(current, sizeof current, "%.*s", (int)strcspn(p, "'"), p);
        } else if ((p = strstr(buf, "Function properties for "))) {
            p += strlen("Function properties for ");
            snprintf(current, sizeof current, "%.*s", (int)strcspn(p, " \r"), p);
        } else if (strstr(buf, "bytes stack frame")) {
            for (p = buf; *p && !isdigit((unsigned char)*p); p++)
                ;
            if (sscanf(p, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a,
                       &b, &c) == 3) {
                out->spill_stores += b;
                out->spill_loads += c;
                if (a > max_stack)
                    max_stack = a;
                if (kernel && strcmp(current, kernel) == 0)
                    stack = a;
            }
        } else if ((p = strstr(buf, "Used ")) && sscanf(p, "Used %d registers", &a) == 1) {
            if (a > max_regs)
                max_regs = a;
            if (kernel && strcmp(current, kernel) == 0)
                regs = a;
        }
        line = end ? end + 1 : NULL;
    }
    out->registers = regs >= 0 ? regs : max_regs;
    out->stack_bytes = stack >= 0 ? stack : max_stack;
}

/* ---- compile errors, with the generated lines they point at ----------------------- */

/* The text a log line "NAME(LINE): error: ..." refers to: the source or a header. */
static const char *error_text(const render_output *src, const char *program, const char *name)
{
    if (strcmp(name, program) == 0)
        return src->source;
    for (size_t i = 0; i < src->num_headers; i++)
        if (src->headers[i].name && strcmp(src->headers[i].name, name) == 0)
            return src->headers[i].text;
    return NULL;
}

static void quote_lines(strbuf *sb, const char *text, long target)
{
    long n = 1;
    for (const char *line = text; line && *line && n <= target + 1; n++) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (n >= target - 2)
            sb_printf(sb, "%s%6ld | %.*s%s\n", n == target ? ">" : " ", n, len > 150 ? 150 : len,
                      line, len > 150 ? " ..." : "");
        line = end ? end + 1 : NULL;
    }
}

static bool is_error_line(const char *line, char *name, size_t size, long *lineno)
{
    const char *open = strchr(line, '(');
    if (!open || open == line || (size_t)(open - line) >= size)
        return false;
    char *after;
    long n = strtol(open + 1, &after, 10);
    if (after == open + 1 || strncmp(after, "): ", 3) != 0)
        return false;
    if (strncmp(after + 3, "error", 5) != 0 && strncmp(after + 3, "catastrophic error", 18) != 0)
        return false;
    snprintf(name, size, "%.*s", (int)(open - line), line);
    *lineno = n;
    return true;
}

static void compile_error(const render_output *src, const char *program, int arch, nvrtcResult rc,
                          const char *log, tm_error *err)
{
    strbuf sb = {0};
    sb_printf(&sb, "NVRTC %d.%d could not compile %s for sm_%d (%s):\n", nvrtc.major, nvrtc.minor,
              program, arch, nvrtc.GetErrorString(rc));
    int errors = 0;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[600], name[256];
        long lineno;
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        if (is_error_line(buf, name, sizeof name, &lineno)) {
            errors++;
            sb_printf(&sb, "%s\n", buf);
            const char *text = error_text(src, program, name);
            if (text)
                quote_lines(&sb, text, lineno);
        }
        line = end ? end + 1 : NULL;
    }
    if (errors == 0) /* not a source error (bad option, ...): the log says it all */
        sb_printf(&sb, "%s", log && log[0] ? log : "(empty log)\n");
    /* tm_error holds 1 KiB: cut at a line and say where the rest is. */
    const char *msg = sb.failed ? "NVRTC failed (and memory ran out formatting its log)" : sb.data;
    char out[sizeof err->message];
    size_t room = sizeof out - 48;
    if (strlen(msg) < sizeof out) {
        snprintf(out, sizeof out, "%s", msg);
    } else {
        size_t cut = room;
        while (cut > 0 && msg[cut] != '\n')
            cut--;
        snprintf(out, sizeof out, "%.*s\n[... see the full NVRTC log]", (int)cut, msg);
    }
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '\n')
        out[--n] = '\0';
    error_set(err, NULL, 0, "%s", out);
    free(sb.data);
}

/* ---- files ------------------------------------------------------------------------ */

static bool elf_magic(const void *p, size_t n) { return n >= 64 && memcmp(p, "\177ELF", 4) == 0; }

/* The cache directory into dir; false when caching is off.  --cache DIR,
 * else $TMCML_CACHE_DIR, else the user's cache directory by the XDG rules
 * ($XDG_CACHE_HOME/tmcml when absolute, else ~/.cache/tmcml). */
static bool cache_dir_resolve(const compile_options *opt, char *dir, size_t size)
{
    const char *env;
    if (opt->cache_dir)
        snprintf(dir, size, "%s", opt->cache_dir);
    else if ((env = getenv("TMCML_CACHE_DIR")))
        snprintf(dir, size, "%s", env);
    else if (!fs_xdg_dir("XDG_CACHE_HOME", ".cache", "", dir, size))
        dir[0] = '\0';
    return dir[0] != '\0';
}

bool compile_cache_check(const compile_options *opt, char *dir, size_t size, tm_error *err)
{
    char resolved[PATH_MAX];
    bool on = cache_dir_resolve(opt, resolved, sizeof resolved);
    if (size)
        snprintf(dir, size, "%s", on ? resolved : "");
    return !on || dir_trust_check(resolved, err);
}

/* ---- the cache ------------------------------------------------------------------- */

typedef struct cache_entry {
    char dir[PATH_MAX];
    char key[33];
} cache_entry;

/* The room for "<dir>/<key>.<ext>". */
#define ENTRY_PATH_MAX (PATH_MAX + 48)

static void entry_path(const cache_entry *e, const char *ext, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.%s", e->dir, e->key, ext);
}

/* A file of the cache written atomically.  The cache's files are its own:
 * whatever else stands at the path (a symbolic link, a device) is removed
 * first, never followed or written through as fs_write_atomic does for a
 * user's outputs, so a link to /dev/zero becomes a cache entry again. */
static bool cache_write(const char *path, const void *data, size_t size, tm_error *err)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        (void)unlink(path);
    return fs_write_bytes_atomic(path, data, size, err);
}

/* One file of the entry, whole: a regular file of at most max bytes (a link
 * to /dev/zero or a FIFO is not read at all), owned by this user or root (a
 * sticky cache directory may hold other users' files).  NULL when it is
 * missing (*missing) or anything else is wrong with it. */
static char *cache_read(const cache_entry *e, const char *ext, size_t max, size_t *size,
                        bool *missing)
{
    char path[ENTRY_PATH_MAX];
    entry_path(e, ext, path, sizeof path);
    tm_error ignored;
    *missing = access(path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR);
    if (*missing || !dir_trust_file(path))
        return NULL;
    return fs_read_file(path, max, true, size, &ignored);
}

static bool info_write(const cache_entry *e, const compile_result *r, double seconds, tm_error *err)
{
    strbuf sb = {0};
    char digest[SHA256_HEX];
    sha256_hex(r->cubin, r->cubin_size, digest);
    sb_printf(&sb, "tmcml cubin info %d\n", CACHE_FORMAT);
    sb_printf(&sb, "key %s\n", e->key);
    sb_printf(&sb, "cubin_bytes %zu\n", r->cubin_size);
    sb_printf(&sb, "cubin_sha256 %s\n", digest);
    sb_printf(&sb, "registers %d\n", r->registers);
    sb_printf(&sb, "stack_bytes %d\n", r->stack_bytes);
    sb_printf(&sb, "spill_stores %d\n", r->spill_stores);
    sb_printf(&sb, "spill_loads %d\n", r->spill_loads);
    sb_printf(&sb, "compile_seconds %.3f\n", seconds);
    size_t log_len = r->log ? strlen(r->log) : 0;
    sb_printf(&sb, "log_bytes %zu\n", log_len);
    sb_append(&sb, r->log ? r->log : "", log_len);
    char path[ENTRY_PATH_MAX];
    entry_path(e, "info", path, sizeof path);
    if (sb.failed)
        error_set(err, path, 0, "out of memory");
    bool ok = !sb.failed && cache_write(path, sb.data, sb.len, err);
    free(sb.data);
    return ok;
}

/* What <key>.info says about its cubin. */
typedef struct info_cubin {
    char key[33];            /* the entry it was written for */
    size_t bytes;            /* the cubin's size */
    char sha256[SHA256_HEX]; /* and digest */
} info_cubin;

/* Parses <key>.info into r and *c. */
static bool info_parse(const char *text, compile_result *r, info_cubin *c)
{
    int format;
    size_t log_bytes;
    int used = 0;
    if (sscanf(text,
               "tmcml cubin info %d\nkey %32[0-9a-f]\ncubin_bytes %zu\ncubin_sha256 %64[0-9a-f]\n"
               "registers %d\nstack_bytes %d\nspill_stores %d\nspill_loads %d\n"
               "compile_seconds %*f\nlog_bytes %zu%n",
               &format, c->key, &c->bytes, c->sha256, &r->registers, &r->stack_bytes,
               &r->spill_stores, &r->spill_loads, &log_bytes, &used) != 9 ||
        format != CACHE_FORMAT || text[used] != '\n' || strlen(text + used + 1) != log_bytes)
        return false;
    r->log = strdup(text + used + 1);
    return r->log != NULL;
}

/* Whether cubin is the one info describes. */
static bool info_matches(const info_cubin *c, const void *cubin, size_t size)
{
    char digest[SHA256_HEX];
    if (size != c->bytes || !elf_magic(cubin, size))
        return false;
    sha256_hex(cubin, size, digest);
    return strcmp(digest, c->sha256) == 0;
}

/* The entry's files, each checked against what this entry must hold: the
 * key material byte for byte, an .info naming this key, the cubin it
 * describes.  A hit fills *out; anything else leaves it empty and says why
 * (NULL: no entry, which needs no note). */
static bool cache_load(const cache_entry *e, const strbuf *material, compile_result *out,
                       const char **why)
{
    size_t size = 0;
    bool missing;
    info_cubin c;
    *why = NULL;
    char *stored = cache_read(e, "cu", material->len, &size, &missing);
    bool same = stored && size == material->len && memcmp(stored, material->data, size) == 0;
    free(stored);
    if (!same) {
        *why = missing ? NULL : "the stored source differs from this one";
        return false;
    }
    char *info = cache_read(e, "info", CACHE_MAX_INFO_BYTES, &size, &missing);
    bool ok = info && info_parse(info, out, &c);
    free(info);
    if (!ok) {
        *why = "the .info file is missing or unreadable";
        goto fail;
    }
    if (strcmp(c.key, e->key) != 0) {
        *why = "the .info file is another entry's";
        goto fail;
    }
    out->cubin = c.bytes <= CACHE_MAX_CUBIN_BYTES
                     ? cache_read(e, "cubin", c.bytes, &out->cubin_size, &missing)
                     : NULL;
    if (!out->cubin || !info_matches(&c, out->cubin, out->cubin_size)) {
        *why = "the cubin is missing, corrupt or not the one its .info describes";
        goto fail;
    }
    out->from_cache = true;
    return true;
fail:
    compile_result_free(out);
    result_init(out);
    return false;
}

/* Cubin and info first, the key material last: a reader that finds the
 * material matching then also finds this entry's cubin. */
static void cache_store(const cache_entry *e, const strbuf *material, const compile_result *r,
                        bool verbose)
{
    char path[ENTRY_PATH_MAX];
    tm_error err = {0};
    entry_path(e, "cubin", path, sizeof path);
    bool ok = dir_trust_make(e->dir, &err) && cache_write(path, r->cubin, r->cubin_size, &err) &&
              info_write(e, r, r->seconds, &err);
    if (ok) {
        entry_path(e, "cu", path, sizeof path);
        ok = cache_write(path, material->data, material->len, &err);
    }
    if (!ok && verbose) {
        char text[1024];
        text_printf(stderr,
                    "tmcml: cubin cache: cannot write to %s (%s); compiled without caching\n",
                    e->dir, error_format(&err, text, sizeof text));
    }
}

/* ---- compiling ------------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *program_log(nvrtcProgram prog)
{
    size_t size = 0;
    char *log = NULL;
    if (nvrtc.GetProgramLogSize(prog, &size) == NVRTC_SUCCESS && (log = malloc(size + 1))) {
        if (size == 0 || nvrtc.GetProgramLog(prog, log) != NVRTC_SUCCESS)
            log[0] = '\0';
        log[size] = '\0';
    }
    return log ? log : strdup("");
}

/* One nvrtcCompileProgram of a fresh program; *prog is the caller's. */
static nvrtcResult nvrtc_compile(const render_output *src, const char *program, const char **names,
                                 const char **texts, const char *const *argv, int argc,
                                 nvrtcProgram *prog)
{
    nvrtcResult rc =
        nvrtc.CreateProgram(prog, src->source, program, (int)src->num_headers, texts, names);
    if (rc != NVRTC_SUCCESS) {
        *prog = NULL;
        return rc;
    }
    return nvrtc.CompileProgram(*prog, argc, argv);
}

static bool run_nvrtc(const render_output *src, const char *program, const option_list *o, int arch,
                      compile_result *out, tm_error *err)
{
    size_t nh = src->num_headers;
    const char **names = malloc((nh ? nh : 1) * sizeof *names);
    const char **texts = malloc((nh ? nh : 1) * sizeof *texts);
    nvrtcProgram prog = NULL;
    bool ok = false;
    if (!names || !texts) {
        error_set(err, NULL, 0, "out of memory compiling %s", program);
        goto done;
    }
    for (size_t i = 0; i < nh; i++) {
        names[i] = src->headers[i].name;
        texts[i] = src->headers[i].text ? src->headers[i].text : "";
    }
    double t0 = now_seconds();
    nvrtcResult rc = nvrtc_compile(src, program, names, texts, o->argv, o->argc, &prog);
    if (rc == NVRTC_ERROR_INVALID_OPTION && prog) {
        /* an NVRTC older than the option: compile again without it */
        const char *argv[MAX_OPTIONS];
        int argc = 0;
        for (int i = 0; i < o->argc; i++)
            if (strcmp(o->argv[i], NO_CACHE_OPTION) != 0)
                argv[argc++] = o->argv[i];
        nvrtc.DestroyProgram(&prog);
        t0 = now_seconds();
        rc = nvrtc_compile(src, program, names, texts, argv, argc, &prog);
    }
    if (!prog) {
        error_set(err, NULL, 0, "nvrtcCreateProgram(%s): %s", program, nvrtc.GetErrorString(rc));
        goto done;
    }
    out->log = program_log(prog);
    if (rc != NVRTC_SUCCESS) {
        compile_error(src, program, arch, rc, out->log, err);
        goto done;
    }
    size_t size = 0;
    if ((rc = nvrtc.GetCUBINSize(prog, &size)) != NVRTC_SUCCESS || size == 0 ||
        !(out->cubin = malloc(size)) || (rc = nvrtc.GetCUBIN(prog, out->cubin)) != NVRTC_SUCCESS) {
        error_set(err, NULL, 0, "nvrtcGetCUBIN(%s): %s", program,
                  rc != NVRTC_SUCCESS ? nvrtc.GetErrorString(rc) : "no cubin (or out of memory)");
        goto done;
    }
    out->cubin_size = size;
    if (!elf_magic(out->cubin, size)) {
        error_set(err, NULL, 0, "NVRTC returned a cubin for %s that is not an ELF file", program);
        goto done;
    }
    out->seconds = now_seconds() - t0;
    ptxas_parse(out->log, src->kernel_name, out);
    ok = true;
done:
    if (prog)
        nvrtc.DestroyProgram(&prog);
    free(names);
    free(texts);
    return ok;
}

bool compile_cubin(const render_output *src, const compile_options *opt, compile_result *out,
                   tm_error *err)
{
    result_init(out);
    if (!src || !src->source || !opt || opt->arch < 10 || opt->arch > 999) {
        error_set(err, NULL, 0, "compile_cubin: no source or a bad architecture (%d)",
                  opt ? opt->arch : 0);
        return false;
    }
    if (!nvrtc_ready(err) || !nvrtc_check_arch(opt->arch, err))
        return false;

    char program[300];
    snprintf(program, sizeof program, "%s.cu",
             src->kernel_name && src->kernel_name[0] ? src->kernel_name : "tmcml_kernel");
    option_list o;
    options_build(opt, &o);
    strbuf material = {0};
    key_material(src, program, &o, &material);
    if (material.failed) {
        error_set(err, NULL, 0, "out of memory compiling %s", program);
        return false;
    }

    cache_entry e;
    tm_error refused;
    bool cached = cache_dir_resolve(opt, e.dir, sizeof e.dir);
    if (cached && !dir_trust_check(e.dir, &refused)) {
        cached = false;
        if (opt->verbose) {
            char text[sizeof refused.file + sizeof refused.message + 8];
            text_printf(stderr, "tmcml: cubin cache %s not used: %s\n", e.dir,
                        error_format(&refused, text, sizeof text));
        }
    }
    if (cached) {
        snprintf(e.key, sizeof e.key, "%016llx%016llx",
                 (unsigned long long)hash_fnv1a(HASH_FNV1A_START, material.data, material.len),
                 (unsigned long long)hash_mix(material.data, material.len));
        const char *why;
        if (cache_load(&e, &material, out, &why)) {
            free(material.data);
            return true;
        }
        if (why && opt->verbose)
            text_printf(stderr, "tmcml: cubin cache: %s/%s: %s; rebuilding it\n", e.dir, e.key,
                        why);
    }
    bool ok = run_nvrtc(src, program, &o, opt->arch, out, err);
    if (ok && cached)
        cache_store(&e, &material, out, opt->verbose);
    free(material.data);
    return ok;
}
