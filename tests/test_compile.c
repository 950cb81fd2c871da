/* gen/compile.c: NVRTC to an sm_90 cubin (no GPU needed) and the cubin
 * cache: hits, corrupt, mismatching and swapped entries rebuilt, files that
 * are links to a device, unwritable directories and directories other users
 * can write, compile errors quoting the generated source, spill figures,
 * parallel compiles.  Exits 77 when NVRTC is not available. */
#include "check.h"
#include "fs.h"
#include "compile.h"
#include "mwc_kernel.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static const char kernel_source[] =
    "// a small kernel of the generated kind: the per-photon streams and the\n"
    "// fixed-point scale, from headers handed to NVRTC by name\n"
    "#include \"rng_mwc.h\"\n"
    "#include \"fixed_point.h\"\n"
    "\n" MWC_KERNEL_HEAD "    out[i] = fixed_point_from_weight(mwc_uniform(&s));\n"
    "}\n";

static const char broken_source[] = "#include \"rng_mwc.h\"\n"
                                    "extern \"C\" __global__ void broken(int *p)\n"
                                    "{\n"
                                    "    int x = 1\n"
                                    "    p[0] = x;\n"
                                    "}\n";

/* 48 accumulators live across a loop, with at most 32 registers a thread
 * (__launch_bounds__(1024, 2) on 64K registers): ptxas must spill. */
static const char spill_source[] = "extern \"C\" __global__ void __launch_bounds__(1024, 2)\n"
                                   "spill(const float *in, float *out, int n)\n"
                                   "{\n"
                                   "    float acc[48];\n"
                                   "#pragma unroll\n"
                                   "    for (int j = 0; j < 48; j++)\n"
                                   "        acc[j] = in[j * 1024 + threadIdx.x];\n"
                                   "    for (int i = 0; i < n; i++) {\n"
                                   "#pragma unroll\n"
                                   "        for (int j = 0; j < 48; j++)\n"
                                   "            acc[j] = acc[j] * acc[(j + 1) % 48] + in[i + j];\n"
                                   "    }\n"
                                   "    float s = 0.0f;\n"
                                   "#pragma unroll\n"
                                   "    for (int j = 0; j < 48; j++)\n"
                                   "        s += acc[j] * j;\n"
                                   "    out[threadIdx.x] = s;\n"
                                   "}\n";

static bool spit(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void rm_rf(const char *path) { nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* Number of files in dir ending in ext; the last one's path into path. */
static int find_entry(const char *dir, const char *ext, char *path, size_t size)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), m = strlen(ext);
        if (e->d_name[0] != '.' && n > m && strcmp(e->d_name + n - m, ext) == 0) {
            count++;
            if (path)
                snprintf(path, size, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return count;
}

static render_header headers[2];

static render_output make_source(const char *source, const char *kernel)
{
    render_output r = {0};
    r.source = (char *)source;
    r.kernel_name = (char *)kernel;
    r.num_headers = 2;
    r.headers = headers;
    return r;
}

static compile_options options(const char *cache_dir)
{
    compile_options o = {0};
    o.arch = 90;
    o.cache_dir = cache_dir;
    o.verbose = true;
    return o;
}

static bool compile(const render_output *src, const compile_options *o, compile_result *r)
{
    tm_error err = {0};
    bool ok = compile_cubin(src, o, r, &err);
    if (!ok)
        fprintf(stderr, "compile failed: %s\n", err.message);
    return ok;
}

static void test_cache(const char *dir)
{
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    compile_options o = options(dir);
    compile_result first, r;

    CHECK(compile(&src, &o, &first));
    CHECK(!first.from_cache);
    CHECK(first.cubin_size > 64 && memcmp(first.cubin, "\177ELF", 4) == 0);
    CHECK(first.registers > 0 && first.registers <= 255);
    CHECK(first.spill_stores == 0 && first.spill_loads == 0);
    CHECK(first.seconds > 0.0);
    CHECK(first.log && strstr(first.log, "Used "));
    printf("test kernel: %zu-byte sm_90 cubin in %.3f s, %d registers, %d bytes stack\n",
           first.cubin_size, first.seconds, first.registers, first.stack_bytes);

    /* a hit: same bytes and ptxas figures, no compile */
    CHECK(compile(&src, &o, &r));
    CHECK(r.from_cache);
    CHECK(r.seconds == 0.0);
    CHECK(r.cubin_size == first.cubin_size && memcmp(r.cubin, first.cubin, r.cubin_size) == 0);
    CHECK(r.registers == first.registers && r.stack_bytes == first.stack_bytes);
    CHECK(r.log && strcmp(r.log, first.log) == 0);
    compile_result_free(&r);

    char cubin[4096], cu[4096], info[4096];
    CHECK(find_entry(dir, ".cubin", cubin, sizeof cubin) == 1);
    CHECK(find_entry(dir, ".cu", cu, sizeof cu) == 1);
    CHECK(find_entry(dir, ".info", info, sizeof info) == 1);
    CHECK_MSG(strlen(strrchr(cubin, '/') + 1) == 32 + 6, "128-bit hex key: %s", cubin);

    /* truncated cubin (ELF magic kept) -> rebuilt, then a hit again */
    CHECK(truncate(cubin, 100) == 0);
    CHECK(compile(&src, &o, &r));
    CHECK(!r.from_cache);
    CHECK(r.cubin_size == first.cubin_size && memcmp(r.cubin, first.cubin, r.cubin_size) == 0);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);

    /* garbage of the right size -> rebuilt */
    char *junk = malloc(first.cubin_size);
    memset(junk, 0x5a, first.cubin_size);
    CHECK(spit(cubin, junk, first.cubin_size));
    free(junk);
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);

    /* empty cubin -> rebuilt */
    CHECK(spit(cubin, "", 0));
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);

    /* a different source under this key (a collision, or an edited file) ->
     * rebuilt and overwritten, then a hit */
    CHECK(spit(cu, "// another kernel\n", 18));
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    CHECK(r.cubin_size == first.cubin_size);
    compile_result_free(&r);
    char *stored = fs_read_text(cu, NULL, NULL);
    CHECK(stored && strstr(stored, "tmcml_test_kernel") && strstr(stored, "rng_mwc.h"));
    free(stored);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);

    /* unreadable info -> rebuilt */
    CHECK(spit(info, "nonsense\n", 9));
    CHECK(compile(&src, &o, &r) && !r.from_cache && r.registers == first.registers);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && r.from_cache && r.registers == first.registers);
    compile_result_free(&r);

    /* no temporary files left behind */
    DIR *d = opendir(dir);
    struct dirent *e;
    int dotfiles = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            dotfiles++;
    if (d)
        closedir(d);
    CHECK(dotfiles == 0);

    /* other options and other headers are other entries */
    o.fast_math = true;
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);
    CHECK(find_entry(dir, ".cubin", NULL, 0) == 2);
    o.fast_math = false;
    o.max_registers = 24;
    CHECK(compile(&src, &o, &r) && !r.from_cache && r.registers <= 24);
    compile_result_free(&r);
    o.max_registers = 0;
    const char *saved = headers[1].text;
    size_t len = strlen(saved);
    char *edited = malloc(len + 32);
    snprintf(edited, len + 32, "%s\n// edited\n", saved);
    headers[1].text = edited;
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);
    headers[1].text = saved;
    free(edited);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);

    compile_result_free(&first);
}

/* The entry of dir whose .cu holds text: its path without the extension
 * into stem. */
static bool entry_stem(const char *dir, const char *text, char *stem, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *cu = fs_read_text(path, NULL, NULL);
        if (cu && strstr(cu, text)) {
            snprintf(stem, size, "%.*s", (int)(strlen(path) - 3), path);
            found = true;
        }
        free(cu);
    }
    if (d)
        closedir(d);
    return found;
}

static bool swap_files(const char *a, const char *b, const char *tmp)
{
    return rename(a, tmp) == 0 && rename(b, a) == 0 && rename(tmp, b) == 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Each file of the entry stem (the test kernel's, whose cubin is *want) a
 * link to a device that never ends (a private /dev/zero made with mknod; the
 * real one is never touched): read no further than the bound, the entry
 * rebuilt and the links replaced by files.  In a child whose address space
 * is limited to 1 GiB more than it has, so that a reader without a bound
 * fills that and shows in its peak memory, instead of filling the machine
 * (not under AddressSanitizer, whose shadow needs terabytes of addresses). */
static void device_cases(const char *zero, const char *stem, const compile_result *want)
{
    static const char *const exts[] = {".cu", ".info", ".cubin"};
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    compile_options o = options(NULL);
    char dir[4200], path[4200];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(stem, '/') - stem), stem);
    o.cache_dir = dir;
    for (int i = 0; i < 3; i++) {
        compile_result r;
        snprintf(path, sizeof path, "%s%s", stem, exts[i]);
        CHECK(remove(path) == 0 && symlink(zero, path) == 0);
        CHECK(compile(&src, &o, &r) && !r.from_cache);
        CHECK(r.cubin_size == want->cubin_size && memcmp(r.cubin, want->cubin, r.cubin_size) == 0);
        compile_result_free(&r);
        struct stat st;
        CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
        CHECK(compile(&src, &o, &r) && r.from_cache);
        compile_result_free(&r);
    }
}

static void test_cache_device(const char *base, const char *stem, const compile_result *want)
{
    char zero[4200];
    snprintf(zero, sizeof zero, "%s/zero", base);
    if (mknod(zero, S_IFCHR | 0600, makedev(1, 5)) != 0) {
        printf("mknod: %s: the /dev/zero cases skipped (they need root)\n", strerror(errno));
        return;
    }
#ifdef UNDER_ASAN
    device_cases(zero, stem, want);
#else
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        check_failures = 0; /* the child's own, reported by its exit status */
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (f && fscanf(f, "%ld", &pages) == 1) {
            rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30);
            setrlimit(RLIMIT_AS, &(struct rlimit){limit, limit});
        }
        if (f)
            fclose(f);
        device_cases(zero, stem, want);
        _exit(check_failures ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && wait4(pid, &status, 0, &after) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the /dev/zero cases failed");
    CHECK_MSG(after.ru_maxrss < before.ru_maxrss + 256 * 1024,
              "reading the entry took %ld kB (the test before: %ld kB)", after.ru_maxrss,
              before.ru_maxrss);
#endif
    remove(zero);
}

/* An entry's files put in place of another's: never loaded. */
static void test_cache_mixups(const char *base)
{
    char dir[4096], a[4096], b[4096];
    snprintf(dir, sizeof dir, "%s/mixups", base);
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    render_output other = make_source(spill_source, "spill");
    compile_options o = options(dir);
    compile_result ra, rb, r;
    CHECK(compile(&src, &o, &ra) && compile(&other, &o, &rb));
    CHECK(ra.cubin_size != rb.cubin_size || memcmp(ra.cubin, rb.cubin, ra.cubin_size) != 0);
    CHECK(entry_stem(dir, "tmcml_test_kernel", a, sizeof a) &&
          entry_stem(dir, "spill", b, sizeof b));

    /* the .cubin and .info of the two entries swapped: each key rebuilds its
     * own kernel (before, each loaded the other's as "cached") */
    char pa[4200], pb[4200], tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/swap.tmp", dir);
    const char *const exts[] = {".cubin", ".info"};
    for (int i = 0; i < 2; i++) {
        snprintf(pa, sizeof pa, "%s%s", a, exts[i]);
        snprintf(pb, sizeof pb, "%s%s", b, exts[i]);
        CHECK(swap_files(pa, pb, tmp));
    }
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    CHECK(r.cubin_size == ra.cubin_size && memcmp(r.cubin, ra.cubin, r.cubin_size) == 0);
    compile_result_free(&r);
    CHECK(compile(&other, &o, &r) && !r.from_cache);
    CHECK(r.cubin_size == rb.cubin_size && memcmp(r.cubin, rb.cubin, r.cubin_size) == 0);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);

    test_cache_device(base, a, &ra);
    compile_result_free(&ra);
    compile_result_free(&rb);
}

static void test_cache_locations(const char *base)
{
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    compile_result r;
    char dir[4096], file[2048];

    /* a regular file where a directory should be: compiles, caches nothing
     * (chmod would not do: the tests may run as root) */
    snprintf(file, sizeof file, "%.1000s/not_a_dir", base);
    CHECK(spit(file, "x", 1));
    snprintf(dir, sizeof dir, "%s/sub/cache", file);
    compile_options o = options(dir);
    CHECK(compile(&src, &o, &r) && !r.from_cache && r.cubin_size > 0);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);

    /* a directory other users can write is not used: every kernel compiled,
     * nothing written there, and compile_cache_check says why */
    snprintf(dir, sizeof dir, "%s/shared", base);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0775) == 0);
    o = options(dir);
    for (int i = 0; i < 2; i++) {
        CHECK(compile(&src, &o, &r) && !r.from_cache);
        compile_result_free(&r);
    }
    CHECK(find_entry(dir, ".cubin", NULL, 0) == 0);
    char where[4096];
    tm_error why = {0};
    CHECK(!compile_cache_check(&o, where, sizeof where, &why) && strcmp(where, dir) == 0);
    CHECK_CONTAINS(why.message, "writable by its group (mode 0775, not sticky)");
    CHECK(chmod(dir, 0700) == 0 && compile_cache_check(&o, where, sizeof where, &why));
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);
    /* sticky, as /tmp: used, but an entry file of another user is not read
     * (chown needs root) */
    CHECK(chmod(dir, 01777) == 0);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);
    char cubin[4096];
    CHECK(find_entry(dir, ".cubin", cubin, sizeof cubin) == 1);
    if (chown(cubin, 54321, 54321) == 0) {
        CHECK(compile(&src, &o, &r) && !r.from_cache);
        compile_result_free(&r);
        CHECK(compile(&src, &o, &r) && r.from_cache); /* replaced by this user's */
        compile_result_free(&r);
    }

    /* "" disables the cache */
    o = options("");
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);

    /* NULL: $TMCML_CACHE_DIR (created with its parents), else
     * $XDG_CACHE_HOME/tmcml */
    snprintf(dir, sizeof dir, "%s/env/a/b", base);
    setenv("TMCML_CACHE_DIR", dir, 1);
    o = options(NULL);
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);
    CHECK(find_entry(dir, ".cubin", NULL, 0) == 1);
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);
    unsetenv("TMCML_CACHE_DIR");
    snprintf(dir, sizeof dir, "%s/xdg", base);
    setenv("XDG_CACHE_HOME", dir, 1);
    CHECK(compile(&src, &o, &r) && !r.from_cache);
    compile_result_free(&r);
    snprintf(dir, sizeof dir, "%s/xdg/tmcml", base);
    CHECK(find_entry(dir, ".cubin", NULL, 0) == 1);
    unsetenv("XDG_CACHE_HOME");
}

static void test_errors(void)
{
    render_output src = make_source(broken_source, "broken");
    compile_options o = options("");
    compile_result r;
    tm_error err = {0};

    CHECK(!compile_cubin(&src, &o, &r, &err));
    CHECK_CONTAINS(err.message, "broken.cu(5): error: expected a \";\"");
    CHECK_CONTAINS(err.message, ">     5 |     p[0] = x;"); /* the offending line, numbered */
    CHECK_CONTAINS(err.message, "      4 |     int x = 1");
    CHECK(r.log && strstr(r.log, "error"));
    CHECK(r.cubin == NULL);
    printf("--- a compile error as the user sees it:\n%s\n---\n", err.message);
    compile_result_free(&r);

    /* an error inside a header quotes the header */
    const char *good = headers[0].text;
    headers[0].text = "#pragma once\nstatic __device__ int f() { return undefined_name; }\n";
    render_output hsrc = make_source("#include \"rng_mwc.h\"\n", "h");
    CHECK(!compile_cubin(&hsrc, &o, &r, &err));
    CHECK_CONTAINS(err.message, "rng_mwc.h(2): error");
    CHECK_CONTAINS(err.message, "undefined_name; }");
    compile_result_free(&r);
    headers[0].text = good;

    /* an architecture this NVRTC cannot target */
    src = make_source(kernel_source, "tmcml_test_kernel");
    o.arch = 50;
    CHECK(!compile_cubin(&src, &o, &r, &err));
    CHECK_CONTAINS(err.message, "cannot compile for sm_50");
    compile_result_free(&r);

    /* bad arguments */
    o.arch = 0;
    CHECK(!compile_cubin(&src, &o, &r, &err));
    compile_result_free(&r);
}

/* Twice without our cache: with a driver present NVRTC 13 has a cache of its
 * own, and a hit there would skip ptxas and its figures (compile.c passes
 * --no-cache). */
static void test_spill(void)
{
    render_output src = make_source(spill_source, "spill");
    compile_options o = options("");
    for (int i = 0; i < 2; i++) {
        compile_result r;
        CHECK(compile(&src, &o, &r));
        CHECK_MSG(r.spill_stores > 0 && r.spill_loads > 0, "spill stores %d loads %d",
                  r.spill_stores, r.spill_loads);
        CHECK(r.registers > 0 && r.registers <= 32);
        if (i == 0)
            printf("spilling kernel: %d registers, %d bytes spill stores, %d bytes spill "
                   "loads\n",
                   r.registers, r.spill_stores, r.spill_loads);
        compile_result_free(&r);
    }
}

/* Several threads compile into one cache at once: the same kernel (racing
 * writers of one entry) and different ones. */
typedef struct job {
    const char *dir;
    bool fast_math;
    bool ok;
    size_t size;
} job;

static void *compile_job(void *arg)
{
    job *j = arg;
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    compile_options o = options(j->dir);
    o.fast_math = j->fast_math;
    compile_result r;
    tm_error err;
    j->ok = compile_cubin(&src, &o, &r, &err);
    j->size = r.cubin_size;
    compile_result_free(&r);
    return NULL;
}

static void test_parallel(const char *base)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/parallel", base);
    pthread_t t[6];
    job jobs[6];
    for (int i = 0; i < 6; i++) {
        jobs[i] = (job){.dir = dir, .fast_math = i % 2};
        CHECK(pthread_create(&t[i], NULL, compile_job, &jobs[i]) == 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].ok && jobs[i].size > 0);
    }
    CHECK(find_entry(dir, ".cubin", NULL, 0) == 2);
    render_output src = make_source(kernel_source, "tmcml_test_kernel");
    compile_options o = options(dir);
    compile_result r;
    CHECK(compile(&src, &o, &r) && r.from_cache);
    compile_result_free(&r);
}

/* A GPU checkpoint names NVRTC as the cache key does (issue 21): the
 * release carries the library's size and mtime that the key material of an
 * entry in dir records, so a patch release of the same major.minor is
 * another release. */
static void test_release(const char *dir, const char *version)
{
    char release[96], cu[4096], want[128];
    tm_error err = {0};
    CHECK(compile_nvrtc_release(release, sizeof release, &err));
    printf("NVRTC release: %s\n", release);
    CHECK(strncmp(release, version, strlen(version)) == 0);
    char *open = strchr(release, '(');
    CHECK(open && strstr(release, " bytes, mtime "));
    CHECK(find_entry(dir, ".cu", cu, sizeof cu) > 0);
    char *material = fs_read_text(cu, NULL, &err);
    snprintf(want, sizeof want, ", %.*s\n", open ? (int)strcspn(open + 1, ")") : 0,
             open ? open + 1 : "");
    CHECK_MSG(material && strstr(material, want), "the key material lacks \"%s\"", want);
    free(material);
}

static int no_nvrtc(void)
{
    setenv("TMCML_NVRTC", "/nonexistent/libnvrtc.so.13", 1);
    char version[32] = "x";
    tm_error err = {0};
    CHECK(!compile_nvrtc_available(version, sizeof version, &err));
    CHECK(version[0] == '\0');
    CHECK_CONTAINS(err.message, "NVRTC");
    render_output src = {.source = (char *)"", .kernel_name = (char *)"k"};
    compile_options o = {.arch = 90, .cache_dir = ""};
    compile_result r;
    CHECK(!compile_cubin(&src, &o, &r, &err));
    CHECK(r.cubin == NULL);
    compile_result_free(&r);
    printf("without NVRTC: %s\n", err.message);
    return check_summary("test_compile no-nvrtc");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "no-nvrtc") == 0)
        return no_nvrtc();

    char version[32];
    tm_error err = {0};
    if (!compile_nvrtc_available(version, sizeof version, &err)) {
        printf("NVRTC not available: skipped (%s)\n", err.message);
        return 77;
    }
    printf("NVRTC %s\n", version);

    /* The headers the generated kernels include, as embedded in the binary. */
    static const char *const names[2] = {"rng_mwc.h", "fixed_point.h"};
    for (int i = 0; i < 2; i++)
        headers[i] = (render_header){names[i], render_embedded(names[i])->text};

    char base[] = "/tmp/tmcml_test_compile.XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cache", base);

    test_cache(dir);
    test_release(dir, version);
    test_cache_locations(base);
    test_cache_mixups(base);
    test_errors();
    test_spill();
    test_parallel(base);

    rm_rf(base);
    return check_summary("test_compile");
}
